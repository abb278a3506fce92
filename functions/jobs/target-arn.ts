/**
 * What zonecron reads out of a target ARN the loader has already checked
 * (`infra/config/schema.ts`): where the target lives, and for Lambda and Step Functions the
 * names completion tracking works with. The stack, the loader and the recorder share it.
 */
import type { JobTarget } from './job.ts';

/** The parts of an ARN, `arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE`. */
export interface ArnParts {
  readonly partition: string;
  readonly service: string;
  readonly region: string;
  readonly account: string;
  /** Everything after the account, colons included. */
  readonly resource: string;
}

/**
 * Splits an ARN into its parts.
 *
 * @example
 * arnParts('arn:aws:sqs:eu-west-1:123456789012:billing.fifo')
 * //=> { partition: 'aws', service: 'sqs', region: 'eu-west-1', account: '123456789012', resource: 'billing.fifo' }
 */
export function arnParts(arn: string): ArnParts {
  const parts = arn.split(':');
  return {
    partition: parts[1] ?? '',
    service: parts[2] ?? '',
    region: parts[3] ?? '',
    account: parts[4] ?? '',
    resource: parts.slice(5).join(':'),
  };
}

/** A Lambda function named by a target ARN: its name and the qualifier the dispatcher invokes. */
export interface LambdaTargetRef {
  /** `arn:PARTITION:lambda:REGION:ACCOUNT:function:NAME`, without the qualifier. */
  readonly functionArn: string;
  readonly functionName: string;
  /** The ARN's version or alias; `$LATEST` for an unqualified ARN. */
  readonly qualifier: string;
  /** `functionArn:qualifier`: one asynchronous invoke config exists per key. */
  readonly key: string;
}

/**
 * Splits a Lambda target ARN into function and qualifier.
 *
 * @example
 * lambdaTargetRef('arn:aws:lambda:eu-west-1:123456789012:function:report:prod')
 * //=> { functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:report', functionName: 'report',
 * //     qualifier: 'prod', key: 'arn:aws:lambda:eu-west-1:123456789012:function:report:prod' }
 */
export function lambdaTargetRef(arn: string): LambdaTargetRef {
  const parts = arn.split(':');
  const functionArn = parts.slice(0, 7).join(':');
  const qualifier = parts[7] ?? '$LATEST';
  return {
    functionArn,
    functionName: parts[6] ?? '',
    qualifier,
    key: `${functionArn}:${qualifier}`,
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

/**
 * True when a completion came from the job's own target: the same function and qualifier (a
 * destination record names the qualified ARN it ran), or the same state machine.
 *
 * @example
 * completionFromTarget({ type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:1:function:f' },
 *   'arn:aws:lambda:eu-west-1:1:function:f:$LATEST') //=> true
 */
export function completionFromTarget(target: JobTarget, reportedArn: string): boolean {
  if (target.type === 'lambda') {
    const want = lambdaTargetRef(target.arn);
    const got = lambdaTargetRef(reportedArn);
    return want.functionArn === got.functionArn && want.qualifier === got.qualifier;
  }
  if (target.type === 'stepfunctions') {
    return stateMachineArnOf(target.arn) === stateMachineArnOf(reportedArn);
  }
  return false;
}
