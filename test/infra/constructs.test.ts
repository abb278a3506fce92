/**
 * Construct-level behaviour that needs no bundling: target ARN parsing, the dispatcher's
 * target statements, the size guard on the jobs define, and how per-job alarms are split
 * into nested stacks.
 */
import { App, Duration, type NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import type { JobDefinition, TargetType } from '../../functions/shared/job.ts';
import { lambdaTargetRef, stateMachineArnOf } from '../../infra/constructs/completion-tracking.ts';
import type { DeadLetterQueue } from '../../infra/constructs/dead-letter-queue.ts';
import {
  type DispatcherFunction,
  targetStatements,
} from '../../infra/constructs/dispatcher-function.ts';
import type { JobSchedules } from '../../infra/constructs/job-schedules.ts';
import { OnCallAlarms } from '../../infra/constructs/on-call-alarms.ts';
import type { RecorderFunction } from '../../infra/constructs/recorder-function.ts';
import { type JobOverrides, makeJob } from '../support/jobs.ts';

function job(
  id: string,
  type: TargetType,
  arn: string,
  overrides: JobOverrides = {},
): JobDefinition {
  return makeJob({ schedule: '0 3 * * *', ...overrides, id, target: { type, arn } });
}

describe('target ARNs', () => {
  it('splits a Lambda ARN into function and qualifier, $LATEST when unqualified', () => {
    expect(lambdaTargetRef('arn:aws:lambda:eu-west-1:123456789012:function:report:prod')).toEqual({
      functionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:report',
      functionName: 'report',
      qualifier: 'prod',
    });
    expect(lambdaTargetRef('arn:aws:lambda:eu-west-1:123456789012:function:report').qualifier).toBe(
      '$LATEST',
    );
  });

  it('drops a state machine alias or version, as status-change events carry it', () => {
    expect(stateMachineArnOf('arn:aws:states:eu-west-1:123456789012:stateMachine:etl:7')).toBe(
      'arn:aws:states:eu-west-1:123456789012:stateMachine:etl',
    );
  });
});

describe('targetStatements', () => {
  it('deduplicates ARNs, skips disabled jobs and uses one action per type', () => {
    const statements = targetStatements([
      job('a', 'sqs', 'arn:aws:sqs:eu-west-1:123456789012:q'),
      job('b', 'sqs', 'arn:aws:sqs:eu-west-1:123456789012:q'),
      job('c', 'sns', 'arn:aws:sns:eu-west-1:123456789012:off', { enabled: false }),
    ]).map((s) => s.toStatementJson());
    expect(statements).toEqual([
      {
        Sid: 'DeliverSqs',
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: 'arn:aws:sqs:eu-west-1:123456789012:q',
      },
    ]);
  });
});

describe('per-job alarms in nested stacks', () => {
  // Stand-ins for the Lambda constructs: OnCallAlarms only reads their metrics.
  const metric = (name: string) => new cloudwatch.Metric({ namespace: 'Test', metricName: name });
  const fakeFunction = {
    metricErrors: () => metric('E'),
    metricThrottles: () => metric('T'),
    metricDurationMs: () => metric('D'),
    timeout: Duration.seconds(60),
  };

  it('splits 125 jobs into nested stacks of 60, each far below 500 resources', () => {
    const stack = new Stack(new App(), 'Zonecron');
    const jobs = Array.from({ length: 125 }, (_, i) =>
      job(
        `job-${i}`,
        i % 2 === 0 ? 'lambda' : 'sqs',
        i % 2 === 0
          ? 'arn:aws:lambda:eu-west-1:123456789012:function:f'
          : 'arn:aws:sqs:eu-west-1:123456789012:q',
      ),
    );
    const alarms = new OnCallAlarms(stack, 'Alarms', {
      jobs,
      dispatcher: fakeFunction as unknown as DispatcherFunction,
      recorder: fakeFunction as unknown as RecorderFunction,
      schedules: {
        metricDropped: () => metric('Dr'),
        metricFailedToBeSentToDeadLetter: () => metric('F'),
      } as unknown as JobSchedules,
      deadLetterQueue: { metricMessagesVisible: () => metric('V') } as unknown as DeadLetterQueue,
    });
    expect(alarms.jobAlarmStacks).toHaveLength(3);
    const counts = alarms.jobAlarmStacks.map(
      (nested: NestedStack) => Object.keys(Template.fromStack(nested).toJSON().Resources).length,
    );
    // 63 lambda jobs with 6 alarms, 62 sqs jobs with 5: 30 + 30 lambda/sqs in the first two.
    expect(counts).toEqual([30 * 6 + 30 * 5, 30 * 6 + 30 * 5, 3 * 6 + 2 * 5]);
    expect(Math.max(...counts)).toBeLessThan(500);
    expect(alarms.alarms.size).toBe(7 + 63 * 6 + 62 * 5);
    Template.fromStack(stack).resourceCountIs('AWS::CloudFormation::Stack', 3);
  });
});
