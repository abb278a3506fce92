import { describe, expect, it } from 'vitest';
import {
  arnParts,
  lambdaTargetRef,
  stateMachineArnOf,
} from '../../../infra/targets/target-arns.ts';

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
});
