import { Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { type JobDefinition, tracksCompletion } from '#jobs/job.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { DispatcherFunction } from './dispatcher-function.ts';
import { dedicatedJobMetric, type RunMetricName, stackMetric } from './job-metrics.ts';
import type { OnCallTopic } from './on-call-topic.ts';
import type { RecorderFunction } from './recorder-function.ts';
import type { Scheduling } from './scheduling.ts';

/** Share of the dispatcher's timeout above which the duration alarm fires. */
export const DURATION_ALARM_SHARE_OF_TIMEOUT = 0.8;

/** CloudWatch's limit on an alarm description (PutMetricAlarm: AlarmDescription, 1,024). */
const MAX_DESCRIPTION_LENGTH = 1024;

/** Where the runbook lives, for alarm descriptions. */
const RUNBOOK = 'Runbook: docs/runbook.md';

/** One run signal: alarmed on the stack's sum, and per job for jobs with `alarm.dedicated`. */
export interface RunSignalAlarm {
  readonly metricName: RunMetricName;
  /** Whether a dedicated job gets this alarm (RunFailed only exists for lambda/stepfunctions). */
  readonly appliesTo: (job: JobDefinition) => boolean;
  /** What happened, and what to do, for the stack-wide alarm. */
  readonly stackWide: string;
  /** What happened, for one job. */
  readonly what: (job: JobDefinition) => string;
  /** What to do, for one job. */
  readonly todo: (job: JobDefinition) => string;
}

const WHICH_JOB =
  "Which job: the notification the functions sent for the run, or the dashboard's top-jobs tables.";

/** The run signals: every one above zero in a minute is worth a page. */
export const RUN_SIGNAL_ALARMS: readonly RunSignalAlarm[] = [
  {
    metricName: 'DeliveryFailures',
    appliesTo: () => true,
    stackWide: `A delivery of a run to its target failed; the dispatcher retries it up to the job's retry.maxAttempts. ${WHICH_JOB} What to do: check the target exists and the dispatcher role may reach it; read lastError in zonecron history <job>.`,
    what: (job) =>
      `A delivery of job '${job.id}' to its ${job.target.type} target failed; the dispatcher retries up to ${job.retry.maxAttempts} attempts.`,
    todo: (job) =>
      `Check the target (${job.target.arn}) exists and the dispatcher role may reach it; read lastError in 'zonecron history ${job.id}'.`,
  },
  {
    metricName: 'DeadLettered',
    appliesTo: () => true,
    stackWide: `A run ran out of delivery attempts and went to the dead-letter queue: it did not happen. ${WHICH_JOB} What to do: zonecron dlq list, fix the target, then zonecron dlq redrive.`,
    what: (job) =>
      `A run of job '${job.id}' ran out of delivery attempts and went to the dead-letter queue: it did not happen.`,
    todo: (job) =>
      `Inspect it with 'zonecron dlq list', fix the target (${job.target.arn}), then 'zonecron dlq redrive' or 'zonecron run ${job.id}'.`,
  },
  {
    metricName: 'MissedRuns',
    appliesTo: () => true,
    stackWide: `The sweep found a run that was due more than its grace ago and never dispatched; it was caught up per the job's catchup.policy. ${WHICH_JOB} What to do: check the Scheduler alarms and dispatcher errors around that time; confirm with zonecron history <job>.`,
    what: (job) =>
      `The sweep found a run of job '${job.id}' (${job.schedule} ${job.timezone}) that was due more than its grace ago and never dispatched; it was caught up per catchup.policy=${job.catchup.policy}.`,
    todo: (job) =>
      `Check the Scheduler alarms and the dispatcher's errors around that time; confirm with 'zonecron history ${job.id}'; run it by hand with 'zonecron run ${job.id}' if the policy skipped it.`,
  },
  {
    metricName: 'LateRuns',
    appliesTo: () => true,
    stackWide: `A run was dispatched more than its job's alarm.grace after it was due. ${WHICH_JOB} What to do: look at dispatch lag and dispatcher throttles on the dashboard.`,
    what: (job) =>
      `A run of job '${job.id}' was dispatched more than its grace (${job.alarm.graceSeconds}s) after it was due.`,
    todo: (job) =>
      `Look at DispatchLagSeconds on the dashboard and dispatcher throttles; if the target cannot tolerate late runs, check 'zonecron history ${job.id}'.`,
  },
  {
    metricName: 'StuckRuns',
    appliesTo: () => true,
    stackWide: `A run has been dispatched for longer than its job's maxRuntime without reporting completion. ${WHICH_JOB} What to do: check the target's own logs or executions; for lambda targets check its destinations point at the default event bus.`,
    what: (job) =>
      `A run of job '${job.id}' has been dispatched for longer than maxRuntime (${job.maxRuntimeSeconds}s) without reporting completion.`,
    todo: (job) =>
      `Check the target's own logs/executions (${job.target.arn}); for lambda targets check its destinations point at the default event bus; see 'zonecron history ${job.id}'.`,
  },
  {
    metricName: 'DeadlineMissedRuns',
    appliesTo: (job) => job.deadline !== undefined,
    stackWide: `A run of a job with a deadline was not done by it: not delivered by then (sqs, sns, eventbridge), or no success reported by then (lambda, stepfunctions). ${WHICH_JOB} What to do: see in zonecron history <job> whether the run is late, still running, retrying or dead-lettered; tell whoever waits for its output; fix the target or the delay (dispatch lag, retries), or redrive it.`,
    what: (job) =>
      `A run of job '${job.id}' was not done by its deadline (${deadlineText(job)}): ${tracksCompletion(job) ? 'no success reported' : 'not delivered'} by then.`,
    todo: (job) =>
      `See in 'zonecron history ${job.id}' whether the run is late, still running, retrying or dead-lettered; tell whoever waits for its output; fix the target (${job.target.arn}) or the delay, or redrive it with 'zonecron dlq redrive'.`,
  },
  {
    metricName: 'RunFailed',
    appliesTo: tracksCompletion,
    stackWide: `A run reached its lambda or stepfunctions target, and the target reported failure. ${WHICH_JOB} What to do: read the error in zonecron history <job> and the target's logs; re-run with zonecron run <job> once fixed.`,
    what: (job) => `A run of job '${job.id}' reached its target but the target reported failure.`,
    todo: (job) =>
      `Read the error in 'zonecron history ${job.id}' and the target's logs (${job.target.arn}); re-run with 'zonecron run ${job.id}' once fixed (failed lambda runs are also in 'zonecron dlq list').`,
  },
];

/** A job's deadline as jobs.yaml says it: `07:00 Europe/Berlin`, or `7200s after the run`. */
function deadlineText(job: JobDefinition): string {
  const deadline = job.deadline;
  if (!deadline) return 'none';
  return 'wallTime' in deadline
    ? `${deadline.wallTime} ${job.timezone}`
    : `${deadline.afterSeconds}s after the run`;
}

/** Properties of {@link OnCallAlarms}. */
export interface OnCallAlarmsProps {
  readonly dispatcher: DispatcherFunction;
  readonly recorder: RecorderFunction;
  readonly scheduling: Scheduling;
  readonly deadLetterQueue: DeadLetterQueue;
  /** Where every alarm publishes, on alarm and on recovery. */
  readonly topic: OnCallTopic;
}

/**
 * The stack's fixed set of alarms, whatever the number of jobs: the machinery (dead-letter
 * queue, dispatcher, recorder, Scheduler, notifications, forged completions, zone data) and one alarm per run signal
 * on the stack-wide `{Stack}` metric every job feeds. Which job it was is in the functions'
 * per-run notification and on the dashboard; a job that needs alarms of its own says
 * `alarm.dedicated: true` ({@link DedicatedJobAlarms}).
 *
 * All alarms fire on a single one-minute datapoint above their threshold and treat missing
 * data as not breaching: no data means nothing happened.
 */
export class OnCallAlarms extends Construct {
  /** Every alarm, by its name without the stack prefix (`DeadLetterQueueNotEmpty`, …). */
  readonly alarms: ReadonlyMap<string, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: OnCallAlarmsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const action = new cwActions.SnsAction(props.topic.topic);
    const alarms = new Map<string, cloudwatch.Alarm>();
    const add = (key: string, metric: cloudwatch.IMetric, threshold: number, text: string) => {
      alarms.set(
        key,
        onCallAlarm(this, key, { name: `${stackName}-${key}`, metric, threshold, text, action }),
      );
    };
    const timeoutMs = props.dispatcher.timeout.toMilliseconds();
    add(
      'DeadLetterQueueNotEmpty',
      props.deadLetterQueue.metricMessagesVisible(),
      0,
      'The zonecron dead-letter queue holds messages: runs (or ticks) that did not happen. What to do: list them with zonecron dlq list, fix the cause named in each, then zonecron dlq redrive; the alarm clears when the queue is empty.',
    );
    add(
      'DispatcherErrors',
      props.dispatcher.metricErrors(),
      0,
      'The zonecron dispatcher Lambda threw: a tick or a sweep failed (Lambda retries twice, then dead-letters it). What to do: read the dispatcher log group for the error; check the ledger table and the dead-letter queue; the next sweep catches up missed runs once it is fixed.',
    );
    add(
      'DispatcherThrottles',
      props.dispatcher.metricThrottles(),
      0,
      'The zonecron dispatcher Lambda was throttled: the account or function concurrency limit was hit, so ticks wait and runs go late. What to do: check account concurrency (other functions), raise the limit or reserve concurrency for the dispatcher.',
    );
    add(
      'DispatcherDurationNearTimeout',
      props.dispatcher.metricDurationMs(),
      Math.round(timeoutMs * DURATION_ALARM_SHARE_OF_TIMEOUT),
      `A zonecron dispatcher invocation took more than ${DURATION_ALARM_SHARE_OF_TIMEOUT * 100}% of its ${timeoutMs / 1000}s timeout: soon ticks or sweeps will time out. What to do: find the slow target or the slow sweep in the dispatcher log group (durations per run are logged); raise memory or timeout in infra/constructs/dispatcher-function.ts if the sweep outgrew it.`,
    );
    add(
      'RecorderErrors',
      props.recorder.metricErrors(),
      0,
      'The zonecron recorder Lambda threw: a completion of a lambda or stepfunctions run was not recorded (Lambda retries twice, then dead-letters it), so that run will show up as stuck. What to do: read the recorder log group; check the ledger table.',
    );
    add(
      'SchedulerInvocationsDropped',
      props.scheduling.metricDropped(),
      0,
      'EventBridge Scheduler gave up on a zonecron tick after its retries and dropped it (InvocationDroppedCount). What to do: check the Scheduler role may still invoke the dispatcher and the dispatcher exists; the sweep catches up the run, confirm with zonecron history.',
    );
    add(
      'SchedulerDeadLetterFailures',
      props.scheduling.metricFailedToBeSentToDeadLetter(),
      0,
      'EventBridge Scheduler could neither deliver a zonecron tick nor put it in the dead-letter queue (InvocationsFailedToBeSentToDeadLetterCount): the tick left no trace. What to do: check the dead-letter queue still exists and the Scheduler role may send to it; rely on the sweep and zonecron history for the lost run.',
    );
    add(
      'NotificationFailures',
      stackMetric('NotificationFailures', stackName),
      0,
      'The dispatcher or the recorder could not publish a per-run notification to the on-call topic: on-call was not told which job failed. What to do: check the topic exists and its policy (and key policy) still let both function roles publish; the runs themselves are in zonecron history.',
    );
    add(
      'ForgedCompletions',
      stackMetric('ForgedCompletions', stackName),
      0,
      "The zonecron recorder received a completion report without the run's proof of delivery: no delivery secret, a wrong one, or from a target other than the one stored on the run. It recorded nothing. Someone with PutEvents on the default bus (a target's role, say) may be trying to close or fail runs they did not run, or a lambda target forwards envelopes it received. What to do: find the completion-forged lines in the recorder log group (they name the run, the reported target and the reason, never the secret) and the caller of PutEvents in CloudTrail; check who may put events on the default bus.",
    );
    add(
      'ZoneDataDrift',
      stackMetric('ZoneDataDrift', stackName),
      0,
      "The Lambda runtime's time-zone data disagrees with the data synth computed some jobs' UTC covering schedules with, about those jobs' zones: their runs may be delivered late by the sweep. The dispatcher logs one zone-data-drift line per job and notifies on-call once per deploy and job; the alarm stays on until a deploy ends the drift. What to do: redeploy from a machine whose zone data is at least the runtime's (npx zonecron validate, or node -p process.versions.tz, shows it) so the coverings are recomputed.",
    );
    for (const signal of RUN_SIGNAL_ALARMS) {
      add(signal.metricName, stackMetric(signal.metricName, stackName), 0, signal.stackWide);
    }
    this.alarms = alarms;
  }
}

/** Properties of {@link DedicatedJobAlarms}. */
export interface DedicatedJobAlarmsProps {
  /** The jobs with `alarm.dedicated: true` whose alarms live here. */
  readonly jobs: readonly JobDefinition[];
  /** The installation's main stack name: alarm names and the metrics' `Stack` dimension. */
  readonly stackName: string;
  /** The on-call topic's ARN (`onCallTopicArn`). */
  readonly topicArn: string;
}

/**
 * The alarms of jobs with `alarm.dedicated: true`: one per run signal that applies to the job,
 * on its own `{Stack, JobId}` metric, named `<stack>-job-<id>-<signal>`.
 */
export class DedicatedJobAlarms extends Construct {
  /** The alarms, by `job-<id>-<signal>`. */
  readonly alarms: ReadonlyMap<string, cloudwatch.Alarm>;

  constructor(scope: Construct, id: string, props: DedicatedJobAlarmsProps) {
    super(scope, id);
    const action = new cwActions.SnsAction(sns.Topic.fromTopicArn(this, 'Topic', props.topicArn));
    const alarms = new Map<string, cloudwatch.Alarm>();
    for (const job of props.jobs) {
      for (const signal of RUN_SIGNAL_ALARMS) {
        if (!signal.appliesTo(job)) continue;
        const key = `job-${job.id}-${signal.metricName}`;
        alarms.set(
          key,
          onCallAlarm(this, key, {
            name: `${props.stackName}-${key}`,
            metric: dedicatedJobMetric(signal.metricName, props.stackName, job.id),
            threshold: 0,
            text: `${signal.what(job)} What to do: ${signal.todo(job)}`,
            action,
          }),
        );
      }
    }
    this.alarms = alarms;
  }
}

/** What {@link onCallAlarm} needs. */
interface OnCallAlarmOptions {
  readonly name: string;
  readonly metric: cloudwatch.IMetric;
  readonly threshold: number;
  /** What happened and what to do. */
  readonly text: string;
  readonly action: cwActions.SnsAction;
}

/**
 * One on-call alarm: fires on a single one-minute datapoint above the threshold, notifies on
 * alarm and on recovery, treats no data as fine, and carries what happened and what to do.
 */
function onCallAlarm(scope: Construct, id: string, options: OnCallAlarmOptions): cloudwatch.Alarm {
  const alarm = new cloudwatch.Alarm(scope, id, {
    alarmName: options.name,
    alarmDescription: `${options.text} ${RUNBOOK}`.slice(0, MAX_DESCRIPTION_LENGTH),
    metric: options.metric,
    threshold: options.threshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(options.action);
  alarm.addOkAction(options.action);
  return alarm;
}
