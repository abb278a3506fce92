import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { DispatcherFunction } from './dispatcher-function.ts';
import { everyJobSearch, type RunMetricName } from './job-metrics.ts';
import type { JobSchedules } from './job-schedules.ts';
import type { OnCallAlarms } from './on-call-alarms.ts';

/** Properties of {@link ZonecronDashboard}. */
export interface ZonecronDashboardProps {
  readonly dispatcher: DispatcherFunction;
  readonly schedules: JobSchedules;
  readonly deadLetterQueue: DeadLetterQueue;
  readonly alarms: OnCallAlarms;
  /**
   * Period of the per-job graphs.
   *
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
}

/** The failure counters shown per job, one line per job each. */
const FAILURE_METRICS: readonly RunMetricName[] = [
  'DeliveryFailures',
  'DeadLettered',
  'RunFailed',
  'MissedRuns',
  'LateRuns',
  'StuckRuns',
];

/**
 * The zonecron dashboard: runs, lag, duplicates suppressed and failures per job, then the
 * machinery (dispatcher, Scheduler, dead-letter queue) and every alarm's state.
 *
 * Per-job graphs use CloudWatch search expressions, so a job added to jobs.yaml shows up
 * without anyone editing the dashboard, and a 500-job config does not hit the per-graph
 * metric limit.
 */
export class ZonecronDashboard extends Construct {
  /** The CloudWatch dashboard (output `DashboardName`). */
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ZonecronDashboardProps) {
    super(scope, id);
    const period = props.period ?? Duration.minutes(5);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(1),
    });
    const graph = (title: string, metric: RunMetricName, statistic: string, label: string) =>
      new cloudwatch.GraphWidget({
        title,
        width: 12,
        height: 6,
        left: [everyJobSearch(metric, statistic, period, label)],
        legendPosition: cloudwatch.LegendPosition.RIGHT,
      });

    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown:
          '# zonecron\nRuns per job, how late they went out, duplicates the ledger suppressed, and every failure counter. Runbook: docs/runbook.md',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('Runs dispatched per job', 'Dispatched', 'Sum', 'runs'),
      graph('Dispatch lag per job (seconds, max)', 'DispatchLagSeconds', 'Maximum', 'lag s'),
    );
    this.dashboard.addWidgets(
      graph('Duplicates suppressed per job', 'DuplicatesSuppressed', 'Sum', 'duplicates'),
      graph('Runs succeeded per job (lambda, stepfunctions)', 'RunSucceeded', 'Sum', 'succeeded'),
    );
    const failureWidgets = FAILURE_METRICS.map(
      (metric) =>
        new cloudwatch.GraphWidget({
          title: `${metric} per job`,
          width: 8,
          height: 6,
          left: [everyJobSearch(metric, 'Sum', period, metric)],
          legendPosition: cloudwatch.LegendPosition.BOTTOM,
        }),
    );
    this.dashboard.addWidgets(...failureWidgets.slice(0, 3));
    this.dashboard.addWidgets(...failureWidgets.slice(3));
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Dispatcher',
        width: 8,
        height: 6,
        left: [
          props.dispatcher.metricErrors({ period }),
          props.dispatcher.metricThrottles({ period }),
        ],
        right: [props.dispatcher.metricDurationMs({ period })],
      }),
      new cloudwatch.GraphWidget({
        title: 'EventBridge Scheduler',
        width: 8,
        height: 6,
        left: [
          props.schedules.metricDropped({ period }),
          props.schedules.metricFailedToBeSentToDeadLetter({ period }),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Dead-letter queue',
        width: 8,
        height: 6,
        left: [props.deadLetterQueue.metricMessagesVisible({ period })],
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        width: 24,
        height: 6,
        alarms: [...props.alarms.alarms.values()],
      }),
    );
  }

  /** The dashboard's name. */
  get dashboardName(): string {
    return this.dashboard.dashboardName;
  }
}
