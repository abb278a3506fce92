import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import {
  harness,
  lifecycle,
  sweepEvent as sweep,
  tickEvent as tick,
} from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

let client: DynamoDBClient;
let tableName: string;

beforeAll(() => {
  client = localDynamoClient(inject('dynamoEndpoint'));
});

// The sweep looks at every open run of its table: each test gets a table of its own.
beforeEach(async () => {
  tableName = await createLedgerTable(client, 'lifecycle');
});

afterAll(() => client.destroy());

describe('the sweep: missed, late and stuck runs', () => {
  it('catches up a run whose tick never came, once, and reports it missed once', async () => {
    const job = makeJob({ id: 'five-minutely', schedule: '*/5 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:01Z');
    const targets = new RecordingTargets();
    const a = harness({ client, tableName, clock, jobs: [job], targets });
    const b = harness({ client, tableName, clock, jobs: [job], targets });
    await a.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    clock.set('2023-06-01T10:05:01Z');
    await a.dispatcher.handle(tick(job.id, '2023-06-01T10:05:00Z'));
    // the 10:10 tick is lost; sweeps run every minute, the same sweep is delivered twice
    for (const minute of ['10:15', '10:16', '10:17']) {
      clock.set(`2023-06-01T${minute}:02Z`);
      await Promise.all([
        a.dispatcher.handle(sweep(`2023-06-01T${minute}:00Z`)),
        b.dispatcher.handle(sweep(`2023-06-01T${minute}:00Z`)),
      ]);
    }
    clock.set('2023-06-01T10:17:30Z'); // the lost tick finally arrives
    await a.dispatcher.handle(tick(job.id, '2023-06-01T10:10:00Z'));

    expect(targets.instants()).toEqual([
      '2023-06-01T10:00:00.000Z',
      '2023-06-01T10:05:00.000Z',
      '2023-06-01T10:10:00.000Z',
    ]);
    const missed = a.metrics.count(job.id, 'MissedRuns') + b.metrics.count(job.id, 'MissedRuns');
    expect(missed).toBe(1);
    // Caught up 5 minutes after its instant: missed (its own tick did not deliver it), which is
    // what on-call hears about; late is for a run its own tick delivered after grace.
    const late = a.metrics.count(job.id, 'LateRuns') + b.metrics.count(job.id, 'LateRuns');
    expect(late).toBe(0);
    expect(a.notifier.sent.length + b.notifier.sent.length).toBe(1);
    const item = await a.ledger.getRun(periodBucket(job.id, new Date('2023-06-01T10:10:00Z')));
    expect(item).toMatchObject({ status: 'dispatched', attempts: 1 });
  });

  it.each([
    ['none', 'catch-up-none', 0],
    ['latest', 'catch-up-latest', 0], // the 10:15 run is due already: the 10:10 one is obsolete
  ] as const)(
    'records a missed run as skipped, and missed, under policy %s',
    async (policy, reason, delivered) => {
      const job = makeJob({
        id: `missed-${policy}`,
        schedule: '*/5 * * * *',
        timezone: 'UTC',
        catchup: { policy },
      });
      const clock = new TestClock('2023-06-01T10:05:01Z');
      const targets = new RecordingTargets();
      const h = harness({ client, tableName, clock, jobs: [job], targets });
      await h.dispatcher.handle(tick(job.id, '2023-06-01T10:05:00Z'));
      clock.set('2023-06-01T10:16:02Z');
      await h.dispatcher.handle(sweep('2023-06-01T10:16:00Z'));
      await h.dispatcher.handle(sweep('2023-06-01T10:16:00Z'));
      clock.set('2023-06-01T10:17:02Z');
      await h.dispatcher.handle(sweep('2023-06-01T10:17:00Z'));

      expect(targets.received).toHaveLength(1 + delivered);
      expect(h.metrics.count(job.id, 'MissedRuns')).toBe(1);
      const item = await h.ledger.getRun(periodBucket(job.id, new Date('2023-06-01T10:10:00Z')));
      expect(item).toMatchObject({ status: 'skipped', skipReason: reason, attempts: 0 });
      expect(h.logger.withMessage('missed')).toHaveLength(1);
    },
  );

  it('raises nothing for runs that happened on time, nor for runs before the first tick', async () => {
    const job = makeJob({ id: 'on-time', schedule: '* * * * *', timezone: 'Europe/Berlin' });
    const clock = new TestClock('2023-06-01T10:00:00Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    for (let minute = 0; minute < 12; minute++) {
      const at = new Date(Date.parse('2023-06-01T10:00:00Z') + minute * 60_000).toISOString();
      clock.set(at);
      clock.advance(3_000);
      await h.dispatcher.handle(tick(job.id, at));
      await h.dispatcher.handle(sweep(at));
    }
    expect(targets.received).toHaveLength(12);
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(0);
    expect(h.metrics.count(job.id, 'LateRuns')).toBe(0);
    expect(h.metrics.count(job.id, 'StuckRuns')).toBe(0);
  });

  it('counts a run dispatched after its grace as late, once, and logs it with decision late', async () => {
    const job = makeJob({ id: 'late-tick', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:06:00Z');
    const h = harness({ client, tableName, clock, jobs: [job], targets: new RecordingTargets() });
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    expect(h.metrics.count(job.id, 'LateRuns')).toBe(1);
    expect(h.logger.withMessage('late')[0]?.fields).toMatchObject({
      decision: 'late',
      late: true,
      lagMs: 360_000,
    });
  });

  it('reports a lambda run still dispatched after maxRuntime as stuck, once', async () => {
    const job = makeJob({
      id: 'stuck-lambda',
      schedule: '0 * * * *',
      timezone: 'UTC',
      maxRuntimeSeconds: 600,
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:slow' },
    });
    const done = makeJob({
      id: 'done-lambda',
      schedule: '0 * * * *',
      timezone: 'UTC',
      maxRuntimeSeconds: 600,
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:fast' },
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job, done] });
    const h = life.dispatch;
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    await h.dispatcher.handle(tick(done.id, '2023-06-01T10:00:00Z'));
    const doneRun = life.targets.received.find((r) => r.envelope.jobId === done.id);
    if (!doneRun) throw new Error('the done-lambda run was not delivered');
    clock.set('2023-06-01T10:04:00Z');
    await life.complete(doneRun.envelope, new Date('2023-06-01T10:04:00Z'));
    for (const minute of ['10:09', '10:10', '10:11']) {
      clock.set(`2023-06-01T${minute}:30Z`);
      await h.dispatcher.handle(sweep(`2023-06-01T${minute}:00Z`));
    }
    expect(h.metrics.count(job.id, 'StuckRuns')).toBe(1);
    expect(h.metrics.count(done.id, 'StuckRuns')).toBe(0);
    expect(h.logger.withMessage('stuck')).toHaveLength(1);
    const item = await h.ledger.getRun(periodBucket(job.id, new Date('2023-06-01T10:00:00Z')));
    expect(item).toMatchObject({ status: 'dispatched', signals: ['stuck'], outbox: [] });
    expect(life.notifier.sent.map((n) => [n.jobId, n.signal])).toEqual([[job.id, 'stuck']]);
  });
});
