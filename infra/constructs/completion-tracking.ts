import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { JobDefinition } from '#jobs/job.ts';
import { executionNamePrefix } from '#jobs/stack-scope.ts';
import type { LambdaTargetRef } from '#jobs/target-arn.ts';
import type { DeadLetterQueue } from './dead-letter-queue.ts';
import type { RecorderFunction } from './recorder-function.ts';

/** Step Functions execution states that end a run. */
export const TERMINAL_EXECUTION_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/** The `detail-type`s Lambda gives the invocation records it puts on an event bus. */
export const LAMBDA_RESULT_DETAIL_TYPES = [
  'Lambda Function Invocation Result - Success',
  'Lambda Function Invocation Result - Failure',
] as const;

/**
 * The field of the run envelope that names the stack whose dispatcher sent it; a destination
 * record carries the envelope in `detail.requestPayload`.
 */
export const ENVELOPE_STACK_FIELD = 'stack';

/**
 * The ARN of the default event bus of the deploying account and region: the destination of
 * every `lambda` target's invoke config, and where its execution role must be allowed to put
 * events.
 */
export function defaultEventBusArn(): string {
  return `arn:${Aws.PARTITION}:events:${Aws.REGION}:${Aws.ACCOUNT_ID}:event-bus/default`;
}

/** Properties of {@link CompletionTracking}. */
export interface CompletionTrackingProps {
  /** Every configured job; the rules exist when an enabled job needs them. */
  readonly jobs: readonly JobDefinition[];
  /** Where completions are recorded. */
  readonly recorder: RecorderFunction;
  /** Where EventBridge puts an event it could not hand to the recorder. */
  readonly deadLetterQueue: DeadLetterQueue;
}

/**
 * How the ends of runs reach the recorder: two EventBridge rules on the default bus, each of a
 * fixed size whatever the number of targets, each scoped to this stack.
 *
 * - `lambda` targets: their invoke configs (`TargetInvokeConfig`, in the shard stacks) send
 *   Lambda's invocation records to the default bus; the rule takes those whose request payload
 *   (the run envelope) names this stack. Two stacks that target one function share its invoke
 *   config and each hears of its own runs.
 * - `stepfunctions` targets: the rule takes terminal status changes of executions whose name
 *   starts with this stack's execution-name prefix (the dispatcher names them so).
 *
 * Both match only events of the stack's own account, and target the recorder with retries and
 * the dead-letter queue. The managed policy `destinationPolicy` is for the execution roles of
 * `lambda` targets: Lambda puts the records on the bus with the function's role (output
 * `TargetDestinationPolicyArn`), and the policy lets it put those records and nothing else.
 */
export class CompletionTracking extends Construct {
  /** Lambda invocation records of this stack's runs; absent without enabled lambda targets. */
  readonly lambdaResultRule?: events.Rule;
  /** Terminal executions of this stack's runs; absent without enabled stepfunctions targets. */
  readonly executionStatusRule?: events.Rule;
  /** Lets a target function's role put its invocation records on the default bus. */
  readonly destinationPolicy: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, props: CompletionTrackingProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    // Only this account's events: the default bus may also take events another account's
    // principals put under a bus policy (a completion must come from this stack's targets).
    const account = [Stack.of(this).account];
    const enabled = props.jobs.filter((job) => job.enabled);
    const toRecorder = () =>
      new eventTargets.LambdaFunction(props.recorder.lambda.function, {
        deadLetterQueue: props.deadLetterQueue.queue,
        retryAttempts: 8,
        maxEventAge: Duration.hours(6),
      });

    if (enabled.some((job) => job.target.type === 'lambda')) {
      this.lambdaResultRule = new events.Rule(this, 'LambdaResults', {
        description: `zonecron ${stackName}: results of lambda runs, to the recorder`,
        eventPattern: {
          source: ['lambda'],
          account,
          detailType: [...LAMBDA_RESULT_DETAIL_TYPES],
          detail: { requestPayload: { [ENVELOPE_STACK_FIELD]: [stackName] } },
        },
        targets: [toRecorder()],
      });
    }
    if (enabled.some((job) => job.target.type === 'stepfunctions')) {
      this.executionStatusRule = new events.Rule(this, 'ExecutionStatusChange', {
        description: `zonecron ${stackName}: terminal executions of stepfunctions runs, to the recorder`,
        eventPattern: {
          source: ['aws.states'],
          account,
          detailType: ['Step Functions Execution Status Change'],
          detail: {
            status: [...TERMINAL_EXECUTION_STATUSES],
            name: [{ prefix: executionNamePrefix(stackName) }],
          },
        },
        targets: [toRecorder()],
      });
    }

    this.destinationPolicy = new iam.ManagedPolicy(this, 'TargetDestinationPolicy', {
      description:
        'Attach to the execution role of every zonecron lambda target: its invocation records go to the default event bus with that role',
      statements: [
        // Only what a Lambda destination puts: its invocation records (source `lambda`, the two
        // result detail-types), on the default bus. `events:source` and `events:detail-type`
        // are PutEvents' condition keys, each entry's value (EventBridge user guide, "Using IAM
        // policy conditions in Amazon EventBridge" and "Example policy: Send events to a custom
        // bus in a different account"). A target can still put such a record by hand; the
        // recorder records none without the run's delivery secret.
        new iam.PolicyStatement({
          sid: 'PutInvocationRecords',
          actions: ['events:PutEvents'],
          resources: [defaultEventBusArn()],
          conditions: {
            'ForAllValues:StringEquals': {
              'events:source': ['lambda'],
              'events:detail-type': [...LAMBDA_RESULT_DETAIL_TYPES],
            },
            Null: { 'events:source': 'false' },
          },
        }),
      ],
    });
  }
}

/** Properties of {@link TargetInvokeConfig}. */
export interface TargetInvokeConfigProps {
  /** The target function and the qualifier the dispatcher invokes. */
  readonly target: LambdaTargetRef;
  /** Lambda's own retries of a failed asynchronous run, 0-2. */
  readonly maximumRetryAttempts: number;
}

/**
 * The asynchronous invoke config of one `lambda` target function and qualifier: on success
 * and on failure, the invocation record goes to the default event bus, where every stack that
 * targets the function picks out its own runs.
 *
 * Lambda allows one such config per function and qualifier, so exactly one stack creates it
 * (`createZonecronApp` decides within an app; `completion:` in jobs.yaml says when another
 * app or team manages it). The function must be in the stack's account and region, and its
 * execution role must be allowed `events:PutEvents` on the default bus before the deploy.
 */
export class TargetInvokeConfig extends Construct {
  /** The invoke config. */
  readonly resource: lambda.CfnEventInvokeConfig;

  constructor(scope: Construct, id: string, props: TargetInvokeConfigProps) {
    super(scope, id);
    this.resource = new lambda.CfnEventInvokeConfig(this, 'Resource', {
      functionName: props.target.functionArn,
      qualifier: props.target.qualifier,
      maximumRetryAttempts: props.maximumRetryAttempts,
      destinationConfig: {
        onSuccess: { destination: defaultEventBusArn() },
        onFailure: { destination: defaultEventBusArn() },
      },
    });
  }
}

/**
 * Lambda's retries of a failed asynchronous run for a job: `retry.maxAttempts - 1`, capped at
 * Lambda's maximum of 2.
 */
export function lambdaRetriesOf(job: JobDefinition): number {
  return Math.min(2, Math.max(0, job.retry.maxAttempts - 1));
}
