import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createSqsDeadLetters, type DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { createDynamoLedger, createLedgerStore } from '#ledger/index.ts';
import type { RunMetricName } from '#shared/metrics.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { key, lambdaTarget, sqsTargetsOf, tablePerCase } from '../../support/dispatcher-cases.ts';
import { RecordingDeadLetters, RecordingTargets, TestClock } from '../../support/doubles.ts';
import { freePort } from '../../support/dynamodb-local.ts';
import type { LocalSqs } from '../../support/fauxqs.ts';
import {
  harness,
  lifecycle,
  sweepEvent,
  sweepMinutes,
  tickEvent as tick,
  tickEvent,
} from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable, localDynamoClient } from '../../support/ledger.ts';

// Retries and dead letters: a failed delivery is tried again within maxAttempts, then
// dead-lettered once.
//
// The dispatcher core (and recorder) against DynamoDB Local, faults injected at the exact
// request where they bite; test/support/dispatcher-cases.ts says what "found by" means.

let client: DynamoDBClient;
let tableName: string;
let local: LocalSqs;

/** Real target delivery whose SQS client talks to fauxqs. */
const sqsTargets = () => sqsTargetsOf(local);

describe('retries and dead letters, on a table per case', () => {
  tablePerCase('retries', { sqs: true }, (tables) => {
    ({ client, tableName } = tables);
    local = tables.local as LocalSqs;
  });

  it('dead-letters a run once after maxAttempts failed deliveries and never retries it again', async () => {
    const { queueUrl: dlqUrl } = local.createQueue('dispatcher-dlq');
    const job = makeJob({
      id: 'failing',
      schedule: '0 * * * *',
      timezone: 'America/New_York',
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:broken' },
      payload: { report: 'daily' },
      retry: { maxAttempts: 3 },
    });
    const clock = new TestClock('2023-06-01T12:00:03.000Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('ResourceNotFoundException: Function not found');
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job],
      targets,
      deadLetters: createSqsDeadLetters(local.sqs, dlqUrl),
    });
    await h.ledger.createJobState('failing', new Date('2023-06-01T11:00:00Z'));
    const first = await h.dispatcher.handle(tick('failing', '2023-06-01T12:00:00Z'));
    expect(first).toMatchObject({
      outcomes: [{ outcome: 'delivery-failed', attempt: 1, retryAt: '2023-06-01T12:01:03.000Z' }],
    });
    // The sweep retries it at its backoff: 12:01, then 12:03 (two minutes later).
    for (const minute of ['12:01', '12:02', '12:03', '12:04', '12:05']) {
      clock.set(`2023-06-01T${minute}:05.000Z`);
      await h.dispatcher.handle(sweepEvent(`2023-06-01T${minute}:00Z`));
    }
    const again = await h.dispatcher.handle(tick('failing', '2023-06-01T12:00:00Z', 2));
    expect(again).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });

    expect(targets.attempts).toBe(3);
    expect(targets.received).toHaveLength(0);
    const key = periodBucket('failing', new Date('2023-06-01T12:00:00Z'));
    const dlq = local.messages<DeadLetterMessage>('dispatcher-dlq');
    expect(dlq).toEqual([
      {
        version: 1,
        reason: 'delivery-failed',
        key,
        jobId: 'failing',
        envelope: {
          version: 1,
          jobId: 'failing',
          key,
          scheduledAt: '2023-06-01T12:00:00.000Z',
          nominal: '2023-06-01T08:00',
          timezone: 'America/New_York',
          dst: 'none',
          attempt: 3,
          logicalDate: '2023-06-01',
          payload: { report: 'daily' },
          stack: 'Test',
        },
        target: job.target,
        lastError: 'Error: ResourceNotFoundException: Function not found',
        attempts: 3,
        failedAt: '2023-06-01T12:03:05.000Z',
      },
    ]);
    expect(await h.ledger.getRun(key)).toMatchObject({
      status: 'failed',
      failure: 'delivery',
      attempts: 3,
      lastError: 'Error: ResourceNotFoundException: Function not found',
    });
    expect(h.metrics.count('failing', 'DeliveryFailures')).toBe(3);
    expect(h.metrics.count('failing', 'DeadLettered')).toBe(1);
    expect(h.logger.withMessage('dead-lettered')).toHaveLength(1);
    expect(h.notifier.count(key, 'dead-lettered')).toBe(1);
  });

  describe('a dispatcher that died on the last attempt, between claim and delivery', () => {
    const at = new Date('2023-06-01T10:00:00Z');

    /** Two failed attempts, then the third claim of a dispatcher that never came back. */
    async function abandonedRun(jobId: string) {
      const { queueArn } = local.createQueue(`${jobId}-target`);
      const { queueUrl: dlqUrl } = local.createQueue(`${jobId}-dlq`);
      const job = makeJob({
        id: jobId,
        schedule: '*/10 * * * *',
        timezone: 'Europe/Berlin',
        target: { type: 'sqs', arn: queueArn },
        payload: { report: 'ten-minutely' },
        retry: { maxAttempts: 3 },
      });
      const key = periodBucket(jobId, at);
      const ledger = createDynamoLedger(createLedgerStore({ client, tableName }));
      await ledger.createJobState(jobId, new Date('2023-06-01T09:50:00Z'));
      const request = (nowIso: string, mode: 'any' | 'reclaim') => ({
        key,
        jobId,
        at,
        nominal: '2023-06-01T12:00',
        dst: 'none',
        manual: false,
        origin: 'tick' as const,
        target: queueArn,
        secretHash: 'a'.repeat(64),
        mode,
        maxAttempts: 3,
        nowEpochMs: Date.parse(nowIso),
        leaseUntilEpochMs: Date.parse(nowIso) + 300_000,
        ttlEpochSec: 0,
        missed: false,
      });
      for (const [attempt, nowIso] of [
        [1, '2023-06-01T09:58:00.000Z'],
        [2, '2023-06-01T09:59:00.000Z'],
      ] as const) {
        const mode = attempt === 1 ? 'any' : 'reclaim';
        expect(await ledger.claim(request(nowIso, mode))).toMatchObject({ claimed: true });
        const failure = { lastError: 'e', retryAtEpochMs: Date.parse(nowIso) };
        expect(await ledger.releaseFailed(key, attempt, failure)).toBe(true);
      }
      const dead = await ledger.claim(request('2023-06-01T10:00:01.000Z', 'reclaim'));
      expect(dead).toMatchObject({
        claimed: true,
        item: {
          status: 'claimed',
          attempts: 3,
          leaseUntilEpochMs: Date.parse('2023-06-01T10:05:01.000Z'),
        },
      });
      const clock = new TestClock('2023-06-01T10:00:01.000Z');
      const setup = {
        client,
        tableName,
        clock,
        jobs: [job],
        targets: sqsTargets(),
      };
      const deadLetters = createSqsDeadLetters(local.sqs, dlqUrl);
      return { job, key, ledger, clock, setup, deadLetters };
    }

    /** The one DLQ message such a run must produce, taken over at `failedAt`. */
    function expectedDeadLetter(job: JobDefinition, key: string, failedAt: string) {
      return {
        version: 1,
        reason: 'delivery-failed',
        key,
        jobId: job.id,
        envelope: {
          version: 1,
          jobId: job.id,
          key,
          scheduledAt: '2023-06-01T10:00:00.000Z',
          nominal: '2023-06-01T12:00',
          timezone: 'Europe/Berlin',
          dst: 'none',
          attempt: 3,
          logicalDate: '2023-06-01',
          payload: { report: 'ten-minutely' },
          stack: 'Test',
        },
        target: job.target,
        lastError:
          'dispatcher stopped during delivery attempt 3 (lease expired at 2023-06-01T10:05:01.000Z)',
        attempts: 3,
        failedAt,
      };
    }

    it('is dead-lettered once by the sweep after its lease expired, not before; a retried tick is refused', async () => {
      const { job, key, ledger, clock, setup, deadLetters } = await abandonedRun('abandoned');
      const h = harness({ ...setup, deadLetters });
      clock.set('2023-06-01T10:05:00.000Z'); // Lambda's retry while the lease still holds
      const early = await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z', 2));
      expect(early).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
      expect(await h.dispatcher.handle(sweepEvent('2023-06-01T10:05:00Z'))).toMatchObject({
        settled: [],
      });
      expect(local.messages(`${job.id}-dlq`)).toHaveLength(0);

      clock.set('2023-06-01T10:06:02.000Z');
      const late = await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z', 3));
      expect(late).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
      expect(await h.dispatcher.handle(sweepEvent('2023-06-01T10:06:00Z'))).toMatchObject({
        settled: [{ key, action: 'dead-lettered' }],
      });
      clock.set('2023-06-01T10:07:02.000Z');
      await h.dispatcher.handle(sweepEvent('2023-06-01T10:07:00Z'));

      expect(local.messages<DeadLetterMessage>(`${job.id}-dlq`)).toEqual([
        expectedDeadLetter(job, key, '2023-06-01T10:06:02.000Z'),
      ]);
      expect(local.messages(`${job.id}-target`)).toHaveLength(0);
      expect(await ledger.getRun(key)).toMatchObject({
        status: 'failed',
        failure: 'delivery',
        attempts: 3,
        lastError: expectedDeadLetter(job, key, '').lastError,
        completedAt: '2023-06-01T10:06:02.000Z',
        outbox: [],
      });
      expect(h.metrics.count(job.id, 'DeadLettered')).toBe(1);
      expect(h.logger.withMessage('dead-lettered')).toHaveLength(1);
      expect(h.notifier.count(key, 'dead-lettered')).toBe(1);
    });

    it('is dead-lettered once when 10 sweeps settle it concurrently', async () => {
      const { job, key, ledger, clock, setup, deadLetters } = await abandonedRun('abandoned-race');
      const containers = Array.from({ length: 10 }, () => harness({ ...setup, deadLetters }));
      clock.set('2023-06-01T10:05:02.000Z');
      await Promise.all(
        containers.map((c) => c.dispatcher.handle(sweepEvent('2023-06-01T10:05:00Z'))),
      );
      expect(local.messages<DeadLetterMessage>(`${job.id}-dlq`)).toEqual([
        expectedDeadLetter(job, key, '2023-06-01T10:05:02.000Z'),
      ]);
      const sum = (name: RunMetricName) =>
        containers.reduce((total, c) => total + c.metrics.count(job.id, name), 0);
      expect(sum('DeadLettered')).toBe(1);
      const logged = (message: string) =>
        containers.reduce((total, c) => total + c.logger.withMessage(message).length, 0);
      expect(logged('dead-lettered')).toBe(1);
      expect(await ledger.getRun(key)).toMatchObject({ status: 'failed', attempts: 3 });
    });
  });

  it('throws and delivers nothing when DynamoDB is unreachable', async () => {
    const port = await freePort();
    const unreachable = localDynamoClient(`http://127.0.0.1:${port}`, 2);
    const targets = new RecordingTargets();
    const h = harness({
      client: unreachable,
      tableName,
      clock: new TestClock('2023-06-01T12:00:01Z'),
      jobs: [makeJob({ id: 'offline', schedule: '0 * * * *', timezone: 'UTC' })],
      targets,
    });
    await expect(h.dispatcher.handle(tick('offline', '2023-06-01T12:00:00Z'))).rejects.toThrow(
      /ECONNREFUSED|connect/,
    );
    expect(targets.attempts).toBe(0);
    unreachable.destroy();
  });
});

describe('retries and dead letters, under faults', () => {
  // Found by a fault search against DynamoDB Local.
  it("retries a delivery-failed run past the tick's own retries until the target is back, within maxAttempts", async () => {
    const { client, tableName } = await faultableLedgerTable('f2a');
    const job = makeJob({
      id: 'flaky',
      schedule: '0 */6 * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 10 },
    });
    const clock = new TestClock('2023-06-01T06:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T00:00:00Z'));
    targets.beforeDeliver = () => {
      targets.failWith =
        clock.now() < new Date('2023-06-01T06:30:00Z') ? new Error('down') : undefined;
    };
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T06:00:00Z'));
    await sweepMinutes(h, clock, '2023-06-01T06:01:00Z', '2023-06-01T06:45:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T06:00:00.000Z']);
    const item = await h.ledger.getRun(key(job, '2023-06-01T06:00:00Z'));
    // Retries at 06:01, 06:03, 06:07, 06:15 and 06:30: one, two, four, eight, then at most 15 minutes apart.
    expect(item).toMatchObject({ status: 'dispatched', attempts: 6 });
    expect(h.metrics.count(job.id, 'DeliveryFailures')).toBe(5);
    expect(h.metrics.count(job.id, 'DeadLettered')).toBe(0);
  });

  // Found by a fault search against DynamoDB Local.
  it('dead-letters once a run whose attempts a redeploy lowered below those made, and ticks stay cheap', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f2b');
    const before = makeJob({
      id: 'lowered',
      schedule: '*/15 * * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 5 },
    });
    const after = makeJob({ ...before, retry: { maxAttempts: 2 } });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('down');
    const old = harness({ client, tableName, clock, jobs: [before], targets });
    await old.ledger.createJobState(before.id, new Date('2023-06-01T09:45:00Z'));
    await old.dispatcher.handle(tickEvent(before.id, '2023-06-01T10:00:00Z'));
    for (const minute of ['10:01', '10:03', '10:07']) {
      clock.set(`2023-06-01T${minute}:20Z`);
      await old.dispatcher.handle(sweepEvent(`2023-06-01T${minute}:00Z`));
    }
    expect((await old.ledger.getRun(key(before, '2023-06-01T10:00:00Z')))?.roundAttempts).toBe(4);
    // Redeployed with retry.maxAttempts 2, the target back up.
    targets.failWith = undefined;
    const h = harness({ client, tableName, clock, jobs: [after], targets });
    clock.set('2023-06-01T10:15:01Z');
    faults.resetCounts();
    await h.dispatcher.handle(tickEvent(after.id, '2023-06-01T10:15:00Z'));
    expect(faults.total()).toBe(3);
    await sweepMinutes(h, clock, '2023-06-01T10:15:00Z', '2023-06-01T10:17:00Z');
    const item = await h.ledger.getRun(key(after, '2023-06-01T10:00:00Z'));
    expect(item).toMatchObject({ status: 'failed', failure: 'delivery', outbox: [] });
    expect(h.notifier.count(key(after, '2023-06-01T10:00:00Z'), 'dead-lettered')).toBe(1);
    faults.resetCounts();
    clock.set('2023-06-01T10:30:01Z');
    await h.dispatcher.handle(tickEvent(after.id, '2023-06-01T10:30:00Z'));
    expect(faults.total()).toBe(3);
  });

  // Found by a fault search against DynamoDB Local.
  it('finishes every delivery of a sweep before it fails for the part that broke', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f10');
    const ok = makeJob({ id: 'fine', schedule: '0 * * * *', timezone: 'UTC' });
    const broken = makeJob({ id: 'broken', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T09:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [ok, broken], targets });
    for (const job of [ok, broken])
      await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T09:00:00Z'));
    // The 10:00 ticks are lost; the sweep after grace catches both up, and one claim fails.
    faults.fail(
      (r) =>
        r.command === 'UpdateItemCommand' &&
        (r.input.Key as { pk: { S: string } }).pk.S === key(broken, '2023-06-01T10:00:00Z'),
      {
        error: () =>
          Object.assign(new Error('internal'), { name: 'InternalServerError', $fault: 'client' }),
      },
    );
    clock.set('2023-06-01T10:06:20Z');
    await expect(h.dispatcher.handle(sweepEvent('2023-06-01T10:06:00Z'))).rejects.toThrow(
      /sweep failed in 1 part/,
    );
    expect(await h.ledger.getRun(key(ok, '2023-06-01T10:00:00Z'))).toMatchObject({
      status: 'dispatched',
    });
    clock.set('2023-06-01T10:07:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:07:00Z'));
    expect(targets.instants('broken')).toEqual([
      '2023-06-01T09:00:00.000Z',
      '2023-06-01T10:00:00.000Z',
    ]);
    expect(targets.instants('fine')).toHaveLength(2);
  });

  // Found by a fault search against DynamoDB Local.
  it('records one outcome and one dead letter when ten copies of one failure arrive at once, none throwing', async () => {
    const { client, tableName } = await faultableLedgerTable('f11c');
    const job = makeJob({
      id: 'tenfold',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: lambdaTarget('x'),
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    const envelope = life.targets.received[0]?.envelope as never;
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        life.complete(envelope, new Date('2023-06-01T10:03:00Z'), 'RetriesExhausted'),
      ),
    );
    expect(outcomes.filter((o) => o.outcome === 'recorded')).toHaveLength(1);
    expect(life.deadLetters.messages).toHaveLength(1);
    expect(life.notifier.count(key(job, '2023-06-01T10:00:00Z'), 'run-failed')).toBe(1);
  });

  // Found by the seeded chaos simulation.
  it('sends one dead letter when the write confirming it is throttled once', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c4');
    const job = makeJob({
      id: 'fragile',
      schedule: '0 * * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 1 },
    });
    const clock = new TestClock('2023-06-01T10:00:00.200Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('target down');
    const deadLetters = new RecordingDeadLetters();
    const h = harness({ client, tableName, clock, jobs: [job], targets, deadLetters });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    // The message went out; the write that takes it off the run's outbox is throttled.
    faults.fail(
      (r) =>
        r.command === 'UpdateItemCommand' && String(r.input.UpdateExpression).includes('DELETE'),
    );
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    // Past the outbox's lease the sweep looks at the run again.
    await sweepMinutes(h, clock, '2023-06-01T10:03:00Z', '2023-06-01T10:05:00Z');
    expect(deadLetters.messages.map((m) => m.key)).toEqual([
      periodBucket(job.id, new Date('2023-06-01T10:00:00Z')),
    ]);
    expect(h.notifier.sent.map((n) => n.signal)).toEqual(['dead-lettered']);
  });
});
