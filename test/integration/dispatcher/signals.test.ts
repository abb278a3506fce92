import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { updating } from '../../support/ddb-faults.ts';
import {
  key,
  lambdaTarget,
  STACK_LEASE_SECONDS,
  tablePerCase,
} from '../../support/dispatcher-cases.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import {
  harness,
  lifecycle,
  sweepEvent as sweep,
  sweepEvent,
  sweepMinutes,
  tickEvent as tick,
  tickEvent,
} from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Signals: missed, late and stuck runs reported once, and notified once per run.
//
// The dispatcher core (and recorder) against DynamoDB Local, faults injected at the exact
// request where they bite; test/support/dispatcher-cases.ts says what "found by" means.

let client: DynamoDBClient;
let tableName: string;

const MINUTE = 60_000;

describe('late and stuck runs, on a table per case', () => {
  tablePerCase('signals', {}, (tables) => {
    ({ client, tableName } = tables);
  });

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

describe('signals under faults', () => {
  // Found by a fault search against DynamoDB Local.
  it('reports stuck a run that was dispatched late, once, at dispatch plus maxRuntime', async () => {
    const { client, tableName } = await faultableLedgerTable('f9');
    const job = makeJob({
      id: 'late-stuck',
      schedule: '0 * * * *',
      timezone: 'UTC',
      maxRuntimeSeconds: 600,
      target: lambdaTarget('s'),
    });
    const clock = new TestClock('2023-06-01T10:04:00Z'); // dispatched 4 minutes late
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:05:00Z', '2023-06-01T10:20:00Z');
    expect(life.dispatch.metrics.count(job.id, 'StuckRuns')).toBe(1);
    expect(life.notifier.count(key(job, '2023-06-01T10:00:00Z'), 'stuck')).toBe(1);
    const stuck = life.dispatch.logger.withMessage('stuck')[0]?.fields;
    expect(stuck).toMatchObject({ dispatchedAt: '2023-06-01T10:04:00.000Z' });
  });

  // Found by a fault search against DynamoDB Local.
  it('notifies each signal once per run when two sweeps run every minute side by side', async () => {
    const { client, tableName } = await faultableLedgerTable('signals');
    const jobs = [
      makeJob({ id: 'sig-missed', schedule: '*/10 * * * *', timezone: 'UTC' }),
      makeJob({
        id: 'sig-stuck',
        schedule: '0 * * * *',
        timezone: 'UTC',
        maxRuntimeSeconds: 300,
        target: lambdaTarget('s'),
      }),
      makeJob({
        id: 'sig-dead',
        schedule: '0 * * * *',
        timezone: 'UTC',
        retry: { maxAttempts: 2 },
      }),
    ];
    const clock = new TestClock('2023-06-01T09:59:00Z');
    const targets = new RecordingTargets();
    targets.beforeDeliver = (envelope) => {
      targets.failWith = envelope.jobId === 'sig-dead' ? new Error('gone') : undefined;
    };
    const a = harness({ client, tableName, clock, jobs, targets });
    const b = harness({ client, tableName, clock, jobs, targets, notifier: a.notifier });
    for (const job of jobs) await a.ledger.createJobState(job.id, new Date('2023-06-01T09:55:00Z'));
    clock.set('2023-06-01T10:00:02Z');
    for (const job of jobs.slice(1))
      await a.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    for (
      let ms = Date.parse('2023-06-01T10:01:00Z');
      ms <= Date.parse('2023-06-01T10:20:00Z');
      ms += MINUTE
    ) {
      clock.set(new Date(ms + 20_000).toISOString());
      await Promise.all([a, b].map((h) => h.dispatcher.handle(sweepEvent(new Date(ms)))));
    }
    const perRun = new Map<string, number>();
    for (const n of a.notifier.sent) {
      perRun.set(`${n.key}/${n.signal}`, (perRun.get(`${n.key}/${n.signal}`) ?? 0) + 1);
    }
    expect([...perRun.values()].every((count) => count === 1)).toBe(true);
    expect(
      a.notifier.sent.map((n) => `${n.jobId} ${n.at.slice(11, 16)} ${n.signal}`).sort(),
    ).toEqual([
      'sig-dead 10:00 dead-lettered',
      'sig-missed 10:00 missed',
      'sig-missed 10:10 missed',
      'sig-stuck 10:00 stuck',
    ]);
  });

  // Found by the seeded chaos simulation.
  it('does not call a run late when a retried tick delivers it again after an on-time first delivery', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c5');
    const job = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });
    // The tick arrives 4 minutes late, inside the job's 5 minutes of grace.
    const clock = new TestClock('2023-06-01T10:04:00.200Z');
    const targets = new RecordingTargets();
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job],
      targets,
      options: { leaseSeconds: STACK_LEASE_SECONDS },
    });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    faults.fail(updating('dispatchedAt'), { error: () => new Error('Runtime.ExitError') });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      'Runtime.ExitError',
    );
    // Lambda's last retry takes the expired claim over, 7 minutes after the run was due.
    clock.set('2023-06-01T10:07:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(targets.received.map((r) => r.envelope.attempt)).toEqual([1, 2]);
    expect(h.notifier.sent.map((n) => n.signal)).toEqual([]);
    expect(h.metrics.count(job.id, 'LateRuns')).toBe(0);
  });
});
