import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { key, lambdaTarget, tablePerCase } from '../../support/dispatcher-cases.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import {
  harness,
  lifecycle,
  sweepEvent as sweep,
  sweepMinutes,
  tickEvent as tick,
} from '../../support/harness.ts';
import { type JobOverrides, makeJob } from '../../support/jobs.ts';

// Finish-by deadlines (docs/semantics.md §6, "Deadlines"), on the dispatcher's side: the
// `deadline-missed` signal of a run delivered after its deadline, of one still undelivered or
// dead-lettered at it, of a tracked run still running at it; none for runs decided not to run,
// none again for a redrive. The dispatcher core against DynamoDB Local.

let client: DynamoDBClient;
let tableName: string;

const hourly = (id: string, over: JobOverrides = {}) =>
  makeJob({
    id,
    schedule: '0 * * * *',
    timezone: 'UTC',
    deadline: { afterSeconds: 600 },
    ...over,
  });

describe('deadline-missed, on a table per case', () => {
  tablePerCase('deadlines', {}, (tables) => {
    ({ client, tableName } = tables);
  });

  it('raises nothing for a queue run delivered before its deadline, nor for a job without one', async () => {
    const job = hourly('in-time');
    const plain = makeJob({ id: 'no-deadline', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:09:00Z');
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job, plain],
      targets: new RecordingTargets(),
    });
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    clock.set('2023-06-01T10:30:00Z');
    await h.dispatcher.handle(tick(plain.id, '2023-06-01T10:00:00Z'));
    await sweepMinutes(h, clock, '2023-06-01T10:30:00Z', '2023-06-01T10:32:00Z');
    expect(h.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(0);
    expect(h.metrics.count(plain.id, 'DeadlineMissedRuns')).toBe(0);
    expect(h.notifier.sent.map((n) => n.signal)).not.toContain('deadline-missed');
  });

  it('raises deadline-missed once at the delivery of a queue run after its deadline, naming the run and the deadline in local time and UTC', async () => {
    const job = hourly('late-delivery', { timezone: 'Europe/Berlin' });
    const clock = new TestClock('2023-06-01T10:12:00Z');
    const h = harness({ client, tableName, clock, jobs: [job], targets: new RecordingTargets() });
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    await sweepMinutes(h, clock, '2023-06-01T10:13:00Z', '2023-06-01T10:16:00Z');
    expect(h.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(1);
    const sent = h.notifier.sent.filter((n) => n.signal === 'deadline-missed');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      jobId: job.id,
      key: key(job, '2023-06-01T10:00:00Z'),
      at: '2023-06-01T10:00:00.000Z',
      local: '2023-06-01 12:00 +02:00 CEST (Europe/Berlin)',
      deadlineAt: '2023-06-01T10:10:00.000Z',
      deadlineLocal: '2023-06-01 12:10 +02:00 CEST (Europe/Berlin)',
      status: 'dispatched',
    });
    expect(sent[0]?.summary).toBe(
      'late-delivery: the run at 2023-06-01 12:00 +02:00 CEST (Europe/Berlin) (2023-06-01T10:00:00.000Z) was not done by its deadline 2023-06-01 12:10 +02:00 CEST (Europe/Berlin) (2023-06-01T10:10:00.000Z); delivered, no end reported yet',
    );
    expect(h.logger.withMessage('deadline-missed')[0]?.fields).toMatchObject({
      decision: 'deadline-missed',
      deadlineAt: '2023-06-01T10:10:00.000Z',
      pastDeadlineMs: 120_000,
    });
  });

  it('raises deadline-missed once at the deadline of a run awaiting a retry, before the retry is due, and not again at its late delivery', async () => {
    const job = hourly('retrying', { deadline: { afterSeconds: 120 } });
    const clock = new TestClock('2023-06-01T10:00:30Z');
    const targets = new RecordingTargets();
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job],
      targets,
      options: { retryBaseSeconds: 300 },
    });
    targets.failWith = new Error('queue unavailable');
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    await sweepMinutes(h, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:01:00Z');
    expect(h.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(0);
    await sweepMinutes(h, clock, '2023-06-01T10:02:00Z', '2023-06-01T10:03:00Z');
    const run = await h.ledger.getRun(key(job, '2023-06-01T10:00:00Z'));
    expect(run).toMatchObject({ status: 'delivery-failed', signals: ['deadline-missed'] });
    expect(h.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(1);
    expect(targets.attempts).toBe(1);
    targets.failWith = undefined;
    await sweepMinutes(h, clock, '2023-06-01T10:04:00Z', '2023-06-01T10:08:00Z');
    expect(targets.received).toHaveLength(1);
    expect(h.notifier.count(key(job, '2023-06-01T10:00:00Z'), 'deadline-missed')).toBe(1);
    expect(h.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(1);
  });

  it('raises deadline-missed on a run dead-lettered before its deadline when the deadline passes, once', async () => {
    const job = hourly('dead-early', { retry: { maxAttempts: 1 } });
    const clock = new TestClock('2023-06-01T10:00:30Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('queue unavailable');
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    const runKey = key(job, '2023-06-01T10:00:00Z');
    expect(h.notifier.count(runKey, 'dead-lettered')).toBe(1);
    await sweepMinutes(h, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:09:00Z');
    expect(h.notifier.count(runKey, 'deadline-missed')).toBe(0);
    await sweepMinutes(h, clock, '2023-06-01T10:10:00Z', '2023-06-01T10:16:00Z');
    expect(h.notifier.count(runKey, 'deadline-missed')).toBe(1);
    const sent = h.notifier.sent.find((n) => n.signal === 'deadline-missed');
    expect(sent).toMatchObject({ status: 'failed' });
    expect(sent?.commands.act).toBe(`zonecron dlq redrive --key ${runKey} --stack Test`);
    // Done with: out of the open index.
    expect((await h.ledger.getRun(runKey))?.openShard).toBeUndefined();
  });

  it('raises deadline-missed at once on a run dead-lettered after its deadline, and a redrive raises it no more', async () => {
    const job = hourly('dead-late', { retry: { maxAttempts: 1 } });
    const clock = new TestClock('2023-06-01T10:15:00Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('queue unavailable');
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    const runKey = key(job, '2023-06-01T10:00:00Z');
    expect(h.notifier.count(runKey, 'deadline-missed')).toBe(1);
    clock.set('2023-06-01T10:30:00Z');
    await h.dispatcher.redrive({ jobId: job.id, at: new Date('2023-06-01T10:00:00Z') });
    targets.failWith = undefined;
    clock.set('2023-06-01T10:40:00Z');
    await h.dispatcher.redrive({ jobId: job.id, at: new Date('2023-06-01T10:00:00Z') });
    await sweepMinutes(h, clock, '2023-06-01T10:41:00Z', '2023-06-01T10:45:00Z');
    expect(targets.received).toHaveLength(1);
    expect(h.notifier.count(runKey, 'deadline-missed')).toBe(1);
    expect(h.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(1);
  });

  it('raises no deadline-missed for a redriven run whose redrive came before its deadline', async () => {
    const job = hourly('redriven-early', { retry: { maxAttempts: 1 } });
    const clock = new TestClock('2023-06-01T10:00:30Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('queue unavailable');
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    clock.set('2023-06-01T10:05:00Z');
    await h.dispatcher.redrive({ jobId: job.id, at: new Date('2023-06-01T10:00:00Z') });
    await sweepMinutes(h, clock, '2023-06-01T10:06:00Z', '2023-06-01T10:16:00Z');
    expect(h.notifier.count(key(job, '2023-06-01T10:00:00Z'), 'deadline-missed')).toBe(0);
  });

  it('raises no deadline-missed for runs decided not to run: paused, or skipped by the catch-up policy', async () => {
    const paused = hourly('paused');
    const none = hourly('none', { catchup: { policy: 'none' } });
    const clock = new TestClock('2023-06-01T09:30:00Z');
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [paused, none],
      targets: new RecordingTargets(),
    });
    await h.ledger.createJobState(none.id, new Date('2023-06-01T09:00:00Z'));
    await h.ledger.pause(paused.id, { at: clock.now(), by: 'ops', reason: 'migration' });
    clock.set('2023-06-01T10:00:05Z');
    await h.dispatcher.handle(tick(paused.id, '2023-06-01T10:00:00Z'));
    // none's 10:00 run is never ticked: the sweep skips it past its grace, missed.
    await sweepMinutes(h, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:20:00Z');
    expect(await h.ledger.getRun(key(paused, '2023-06-01T10:00:00Z'))).toMatchObject({
      status: 'skipped',
      skipReason: 'paused',
    });
    expect(await h.ledger.getRun(key(none, '2023-06-01T10:00:00Z'))).toMatchObject({
      status: 'skipped',
      skipReason: 'catch-up-none',
    });
    expect(h.notifier.sent.map((n) => n.signal)).toEqual(['missed']);
  });

  it('raises no deadline-missed for an operator delivering a run after its deadline', async () => {
    const job = hourly('operated');
    const clock = new TestClock('2023-06-01T11:30:00Z');
    const h = harness({ client, tableName, clock, jobs: [job], targets: new RecordingTargets() });
    await h.dispatcher.runManually({ jobId: job.id });
    await h.dispatcher.backfill({
      jobId: job.id,
      occurrence: {
        at: new Date('2023-06-01T10:00:00Z'),
        nominal: '2023-06-01T10:00',
        dst: 'none',
      },
    });
    await sweepMinutes(h, clock, '2023-06-01T11:31:00Z', '2023-06-01T11:33:00Z');
    expect(h.metrics.count(job.id, 'Dispatched')).toBe(2);
    expect(h.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(0);
  });
});

describe('deadline-missed of runs that report their end', () => {
  tablePerCase('deadlines-tracked', {}, (tables) => {
    ({ client, tableName } = tables);
  });

  it('raises deadline-missed once at the deadline of a lambda run still running, before it is stuck, and not again when it succeeds', async () => {
    const job = hourly('running', { target: lambdaTarget('slow'), maxRuntimeSeconds: 3600 });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:05:00Z', '2023-06-01T10:09:00Z');
    expect(life.dispatch.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(0);
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:10:00Z', '2023-06-01T10:12:00Z');
    const runKey = key(job, '2023-06-01T10:00:00Z');
    expect(await life.dispatch.ledger.getRun(runKey)).toMatchObject({
      status: 'dispatched',
      signals: ['deadline-missed'],
    });
    const [delivery] = life.targets.received;
    if (!delivery) throw new Error('the run was not delivered');
    clock.set('2023-06-01T10:20:00Z');
    await life.complete(delivery.envelope, new Date('2023-06-01T10:20:00Z'));
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:21:00Z', '2023-06-01T10:25:00Z');
    expect(life.notifier.count(runKey, 'deadline-missed')).toBe(1);
    expect(life.notifier.count(runKey, 'stuck')).toBe(0);
    expect(life.dispatch.metrics.count(job.id, 'StuckRuns')).toBe(0);
    expect(life.recorderMetrics.count(job.id, 'DeadlineMissedRuns')).toBe(0);
  });

  it('raises nothing for a lambda run whose success is recorded before its deadline', async () => {
    const job = hourly('quick', { target: lambdaTarget('quick') });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'));
    const [delivery] = life.targets.received;
    if (!delivery) throw new Error('the run was not delivered');
    clock.set('2023-06-01T10:09:00Z');
    await life.complete(delivery.envelope, new Date('2023-06-01T10:08:59Z'));
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:09:00Z', '2023-06-01T10:15:00Z');
    expect(life.notifier.sent.map((n) => n.signal)).toEqual([]);
  });

  it('raises a 07:00 deadline on the fall-back night at 07:00 of the new offset (06:00 UTC), not an hour earlier', async () => {
    const job = makeJob({
      id: 'report',
      schedule: '30 1 * * *',
      timezone: 'Europe/Berlin',
      target: lambdaTarget('report'),
      maxRuntimeSeconds: 36_000,
      deadline: { wallTime: '07:00' },
    });
    // 01:30 CEST on 2026-10-25 is 23:30 UTC the evening before; the clocks go back at 03:00.
    const clock = new TestClock('2026-10-24T23:30:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.dispatcher.handle(tick(job.id, '2026-10-24T23:30:00Z'));
    for (const minute of ['05:00', '05:59']) {
      clock.set(`2026-10-25T${minute}:20Z`);
      await life.dispatch.dispatcher.handle(sweep(`2026-10-25T${minute}:00Z`));
    }
    expect(life.notifier.sent).toEqual([]);
    clock.set('2026-10-25T06:00:20Z');
    await life.dispatch.dispatcher.handle(sweep('2026-10-25T06:00:00Z'));
    const sent = life.notifier.sent.filter((n) => n.signal === 'deadline-missed');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      local: '2026-10-25 01:30 +02:00 CEST (Europe/Berlin)',
      deadlineAt: '2026-10-25T06:00:00.000Z',
      deadlineLocal: '2026-10-25 07:00 +01:00 CET (Europe/Berlin)',
    });
  });
});
