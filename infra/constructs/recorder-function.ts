import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { JobsBundle } from '#jobs/jobs-bundle.ts';
import { METRICS_NAMESPACE } from '#shared/metrics.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { LedgerTable } from './ledger-table.ts';
import type { OnCallTopic } from './on-call-topic.ts';
import { ZonecronFunction } from './zonecron-function.ts';

/** `POWERTOOLS_SERVICE_NAME` of the recorder (its log lines' `service`). */
export const RECORDER_SERVICE_NAME = 'zonecron-recorder';

/** Properties of {@link RecorderFunction}. */
export interface RecorderFunctionProps {
  /** The jobs, shipped as `jobs.json` (the recorder checks completions against targets). */
  readonly jobsBundle: JobsBundle;
  /** The run ledger the recorder writes terminal states to. */
  readonly ledger: LedgerTable;
  /** Where failed asynchronous Lambda runs go, with their run envelope. */
  readonly deadLetterQueue: DeadLetterQueue;
  /** The on-call topic the recorder notifies of failed runs (`NOTIFY_TOPIC_ARN`). */
  readonly notifyTopic: OnCallTopic;
  /**
   * How long the recorder's logs are kept.
   *
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * The recorder Lambda (`functions/recorder/handler.ts`): turns the completion events of
 * `lambda` targets (Lambda's destination records, put on the default event bus) and Step
 * Functions status-change events into the run's terminal ledger state (`succeeded`/`failed`),
 * and forwards failed Lambda runs to the dead-letter queue.
 *
 * EventBridge invokes it (`CompletionTracking`), so its name is whatever CloudFormation
 * generates: nothing outside the stack needs to know it. One record is a read of the run and
 * a conditional update, limited to the run's own attributes (`grantRecorderCalls`), so 256 MB
 * and 30 s are plenty. A recorder invocation that fails Lambda's two
 * asynchronous retries lands in the dead-letter queue.
 */
export class RecorderFunction extends Construct {
  /** The function, its role and its log group. */
  readonly lambda: ZonecronFunction;

  constructor(scope: Construct, id: string, props: RecorderFunctionProps) {
    super(scope, id);
    this.lambda = new ZonecronFunction(this, 'Lambda', {
      entry: 'functions/recorder/handler.ts',
      description: 'zonecron recorder: records how lambda and stepfunctions runs ended',
      jobsBundle: props.jobsBundle,
      timeout: Duration.seconds(30),
      memorySizeMb: 256,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      environment: {
        LEDGER_TABLE_NAME: props.ledger.tableName,
        DLQ_URL: props.deadLetterQueue.queueUrl,
        STACK_NAME: Stack.of(this).stackName,
        NOTIFY_TOPIC_ARN: props.notifyTopic.topicArn,
        POWERTOOLS_SERVICE_NAME: RECORDER_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      },
    });
    props.ledger.grantRecorderCalls(this.lambda.role);
    props.deadLetterQueue.grantSendMessages(this.lambda.role);
    props.notifyTopic.grantPublish(this.lambda.role);
    this.lambda.function.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new destinations.SqsDestination(props.deadLetterQueue.queue),
    });
  }

  /** The function's name (output `RecorderFunctionName`). */
  get functionName(): string {
    return this.lambda.function.functionName;
  }

  /** The recorder's log group (its `succeeded`/`failed` lines). */
  get logGroup(): logs.ILogGroup {
    return this.lambda.logGroup;
  }

  /** Recorder invocations that ended in an error, summed per minute. */
  metricErrors(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.lambda.metricErrors(props);
  }
}
