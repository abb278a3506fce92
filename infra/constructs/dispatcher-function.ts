import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  DEFAULT_DISPATCHER_TIMEOUT_SECONDS,
  LEASE_MARGIN_SECONDS,
} from '../../functions/shared/defaults.ts';
import type { JobDefinition, TargetType } from '../../functions/shared/job.ts';
import type { JobsBundle } from '../../functions/shared/jobs-bundle.ts';
import { METRICS_NAMESPACE } from '../../functions/shared/metrics.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { LedgerTable } from './ledger-table.ts';
import { ZonecronFunction } from './zonecron-function.ts';

/** `POWERTOOLS_SERVICE_NAME` of the dispatcher (its log lines' `service`). */
export const DISPATCHER_SERVICE_NAME = 'zonecron-dispatcher';

/** The one IAM action each target type needs to receive a run, and nothing else. */
export const TARGET_ACTIONS: Readonly<Record<TargetType, string>> = {
  lambda: 'lambda:InvokeFunction',
  sqs: 'sqs:SendMessage',
  sns: 'sns:Publish',
  eventbridge: 'events:PutEvents',
  stepfunctions: 'states:StartExecution',
};

/** Properties of {@link DispatcherFunction}. */
export interface DispatcherFunctionProps {
  /** Every configured job, enabled or not, with what synth knew: shipped as `jobs.json`. */
  readonly jobsBundle: JobsBundle;
  /** The run ledger the dispatcher claims runs in. */
  readonly ledger: LedgerTable;
  /** Where runs go whose delivery attempts ran out. */
  readonly deadLetterQueue: DeadLetterQueue;
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
 * Its role may invoke exactly the configured targets of enabled jobs, each with the one
 * action its type needs (`TARGET_ACTIONS`), read and write exactly the ledger table and its
 * index, and send to the dead-letter queue. Lambda's own asynchronous retries (two) cover a
 * crash; an invocation that still fails lands in the dead-letter queue, so a lost tick is
 * never silent (and the next sweep catches the run up anyway).
 */
export class DispatcherFunction extends Construct {
  /** The function, its role and its log group. */
  readonly lambda: ZonecronFunction;
  /** The invocation timeout, for the duration alarm. */
  readonly timeout: Duration;

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
        POWERTOOLS_SERVICE_NAME: DISPATCHER_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      },
      jobsBundle: props.jobsBundle,
    });
    props.ledger.grantReadWriteData(this.lambda.role);
    props.deadLetterQueue.grantSendMessages(this.lambda.role);

    for (const statement of targetStatements(props.jobsBundle.jobs)) {
      this.lambda.role.addToPrincipalPolicy(statement);
    }

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

  /** Longest dispatcher invocation per minute, in milliseconds. */
  metricDurationMs(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.lambda.metricDurationMs(props);
  }
}

/**
 * One IAM statement per target type, each listing exactly the configured ARNs of enabled
 * jobs of that type (deduplicated, sorted), with the one action that type needs.
 *
 * Targets encrypted with a customer-managed KMS key (SQS queues, SNS topics) also need
 * `kms:GenerateDataKey`/`kms:Decrypt` on that key; the key's ARN is not in `jobs.yaml`, so
 * that grant belongs in the key policy, owned by the target's team (see docs/deploy.md, "What the stack cannot grant").
 *
 * @example
 * targetStatements([{ target: { type: 'sqs', arn: 'arn:aws:sqs:eu-west-1:123456789012:q' }, enabled: true, … }])
 * //=> [PolicyStatement { actions: ['sqs:SendMessage'], resources: ['arn:aws:sqs:eu-west-1:123456789012:q'] }]
 */
export function targetStatements(jobs: readonly JobDefinition[]): iam.PolicyStatement[] {
  const arnsByType = new Map<TargetType, Set<string>>();
  for (const job of jobs) {
    if (!job.enabled) continue;
    const arns = arnsByType.get(job.target.type) ?? new Set<string>();
    arns.add(job.target.arn);
    arnsByType.set(job.target.type, arns);
  }
  return [...arnsByType.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([type, arns]) =>
        new iam.PolicyStatement({
          sid: `Deliver${type.charAt(0).toUpperCase()}${type.slice(1)}`.replace(
            /[^A-Za-z0-9]/g,
            '',
          ),
          actions: [TARGET_ACTIONS[type]],
          resources: [...arns].sort(),
        }),
    );
}
