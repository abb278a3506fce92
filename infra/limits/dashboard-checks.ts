/**
 * The limits of a CloudWatch dashboard's body: widgets, metrics per widget and in all, alarms
 * per alarm status widget. The body is JSON written by CDK with deploy-time values in it; it is
 * read with those replaced by placeholders (`intrinsics.ts`).
 */
import { AWS_LIMITS } from './aws-limits.ts';
import { resolveForSize } from './intrinsics.ts';
import type { ResourceContext } from './resource-context.ts';
import { over } from './violation.ts';

/** What a search expression can return at most, counted as that many metrics. */
const SEARCH_RESULTS = 500;

interface Widget {
  readonly type?: string;
  readonly properties?: {
    readonly title?: string;
    readonly metrics?: unknown[];
    readonly alarms?: unknown[];
    readonly insightRule?: unknown;
  };
}

/** The metrics a widget draws; a SEARCH counts as the 500 series it may return. */
export function widgetMetricCount(widget: Widget): number {
  if (widget.properties?.insightRule !== undefined) return 1;
  let count = 0;
  for (const entry of widget.properties?.metrics ?? []) {
    const last = Array.isArray(entry) ? entry.at(-1) : undefined;
    const expression =
      last !== null && typeof last === 'object'
        ? (last as { expression?: unknown }).expression
        : undefined;
    count += typeof expression === 'string' && /SEARCH\s*\(/i.test(expression) ? SEARCH_RESULTS : 1;
  }
  return count;
}

/** Checks one `AWS::CloudWatch::Dashboard` body. */
export function checkDashboard(id: string, body: unknown, context: ResourceContext): void {
  const text = resolveForSize(body);
  let parsed: { widgets?: Widget[] };
  try {
    parsed = JSON.parse(typeof text === 'string' ? text : JSON.stringify(text));
  } catch (error) {
    context.report({
      template: context.file,
      where: id,
      limit: 'syntax',
      message: `${context.file}: ${id}: the dashboard body is not JSON (${(error as Error).message})`,
    });
    return;
  }
  const widgets = parsed.widgets ?? [];
  if (widgets.length > AWS_LIMITS.widgetsPerDashboard.max) {
    context.report(over(context.file, id, 'widgetsPerDashboard', widgets.length));
  }
  let metrics = 0;
  widgets.forEach((widget, index) => {
    const where = `${id} widget ${index + 1} '${widget.properties?.title ?? widget.type}'`;
    const count = widgetMetricCount(widget);
    metrics += count;
    if (count > AWS_LIMITS.metricsPerWidget.max) {
      context.report(over(context.file, where, 'metricsPerWidget', count));
    }
    const alarms = widget.type === 'alarm' ? (widget.properties?.alarms?.length ?? 0) : 0;
    if (alarms > AWS_LIMITS.alarmsPerAlarmWidget.max) {
      context.report(over(context.file, where, 'alarmsPerAlarmWidget', alarms));
    }
  });
  if (metrics > AWS_LIMITS.metricsPerDashboard.max) {
    context.report(over(context.file, id, 'metricsPerDashboard', metrics));
  }
}
