/**
 * One shard of an installation (`infra/stacks/sharding.ts`): a top-level stack with the schedules of
 * the jobs that hash to it, the invoke configs of the `lambda` target functions that hash to
 * it, and the alarms of its jobs with `alarm.dedicated: true`.
 */
import { createHash } from 'node:crypto';
import {
  CrossStackReferences,
  Duration,
  ReferenceStrength,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import type { JobDefinition } from '#jobs/job.ts';
import type { LambdaTargetRef } from '#jobs/target-arn.ts';
import { TargetInvokeConfig } from '../constructs/completion-tracking.ts';
import { DedicatedJobAlarms } from '../constructs/on-call-alarms.ts';
import { SCHEDULE_TIME_ZONE, tickInput } from '../constructs/schedule-inputs.ts';
import { dispatcherTarget, type ScheduleTargetRefs } from '../constructs/scheduling.ts';
import type { ScheduleWindow } from '../covering/schedule-window.ts';
import { SHARD_COUNT } from './sharding.ts';

/** EventBridge Scheduler's limit on a schedule's description (CreateSchedule: 512 characters). */
const MAX_SCHEDULE_DESCRIPTION = 512;

/** One enabled job and the UTC expression that covers it. */
export interface ScheduledJob {
  readonly job: JobDefinition;
  /** `cron(...)` in EventBridge Scheduler's syntax, or `at(...)`, evaluated in UTC. */
  readonly awsExpression: string;
  /**
   * The schedule's StartDate, EndDate and state, from the job's `from`, `until` and `at`.
   * @default none: fires from creation on, enabled
   */
  readonly window?: ScheduleWindow;
}

/** One invoke config this shard creates. */
export interface OwnedInvokeConfig {
  readonly target: LambdaTargetRef;
  /** Lambda's retries of a failed asynchronous run: the smallest any job of the app asks for. */
  readonly maximumRetryAttempts: number;
}

/** Properties of {@link JobShardStack}. */
export interface JobShardStackProps extends StackProps {
  /** The installation's main stack name: metric dimension, alarm names. */
  readonly installation: string;
  /** The shard's number, 0 to `SHARD_COUNT - 1`. */
  readonly shard: number;
  /** The enabled jobs of this shard, in file order. */
  readonly jobs: readonly ScheduledJob[];
  /** The invoke configs this shard creates, by function key order. */
  readonly invokeConfigs: readonly OwnedInvokeConfig[];
  /** The group, role, dispatcher and dead-letter queue of the main stack. */
  readonly scheduleRefs: ScheduleTargetRefs;
  /** Where dedicated alarms notify (`onCallTopicArn`). */
  readonly topicArn: string;
}

/**
 * A shard of an installation: its schedules, invoke configs and dedicated alarms, nothing
 * else, so that one shard holds a few hundred resources at 10,000 jobs per installation.
 */
export class JobShardStack extends Stack {
  /** The jobs' schedules, by job id. */
  readonly schedules: ReadonlyMap<string, scheduler.CfnSchedule>;
  /** The invoke configs created here. */
  readonly invokeConfigs: readonly TargetInvokeConfig[];
  /** The dedicated alarms of this shard's jobs; absent when none has `alarm.dedicated`. */
  readonly dedicatedAlarms?: DedicatedJobAlarms;

  constructor(scope: Construct, id: string, props: JobShardStackProps) {
    super(scope, id, {
      description: `zonecron ${props.installation}: schedules, lambda destinations and dedicated alarms of shard ${props.shard} of ${SHARD_COUNT}`,
      ...props,
    });
    // Export/import: CloudFormation refuses to delete the main stack while a shard still
    // schedules ticks to its dispatcher. What is referenced (group, role, dispatcher, queue)
    // does not change as jobs come and go.
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);
    const schedules = new Map<string, scheduler.CfnSchedule>();
    for (const scheduled of props.jobs) {
      schedules.set(scheduled.job.id, jobSchedule(this, scheduled, props.scheduleRefs));
    }
    this.schedules = schedules;
    this.invokeConfigs = props.invokeConfigs.map(
      ({ target, maximumRetryAttempts }) =>
        new TargetInvokeConfig(this, invokeConfigId(target), { target, maximumRetryAttempts }),
    );
    const dedicated = props.jobs.map(({ job }) => job).filter((job) => job.alarm.dedicated);
    if (dedicated.length > 0) {
      this.dedicatedAlarms = new DedicatedJobAlarms(this, 'DedicatedAlarms', {
        jobs: dedicated,
        stackName: props.installation,
        topicArn: props.topicArn,
      });
    }
  }
}

/**
 * A job's UTC schedule: named after the job, in the installation's group, no flexible window,
 * the tick input, Scheduler's retries and the dead-letter queue. A tick older than the job's
 * catch-up window (1 minute to 24 hours) could not deliver its run anyway. A bounded job's
 * `from`/`until` become its StartDate/EndDate (UTC); a job with no run left is disabled.
 */
function jobSchedule(
  scope: Construct,
  { job, awsExpression, window }: ScheduledJob,
  refs: ScheduleTargetRefs,
): scheduler.CfnSchedule {
  const maxEventAgeSeconds = Math.min(86_400, Math.max(60, job.catchup.windowSeconds));
  const when = job.at === undefined ? job.schedule : `at ${job.at}`;
  return new scheduler.CfnSchedule(scope, `Job-${job.id}`, {
    name: job.id,
    groupName: refs.groupName,
    description: `${when} in ${job.timezone}: ${job.description}`.slice(
      0,
      MAX_SCHEDULE_DESCRIPTION,
    ),
    scheduleExpression: awsExpression,
    scheduleExpressionTimezone: SCHEDULE_TIME_ZONE,
    flexibleTimeWindow: { mode: 'OFF' },
    ...(window?.startDate === undefined ? {} : { startDate: window.startDate }),
    ...(window?.endDate === undefined ? {} : { endDate: window.endDate }),
    state: window?.ended ? 'DISABLED' : 'ENABLED',
    target: dispatcherTarget(refs, tickInput(job.id), Duration.seconds(maxEventAgeSeconds)),
  });
}

/** A construct id for a function's invoke config: its name and a hash of function and qualifier. */
function invokeConfigId(target: LambdaTargetRef): string {
  const hash = createHash('sha256').update(target.key).digest('hex').slice(0, 8);
  return `Destinations-${target.functionName}-${hash}`;
}
