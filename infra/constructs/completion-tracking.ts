import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { JobDefinition } from '../../functions/shared/job.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { RecorderFunction } from './recorder-function.ts';

/** Step Functions execution states that end a run. */
export const TERMINAL_EXECUTION_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/** A Lambda function named by a target ARN: its name and the qualifier the dispatcher invokes. */
export interface LambdaTargetRef {
  /** `arn:PARTITION:lambda:REGION:ACCOUNT:function:NAME`, without the qualifier. */
  readonly functionArn: string;
  readonly functionName: string;
  /** The ARN's version or alias; `$LATEST` for an unqualified ARN. */
  readonly qualifier: string;
}

/**
 * Splits a Lambda target ARN into function and qualifier.
 *
 * The loader has already checked the ARN's shape (`infra/config/schema.ts`).
 *
 * @example
 * lambdaTargetRef('arn:aws:lambda:eu-west-1:123456789012:function:report:prod')
 * //=> { functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:report', functionName: 'report', qualifier: 'prod' }
 */
export function lambdaTargetRef(arn: string): LambdaTargetRef {
  const parts = arn.split(':');
  const functionName = parts[6] ?? '';
  return {
    functionArn: parts.slice(0, 7).join(':'),
    functionName,
    qualifier: parts[7] ?? '$LATEST',
  };
}

/**
 * The unqualified state machine ARN a Step Functions status-change event carries in
 * `detail.stateMachineArn`, also for executions started through a version or an alias.
 *
 * @example
 * stateMachineArnOf('arn:aws:states:eu-west-1:123456789012:stateMachine:etl:live')
 * //=> 'arn:aws:states:eu-west-1:123456789012:stateMachine:etl'
 */
export function stateMachineArnOf(arn: string): string {
  return arn.split(':').slice(0, 7).join(':');
}

/** Properties of {@link CompletionTracking}. */
export interface CompletionTrackingProps {
  /** Every configured job; only enabled `lambda` and `stepfunctions` targets are wired. */
  readonly jobs: readonly JobDefinition[];
  /** Where completions are recorded. */
  readonly recorder: RecorderFunction;
  /** Where EventBridge puts a status-change event it could not hand to the recorder. */
  readonly deadLetterQueue: DeadLetterQueue;
}

/**
 * Wires how runs end back to the ledger.
 *
 * - `lambda` targets: an `AWS::Lambda::EventInvokeConfig` on each target function (and the
 *   qualifier the dispatcher invokes) with on-success and on-failure destinations pointing at
 *   the recorder. This configures a function the stack does not own: Lambda allows one such
 *   config per function and qualifier (a second one fails the deploy), the function must live
 *   in the stack's account and region, and its execution role must be allowed to invoke the
 *   recorder before the deploy (Lambda checks it). `MaximumRetryAttempts` is the job's
 *   `retry.maxAttempts - 1`, capped at Lambda's limit of 2; when several jobs share a
 *   function, the smallest wins.
 * - `stepfunctions` targets: one EventBridge rule on the default bus for `Step Functions
 *   Execution Status Change` events of exactly those state machines, in a terminal status,
 *   targeting the recorder, with retries and the dead-letter queue.
 */
export class CompletionTracking extends Construct {
  /** One invoke config per distinct target function and qualifier. */
  readonly invokeConfigs: lambda.CfnEventInvokeConfig[] = [];
  /** The status-change rule; absent when no enabled job targets Step Functions. */
  readonly executionStatusRule?: events.Rule;

  constructor(scope: Construct, id: string, props: CompletionTrackingProps) {
    super(scope, id);
    const enabled = props.jobs.filter((job) => job.enabled);

    const retriesByFunction = new Map<string, { ref: LambdaTargetRef; retries: number }>();
    for (const job of enabled) {
      if (job.target.type !== 'lambda') continue;
      const ref = lambdaTargetRef(job.target.arn);
      const key = `${ref.functionArn}:${ref.qualifier}`;
      const retries = Math.min(2, Math.max(0, job.retry.maxAttempts - 1));
      const seen = retriesByFunction.get(key);
      retriesByFunction.set(key, { ref, retries: Math.min(retries, seen?.retries ?? retries) });
    }
    for (const [key, { ref, retries }] of [...retriesByFunction.entries()].sort()) {
      this.invokeConfigs.push(
        new lambda.CfnEventInvokeConfig(this, `Destinations-${logicalPart(key)}`, {
          functionName: ref.functionArn,
          qualifier: ref.qualifier,
          maximumRetryAttempts: retries,
          destinationConfig: {
            onSuccess: { destination: props.recorder.functionArn },
            onFailure: { destination: props.recorder.functionArn },
          },
        }),
      );
    }

    const stateMachines = [
      ...new Set(
        enabled
          .filter((job) => job.target.type === 'stepfunctions')
          .map((job) => stateMachineArnOf(job.target.arn)),
      ),
    ].sort();
    if (stateMachines.length > 0) {
      this.executionStatusRule = new events.Rule(this, 'ExecutionStatusChange', {
        description: 'zonecron: terminal executions of stepfunctions targets, to the recorder',
        eventPattern: {
          source: ['aws.states'],
          detailType: ['Step Functions Execution Status Change'],
          detail: {
            stateMachineArn: stateMachines,
            status: [...TERMINAL_EXECUTION_STATUSES],
          },
        },
        targets: [
          new eventTargets.LambdaFunction(props.recorder.lambda.function, {
            deadLetterQueue: props.deadLetterQueue.queue,
            retryAttempts: 8,
            maxEventAge: Duration.hours(6),
          }),
        ],
      });
    }
  }
}

/** A construct-id-safe rendering of a function ARN and qualifier. */
function logicalPart(key: string): string {
  return key
    .split(':')
    .slice(4)
    .join('-')
    .replace(/[^A-Za-z0-9-]/g, '');
}
