import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { occurrencesBetween, periodBucket } from '../../../functions/schedule/index.ts';
import { throttled, updating } from '../../support/ddb-faults.ts';
import {
  fiveMinutely,
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
import { type JobOverrides, makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Catch-up and missed runs: runs whose tick never came, or came late, decided once per policy.
//
// The dispatcher core (and recorder) against DynamoDB Local, faults injected at the exact
// request where they bite; test/support/dispatcher-cases.ts says what "found by" means.

let client: DynamoDBClient;
let tableName: string;

/** A job every 15 minutes whose state starts at 10:00, its harness at 10:16:20, and `at(hh:mm)`'s key. */
async function quarterly(tableId: string, catchup: NonNullable<JobOverrides['catchup']>) {
  const { client, faults, tableName } = await faultableLedgerTable(tableId);
  const job = makeJob({
    id: 'quarterly',
    schedule: '*/15 * * * *',
    timezone: 'UTC',
    catchup,
    alarm: { graceSeconds: 60 },
  });
  const clock = new TestClock('2023-06-01T10:16:20Z');
  const targets = new RecordingTargets();
  const options = { leaseSeconds: STACK_LEASE_SECONDS };
  const h = harness({ client, tableName, clock, jobs: [job], targets, options });
  await h.ledger.createJobState(job.id, new Date('2023-06-01T10:00:00Z'));
  const at = (hm: string) => periodBucket(job.id, new Date(`2023-06-01T${hm}:00Z`));
  return { h, faults, clock, targets, job, at };
}

const ALL_ONE = { policy: 'all', windowSeconds: 86_400, maxRuns: 1 } as const;
const LATEST = { policy: 'latest', windowSeconds: 86_400 } as const;

describe('catch-up and missed runs, on a table per case', () => {
  tablePerCase('catch-up', {}, (tables) => {
    ({ client, tableName } = tables);
  });

  describe('after three days without ticks, the next tick catches up per policy', () => {
    const start = '2023-06-01T00:00:00Z';
    const resume = '2023-06-04T00:00:00Z';
    const hourly = (from: string, to: string) =>
      occurrencesBetween({ cron: '0 * * * *', timezone: 'UTC' }, new Date(from), new Date(to)).map(
        (o) => o.at.toISOString(),
      );

    it.each([
      // policy, maxRuns, delivered, dropped (the window is closed: a run 24 h old counts); the
      // tick's own run is on time, not part of the gap: maxRuns counts the gap's runs only
      ['all', 100, hourly('2023-06-02T23:59:00Z', resume), 0],
      ['all', 5, hourly('2023-06-03T18:00:00Z', resume), 19],
      ['latest', 100, [new Date(resume).toISOString()], 24],
      ['none', 100, [new Date(resume).toISOString()], 24],
    ] as const)('policy %s with maxRuns %i', async (policy, maxRuns, delivered, dropped) => {
      const id = `outage-${policy}-${maxRuns}`;
      const job = makeJob({
        id,
        schedule: '0 * * * *',
        timezone: 'UTC',
        catchup: { policy, maxRuns, windowSeconds: 86_400 },
      });
      const clock = new TestClock('2023-06-01T00:00:02Z');
      const targets = new RecordingTargets();
      const h = harness({ client, tableName, clock, jobs: [job], targets });
      await h.dispatcher.handle(tick(id, start));
      clock.set('2023-06-04T00:00:02Z');
      const result = await h.dispatcher.handle(tick(id, resume));

      expect(targets.instants()).toEqual([new Date(start).toISOString(), ...delivered]);
      expect(result).toMatchObject({ outcomes: { length: delivered.length } });
      expect(h.metrics.count(id, 'CatchupDropped')).toBe(dropped + 47);
      expect(h.metrics.count(id, 'CaughtUp')).toBe(delivered.length - 1);
      // Every run of the three days ended: delivered, or skipped with its reason.
      const keys = hourly(start, resume).map((at) => periodBucket(id, new Date(at)));
      const items = await h.ledger.getRuns(keys);
      expect(items.size).toBe(keys.length);
      const dispatched = [...items.values()].filter((r) => r.status === 'dispatched');
      expect(dispatched.map((r) => r.at).sort()).toEqual(delivered.slice());
      const skipped = [...items.values()].filter((r) => r.status === 'skipped');
      expect(skipped.filter((r) => r.skipReason === 'outside-window')).toHaveLength(47);
      expect(skipped).toHaveLength(dropped + 47);
      expect((await h.ledger.getJobState(id))?.watermarkAt).toBe(new Date(resume).toISOString());
    });
  });

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
});

describe('catch-up and missed runs, under faults', () => {
  // Found by a fault search against DynamoDB Local.
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

  // Found by a fault search against DynamoDB Local.
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

  // Found by a fault search against DynamoDB Local.
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

  // Found by a fault search against DynamoDB Local.
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

  // Found by a fault search against DynamoDB Local.
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

  // Found by the seeded chaos simulation.
  it("keeps the watermark when a late tick's catch-up fails half-way, so the tick's retry catches every run up", async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c1');
    const clock = new TestClock('2023-06-01T10:40:00.200Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [fiveMinutely], targets });
    // Nothing reached the dispatcher from 10:10 to 10:40 (an outage).
    await h.ledger.createJobState(fiveMinutely.id, new Date('2023-06-01T10:05:00Z'));
    // The catch-up's read of the undecided runs is throttled: the invocation fails.
    faults.fail((r) => r.command === 'BatchGetItemCommand');
    await expect(
      h.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:40:00Z')),
    ).rejects.toThrow(/throughput/);
    expect(await h.ledger.getJobState(fiveMinutely.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:05:00.000Z',
    });
    expect((await h.ledger.getJobState(fiveMinutely.id))?.catchupLeaseUntilEpochMs).toBeUndefined();
    // Lambda retries the tick a minute later: it catches up every run since the watermark.
    clock.set('2023-06-01T10:41:00.200Z');
    await h.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:40:00Z'));
    expect(targets.instants()).toEqual(
      ['10:10', '10:15', '10:20', '10:25', '10:30', '10:35', '10:40'].map(
        (hm) => `2023-06-01T${hm}:00.000Z`,
      ),
    );
  });

  // Found by the seeded chaos simulation.
  it('checks the same minutes again while another dispatcher holds the catch-up lease, and decides the run once it ends', async () => {
    const { client, tableName } = await faultableLedgerTable('c2');
    const clock = new TestClock('2023-06-01T10:09:30Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [fiveMinutely], targets });
    // The 10:05 tick moved the watermark, and its claim never landed (throttled through all
    // of Lambda's retries): the run is undecided at the watermark, for the sweep to find.
    await h.ledger.createJobState(fiveMinutely.id, new Date('2023-06-01T10:00:00Z'));
    await h.ledger.advanceWatermark(fiveMinutely.id, new Date('2023-06-01T10:05:00Z'));
    // A dispatcher took the job's catch-up lease and died holding it: it ends at 10:11:00.
    const now = clock.now().getTime();
    await h.ledger.acquireCatchup(fiveMinutely.id, now, now + STACK_LEASE_SECONDS * 1000);
    const first = await h.dispatcher.handle(sweepEvent('2023-06-01T10:10:00Z'));
    expect(first).toMatchObject({ deferred: [fiveMinutely.id], outcomes: [] });
    await sweepMinutes(h, clock, '2023-06-01T10:11:00Z', '2023-06-01T10:13:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:05:00.000Z']);
    const key = periodBucket(fiveMinutely.id, new Date('2023-06-01T10:05:00Z'));
    expect(await h.ledger.getRun(key)).toMatchObject({ status: 'dispatched', origin: 'sweep' });
  });

  // Found by the seeded chaos simulation.
  it('skips a run left at the watermark with no item as outside-window, missed, once the sweep finds it older than the window', async () => {
    const { client, tableName } = await faultableLedgerTable('c2b');
    const clock = new TestClock('2023-06-01T10:09:30Z');
    const targets = new RecordingTargets();
    const job = makeJob({ ...fiveMinutely, catchup: { windowSeconds: 60 } });
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    // As above: W at 10:05 and no item for it; a lease held until 10:12:00 defers the sweeps
    // of 10:10 and 10:11, so the sweep that decides the run is that of 10:12, whose window
    // (one minute, ending at 10:12 − 5m grace = 10:07) no longer reaches it.
    await h.ledger.createJobState(job.id, new Date('2023-06-01T10:00:00Z'));
    await h.ledger.advanceWatermark(job.id, new Date('2023-06-01T10:05:00Z'));
    const now = clock.now().getTime();
    await h.ledger.acquireCatchup(job.id, now, now + 150_000);
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:10:00Z'));
    await sweepMinutes(h, clock, '2023-06-01T10:11:00Z', '2023-06-01T10:13:00Z');
    expect(targets.instants()).toEqual([]);
    const key = periodBucket(job.id, new Date('2023-06-01T10:05:00Z'));
    expect(await h.ledger.getRun(key)).toMatchObject({
      status: 'skipped',
      skipReason: 'outside-window',
      origin: 'sweep',
    });
    expect(h.notifier.sent).toMatchObject([
      {
        signal: 'missed',
        runs: 1,
        first: '2023-06-01T10:05:00.000Z',
        last: '2023-06-01T10:05:00.000Z',
      },
    ]);
  });
});

describe('gaps: the maxRuns a gap has spent', () => {
  // Found by the seeded chaos simulation.
  it("keeps a gap's spent maxRuns when a late tick finds its own run already skipped by a sweep that died before moving the watermark", async () => {
    const { h, faults, clock, targets, job, at } = await quarterly('c7', ALL_ONE);
    // The 10:15 tick is lost: the sweep catches 10:15 up and spends the gap's one run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The ticks of 10:30 and 10:45 are late; the sweeps after them skip each run (max-runs)
    // and die before the write that moves W, so W stays at 10:15.
    const dies = () => new Error('Runtime.ExitError');
    faults.fail(updating('gapCaughtUp'), { times: 2, error: dies });
    for (const minute of ['10:31', '10:46']) {
      clock.set(`2023-06-01T${minute}:20Z`);
      await expect(h.dispatcher.handle(sweepEvent(`2023-06-01T${minute}:00Z`))).rejects.toThrow();
    }
    // The 10:45 tick arrives: W is behind its previous run, so it catches up (W, 10:45], and
    // its own run is already skipped. It delivered nothing of its own: the gap goes on.
    clock.set('2023-06-01T10:50:00Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:45:00Z'));
    expect(await h.ledger.getJobState(job.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:45:00.000Z',
      gapCaughtUp: 1,
    });
    clock.set('2023-06-01T11:01:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T11:01:00Z'));
    expect(await h.ledger.getRun(at('11:00'))).toMatchObject({
      status: 'skipped',
      skipReason: 'max-runs',
    });
    expect(targets.instants()).toEqual(['2023-06-01T10:15:00.000Z']);
  });

  // Found by the seeded chaos simulation.
  it("keeps a gap's spent maxRuns when a late tick that moves the watermark straight to its run finds the run already skipped by a sweep that died before moving it, and ends the gap at the next run its tick claims", async () => {
    const { h, faults, clock, targets, job, at } = await quarterly('c7b', ALL_ONE);
    // The 10:15 tick is lost: the sweep catches 10:15 up and spends the gap's one run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The 10:30 tick is late; the sweep before it skips 10:30 (max-runs) and dies before the
    // write that moves W, so W stays at 10:15, the run before 10:30.
    faults.fail(updating('gapCaughtUp'), { times: 1, error: () => new Error('Runtime.ExitError') });
    clock.set('2023-06-01T10:31:20Z');
    await expect(h.dispatcher.handle(sweepEvent('2023-06-01T10:31:00Z'))).rejects.toThrow();
    // The 10:30 tick arrives: W is at its previous run, so it moves W straight to 10:30, and
    // its claim finds the run skipped. It delivered nothing of its own: the gap goes on.
    clock.set('2023-06-01T10:32:00Z');
    const late = await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:30:00Z'));
    expect(late).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
    expect(await h.ledger.getJobState(job.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:30:00.000Z',
      gapCaughtUp: 1,
    });
    // The 10:45 tick is lost: the sweep finds the gap's budget spent.
    clock.set('2023-06-01T10:46:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:46:00Z'));
    expect(await h.ledger.getRun(at('10:45'))).toMatchObject({
      status: 'skipped',
      skipReason: 'max-runs',
    });
    expect(targets.instants()).toEqual(['2023-06-01T10:15:00.000Z']);
    // The 11:00 tick is on time and claims its own run: that ends the gap.
    clock.set('2023-06-01T11:00:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T11:00:00Z'));
    expect((await h.ledger.getJobState(job.id))?.gapCaughtUp).toBeUndefined();
    expect(targets.instants()).toEqual(['2023-06-01T10:15:00.000Z', '2023-06-01T11:00:00.000Z']);
  });

  // Found by the seeded chaos simulation.
  it('ends a gap at a run its on-time tick claimed, though the tick died before it cleared the budget', async () => {
    const { h, faults, clock, job, at } = await quarterly('c7c', LATEST);
    // The 10:15 tick is lost: the sweep catches 10:15 up, the gap's one latest run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The 10:30 tick is on time and claims its run; it dies on the write that ends the gap.
    const endsGap = (r: { command: string; input: Record<string, unknown> }) =>
      r.command === 'UpdateItemCommand' && String(r.input.UpdateExpression).startsWith('REMOVE');
    faults.fail(endsGap, { times: 1, error: () => new Error('Runtime.ExitError') });
    clock.set('2023-06-01T10:30:00.200Z');
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:30:00Z'))).rejects.toThrow();
    expect(await h.ledger.getJobState(job.id)).toMatchObject({ gapCaughtUp: 1 });
    // The 10:45 tick is lost: a new gap, with a budget of its own.
    clock.set('2023-06-01T10:46:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:46:00Z'));
    expect(await h.ledger.getRun(at('10:45'))).toMatchObject({
      status: 'dispatched',
      origin: 'sweep',
    });
  });

  // Found by the seeded chaos simulation.
  it("ends a gap at a run whose on-time tick moved the watermark onto it and died before its claim, the sweep delivering it as the tick's own", async () => {
    const { h, faults, clock, targets, job, at } = await quarterly('c7d', LATEST);
    // The 10:15 tick is lost: the sweep catches 10:15 up, the gap's one latest run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The 10:30 tick is on time: it moves W onto 10:30, and its claim is throttled.
    faults.fail(updating('secretHashes'), { times: 1, error: throttled });
    clock.set('2023-06-01T10:30:00.200Z');
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:30:00Z'))).rejects.toThrow();
    expect(await h.ledger.getJobState(job.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:30:00.000Z',
      gapCaughtUp: 1,
    });
    // The sweep finds 10:30 at W with no item, an orphan: the tick's own run, which ends the gap.
    clock.set('2023-06-01T10:31:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:31:00Z'));
    expect(await h.ledger.getRun(at('10:30'))).toMatchObject({
      status: 'dispatched',
      origin: 'tick',
    });
    // Past its grace it is late, as its tick's own run, not missed: only 10:15 was.
    expect(h.notifier.sent.map((n) => [n.signal, n.first])).toEqual([
      ['missed', '2023-06-01T10:15:00.000Z'],
      ['late', '2023-06-01T10:30:00.000Z'],
    ]);
    // The 10:45 tick is lost: a new gap, with a budget of its own.
    clock.set('2023-06-01T10:46:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:46:00Z'));
    expect(targets.instants()).toEqual(
      ['10:15', '10:30', '10:45'].map((hm) => `2023-06-01T${hm}:00.000Z`),
    );
  });
});
