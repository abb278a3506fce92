import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEnvelope } from '#jobs/envelope.ts';
import {
  createTargetDelivery,
  type TargetClients,
} from '../../../functions/dispatcher/targets/index.ts';
import { queueUrlViaGetQueueUrl } from '../../../functions/dispatcher/targets/sqs.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';

let local: LocalSqs;

beforeAll(async () => {
  local = await startLocalSqs();
});

afterAll(async () => {
  await local.stop();
});

const envelope = (key: string): RunEnvelope => ({
  version: 1,
  jobId: 'orders',
  key,
  scheduledAt: '2023-10-29T00:30:00.000Z',
  nominal: '2023-10-29T02:30',
  timezone: 'Europe/Berlin',
  dst: 'overlap',
  attempt: 1,
  logicalDate: '2023-10-29',
  payload: null,
  stack: 'Test',
});

describe('sqs target against fauxqs', () => {
  const delivery = () =>
    createTargetDelivery({ sqs: local.sqs } as unknown as TargetClients, {
      resolveQueueUrl: queueUrlViaGetQueueUrl(local.sqs),
    });

  it('sends the envelope as the message body of a standard queue', async () => {
    const { queueArn } = local.createQueue('runs');
    const result = await delivery().deliver({ type: 'sqs', arn: queueArn }, envelope('k1'));
    expect(result.deliveryId).toMatch(/\S/);
    expect(local.messages('runs')).toEqual([envelope('k1')]);
  });

  it('groups FIFO messages by job and lets SQS drop a re-send of the same run', async () => {
    const { queueArn } = local.createQueue('runs.fifo');
    const targets = delivery();
    await targets.deliver({ type: 'sqs', arn: queueArn }, envelope('k1'));
    await targets.deliver({ type: 'sqs', arn: queueArn }, { ...envelope('k1'), attempt: 2 });
    await targets.deliver({ type: 'sqs', arn: queueArn }, envelope('k2'));
    expect(local.messages<RunEnvelope>('runs.fifo').map((m) => [m.key, m.attempt])).toEqual([
      ['k1', 1],
      ['k2', 1],
    ]);
    const raw = local.server.inspectQueue('runs.fifo')?.messages.ready[0];
    expect(raw?.messageGroupId).toBe('orders');
  });
});
