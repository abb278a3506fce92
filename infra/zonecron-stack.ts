/**
 * The zonecron stack: one environment-agnostic CloudFormation stack built from a validated
 * jobs config (architecture §2) and the UTC covering expressions (§3).
 */
import { App, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { DEFAULT_STACK_NAME as DEFAULT_STACK_NAME_VALUE } from '../functions/shared/defaults.ts';
import type { JobDefinition } from '../functions/shared/job.ts';
import type { JobsConfig } from './config/load-jobs.ts';
import { CompletionTracking } from './constructs/completion-tracking.ts';
import { ZonecronDashboard } from './constructs/dashboard.ts';
import { DeadLetterQueue } from './constructs/dead-letter-queue.ts';
import { DispatcherFunction } from './constructs/dispatcher-function.ts';
import { JobSchedules } from './constructs/job-schedules.ts';
import { LedgerTable } from './constructs/ledger-table.ts';
import { OnCallAlarms } from './constructs/on-call-alarms.ts';
import { RecorderFunction } from './constructs/recorder-function.ts';
import { type CoveringSchedule, coveringSchedule } from './covering/covering-cron.ts';
import { createJobsBundle } from './jobs-bundle-file.ts';
import { addNagChecks } from './nag.ts';

export { DEFAULT_STACK_NAME } from '../functions/shared/defaults.ts';

/** One enabled job, its UTC covering schedule, and what the synth table prints. */
export interface JobCovering {
  readonly job: JobDefinition;
  readonly covering: CoveringSchedule;
}

/** Properties of {@link ZonecronStack}. */
export interface ZonecronStackProps extends StackProps {
  /** The validated jobs config (`loadJobsFile`). */
  readonly config: JobsConfig;
  /**
   * The instant the covering expressions are computed from (two years onward).
   *
   * Read from the clock once, in `infra/app.ts`; the tests pass a fixed instant.
   */
  readonly synthTime: Date;
}

/** A job whose covering expression could not be computed; names the job. */
export class CoveringError extends Error {
  readonly jobId: string;

  constructor(jobId: string, cause: unknown) {
    super(
      `job '${jobId}': cannot compute its UTC covering schedule: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = new.target.name;
    this.jobId = jobId;
  }
}

/**
 * Everything zonecron deploys: the ledger, the dead-letter queue, the dispatcher, one UTC
 * schedule per enabled job plus the sweep, the recorder with its completion wiring, the
 * on-call alarms and the dashboard.
 *
 * No account or region is hard-coded; `cdk deploy` takes them from the caller's credentials.
 */
export class ZonecronStack extends Stack {
  readonly ledger: LedgerTable;
  readonly deadLetterQueue: DeadLetterQueue;
  readonly dispatcher: DispatcherFunction;
  readonly schedules: JobSchedules;
  readonly recorder: RecorderFunction;
  readonly completion: CompletionTracking;
  readonly alarms: OnCallAlarms;
  readonly dashboard: ZonecronDashboard;
  /** The enabled jobs in file order with their covering schedules. */
  readonly coverings: readonly JobCovering[];

  constructor(scope: Construct, id: string, props: ZonecronStackProps) {
    super(scope, id, {
      description: 'zonecron: time-zone-correct scheduled jobs on EventBridge Scheduler',
      ...props,
    });
    const { config, synthTime } = props;
    const jobs = config.jobs;

    this.coverings = jobs
      .filter((job) => job.enabled)
      .map((job) => {
        try {
          return { job, covering: coveringSchedule(job, synthTime) };
        } catch (error) {
          throw new CoveringError(job.id, error);
        }
      });

    const jobsBundle = createJobsBundle(jobs, { synthTime });
    this.ledger = new LedgerTable(this, 'Ledger');
    this.deadLetterQueue = new DeadLetterQueue(this, 'DeadLetters');
    this.dispatcher = new DispatcherFunction(this, 'Dispatcher', {
      jobsBundle,
      ledger: this.ledger,
      deadLetterQueue: this.deadLetterQueue,
      retentionDays: config.retentionDays,
    });
    this.schedules = new JobSchedules(this, 'Schedules', {
      jobs: this.coverings.map(({ job, covering }) => ({
        job,
        awsExpression: covering.awsExpression,
      })),
      dispatcher: this.dispatcher,
      deadLetterQueue: this.deadLetterQueue,
    });
    this.recorder = new RecorderFunction(this, 'Recorder', {
      jobsBundle,
      ledger: this.ledger,
      deadLetterQueue: this.deadLetterQueue,
    });
    this.completion = new CompletionTracking(this, 'Completion', {
      jobs,
      recorder: this.recorder,
      deadLetterQueue: this.deadLetterQueue,
    });
    this.alarms = new OnCallAlarms(this, 'Alarms', {
      jobs,
      dispatcher: this.dispatcher,
      recorder: this.recorder,
      schedules: this.schedules,
      deadLetterQueue: this.deadLetterQueue,
      emails: config.alarmEmails,
    });
    this.dashboard = new ZonecronDashboard(this, 'Dashboard', {
      dispatcher: this.dispatcher,
      schedules: this.schedules,
      deadLetterQueue: this.deadLetterQueue,
      alarms: this.alarms,
    });

    const output = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    output('LedgerTableName', this.ledger.tableName, 'The run ledger (DynamoDB)');
    output('DeadLetterQueueUrl', this.deadLetterQueue.queueUrl, 'Runs that did not happen');
    output('DispatcherFunctionName', this.dispatcher.functionName, 'Receives every tick');
    output('AlarmTopicArn', this.alarms.topic.topicArn, 'Subscribe on-call here');
    output('ScheduleGroupName', this.schedules.scheduleGroupName, 'One schedule per job');
    output('DashboardName', this.dashboard.dashboardName, 'CloudWatch dashboard');
    output('RecorderFunctionName', this.recorder.functionName, 'Records how runs ended');
    output(
      'RecorderInvokePolicyArn',
      this.recorder.invokePolicy.managedPolicyArn,
      'Attach to the execution role of every lambda target',
    );
  }
}

/** Renders the per-job table: expression, zone, covering UTC expression, ticks per run. */
export function coveringTable(coverings: readonly JobCovering[]): string {
  const rows = [
    ['job', 'schedule', 'timezone', 'target', 'UTC covering expression', 'ticks/run'],
    ...coverings.map(({ job, covering }) => [
      job.id,
      job.schedule,
      job.timezone,
      job.target.type,
      covering.awsExpression,
      covering.ticksPerRun.toFixed(2),
    ]),
  ];
  const widths = rows[0]?.map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows
    .map((row) => row.map((cell, column) => cell.padEnd(widths?.[column] ?? 0)).join('  '))
    .join('\n');
}

/** Options of {@link createZonecronApp}. */
export interface ZonecronAppOptions {
  readonly config: JobsConfig;
  readonly synthTime: Date;
  /** An existing app (the CDK CLI's context lives on it); a new one otherwise. */
  readonly app?: App;
  /** @default DEFAULT_STACK_NAME */
  readonly stackName?: string;
}

/**
 * Builds the app the way `cdk synth` does: the stack, with cdk-nag's AwsSolutions checks
 * registered, so an unacknowledged finding makes `app.synth()` throw.
 *
 * `infra/app.ts` and the tests both go through here.
 */
export function createZonecronApp(options: ZonecronAppOptions): {
  app: App;
  stack: ZonecronStack;
  nag: AwsSolutionsChecks;
} {
  const app = options.app ?? new App();
  const stack = new ZonecronStack(app, options.stackName ?? DEFAULT_STACK_NAME_VALUE, {
    config: options.config,
    synthTime: options.synthTime,
  });
  const nag = addNagChecks(app);
  return { app, stack, nag };
}
