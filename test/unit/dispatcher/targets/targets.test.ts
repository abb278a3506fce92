import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { executionNameFor } from '../../../../functions/dispatcher/targets/execution-name.ts';
import {
  createTargetDelivery,
  TargetDeliveryError,
} from '../../../../functions/dispatcher/targets/index.ts';
import { queueUrlFromArn } from '../../../../functions/dispatcher/targets/sqs.ts';

const KEY = '6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b';
const envelope: RunEnvelope = {
  version: 1,
  jobId: 'nightly_report',
  key: KEY,
  scheduledAt: '2023-03-26T01:30:00.000Z',
  nominal: '2023-03-26T02:30',
  timezone: 'Europe/Berlin',
  dst: 'gap',
  attempt: 1,
  logicalDate: '2023-03-26',
  payload: { region: 'eu' },
  stack: 'Zonecron',
};

const lambda = mockClient(LambdaClient);
const sns = mockClient(SNSClient);
const eventbridge = mockClient(EventBridgeClient);
const sfn = mockClient(SFNClient);

const targets = () =>
  createTargetDelivery({
    lambda: new LambdaClient({ region: 'us-east-1' }),
    sqs: new SQSClient({ region: 'us-east-1' }),
    sns: new SNSClient({ region: 'us-east-1' }),
    eventbridge: new EventBridgeClient({ region: 'us-east-1' }),
    sfn: new SFNClient({ region: 'us-east-1' }),
  });

afterEach(() => {
  lambda.reset();
  sns.reset();
  eventbridge.reset();
  sfn.reset();
});

describe('lambda target', () => {
  it('invokes asynchronously with the envelope and returns the request id', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202, $metadata: { requestId: 'req-1' } });
    const arn = 'arn:aws:lambda:eu-west-1:123456789012:function:report';
    const result = await targets().deliver({ type: 'lambda', arn }, envelope);
    expect(result).toEqual({ deliveryId: 'req-1' });
    const input = lambda.commandCalls(InvokeCommand)[0]?.args[0].input;
    expect(input?.FunctionName).toBe(arn);
    expect(input?.InvocationType).toBe('Event');
    expect(JSON.parse(new TextDecoder().decode(input?.Payload as Uint8Array))).toEqual(envelope);
  });
});

describe('sns target', () => {
  it.each([
    ['a standard topic', 'arn:aws:sns:eu-west-1:123456789012:runs', undefined],
    [
      'a FIFO topic',
      'arn:aws:sns:eu-west-1:123456789012:runs.fifo',
      { group: 'nightly_report', dedup: KEY },
    ],
  ])('publishes the envelope to %s', async (_name, arn, fifo) => {
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    expect(await targets().deliver({ type: 'sns', arn }, envelope)).toEqual({ deliveryId: 'm-1' });
    const input = sns.commandCalls(PublishCommand)[0]?.args[0].input;
    expect(input?.TopicArn).toBe(arn);
    expect(JSON.parse(input?.Message ?? '')).toEqual(envelope);
    expect(input?.MessageGroupId).toBe(fifo?.group);
    expect(input?.MessageDeduplicationId).toBe(fifo?.dedup);
  });
});

describe('eventbridge target', () => {
  const arn = 'arn:aws:events:eu-west-1:123456789012:event-bus/jobs';

  it('puts one zonecron.run event on the bus', async () => {
    eventbridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'ev-1' }] });
    expect(await targets().deliver({ type: 'eventbridge', arn }, envelope)).toEqual({
      deliveryId: 'ev-1',
    });
    const entry = eventbridge.commandCalls(PutEventsCommand)[0]?.args[0].input.Entries?.[0];
    expect(entry).toMatchObject({
      EventBusName: arn,
      Source: 'zonecron',
      DetailType: 'zonecron.run',
    });
    expect(JSON.parse(entry?.Detail ?? '')).toEqual(envelope);
  });

  it('fails when PutEvents reports a failed entry in a 200 response', async () => {
    eventbridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }],
    });
    await expect(targets().deliver({ type: 'eventbridge', arn }, envelope)).rejects.toThrow(
      TargetDeliveryError,
    );
  });
});

describe('stepfunctions target', () => {
  const arn = 'arn:aws:states:eu-west-1:123456789012:stateMachine:report';

  it('starts an execution named after the run key', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:exec', startDate: new Date() });
    expect(await targets().deliver({ type: 'stepfunctions', arn }, envelope)).toEqual({
      deliveryId: 'arn:exec',
    });
    const input = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(input?.stateMachineArn).toBe(arn);
    expect(input?.name).toBe(`zc4804dd9a-${KEY}-g0`);
    expect(JSON.parse(input?.input ?? '')).toEqual(envelope);
  });

  it('treats ExecutionAlreadyExists as the run already delivered', async () => {
    sfn
      .on(StartExecutionCommand)
      .rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    expect(await targets().deliver({ type: 'stepfunctions', arn }, envelope)).toEqual({
      deliveryId: `arn:aws:states:eu-west-1:123456789012:execution:report:zc4804dd9a-${KEY}-g0`,
    });
  });

  it('names a new round of the same run differently, within 80 valid characters', () => {
    const first = executionNameFor('zc4804dd9a-', KEY, 0);
    const redriven = executionNameFor('zc4804dd9a-', KEY, 12);
    expect(first).not.toBe(redriven);
    expect(redriven).toHaveLength(79);
    expect(redriven).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe('queueUrlFromArn', () => {
  it('builds the AWS queue URL', () => {
    expect(queueUrlFromArn('arn:aws:sqs:eu-west-1:123456789012:jobs.fifo')).toBe(
      'https://sqs.eu-west-1.amazonaws.com/123456789012/jobs.fifo',
    );
  });

  it('uses the China partition DNS suffix for aws-cn queues', () => {
    expect(queueUrlFromArn('arn:aws-cn:sqs:cn-north-1:123456789012:jobs')).toBe(
      'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/jobs',
    );
  });

  it('rejects something that is not a queue ARN', () => {
    expect(() => queueUrlFromArn('arn:aws:sns:eu-west-1:123456789012:topic')).toThrow(
      TargetDeliveryError,
    );
  });
});
