import { Aws, NestedStack, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { JobDefinition } from '../../functions/shared/job.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { DispatcherFunction } from './dispatcher-function.ts';
import { jobMetric, type RunMetricName } from './job-metrics.ts';
import type { JobSchedules } from './job-schedules.ts';
import type { RecorderFunction } from './recorder-function.ts';

/** Share of the dispatcher's timeout above which the duration alarm fires. */
export const DURATION_ALARM_SHARE_OF_TIMEOUT = 0.8;

/**
 * Alarms on the machinery rather than a job: DLQ, dispatcher errors, throttles and duration,
 * recorder errors, Scheduler drops and failed dead-lettering.
 */
export const MACHINERY_ALARM_COUNT = 7;

/** Jobs per nested alarm stack: 60 jobs × at most 6 alarms stays well under 500 resources. */
export const DEFAULT_JOBS_PER_NESTED_STACK = 60;

/** CloudWatch's limit on an alarm description. */
const MAX_DESCRIPTION_LENGTH = 1024;

/** Where the runbook lives, for alarm descriptions. */
const RUNBOOK = 'Runbook: docs/runbook.md';

/** One per-job alarm: which counter, when it applies, and what to tell the on-call engineer. */
export interface JobAlarmSpec {
  readonly metricName: RunMetricName;
  /** Whether the job gets this alarm (RunFailed only exists for lambda/stepfunctions). */
  readonly appliesTo: (job: JobDefinition) => boolean;
  /** What happened, for a job. */
  readonly what: (job: JobDefinition) => string;
  /** What to do. */
  readonly todo: (job: JobDefinition) => string;
}

/** The per-job alarms: every counter above zero in a minute is worth a page. */
export const JOB_ALARMS: readonly JobAlarmSpec[] = [
  {
    metricName: 'DeliveryFailures',
    appliesTo: () => true,
    what: (job) =>
      `A delivery of job '${job.id}' to its ${job.target.type} target failed; the dispatcher retries up to ${job.retry.maxAttempts} attempts.`,
    todo: (job) =>
      `Check the target (${job.target.arn}) exists and the dispatcher role may reach it; read lastError in 'zonecron history ${job.id}'.`,
  },
  {
    metricName: 'DeadLettered',
    appliesTo: () => true,
    what: (job) =>
      `A run of job '${job.id}' ran out of delivery attempts and went to the dead-letter queue: it did not happen.`,
    todo: (job) =>
      `Inspect it with 'zonecron dlq list', fix the target (${job.target.arn}), then 'zonecron dlq redrive' or 'zonecron run ${job.id}'.`,
  },
  {
    metricName: 'MissedRuns',
    appliesTo: () => true,
    what: (job) =>
      `The sweep found a run of job '${job.id}' (${job.schedule} ${job.timezone}) that was due more than its grace ago and never dispatched; it was caught up per catchup.policy=${job.catchup.policy}.`,
    todo: (job) =>
      `Check the Scheduler alarms and the dispatcher's errors around that time; confirm with 'zonecron history ${job.id}'; run it by hand with 'zonecron run ${job.id}' if the policy skipped it.`,
  },
  {
    metricName: 'LateRuns',
    appliesTo: () => true,
    what: (job) =>
      `A run of job '${job.id}' was dispatched more than its grace (${job.alarm.graceSeconds}s) after it was due.`,
    todo: (job) =>
      `Look at DispatchLagSeconds on the dashboard and dispatcher throttles; if the target cannot tolerate late runs, check 'zonecron history ${job.id}'.`,
  },
  {
    metricName: 'StuckRuns',
    appliesTo: () => true,
    what: (job) =>
      `A run of job '${job.id}' has been dispatched for longer than maxRuntime (${job.maxRuntimeSeconds}s) without reporting completion.`,
    todo: (job) =>
      `Check the target's own logs/executions (${job.target.arn}); for lambda targets check its destinations reach the recorder; see 'zonecron history ${job.id}'.`,
  },
  {
    metricName: 'RunFailed',
    appliesTo: (job) => job.target.type === 'lambda' || job.target.type === 'stepfunctions',
    what: (job) => `A run of job '${job.id}' reached its target but the target reported failure.`,
    todo: (job) =>
      `Read the error in 'zonecron history ${job.id}' and the target's logs (${job.target.arn}); re-run with 'zonecron run ${job.id}' once fixed (failed lambda runs are also in 'zonecron dlq list').`,
  },
];

/** Properties of {@link OnCallAlarms}. */
export interface OnCallAlarmsProps {
  /** Every configured job; enabled jobs get per-job alarms. */
  readonly jobs: readonly JobDefinition[];
  readonly dispatcher: DispatcherFunction;
  readonly recorder: RecorderFunction;
  readonly schedules: JobSchedules;
  readonly deadLetterQueue: DeadLetterQueue;
  /**
   * E-mail addresses subscribed to the alarm topic (`alarms.email` in jobs.yaml).
   *
   * @default - none; subscribe a pager or chat integration to the topic yourself
   */
  readonly emails?: readonly string[];
  /**
   * Jobs whose alarms share one nested stack. A CloudFormation stack holds at most 500
   * resources and a job has up to six alarms, so the per-job alarms live in nested stacks of
   * this many jobs; the main stack keeps one schedule per job.
   *
   * @default 60
   */
  readonly jobsPerNestedStack?: number;
}

/**
 * Every alarm on-call needs, all publishing to one SNS topic.
 *
 * The topic is encrypted with a customer-managed KMS key (rotated yearly) because CloudWatch
 * cannot publish to a topic encrypted with the AWS-managed SNS key: its key policy cannot be
 * changed to let CloudWatch use it. The topic policy denies non-TLS publishing and allows
 * CloudWatch alarms of this account only.
 *
 * All alarms fire on a single one-minute datapoint above their threshold: each signal is
 * either a run that did not happen as planned or the machinery that makes runs happen
 * failing. Per-job counters treat missing data as not breaching: no data means nothing
 * happened.
 */
export class OnCallAlarms extends Construct {
  /** The topic every alarm publishes to (output `AlarmTopicArn`). */
  readonly topic: sns.Topic;
  /** The key the topic is encrypted with. */
  readonly key: kms.Key;
  /** Every alarm, by a stable name (`DeadLetterQueueNotEmpty`, `job-<id>-MissedRuns`, …). */
  readonly alarms: ReadonlyMap<string, cloudwatch.Alarm>;
  /** The nested stacks holding the per-job alarms, in job order. */
  readonly jobAlarmStacks: readonly JobAlarmsStack[];

  constructor(scope: Construct, id: string, props: OnCallAlarmsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;

    this.key = new kms.Key(this, 'TopicKey', {
      description: 'zonecron on-call alarm topic',
      enableKeyRotation: true,
    });
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'zonecron on-call',
      masterKey: this.key,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
          },
        },
      }),
    );
    for (const email of props.emails ?? []) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(email));
    }

    const alarms = new Map<string, cloudwatch.Alarm>();
    const action = new cwActions.SnsAction(this.topic);
    const add = (
      key: string,
      constructId: string,
      metric: cloudwatch.IMetric,
      threshold: number,
      description: string,
      treatMissingData: cloudwatch.TreatMissingData,
    ) => {
      alarms.set(
        key,
        onCallAlarm(this, constructId, {
          name: `${stackName}-${key}`,
          metric,
          threshold,
          description,
          treatMissingData,
          action,
        }),
      );
    };
    const notBreaching = cloudwatch.TreatMissingData.NOT_BREACHING;

    add(
      'DeadLetterQueueNotEmpty',
      'DeadLetterQueueNotEmpty',
      props.deadLetterQueue.metricMessagesVisible(),
      0,
      'The zonecron dead-letter queue holds messages: runs (or ticks) that did not happen. What to do: list them with zonecron dlq list, fix the cause named in each, then zonecron dlq redrive; the alarm clears when the queue is empty.',
      notBreaching,
    );
    add(
      'DispatcherErrors',
      'DispatcherErrors',
      props.dispatcher.metricErrors(),
      0,
      'The zonecron dispatcher Lambda threw: a tick or a sweep failed (Lambda retries twice, then dead-letters it). What to do: read the dispatcher log group for the error; check the ledger table and the dead-letter queue; the next sweep catches up missed runs once it is fixed.',
      notBreaching,
    );
    add(
      'DispatcherThrottles',
      'DispatcherThrottles',
      props.dispatcher.metricThrottles(),
      0,
      'The zonecron dispatcher Lambda was throttled: the account or function concurrency limit was hit, so ticks wait and runs go late. What to do: check account concurrency (other functions), raise the limit or reserve concurrency for the dispatcher.',
      notBreaching,
    );
    const timeoutMs = props.dispatcher.timeout.toMilliseconds();
    add(
      'DispatcherDurationNearTimeout',
      'DispatcherDurationNearTimeout',
      props.dispatcher.metricDurationMs(),
      Math.round(timeoutMs * DURATION_ALARM_SHARE_OF_TIMEOUT),
      `A zonecron dispatcher invocation took more than ${DURATION_ALARM_SHARE_OF_TIMEOUT * 100}% of its ${timeoutMs / 1000}s timeout: soon ticks or sweeps will time out. What to do: find the slow target or the slow sweep in the dispatcher log group (durations per run are logged); raise memory or timeout in infra/constructs/dispatcher-function.ts if the sweep outgrew it.`,
      notBreaching,
    );
    add(
      'RecorderErrors',
      'RecorderErrors',
      props.recorder.metricErrors(),
      0,
      'The zonecron recorder Lambda threw: a completion of a lambda or stepfunctions run was not recorded (Lambda retries twice, then dead-letters it), so that run will show up as stuck. What to do: read the recorder log group; check the ledger table.',
      notBreaching,
    );
    add(
      'SchedulerInvocationsDropped',
      'SchedulerInvocationsDropped',
      props.schedules.metricDropped(),
      0,
      'EventBridge Scheduler gave up on a zonecron tick after its retries and dropped it (InvocationDroppedCount). What to do: check the Scheduler role may still invoke the dispatcher and the dispatcher exists; the sweep catches up the run, confirm with zonecron history.',
      notBreaching,
    );
    add(
      'SchedulerDeadLetterFailures',
      'SchedulerDeadLetterFailures',
      props.schedules.metricFailedToBeSentToDeadLetter(),
      0,
      'EventBridge Scheduler could neither deliver a zonecron tick nor put it in the dead-letter queue (InvocationsFailedToBeSentToDeadLetterCount): the tick left no trace. What to do: check the dead-letter queue still exists and the Scheduler role may send to it; rely on the sweep and zonecron history for the lost run.',
      notBreaching,
    );

    const enabled = props.jobs.filter((job) => job.enabled);
    const perStack = props.jobsPerNestedStack ?? DEFAULT_JOBS_PER_NESTED_STACK;
    const nested: JobAlarmsStack[] = [];
    for (let first = 0; first < enabled.length; first += perStack) {
      const chunk = new JobAlarmsStack(this, `JobAlarms${nested.length + 1}`, {
        jobs: enabled.slice(first, first + perStack),
        topic: this.topic,
        alarmNamePrefix: stackName,
      });
      nested.push(chunk);
      for (const [key, alarm] of chunk.alarms) alarms.set(key, alarm);
    }
    this.jobAlarmStacks = nested;
    this.alarms = alarms;
  }
}

/** What {@link onCallAlarm} needs. */
interface OnCallAlarmOptions {
  readonly name: string;
  readonly metric: cloudwatch.IMetric;
  readonly threshold: number;
  readonly description: string;
  readonly treatMissingData: cloudwatch.TreatMissingData;
  readonly action: cwActions.SnsAction;
}

/**
 * One on-call alarm: fires on a single one-minute datapoint above the threshold, notifies on
 * alarm and on recovery, and carries what happened and what to do.
 */
function onCallAlarm(scope: Construct, id: string, options: OnCallAlarmOptions): cloudwatch.Alarm {
  const alarm = new cloudwatch.Alarm(scope, id, {
    alarmName: options.name,
    alarmDescription: `${options.description} ${RUNBOOK}`.slice(0, MAX_DESCRIPTION_LENGTH),
    metric: options.metric,
    threshold: options.threshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: options.treatMissingData,
  });
  alarm.addAlarmAction(options.action);
  alarm.addOkAction(options.action);
  return alarm;
}

/** Properties of {@link JobAlarmsStack}. */
export interface JobAlarmsStackProps {
  /** The enabled jobs whose alarms live here. */
  readonly jobs: readonly JobDefinition[];
  /** The on-call topic of the parent stack. */
  readonly topic: sns.ITopic;
  /** Alarm names start with this (the parent stack's name). */
  readonly alarmNamePrefix: string;
}

/**
 * A nested stack with the per-job alarms (`JOB_ALARMS`) of a slice of the jobs, so that the
 * number of jobs is not capped by CloudFormation's 500 resources per stack.
 */
export class JobAlarmsStack extends NestedStack {
  /** The alarms, by `job-<id>-<metric>`. */
  readonly alarms: ReadonlyMap<string, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: JobAlarmsStackProps) {
    const first = props.jobs[0]?.id ?? '';
    const last = props.jobs[props.jobs.length - 1]?.id ?? '';
    super(scope, id, {
      description: `zonecron per-job alarms of ${props.jobs.length} jobs, ${first} to ${last}`,
    });
    const action = new cwActions.SnsAction(props.topic);
    const alarms = new Map<string, cloudwatch.Alarm>();
    for (const job of props.jobs) {
      for (const spec of JOB_ALARMS) {
        if (!spec.appliesTo(job)) continue;
        const key = `job-${job.id}-${spec.metricName}`;
        alarms.set(
          key,
          onCallAlarm(this, `Job-${job.id}-${spec.metricName}`, {
            name: `${props.alarmNamePrefix}-${key}`,
            metric: jobMetric(spec.metricName, props.alarmNamePrefix, job.id),
            threshold: 0,
            description: `${spec.what(job)} What to do: ${spec.todo(job)}`,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
            action,
          }),
        );
      }
    }
    this.alarms = alarms;
  }
}
