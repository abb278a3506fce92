import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { JobsBundle } from '#jobs/jobs-bundle.ts';
import { DEFAULT_DISPATCHER_TIMEOUT_SECONDS, LEASE_MARGIN_SECONDS } from '#shared/defaults.ts';
import { METRICS_NAMESPACE } from '#shared/metrics.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { LedgerTable } from './ledger-table.ts';
import type { OnCallTopic } from './on-call-topic.ts';
import { TargetPolicies } from './target-policies.ts';
import { ZonecronFunction } from './zonecron-function.ts';

/** `POWERTOOLS_SERVICE_NAME` of the dispatcher (its log lines' `service`). */
export const DISPATCHER_SERVICE_NAME = 'zonecron-dispatcher';

/** Properties of {@link DispatcherFunction}. */
export interface DispatcherFunctionProps {
  /** Every configured job, enabled or not, with what synth knew: shipped as `jobs.json`. */
  readonly jobsBundle: JobsBundle;
  /** The run ledger the dispatcher claims runs in. */
  readonly ledger: LedgerTable;
  /** Where runs go whose delivery attempts ran out. */
  readonly deadLetterQueue: DeadLetterQueue;
  /** The on-call topic the dispatcher notifies of runs that need a human (`NOTIFY_TOPIC_ARN`). */
  readonly notifyTopic: OnCallTopic;
  /** How long the ledger keeps a run, in days (`RETENTION_DAYS`). */
  readonly retentionDays: number;
  /**
   * Longest one invocation may run.
   *
   * A tick delivers at most `catchup.maxRuns` runs of one job; the sweep reads only the runs
   * that became due in its window. Both finish in well under a second normally; 60 s leaves
   * room for a slow target API and a 10,000-job sweep, and no more, because the sweep runs
   * every minute and a longer timeout would let a stuck sweep overlap the next one.
   *
   * @default Duration.seconds(60)
   */
  readonly timeout?: Duration;
  /**
   * Memory in MB. 512 MB on arm64 gives the engine enough CPU to enumerate a 10,000-job
   * sweep within the timeout; the function's own footprint is under 150 MB.
   *
   * @default 512
   */
  readonly memorySizeMb?: number;
  /**
   * How long the dispatcher's logs are kept.
   *
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * The dispatcher Lambda (`functions/dispatcher/handler.ts`): receives every tick and the
 * sweep, claims runs in the ledger and delivers them to the jobs' targets.
 *
 * Its role may reach the configured targets of enabled jobs, each with the one action its type
 * needs (`TargetPolicies`: exact ARNs while IAM's limits allow), make exactly its DynamoDB
 * calls on the ledger table and its two indexes, send to the dead-letter queue and publish to
 * the on-call topic. Lambda's own asynchronous retries (two) cover a
 * crash; an invocation that still fails lands in the dead-letter queue, so a lost tick is
 * never silent (and the next sweep catches the run up anyway).
 */
export class DispatcherFunction extends Construct {
  /** The function, its role and its log group. */
  readonly lambda: ZonecronFunction;
  /** The invocation timeout, for the duration alarm. */
  readonly timeout: Duration;
  /** The managed policies that let it deliver runs. */
  readonly targetPolicies: TargetPolicies;

  constructor(scope: Construct, id: string, props: DispatcherFunctionProps) {
    super(scope, id);
    this.timeout = props.timeout ?? Duration.seconds(DEFAULT_DISPATCHER_TIMEOUT_SECONDS);
    this.lambda = new ZonecronFunction(this, 'Lambda', {
      entry: 'functions/dispatcher/handler.ts',
      description: 'zonecron dispatcher: turns Scheduler ticks and the sweep into runs',
      timeout: this.timeout,
      memorySizeMb: props.memorySizeMb ?? 512,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      environment: {
        LEDGER_TABLE_NAME: props.ledger.tableName,
        DLQ_URL: props.deadLetterQueue.queueUrl,
        RETENTION_DAYS: String(props.retentionDays),
        // A claim's lease outlives the invocation that holds it by 30 s, and no longer: a
        // dispatcher that died mid-delivery is retried by the next tick or the sweep soon after.
        LEASE_SECONDS: String(this.timeout.toSeconds() + LEASE_MARGIN_SECONDS),
        STACK_NAME: Stack.of(this).stackName,
        NOTIFY_TOPIC_ARN: props.notifyTopic.topicArn,
        POWERTOOLS_SERVICE_NAME: DISPATCHER_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      },
      jobsBundle: props.jobsBundle,
    });
    props.ledger.grantDispatcherCalls(this.lambda.role);
    props.deadLetterQueue.grantSendMessages(this.lambda.role);
    props.notifyTopic.grantPublish(this.lambda.role);
    this.targetPolicies = new TargetPolicies(this, 'Targets', {
      jobs: props.jobsBundle.jobs,
      role: this.lambda.role,
    });

    this.lambda.function.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      onFailure: new destinations.SqsDestination(props.deadLetterQueue.queue),
    });
  }

  /** The function's name (output `DispatcherFunctionName`; the CLI invokes it). */
  get functionName(): string {
    return this.lambda.function.functionName;
  }

  /** The function's unqualified ARN. */
  get functionArn(): string {
    return this.lambda.function.functionArn;
  }

  /** Lets a principal invoke the dispatcher (Scheduler, the CLI's `zonecron run`). */
  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return this.lambda.grantInvoke(grantee);
  }

  /** Dispatcher invocations that ended in an error, summed per minute. */
  metricErrors(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.lambda.metricErrors(props);
  }

  /** Dispatcher invocations refused for lack of concurrency, summed per minute. */
  metricThrottles(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.lambda.metricThrottles(props);
  }

  /** The dispatcher's log group (its decision lines). */
  get logGroup(): logs.ILogGroup {
    return this.lambda.logGroup;
  }

  /** Longest dispatcher invocation per minute, in milliseconds. */
  metricDurationMs(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.lambda.metricDurationMs(props);
  }
}
