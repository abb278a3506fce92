import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { isStrictInstant } from '../../../functions/dispatcher/events.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { updating } from '../../support/ddb-faults.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import {
  harness,
  type Lifecycle,
  lambdaResult,
  lifecycle,
  sweepEvent,
  sweepMinutes,
  tickEvent,
} from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Each scenario here was found by a fault search against DynamoDB Local: a run that ended
// nowhere, was delivered twice, ignored a policy, or raised a wrong alarm. Each one runs the
// real dispatcher core (and recorder) against DynamoDB Local, with faults injected at the
// exact request where they bite.

const MINUTE = 60_000;
const lambdaTarget = (name: string) => ({
  type: 'lambda' as const,
  arn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
});

function key(job: JobDefinition, iso: string) {
  return periodBucket(job.id, new Date(iso));
}

describe('runs that never ended', () => {
  it("delivers a late tick's run once after its dispatcher died right after claiming, whatever the run's age", async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f1');
    const job = makeJob({ id: 'late-crash', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:06:00Z'); // the 10:00 tick arrives 6 min late
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    // The claim reaches DynamoDB; the dispatcher dies before it hears back (out of memory).
    faults.fail(updating('leaseUntilEpochMs'), { when: 'after', error: () => new Error('OOM') });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      'OOM',
    );
    // Lambda retries the event a minute later: the live lease makes it a duplicate.
    clock.set('2023-06-01T10:07:00Z');
    const retry = await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(retry).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
    // The lease ends 300 s after the claim; the sweep finds the open run and delivers it.
    await sweepMinutes(h, clock, '2023-06-01T10:08:00Z', '2023-06-01T10:13:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z']);
    expect(await h.ledger.getRun(key(job, '2023-06-01T10:00:00Z'))).toMatchObject({
      status: 'dispatched',
      attempts: 2,
      // The run's origin is its first decision: its own (late) tick claimed it.
      origin: 'tick',
    });
    expect(h.metrics.count(job.id, 'Redelivered')).toBe(1);
  });

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

  it('catches up a daily run exactly one window old, and records one older than the window as skipped', async () => {
    const { client, tableName } = await faultableLedgerTable('f3');
    const job = makeJob({ id: 'daily', schedule: '0 10 * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:05Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    // The 2 June tick and every sweep of that day are lost; the next tick comes 24 h later.
    clock.set('2023-06-03T10:00:05Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-03T10:00:00Z'));
    expect(targets.instants()).toEqual([
      '2023-06-01T10:00:00.000Z',
      '2023-06-02T10:00:00.000Z',
      '2023-06-03T10:00:00.000Z',
    ]);
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(1);

    const short = makeJob({
      id: 'daily-short',
      schedule: '0 10 * * *',
      timezone: 'UTC',
      catchup: { windowSeconds: 86_399 },
    });
    const h2 = harness({
      client,
      tableName,
      clock,
      jobs: [short],
      targets: new RecordingTargets(),
    });
    clock.set('2023-06-01T10:00:05Z');
    await h2.dispatcher.handle(tickEvent(short.id, '2023-06-01T10:00:00Z'));
    clock.set('2023-06-03T10:00:05Z');
    await h2.dispatcher.handle(tickEvent(short.id, '2023-06-03T10:00:00Z'));
    expect(await h2.ledger.getRun(key(short, '2023-06-02T10:00:00Z'))).toMatchObject({
      status: 'skipped',
      skipReason: 'outside-window',
      signals: ['missed'],
    });
    expect(h2.metrics.count(short.id, 'CatchupDropped')).toBe(1);
    expect(h2.notifier.count(key(short, '2023-06-02T10:00:00Z'), 'missed')).toBe(1);
  });
});

describe('runs delivered twice', () => {
  it('records a delivery whose ledger write was throttled once, and nobody delivers it again', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f4');
    const job = makeJob({
      id: 'throttled',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: lambdaTarget('t'),
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    faults.fail(updating('dispatchedAt'), { times: 1 });
    const tick = await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(tick).toMatchObject({ outcomes: [{ outcome: 'dispatched' }] });
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:10:00Z');
    expect(life.targets.received).toHaveLength(1);
    const envelope = life.targets.received[0]?.envelope;
    if (!envelope) throw new Error('not delivered');
    expect(await life.complete(envelope, new Date('2023-06-01T10:10:30Z'))).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
    });
  });

  it('delivers again only after the lease when the write never lands, counts it Redelivered, same key', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f4b');
    const job = makeJob({ id: 'lost-write', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    faults.fail(updating('dispatchedAt'), { times: 6 });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      /throughput/,
    );
    await sweepMinutes(h, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:06:00Z');
    expect(targets.received.map((r) => [r.envelope.key, r.envelope.attempt])).toEqual([
      [key(job, '2023-06-01T10:00:00Z'), 1],
      [key(job, '2023-06-01T10:00:00Z'), 2],
    ]);
    expect(h.metrics.count(job.id, 'Redelivered')).toBe(1);
    expect(h.logger.withMessage('possible-redelivery')).toHaveLength(1);
  });

  it('records a late completion of a delivery before a redrive as stale, not against the redriven one', async () => {
    const { client, tableName } = await faultableLedgerTable('f5');
    const job = makeJob({
      id: 'redriven',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: lambdaTarget('r'),
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    const first = life.targets.received[0]
      ?.envelope as Lifecycle['targets']['received'][0]['envelope'];
    clock.set('2023-06-01T10:05:00Z');
    await life.complete(first, new Date('2023-06-01T10:05:00Z'), 'RetriesExhausted');
    clock.set('2023-06-01T10:20:00Z');
    await life.dispatch.dispatcher.redrive({ jobId: job.id, at: new Date('2023-06-01T10:00:00Z') });
    const second = life.targets.received[1]?.envelope as typeof first;
    expect(second.attempt).toBe(2);
    // Lambda delivers the failure record of the first invocation once more, late.
    const stale = await life.complete(first, new Date('2023-06-01T10:05:00Z'), 'RetriesExhausted');
    expect(stale).toMatchObject({ outcome: 'ignored', reason: 'stale-attempt:1-of-2' });
    expect(await life.complete(second, new Date('2023-06-01T10:21:00Z'))).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
    });
    expect((await life.dispatch.ledger.getRun(first.key))?.status).toBe('succeeded');
    expect(life.deadLetters.messages).toHaveLength(1);
  });

  it('keeps concurrency forbid through a catch-up burst: the newest run first, the older ones skipped(overlap)', async () => {
    const { client, tableName } = await faultableLedgerTable('f6');
    const job = makeJob({
      id: 'forbid-burst',
      schedule: '0 * * * *',
      timezone: 'UTC',
      concurrency: 'forbid',
      maxRuntimeSeconds: 1800,
      target: lambdaTarget('batch'),
    });
    const clock = new TestClock('2023-06-01T06:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T06:00:00Z'));
    await life.complete(
      life.targets.received[0]?.envelope as never,
      new Date('2023-06-01T06:10:00Z'),
    );
    // Four hours of ticks and sweeps lost; the 11:00 tick catches up 07:00 to 11:00: its own,
    // on-time run takes the slot, not the one four hours late.
    clock.set('2023-06-01T11:00:02Z');
    const tick = await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T11:00:00Z'));
    const outcomes = (tick as unknown as { outcomes: { outcome: string; at: string }[] }).outcomes;
    expect(outcomes.map((o) => [o.at.slice(11, 16), o.outcome])).toEqual([
      ['11:00', 'dispatched'],
      ['10:00', 'skipped'],
      ['09:00', 'skipped'],
      ['08:00', 'skipped'],
      ['07:00', 'skipped'],
    ]);
    expect(life.targets.instants()).toHaveLength(2);
    // A sweep at the same time changes nothing: the slot still holds 11:00.
    clock.set('2023-06-01T11:06:00Z');
    await life.dispatch.dispatcher.handle(sweepEvent('2023-06-01T11:06:00Z'));
    expect(life.targets.instants()).toHaveLength(2);
  });
});

describe('policies honoured, bogus times refused', () => {
  it('keeps maxRuns when a late tick catches up and the sweep comes after it', async () => {
    const { client, tableName } = await faultableLedgerTable('f7');
    const job = makeJob({
      id: 'capped',
      schedule: '0 * * * *',
      timezone: 'UTC',
      catchup: { maxRuns: 2 },
    });
    const clock = new TestClock('2023-06-01T05:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T05:00:00Z'));
    clock.set('2023-06-01T10:00:02Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    await sweepMinutes(h, clock, '2023-06-01T10:00:00Z', '2023-06-01T10:10:00Z');
    // The gap is 06:00-09:00: its newest two are caught up; 10:00 is its own tick's, on time.
    expect(targets.instants()).toEqual([
      '2023-06-01T05:00:00.000Z',
      '2023-06-01T08:00:00.000Z',
      '2023-06-01T09:00:00.000Z',
      '2023-06-01T10:00:00.000Z',
    ]);
    for (const hour of ['06', '07']) {
      expect(await h.ledger.getRun(key(job, `2023-06-01T${hour}:00:00Z`))).toMatchObject({
        status: 'skipped',
        skipReason: 'max-runs',
      });
    }
  });

  it('does not replay the days a job was disabled when jobs.yaml enables it again', async () => {
    const { client, tableName } = await faultableLedgerTable('f8a');
    const enabled = makeJob({ id: 'toggled', schedule: '*/15 * * * *', timezone: 'UTC' });
    const disabled = makeJob({ ...enabled, enabled: false });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    await harness({ client, tableName, clock, jobs: [enabled], targets }).dispatcher.handle(
      tickEvent(enabled.id, '2023-06-01T10:00:00Z'),
    );
    // A deploy disables the job: its schedule is gone, the first sweep records the pause.
    clock.set('2023-06-01T10:10:20Z');
    await harness({ client, tableName, clock, jobs: [disabled], targets }).dispatcher.handle(
      sweepEvent('2023-06-01T10:10:00Z'),
    );
    // Two days later a deploy enables it again; its first tick runs, nothing before it.
    clock.set('2023-06-03T10:00:02Z');
    const again = harness({ client, tableName, clock, jobs: [enabled], targets });
    await again.dispatcher.handle(tickEvent(enabled.id, '2023-06-03T10:00:00Z'));
    await sweepMinutes(again, clock, '2023-06-03T10:01:00Z', '2023-06-03T10:08:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z', '2023-06-03T10:00:00.000Z']);
  });

  it('refuses a tick from the future and a date that does not exist, and counts them', async () => {
    const { client, tableName } = await faultableLedgerTable('f8b');
    const job = makeJob({ id: 'future', schedule: '*/15 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(await h.dispatcher.handle(tickEvent(job.id, '2023-06-02T10:00:00Z'))).toEqual({
      kind: 'ignored',
      reason: 'future',
    });
    expect(isStrictInstant('2023-02-30T10:00:00Z')).toBe(false);
    expect(await h.dispatcher.handle(tickEvent(job.id, '2023-02-30T10:00:00Z'))).toEqual({
      kind: 'ignored',
      reason: 'malformed',
    });
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z']);
    expect((await h.ledger.getJobState(job.id))?.watermarkAt).toBe('2023-06-01T10:00:00.000Z');
    expect(h.metrics.count('RejectedTicks')).toBe(1);
    expect(h.metrics.count('MalformedEvents')).toBe(1);
  });
});

describe('alarms that tell the truth', () => {
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

  it('counts the caught-up run missed once, and nothing dropped, when its tick arrives after the sweep caught it up', async () => {
    const { client, tableName } = await faultableLedgerTable('f11a');
    const job = makeJob({
      id: 'slowtick',
      schedule: '0 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'latest' },
    });
    const clock = new TestClock('2023-06-01T09:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T09:00:00Z'));
    clock.set('2023-06-01T10:06:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:06:00Z'));
    clock.set('2023-06-01T10:09:00Z');
    const late = await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(late).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
    clock.set('2023-06-01T11:00:02Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T11:00:00Z'));
    expect(targets.instants()).toHaveLength(3);
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(1);
    expect(h.metrics.count(job.id, 'CatchupDropped')).toBe(0);
    expect(h.notifier.sent.map((n) => n.signal)).toEqual(['missed']);
  });

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

  it("ignores a completion reported by a function that is not the job's target", async () => {
    const { client, tableName } = await faultableLedgerTable('f12');
    const job = makeJob({
      id: 'own-target',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: lambdaTarget('mine'),
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    const delivery = life.targets.received[0];
    if (!delivery) throw new Error('not delivered');
    const foreign = lambdaResult(
      'arn:aws:lambda:us-east-1:000000000000:function:someone-else',
      delivery.deliveryId,
      delivery.envelope,
      new Date('2023-06-01T10:01:00Z'),
    );
    expect(await life.recorder.handle(foreign)).toMatchObject({ outcome: 'ignored' });
    expect((await life.dispatch.ledger.getRun(delivery.envelope.key))?.status).toBe('dispatched');
  });

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
});
