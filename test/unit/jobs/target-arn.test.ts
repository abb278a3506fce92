import { describe, expect, it } from 'vitest';
import {
  arnParts,
  completionFromTarget,
  lambdaTargetRef,
  stateMachineArnOf,
} from '#jobs/target-arn.ts';

describe('target ARNs', () => {
  it('splits a Lambda ARN into function and qualifier, $LATEST when unqualified', () => {
    expect(lambdaTargetRef('arn:aws:lambda:eu-west-1:123456789012:function:report:prod')).toEqual({
      functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:report',
      functionName: 'report',
      qualifier: 'prod',
      key: 'arn:aws:lambda:eu-west-1:123456789012:function:report:prod',
    });
    expect(lambdaTargetRef('arn:aws:lambda:eu-west-1:123456789012:function:report').key).toBe(
      'arn:aws:lambda:eu-west-1:123456789012:function:report:$LATEST',
    );
  });

  it('drops a state machine alias or version, as status-change events carry it', () => {
    expect(stateMachineArnOf('arn:aws:states:eu-west-1:123456789012:stateMachine:etl:7')).toBe(
      'arn:aws:states:eu-west-1:123456789012:stateMachine:etl',
    );
  });

  it('reads partition, service, region, account and the resource with its colons', () => {
    expect(arnParts('arn:aws-cn:lambda:cn-north-1:123456789012:function:f:live')).toEqual({
      partition: 'aws-cn',
      service: 'lambda',
      region: 'cn-north-1',
      account: '123456789012',
      resource: 'function:f:live',
    });
  });

  it("accepts a completion from the job's own function, its unqualified ARN meaning $LATEST", () => {
    const target = { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:1:function:f' } as const;
    expect(completionFromTarget(target, 'arn:aws:lambda:eu-west-1:1:function:f:$LATEST')).toBe(
      true,
    );
  });

  it('refuses a completion from another function or another qualifier of the same function', () => {
    const target = { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:1:function:f:live' } as const;
    expect(completionFromTarget(target, 'arn:aws:lambda:eu-west-1:1:function:g:live')).toBe(false);
    expect(completionFromTarget(target, 'arn:aws:lambda:eu-west-1:1:function:f:$LATEST')).toBe(
      false,
    );
  });

  it('matches a state machine through its alias and refuses targets that report no completion', () => {
    const machine = 'arn:aws:states:eu-west-1:1:stateMachine:etl:live';
    expect(
      completionFromTarget(
        { type: 'stepfunctions', arn: machine },
        'arn:aws:states:eu-west-1:1:stateMachine:etl',
      ),
    ).toBe(true);
    expect(
      completionFromTarget(
        { type: 'sqs', arn: 'arn:aws:sqs:eu-west-1:1:q' },
        'arn:aws:sqs:eu-west-1:1:q',
      ),
    ).toBe(false);
  });
});
