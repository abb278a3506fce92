import { Aws, Duration, TimeZone } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import type { JobDefinition } from '../../functions/shared/job.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { DispatcherFunction } from './dispatcher-function.ts';

/**
 * The input of every per-job tick (architecture §4), with `JOB_ID` to be replaced.
 *
 * Scheduler substitutes the `<aws.scheduler.…>` placeholders at each invocation;
 * `attempt-number` is left unquoted so the dispatcher receives a number.
 */
export const TICK_INPUT_TEMPLATE =
  '{"jobId":"JOB_ID","scheduledTime":"<aws.scheduler.scheduled-time>","executionId":"<aws.scheduler.execution-id>","attempt":<aws.scheduler.attempt-number>}';

/** The input of the one-minute sweep (architecture §4). */
export const SWEEP_INPUT = '{"sweep":true,"scheduledTime":"<aws.scheduler.scheduled-time>"}';

/** The sweep's expression: every minute, in UTC. */
export const SWEEP_EXPRESSION = 'cron(* * * * ? *)';

/**
 * Name of the sweep's schedule. It contains a dot, which job ids never do, so it can never
 * collide with a job's schedule (named after the job id).
 */
export const SWEEP_SCHEDULE_NAME = 'zonecron.sweep';

/** Every schedule is evaluated in UTC; the covering expressions are UTC by construction. */
export const SCHEDULE_TIME_ZONE = 'UTC';

/**
 * How often Scheduler retries handing a tick to the dispatcher.
 *
 * Independent of a job's `retry.maxAttempts` (which counts deliveries to the job's target):
 * a tick is idempotent, because the dispatcher claims each run once by its deterministic key,
 * so retrying it is always safe.
 */
export const TICK_RETRY_ATTEMPTS = 3;

/** Renders the exact tick input for one job. */
export function tickInput(jobId: string): string {
  return TICK_INPUT_TEMPLATE.replace('JOB_ID', jobId);
}

/** One enabled job and the UTC expression that covers it. */
export interface ScheduledJob {
  readonly job: JobDefinition;
  /** `cron(...)` in EventBridge Scheduler's syntax, evaluated in UTC. */
  readonly awsExpression: string;
}

/** Properties of {@link JobSchedules}. */
export interface JobSchedulesProps {
  /** The enabled jobs with their covering expressions; disabled jobs get no schedule. */
  readonly jobs: readonly ScheduledJob[];
  /** The function every tick and the sweep go to. */
  readonly dispatcher: DispatcherFunction;
  /** Where Scheduler puts a tick it could not hand over. */
  readonly deadLetterQueue: DeadLetterQueue;
}

/**
 * The EventBridge Scheduler side: one schedule group, one UTC schedule per enabled job and
 * the one-minute UTC sweep, all targeting the dispatcher through one role.
 *
 * The role trusts `scheduler.amazonaws.com` only for schedules of this account and of this
 * group (`aws:SourceAccount`, `aws:SourceArn`), and may only invoke the dispatcher and send to
 * the dead-letter queue (Scheduler's DLQ uses the same role).
 */
export class JobSchedules extends Construct {
  /** The schedule group all schedules live in. */
  readonly group: scheduler.ScheduleGroup;
  /** The role Scheduler assumes to invoke the dispatcher. */
  readonly role: iam.Role;
  /** The per-job schedules, by job id. */
  readonly schedules: ReadonlyMap<string, scheduler.Schedule>;
  /** The one-minute sweep. */
  readonly sweep: scheduler.Schedule;

  constructor(scope: Construct, id: string, props: JobSchedulesProps) {
    super(scope, id);
    this.group = new scheduler.ScheduleGroup(this, 'Group');

    const groupSchedules = `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${this.group.scheduleGroupName}/*`;
    this.role = new iam.Role(this, 'Role', {
      description: 'Assumed by EventBridge Scheduler to invoke the zonecron dispatcher',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': groupSchedules },
        },
      }),
    });
    props.dispatcher.grantInvoke(this.role);
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SchedulerDeadLetters',
        actions: ['sqs:SendMessage'],
        resources: [props.deadLetterQueue.queueArn],
      }),
    );

    const timeZone = TimeZone.of(SCHEDULE_TIME_ZONE);
    const schedules = new Map<string, scheduler.Schedule>();
    for (const { job, awsExpression } of props.jobs) {
      if (!job.enabled) continue;
      schedules.set(
        job.id,
        new scheduler.Schedule(this, `Job-${job.id}`, {
          scheduleName: job.id,
          scheduleGroup: this.group,
          description: `${job.schedule} in ${job.timezone}: ${job.description}`.slice(0, 512),
          schedule: scheduler.ScheduleExpression.expression(awsExpression, timeZone),
          timeWindow: scheduler.TimeWindow.off(),
          target: new DispatcherTarget({
            dispatcher: props.dispatcher,
            role: this.role,
            deadLetterQueue: props.deadLetterQueue,
            input: tickInput(job.id),
            // A tick older than the job's catch-up window could not deliver its run anyway.
            maxEventAge: Duration.seconds(clamp(job.catchup.windowSeconds, 60, 86_400)),
          }),
        }),
      );
    }
    this.schedules = schedules;

    this.sweep = new scheduler.Schedule(this, 'Sweep', {
      scheduleName: SWEEP_SCHEDULE_NAME,
      scheduleGroup: this.group,
      description: 'zonecron sweep: missed, late and stuck runs, every minute',
      schedule: scheduler.ScheduleExpression.expression(SWEEP_EXPRESSION, timeZone),
      timeWindow: scheduler.TimeWindow.off(),
      target: new DispatcherTarget({
        dispatcher: props.dispatcher,
        role: this.role,
        deadLetterQueue: props.deadLetterQueue,
        input: SWEEP_INPUT,
        // A sweep is superseded by the next one a minute later.
        maxEventAge: Duration.seconds(60),
      }),
    });

    // The L2 names the group by its literal generated name, not a Ref, so CloudFormation would
    // not know a schedule must wait for its group.
    for (const schedule of [...schedules.values(), this.sweep]) {
      schedule.node.addDependency(this.group);
    }
  }

  /** The schedule group's name (output `ScheduleGroupName`). */
  get scheduleGroupName(): string {
    return this.group.scheduleGroupName;
  }

  /** Invocations Scheduler gave up on after its retries (`InvocationDroppedCount`). */
  metricDropped(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.group.metricDropped({ period: Duration.minutes(1), ...props });
  }

  /**
   * Invocations that failed and could not be dead-lettered either
   * (`InvocationsFailedToBeSentToDeadLetterCount`): the tick is gone without a trace.
   */
  metricFailedToBeSentToDeadLetter(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.group.metricFailedToBeSentToDLQ(undefined, {
      period: Duration.minutes(1),
      ...props,
    });
  }
}

interface DispatcherTargetProps {
  readonly dispatcher: DispatcherFunction;
  readonly role: iam.IRole;
  readonly deadLetterQueue: DeadLetterQueue;
  readonly input: string;
  readonly maxEventAge: Duration;
}

/**
 * A Scheduler target for the dispatcher with a shared, pre-scoped role.
 *
 * `aws-scheduler-targets.LambdaInvoke` would grant `lambda:InvokeFunction` on the function
 * and on every version of it (`…:*`); this target grants nothing itself, the role was scoped
 * once above.
 */
class DispatcherTarget implements scheduler.IScheduleTarget {
  constructor(private readonly props: DispatcherTargetProps) {}

  bind(): scheduler.ScheduleTargetConfig {
    return {
      arn: this.props.dispatcher.functionArn,
      role: this.props.role,
      input: scheduler.ScheduleTargetInput.fromText(this.props.input),
      retryPolicy: {
        maximumRetryAttempts: TICK_RETRY_ATTEMPTS,
        maximumEventAgeInSeconds: this.props.maxEventAge.toSeconds(),
      },
      deadLetterConfig: { arn: this.props.deadLetterQueue.queueArn },
    };
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
