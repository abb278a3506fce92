import type { Command } from 'commander';
import { DateTime } from 'luxon';
import { formatUtc } from '#text/zone-time.ts';
import type {
  GapPolicy,
  NeverRunsReason,
  OverlapPolicy,
  ScheduleSpec,
} from '../../functions/schedule/index.ts';
import { usageError } from '../errors.ts';
import { type Colours, coloursFor } from '../format/colour.ts';
import type { DstNight } from '../format/dst-nights.ts';
import { wrap } from '../format/table.ts';
import { type InstantInput, instantArgument } from '../instant.ts';
import { gapOption, overlapOption } from '../options.ts';
import { asUsage, checkZone, sentenceOf } from '../schedule-input.ts';

interface ExplainOptions {
  tz?: string;
  /** Read in `--tz` when it is a date or a local time. */
  after?: InstantInput;
  gap?: GapPolicy;
  overlap?: OverlapPolicy;
  jobId?: string;
  json?: boolean;
}

/** How far ahead `--tz` looks for DST nights. */
const LOOKAHEAD_MONTHS = 12;

const EXAMPLE = `
Examples:
  $ zonecron explain "0 0 13 * FRI"
  at 00:00 on the 13th of the month or on Friday (either matches)
  $ zonecron explain "30 2 * * *" --tz Europe/Berlin
  adds the schedule's DST policies and, for each clock change in the next 12
  months, what happens to its runs that night.`;

/** `zonecron explain`: an expression in plain English, and what DST nights do to it. */
export function registerExplain(program: Command): void {
  program
    .command('explain')
    .description('say in plain English when an expression runs, and what DST nights do to it')
    .argument('<expression>', 'five-field cron expression (quote it)')
    .option('--tz <zone>', 'IANA time zone: also say what its DST nights do to the schedule')
    .option(
      '--after <instant>',
      `DST nights in the ${LOOKAHEAD_MONTHS} months after this instant (default: now; a date or local time in --tz)`,
      instantArgument,
    )
    .addOption(gapOption())
    .addOption(overlapOption())
    .option('--job-id <id>', 'job id: say which values H (hash) fields pick')
    .option('--json', 'print one JSON document')
    .addHelpText('after', EXAMPLE)
    .action(runExplain);
}

/** What the zone does to the schedule: its policies and its DST nights. */
interface ZoneReport {
  readonly zone: string;
  readonly after: Date;
  readonly policies: string;
  readonly nights: readonly DstNight[];
  /** Why the schedule never runs in the zone after `after`; undefined when it runs. */
  readonly never: NeverRunsReason | undefined;
}

async function zoneReport(
  expression: string,
  zone: string,
  options: ExplainOptions,
): Promise<ZoneReport> {
  const { dstNights, policySummary } = await import('../format/dst-nights.ts');
  const { nextRun } = await import('../../functions/schedule/index.ts');
  await checkZone(zone);
  const { resolveInstant } = await import('../instant.ts');
  const dst = {
    ...(options.gap ? { gap: options.gap } : {}),
    ...(options.overlap ? { overlap: options.overlap } : {}),
  };
  const spec: ScheduleSpec = {
    cron: expression,
    timezone: zone,
    ...(options.jobId ? { jobId: options.jobId } : {}),
    ...(options.gap || options.overlap ? { dst } : {}),
  };
  const now = new Date();
  const after = options.after ? resolveInstant(options.after, { zone, now }) : now;
  const until = DateTime.fromJSDate(after, { zone: 'UTC' })
    .plus({ months: LOOKAHEAD_MONTHS })
    .toJSDate();
  return asUsage(() => {
    const answer = nextRun(spec, after);
    return {
      zone,
      after,
      policies: policySummary(spec),
      nights: dstNights(spec, after, until),
      never: answer.kind === 'never' ? answer.reason : undefined,
    };
  });
}

function render(
  sentence: string,
  hint: string | undefined,
  report: ZoneReport | undefined,
  c: Colours,
  neverLines: (reason: NeverRunsReason) => string[],
) {
  const out = [wrap(sentence, '')];
  if (hint !== undefined) out.push(c.yellow(wrap(hint, 'hint: ')));
  if (report === undefined) return out;
  out.push('', wrap(report.policies, ''), '');
  if (report.never !== undefined) out.push(...neverLines(report.never).map((l) => c.yellow(l)), '');
  const window = `in the ${LOOKAHEAD_MONTHS} months after ${formatUtc(report.after)}`;
  if (report.nights.length === 0) {
    out.push(wrap(`${report.zone} does not change its clocks ${window}`, ''));
    return out;
  }
  out.push(`DST nights ${window}:`);
  for (const night of report.nights) {
    out.push(wrap(night.title, '  '));
    for (const line of night.lines) out.push(c.yellow(wrap(line, '    ')));
  }
  return out;
}

async function runExplain(expression: string, options: ExplainOptions): Promise<void> {
  if (options.tz === undefined && (options.after || options.gap || options.overlap)) {
    throw usageError('--after, --gap and --overlap need --tz <zone>');
  }
  const { cronHint } = await import('../../infra/config/cron-hint.ts');
  const { neverJson, neverLines } = await import('../format/run-preview.ts');
  const sentence = await sentenceOf(expression, options.jobId);
  const hint = cronHint(expression)?.text;
  const report =
    options.tz === undefined ? undefined : await zoneReport(expression, options.tz, options);

  if (options.json) {
    const doc = {
      expression,
      sentence,
      ...(report ? { timezone: report.zone } : {}),
      ...(report
        ? {
            dst: report.nights.map((night) => ({
              at: night.at.toISOString(),
              kind: night.kind,
              title: night.title,
              lines: night.lines,
            })),
          }
        : {}),
      ...(report?.never ? { never: neverJson(report.never) } : {}),
      ...(hint ? { hint } : {}),
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const lines = render(sentence, hint, report, coloursFor(process.stdout), neverLines);
  process.stdout.write(`${lines.join('\n')}\n`);
}
