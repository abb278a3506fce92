import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import {
  type Occurrence,
  occurrencesBetween,
  periodBucket,
} from '../../../functions/schedule/index.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepMinutes, tickEvent } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Catch-up holds per gap (docs/semantics.md, "The fate of a run"): whatever reaches the
// dispatcher first after an outage, the tick or the sweep, and however the sweep divides its
// work, a gap's runs are decided together, durably, in bounded work, with one notification.
// Each case was found by a fault search against the real dispatcher and fails on the code
// before this design (catch-up per event, skips one by one, a page per run).

const MINUTE = 60_000;

function runsOf(job: JobDefinition, fromIso: string, toIso: string): string[] {
  return occurrencesBetween(
    { cron: job.schedule, timezone: job.timezone },
    new Date(fromIso),
    new Date(toIso),
  ).map((o) => o.at.toISOString());
}

/** A ledger table, a clock at `startIso`, a recording target, and one dispatcher running `job`. */
async function oneJob(tableId: string, job: JobDefinition, startIso: string) {
  const { client, tableName } = await faultableLedgerTable(tableId);
  const clock = new TestClock(startIso);
  const targets = new RecordingTargets();
  return { h: harness({ client, tableName, clock, jobs: [job], targets }), clock, targets };
}

async function onTime(
  h: ReturnType<typeof harness>,
  clock: TestClock,
  job: JobDefinition,
  iso: string,
) {
  clock.set(new Date(Date.parse(iso) + 2_000).toISOString());
  await h.dispatcher.handle(tickEvent(job.id, iso));
}

/**
 * A minutely job ticked at 08:00 and swept at 08:01, then unreachable until 10:00:30; from 10:01
 * to `untilIso` a tick and a sweep every minute, the tick first or the sweep first.
 */
async function twoHourOutage(id: string, maxRuns: number, tickFirst: boolean, untilIso: string) {
  const job = makeJob({
    id,
    schedule: '* * * * *',
    timezone: 'UTC',
    catchup: { policy: 'all', windowSeconds: 86_400, maxRuns },
    alarm: { graceSeconds: 60 },
  });
  const { h, clock, targets } = await oneJob(id, job, '2023-06-01T08:00:02Z');
  await onTime(h, clock, job, '2023-06-01T08:00:00Z');
  await sweepMinutes(h, clock, '2023-06-01T08:01:00Z', '2023-06-01T08:01:00Z');
  for (let ms = Date.parse('2023-06-01T10:01:00Z'); ms <= Date.parse(untilIso); ms += MINUTE) {
    const iso = new Date(ms).toISOString();
    if (tickFirst) await onTime(h, clock, job, iso);
    await sweepMinutes(h, clock, iso, iso);
    if (!tickFirst) await onTime(h, clock, job, iso);
  }
  return { h, job, targets };
}

describe('a gap is decided together, whoever reaches it first', () => {
  it('delivers at most maxRuns of a 3 h 10 min outage, the newest, all inside the window, when the sweep comes back first', async () => {
    const job = makeJob({
      id: 'half-hourly',
      schedule: '*/30 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'all', windowSeconds: 7_200, maxRuns: 2 },
    });
    const { h, clock, targets } = await oneJob('gap1', job, '2023-06-01T07:00:02Z');
    await onTime(h, clock, job, '2023-06-01T07:00:00Z');
    await sweepMinutes(h, clock, '2023-06-01T07:01:00Z', '2023-06-01T07:05:00Z');
    // Unreachable from 07:05 to 10:15; the sweep comes back before the 10:30 tick.
    await sweepMinutes(h, clock, '2023-06-01T10:15:00Z', '2023-06-01T10:29:00Z');
    await onTime(h, clock, job, '2023-06-01T10:30:00Z');
    await sweepMinutes(h, clock, '2023-06-01T10:31:00Z', '2023-06-01T10:40:00Z');
    expect(targets.instants()).toEqual([
      '2023-06-01T07:00:00.000Z',
      '2023-06-01T09:30:00.000Z',
      '2023-06-01T10:00:00.000Z',
      '2023-06-01T10:30:00.000Z',
    ]);
  });

  it.each([
    ['the tick', true],
    ['the sweep', false],
  ])(
    'catches up the same two runs of a minutely job with maxRuns 2 after a 2 h outage when %s comes back first',
    async (_first, tickFirst) => {
      const { h, job, targets } = await twoHourOutage(
        `minutely-${tickFirst}`,
        2,
        tickFirst,
        '2023-06-01T10:20:00Z',
      );
      const caughtUp = targets
        .instants()
        .filter((at) => at > '2023-06-01T08:00:00.000Z' && at < '2023-06-01T10:01:00.000Z');
      expect(caughtUp).toHaveLength(2);
      expect(h.metrics.count(job.id, 'CaughtUp')).toBe(2);
      // Every run since the outage began has a decision, with its own item or in the gap's range.
      for (const at of runsOf(job, '2023-06-01T08:00:00Z', '2023-06-01T10:20:00Z')) {
        const item = await h.ledger.getRun(periodBucket(job.id, new Date(at)));
        const range = item ? undefined : await h.ledger.findSkipRange(job.id, new Date(at));
        expect(item ?? range, at).toBeDefined();
      }
    },
  );
});

describe('a skipped run of a gap names where its window ended', () => {
  it("logs each skip of a gap a late tick decided with upTo, the tick's own run", async () => {
    const job = makeJob({
      id: 'half-hourly-upto',
      schedule: '*/30 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'all', windowSeconds: 7_200, maxRuns: 2 },
    });
    const { h, clock } = await oneJob('gap-upto', job, '2023-06-01T07:00:02Z');
    await onTime(h, clock, job, '2023-06-01T07:00:00Z');
    // Unreachable from 07:05 until the 10:30 tick: it decides (07:00, 10:30], window from 08:30.
    await onTime(h, clock, job, '2023-06-01T10:30:00Z');
    const skips = h.logger
      .withMessage('skipped')
      .filter((e) => String(e.fields.decision).startsWith('skipped-') && e.fields.at)
      .map((e) => [e.fields.at, e.fields.reason, e.fields.upTo]);
    expect(skips).toEqual([
      ['2023-06-01T07:30:00.000Z', 'outside-window', '2023-06-01T10:30:00.000Z'],
      ['2023-06-01T08:00:00.000Z', 'outside-window', '2023-06-01T10:30:00.000Z'],
      ['2023-06-01T08:30:00.000Z', 'max-runs', '2023-06-01T10:30:00.000Z'],
      ['2023-06-01T09:00:00.000Z', 'max-runs', '2023-06-01T10:30:00.000Z'],
    ]);
  });
});

describe('a gap decided is never delivered later', () => {
  it('delivers none of the runs a 3 h gap left in its range when the sweep works through the backlog', async () => {
    const job = makeJob({
      id: 'ranged',
      schedule: '* * * * *',
      timezone: 'UTC',
      catchup: { policy: 'all', windowSeconds: 86_400, maxRuns: 2 },
      alarm: { graceSeconds: 60 },
    });
    const { h, clock, targets } = await oneJob('gap3', job, '2023-06-01T07:00:02Z');
    await onTime(h, clock, job, '2023-06-01T07:00:00Z');
    await sweepMinutes(h, clock, '2023-06-01T07:01:00Z', '2023-06-01T07:01:00Z');
    // Back at 10:01: the tick decides the gap; the sweep then checks 07:01-10:01 in chunks.
    await onTime(h, clock, job, '2023-06-01T10:01:00Z');
    await sweepMinutes(h, clock, '2023-06-01T10:02:00Z', '2023-06-01T10:12:00Z');
    const late = targets.instants().filter((at) => at < '2023-06-01T10:01:00.000Z');
    expect(late).toEqual([
      '2023-06-01T07:00:00.000Z',
      '2023-06-01T09:59:00.000Z',
      '2023-06-01T10:00:00.000Z',
    ]);
    const range = await h.ledger.findSkipRange(job.id, new Date('2023-06-01T07:30:00Z'));
    expect(range).toMatchObject({ policyReason: 'max-runs', runs: 180 - 100 - 2 });
  });

  it('does not deliver a late tick of a run the gap put in its range', async () => {
    const job = makeJob({
      id: 'ranged-late',
      schedule: '* * * * *',
      timezone: 'UTC',
      catchup: { policy: 'all', windowSeconds: 86_400, maxRuns: 1 },
    });
    const { h, clock, targets } = await oneJob('gap4', job, '2023-06-01T07:00:02Z');
    await onTime(h, clock, job, '2023-06-01T07:00:00Z');
    await onTime(h, clock, job, '2023-06-01T10:00:00Z');
    // A tick of 07:10 held up for three hours arrives after its gap was decided.
    const result = await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T07:10:00Z'));
    expect(result).toMatchObject({ outcomes: [{ outcome: 'skipped', reason: 'max-runs' }] });
    expect(targets.instants()).not.toContain('2023-06-01T07:10:00.000Z');
  });
});

describe('deciding a gap costs what its policy costs, not what its length costs', () => {
  it('decides a ten-year gap of a minutely job with a bounded number of requests', async () => {
    const { client, tableName, faults } = await faultableLedgerTable('gap5');
    const job = makeJob({
      id: 'decade',
      schedule: '* * * * *',
      timezone: 'UTC',
      catchup: { policy: 'all', windowSeconds: 3_600, maxRuns: 3 },
    });
    const clock = new TestClock('2013-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await onTime(h, clock, job, '2013-06-01T10:00:00Z');
    faults.resetCounts();
    await onTime(h, clock, job, '2023-06-01T10:00:00Z');
    expect(targets.instants()).toEqual([
      '2013-06-01T10:00:00.000Z',
      '2023-06-01T09:57:00.000Z',
      '2023-06-01T09:58:00.000Z',
      '2023-06-01T09:59:00.000Z',
      '2023-06-01T10:00:00.000Z',
    ]);
    // swap, lease, one read, the range, 100 skips, 4 × (claim, dispatched), one missed outbox
    // confirm, the lease back: about 115, whatever the gap's length.
    expect(faults.total()).toBeLessThan(130);
    expect(await h.ledger.findSkipRange(job.id, new Date('2016-01-01T00:00:00Z'))).toMatchObject({
      policyReason: 'max-runs',
    });
  });
});

describe('a run due before a pause', () => {
  it('is caught up as if there were no pause when it was still undecided when the pause began', async () => {
    const job = makeJob({ id: 'hourly-paused', schedule: '0 * * * *', timezone: 'UTC' });
    const { h, clock, targets } = await oneJob('gap6', job, '2023-06-01T09:00:02Z');
    await onTime(h, clock, job, '2023-06-01T09:00:00Z');
    // The 10:00 tick and its retries are throttled away; an operator pauses at 10:04.
    clock.set('2023-06-01T10:04:00Z');
    await h.ledger.pause(job.id, { at: clock.now(), by: 'ops', reason: 'db maintenance' });
    await sweepMinutes(h, clock, '2023-06-01T10:05:00Z', '2023-06-01T10:08:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T09:00:00.000Z', '2023-06-01T10:00:00.000Z']);
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(1);
    // The 11:00 run falls in the pause.
    await onTime(h, clock, job, '2023-06-01T11:00:00Z');
    expect(targets.instants()).toHaveLength(2);
  });

  it('skips the runs inside a resumed pause as paused, none delivered or missed, when the next tick catches up its gap', async () => {
    const job = makeJob({
      id: 'resumed',
      schedule: '0 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'all', windowSeconds: 86_400, maxRuns: 2 },
    });
    const { h, clock, targets } = await oneJob('gap7', job, '2023-06-01T09:00:02Z');
    await onTime(h, clock, job, '2023-06-01T09:00:00Z');
    await h.ledger.pause(job.id, { at: new Date('2023-06-01T09:30:00Z'), by: 'ops', reason: 'x' });
    // Resumed at 13:30 (zonecron resume; --catch-up delivers its picks itself, as a backfill).
    await h.ledger.resume(job.id, { at: new Date('2023-06-01T13:30:00Z') });
    await onTime(h, clock, job, '2023-06-01T14:00:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T09:00:00.000Z', '2023-06-01T14:00:00.000Z']);
    for (const at of runsOf(job, '2023-06-01T10:00:00Z', '2023-06-01T13:00:00Z')) {
      expect(await h.ledger.getRun(periodBucket(job.id, new Date(at))), at).toMatchObject({
        status: 'skipped',
        skipReason: 'paused',
        signals: [],
      });
    }
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(0);
    expect(h.notifier.sent).toEqual([]);
  });
  it('is skipped as catch-up-latest under latest when a newer run of its gap fell in the pause, none delivered', async () => {
    const job = makeJob({
      id: 'latest-paused',
      schedule: '0 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'latest', windowSeconds: 6 * 3600, maxRuns: 1 },
      alarm: { graceSeconds: 60 },
    });
    const { h, clock, targets } = await oneJob('gap-latest-paused', job, '2023-06-01T09:00:02Z');
    await onTime(h, clock, job, '2023-06-01T09:00:00Z');
    // Unreachable from 09:30 to 11:00:30: the 10:00 and 11:00 runs are undecided, and an
    // operator pauses the job at 10:30, before 11:00.
    await h.ledger.pause(job.id, { at: new Date('2023-06-01T10:30:00Z'), by: 'ops', reason: 'x' });
    await sweepMinutes(h, clock, '2023-06-01T11:01:00Z', '2023-06-01T11:03:00Z');
    // As if there were no pause, latest picks 11:00 (skipped for the pause): 10:00 is moot.
    expect(targets.instants()).toEqual(['2023-06-01T09:00:00.000Z']);
    expect(
      await h.ledger.getRun(periodBucket(job.id, new Date('2023-06-01T10:00:00Z'))),
    ).toMatchObject({ status: 'skipped', skipReason: 'catch-up-latest' });
    expect(
      await h.ledger.getRun(periodBucket(job.id, new Date('2023-06-01T11:00:00Z'))),
    ).toMatchObject({ status: 'skipped', skipReason: 'paused' });
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(1);
  });
});

describe('notifications per incident', () => {
  it('sends one missed notification for a 2 h outage of a minutely job, naming how many runs, the first and the last', async () => {
    // Unreachable until 10:00:30: the sweep comes back first, then ticks and sweeps go on.
    const { h, job } = await twoHourOutage('paged-once', 5, false, '2023-06-01T10:10:00Z');
    const missed = h.notifier.sent.filter((n) => n.signal === 'missed');
    expect(missed).toHaveLength(1);
    // The sweep at 10:01 decides every run past its grace: 08:01 to 10:00, 5 delivered late.
    expect(missed[0]).toMatchObject({
      jobId: job.id,
      runs: 120,
      first: '2023-06-01T08:01:00.000Z',
      last: '2023-06-01T10:00:00.000Z',
    });
    expect(missed[0]?.summary).toContain('5 delivered late by a catch-up, 115 skipped');
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(120);
  });

  it('leaves a run an operator backfilled during the outage out of the missed notification of its gap', async () => {
    const job = makeJob({
      id: 'backfilled',
      schedule: '0 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'latest', windowSeconds: 60, maxRuns: 5 },
      alarm: { graceSeconds: 60 },
    });
    const { h, clock } = await oneJob('gap-backfilled', job, '2023-06-01T09:00:02Z');
    await onTime(h, clock, job, '2023-06-01T09:00:00Z');
    // The 10:00 and 11:00 ticks are lost; at 11:30 an operator backfills the 10:00 run.
    clock.set('2023-06-01T11:30:00Z');
    const ten = occurrencesBetween(
      { cron: job.schedule, timezone: job.timezone },
      new Date('2023-06-01T09:59:00Z'),
      new Date('2023-06-01T10:00:00Z'),
    )[0] as Occurrence;
    expect(await h.dispatcher.backfill({ jobId: job.id, occurrence: ten })).toMatchObject({
      outcome: 'dispatched',
    });
    // The 12:00 tick decides the gap: only 11:00 is the gap's, and missed.
    await onTime(h, clock, job, '2023-06-01T12:00:00Z');
    const missed = h.notifier.sent.filter((n) => n.signal === 'missed');
    expect(missed).toHaveLength(1);
    expect(missed[0]).toMatchObject({
      jobId: job.id,
      runs: 1,
      first: '2023-06-01T11:00:00.000Z',
      last: '2023-06-01T11:00:00.000Z',
    });
    expect(h.metrics.count(job.id, 'MissedRuns')).toBe(1);
  });
});

describe('a pause inside a gap', () => {
  it("keeps the gap's spent maxRuns when a paused run's tick skipped it, so the sweep skips the run after the resume (max-runs)", async () => {
    const job = makeJob({
      id: 'paused-in-gap',
      schedule: '*/15 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'all', windowSeconds: 86_400, maxRuns: 1 },
      alarm: { graceSeconds: 60 },
    });
    const { h, clock, targets } = await oneJob('gap8', job, '2023-06-01T10:00:02Z');
    const at = (hm: string) => periodBucket(job.id, new Date(`2023-06-01T${hm}:00Z`));
    await onTime(h, clock, job, '2023-06-01T10:00:00Z');
    // The 10:15 and 10:30 ticks are lost: the sweep catches 10:15 up and skips 10:30.
    await sweepMinutes(h, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:34:00Z');
    await h.ledger.pause(job.id, { at: new Date('2023-06-01T10:35:00Z'), by: 'ops', reason: 'x' });
    await sweepMinutes(h, clock, '2023-06-01T10:35:00Z', '2023-06-01T10:44:00Z');
    // The 10:45 tick is on time and skips its own run for the pause: it delivers nothing.
    await onTime(h, clock, job, '2023-06-01T10:45:00Z');
    expect(await h.ledger.getRun(at('10:45'))).toMatchObject({ skipReason: 'paused' });
    await sweepMinutes(h, clock, '2023-06-01T10:45:00Z', '2023-06-01T10:49:00Z');
    await h.ledger.resume(job.id, { at: new Date('2023-06-01T10:50:00Z') });
    // The 11:00 tick is lost: no tick delivered its own run since 10:15, so the gap goes on.
    await sweepMinutes(h, clock, '2023-06-01T10:50:00Z', '2023-06-01T11:01:00Z');
    expect(await h.ledger.getRun(at('10:30'))).toMatchObject({ skipReason: 'max-runs' });
    expect(await h.ledger.getRun(at('11:00'))).toMatchObject({
      status: 'skipped',
      skipReason: 'max-runs',
    });
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z', '2023-06-01T10:15:00.000Z']);
  });
});
