import type { JobTarget } from './job.ts';

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
  return {
    functionArn: parts.slice(0, 7).join(':'),
    functionName: parts[6] ?? '',
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
