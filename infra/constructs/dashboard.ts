import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { DispatcherFunction } from './dispatcher-function.ts';
import type { FailureInsights } from './failure-insights.ts';
import { type GlobalMetricName, type RunMetricName, stackMetric } from './job-metrics.ts';
import type { OnCallAlarms } from './on-call-alarms.ts';
import type { RecorderFunction } from './recorder-function.ts';
import type { Scheduling } from './scheduling.ts';

/** Properties of {@link ZonecronDashboard}. */
export interface ZonecronDashboardProps {
  readonly dispatcher: DispatcherFunction;
  readonly recorder: RecorderFunction;
  readonly scheduling: Scheduling;
  readonly deadLetterQueue: DeadLetterQueue;
  readonly alarms: OnCallAlarms;
  readonly insights: FailureInsights;
  /**
   * Period of the graphs.
   *
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
}

/** Logs Insights queries over the dispatcher's decision lines, per job. */
export const TOP_JOBS_QUERIES = {
  failures: [
    'filter decision in ["delivery-failed", "dead-lettered"]',
    'stats count(*) as failures by jobId',
    'sort failures desc',
    'limit 20',
  ],
  lag: [
    'filter decision in ["dispatched", "caught-up", "late"]',
    'stats max(lagMs) / 1000 as maxLagSeconds, pct(lagMs, 99) / 1000 as p99LagSeconds, count(*) as runs by jobId',
    'sort maxLagSeconds desc',
    'limit 20',
  ],
  misses: [
    'filter decision in ["missed", "stuck"] or decision like /^late/',
    'stats count(*) as signals by jobId, decision',
    'sort signals desc',
    'limit 20',
  ],
  recorderFailures: [
    'filter decision = "failed"',
    'stats count(*) as failedRuns by jobId',
    'sort failedRuns desc',
    'limit 20',
  ],
} as const;

/**
 * The zonecron dashboard: a fixed set of widgets whatever the number of jobs.
 *
 * Stack-wide numbers are graphs of the `{Stack}` metrics every job feeds; per-job numbers
 * (which jobs failed, ran late, were missed) are Logs Insights tables over the dispatcher's
 * and recorder's decision lines, and a Contributor Insights graph of the jobs with the most
 * failure decisions. Then the machinery and the state of the stack's alarms. No search
 * expression over per-job metrics: ordinary jobs publish none.
 */
export class ZonecronDashboard extends Construct {
  /** The CloudWatch dashboard (output `DashboardName`). */
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ZonecronDashboardProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const period = props.period ?? Duration.minutes(5);
    const metric = (name: RunMetricName | GlobalMetricName, statistic = 'Sum') =>
      stackMetric(name, stackName, { period, statistic, label: name });
    const graph = (title: string, width: number, left: cloudwatch.IMetric[]) =>
      new cloudwatch.GraphWidget({ title, width, height: 6, left });
    const table = (title: string, logGroupName: string, lines: readonly string[]) =>
      new cloudwatch.LogQueryWidget({
        title,
        width: 8,
        height: 6,
        logGroupNames: [logGroupName],
        queryLines: [...lines],
        view: cloudwatch.LogQueryVisualizationType.TABLE,
      });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(1),
    });
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# zonecron ${stackName}\nRuns, lag and failures of all jobs; the jobs behind them in the tables below. Alarms of jobs with \`alarm.dedicated\` are named \`${stackName}-job-<id>-<signal>\`. Runbook: docs/runbook.md`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('Runs', 12, [
        metric('Dispatched'),
        metric('CaughtUp'),
        metric('RunSucceeded'),
        metric('DuplicatesSuppressed'),
      ]),
      graph('Dispatch lag (seconds)', 12, [
        metric('DispatchLagSeconds', 'Maximum'),
        metric('DispatchLagSeconds', 'p99'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Failures', 8, [
        metric('DeliveryFailures'),
        metric('DeadLettered'),
        metric('RunFailed'),
      ]),
      graph('Missed, late, stuck, past deadline', 8, [
        metric('MissedRuns'),
        metric('LateRuns'),
        metric('StuckRuns'),
        metric('DeadlineMissedRuns'),
        metric('CatchupDropped'),
        metric('Redelivered'),
      ]),
      graph('Skipped, rejected, notified', 8, [
        metric('SkippedOverlap'),
        metric('SkippedPaused'),
        metric('RejectedTicks'),
        metric('MalformedEvents'),
        metric('ForgedCompletions'),
        metric('UnknownJobEvents'),
        metric('DisabledJobEvents'),
        metric('NotificationsSent'),
        metric('NotificationFailures'),
        metric('ZoneDataDrift'),
      ]),
    );
    const dispatcherLogs = props.dispatcher.logGroup.logGroupName;
    this.dashboard.addWidgets(
      table('Top jobs by failures', dispatcherLogs, TOP_JOBS_QUERIES.failures),
      table('Top jobs by dispatch lag', dispatcherLogs, TOP_JOBS_QUERIES.lag),
      table('Top jobs by missed, late, stuck', dispatcherLogs, TOP_JOBS_QUERIES.misses),
    );
    this.dashboard.addWidgets(
      new ContributorInsightsWidget({
        title: 'Jobs with the most failure decisions (Contributor Insights)',
        ruleName: props.insights.ruleName,
        width: 16,
        height: 6,
      }),
      table(
        'Top jobs by failed runs (recorder)',
        props.recorder.logGroup.logGroupName,
        TOP_JOBS_QUERIES.recorderFailures,
      ),
    );
    this.dashboard.addWidgets(
      graph('Dispatcher', 8, [
        props.dispatcher.metricErrors({ period }),
        props.dispatcher.metricThrottles({ period }),
        props.dispatcher.metricDurationMs({ period }),
      ]),
      graph('EventBridge Scheduler', 8, [
        props.scheduling.metricDropped({ period }),
        props.scheduling.metricFailedToBeSentToDeadLetter({ period }),
      ]),
      graph('Dead-letter queue', 8, [props.deadLetterQueue.metricMessagesVisible({ period })]),
    );
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        width: 24,
        height: 4,
        alarms: [...props.alarms.alarms.values()],
      }),
    );
  }

  /** The dashboard's name. */
  get dashboardName(): string {
    return this.dashboard.dashboardName;
  }
}

/** Properties of {@link ContributorInsightsWidget}. */
interface ContributorInsightsWidgetProps {
  readonly title: string;
  readonly ruleName: string;
  readonly width: number;
  readonly height: number;
  /** @default 10 */
  readonly maxContributorCount?: number;
}

/**
 * A graph of a Contributor Insights rule's top contributors (the dashboard body's `insightRule`
 * metric widget property), which aws-cdk-lib has no widget for.
 */
class ContributorInsightsWidget extends cloudwatch.ConcreteWidget {
  constructor(private readonly props: ContributorInsightsWidgetProps) {
    super(props.width, props.height);
  }

  toJson(): unknown[] {
    return [
      {
        type: 'metric',
        width: this.width,
        height: this.height,
        x: this.x,
        y: this.y,
        properties: {
          title: this.props.title,
          region: Aws.REGION,
          view: 'timeSeries',
          stacked: false,
          insightRule: {
            maxContributorCount: this.props.maxContributorCount ?? 10,
            orderBy: 'Sum',
            ruleName: this.props.ruleName,
          },
          period: 300,
        },
      },
    ];
  }
}
