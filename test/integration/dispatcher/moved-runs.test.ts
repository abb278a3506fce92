import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { readRunFate } from '../../../cli/aws/run-fate.ts';
import type { CalendarDefinition } from '../../../functions/calendar/calendar-definition.ts';
import { nextOccurrences } from '../../../functions/schedule/index.ts';
import { coveringSchedule } from '../../../infra/covering/covering-cron.ts';
import { updating } from '../../support/ddb-faults.ts';
import { key } from '../../support/dispatcher-cases.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepMinutes, tickEvent } from '../../support/harness.ts';
import { type JobOverrides, makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Runs a business calendar moved (docs/semantics.md §7, "Delivering moved runs"): each is
// delivered once, at its real instant, under the key of the instant the schedule named, by the
// tick of the instant it moved to, however many runs share that instant.
//
// January 2027: Friday the 8th, Saturday the 9th, Sunday the 10th, Monday the 11th.

const FRI = '2027-01-08T09:00:00Z';
const SAT = '2027-01-09T09:00:00Z';
const SUN = '2027-01-10T09:00:00Z';
const MON = '2027-01-11T09:00:00Z';
const TUE = '2027-01-12T09:00:00Z';
const iso = (text: string) => new Date(text).toISOString();

const weekdays: CalendarDefinition = {
  name: 'weekdays',
  timezone: 'UTC',
  holidayTypes: ['public'],
  weekendDays: [0, 6],
  closedDays: [],
  closedRanges: [],
};

/** A daily 09:00 UTC job whose runs of Saturday and Sunday move to Monday. */
function followingJob(id: string, overrides: Omit<JobOverrides, 'id'> = {}): JobDefinition {
  return makeJob({
    id,
    schedule: '0 9 * * *',
    timezone: 'UTC',
    calendar: { definition: weekdays, onClosed: 'following' },
    ...overrides,
  });
}

async function oneJob(tableId: string, job: JobDefinition, startIso: string) {
  const { client, tableName, faults } = await faultableLedgerTable(tableId);
  const clock = new TestClock(startIso);
  const targets = new RecordingTargets();
  return { h: harness({ client, tableName, clock, jobs: [job], targets }), clock, targets, faults };
}

type World = Awaited<ReturnType<typeof oneJob>>;

/** The covering's tick of `at`, two seconds late, as EventBridge Scheduler sends it. */
async function tick(world: World, job: JobDefinition, at: string, attempt = 1) {
  world.clock.set(new Date(Date.parse(at) + 2_000).toISOString());
  return world.h.dispatcher.handle(tickEvent(job.id, at, attempt));
}

/** What the target received: each delivery's key and scheduled instant. */
function received(targets: RecordingTargets) {
  return targets.received.map((r) => [r.envelope.key, r.envelope.scheduledAt]);
}

describe('runs a calendar moved onto one instant', () => {
  it("delivers Saturday's, Sunday's and Monday's 09:00 runs once each at Monday 09:00, under three keys", async () => {
    const job = followingJob('three-on-monday');
    const world = await oneJob('moved1', job, FRI);
    await tick(world, job, FRI);
    // The covering fires every day: the weekend's ticks stand for no run.
    expect(await tick(world, job, SAT)).toMatchObject({ outcomes: [] });
    expect(await tick(world, job, SUN)).toMatchObject({ outcomes: [] });
    const monday = await tick(world, job, MON);
    const keys = [key(job, SAT), key(job, SUN), key(job, MON)];
    expect(monday).toMatchObject({
      outcomes: keys.map((k) => ({ key: k, at: iso(MON), outcome: 'dispatched' })),
    });
    // EventBridge delivers the tick again, and the sweep passes: nothing is delivered twice.
    const again = await tick(world, job, MON, 2);
    expect(again).toMatchObject({ outcomes: keys.map((k) => ({ key: k, outcome: 'duplicate' })) });
    await sweepMinutes(world.h, world.clock, '2027-01-11T09:01:00Z', '2027-01-11T09:08:00Z');
    expect(received(world.targets)).toEqual([
      [key(job, FRI), iso(FRI)],
      ...keys.map((k) => [k, iso(MON)]),
    ]);
    expect(await world.h.ledger.getRun(key(job, SAT))).toMatchObject({
      at: iso(MON),
      nominal: '2027-01-11T09:00',
      status: 'dispatched',
    });
  });

  it("delivers a Saturday run moved to Friday (preceding) at Friday's tick, which the covering fires though the expression names Saturdays only", async () => {
    const job = makeJob({
      id: 'saturday-preceding',
      schedule: '0 9 * * SAT',
      timezone: 'UTC',
      calendar: { definition: weekdays, onClosed: 'preceding' },
    });
    const covering = coveringSchedule(job, new Date('2027-01-01T00:00:00Z'));
    expect(covering.cron).toBe('0 9 * * *');
    const utc = { cron: covering.cron, timezone: 'UTC' };
    expect(nextOccurrences(utc, new Date('2027-01-08T08:59:00Z'), 1)[0]?.at).toEqual(new Date(FRI));
    const world = await oneJob('moved2', job, FRI);
    expect(await tick(world, job, FRI)).toMatchObject({
      outcomes: [{ key: key(job, SAT), at: iso(FRI), outcome: 'dispatched' }],
    });
    expect(await tick(world, job, SAT)).toMatchObject({ outcomes: [] });
    await sweepMinutes(world.h, world.clock, '2027-01-09T09:05:00Z', '2027-01-09T09:08:00Z');
    expect(received(world.targets)).toEqual([[key(job, SAT), iso(FRI)]]);
  });

  it.each([
    ['the retry of its tick', true],
    ['the sweep, as its tick left them', false],
  ])(
    'delivers the runs of one instant once each when the dispatcher died between their claims, by %s',
    async (_by, retried) => {
      const job = followingJob(retried ? 'crash-retried' : 'crash-swept');
      const world = await oneJob(retried ? 'moved3' : 'moved4', job, FRI);
      await tick(world, job, FRI);
      // Saturday's run is claimed and delivered; the dispatcher dies before Sunday's claim.
      let claims = 0;
      world.faults.fail((r) => updating('secretHashes')(r) && ++claims === 2, {
        error: () => new Error('Runtime.ExitError'),
      });
      await expect(tick(world, job, MON)).rejects.toThrow('Runtime.ExitError');
      expect(received(world.targets).map(([k]) => k)).toEqual([key(job, FRI), key(job, SAT)]);
      if (retried) {
        expect(await tick(world, job, MON, 2)).toMatchObject({
          outcomes: [
            { key: key(job, SAT), outcome: 'duplicate' },
            { key: key(job, SUN), outcome: 'dispatched' },
            { key: key(job, MON), outcome: 'dispatched' },
          ],
        });
      }
      await sweepMinutes(world.h, world.clock, '2027-01-11T09:01:00Z', '2027-01-11T09:08:00Z');
      await tick(world, job, MON, 3);
      expect(received(world.targets)).toEqual([
        [key(job, FRI), iso(FRI)],
        [key(job, SAT), iso(MON)],
        [key(job, SUN), iso(MON)],
        [key(job, MON), iso(MON)],
      ]);
      // Its own tick decided them: on time, none missed.
      for (const k of [key(job, SUN), key(job, MON)]) {
        expect(await world.h.ledger.getRun(k)).toMatchObject({
          origin: 'tick',
          status: 'dispatched',
        });
      }
      expect(world.h.metrics.count(job.id, 'MissedRuns')).toBe(0);
    },
  );

  it('catches up maxRuns 2 of the three runs at Monday 09:00 (the newest keys) when its tick was lost, and skips the third max-runs', async () => {
    const job = followingJob('max-runs-of-an-instant', {
      catchup: { policy: 'all', windowSeconds: 172_800, maxRuns: 2 },
    });
    const world = await oneJob('moved5', job, FRI);
    await tick(world, job, FRI);
    // Monday's tick never comes; Tuesday's finds the gap.
    const tuesday = await tick(world, job, TUE);
    expect(tuesday).toMatchObject({
      outcomes: [
        { key: key(job, SUN), at: iso(MON), outcome: 'dispatched' },
        { key: key(job, MON), at: iso(MON), outcome: 'dispatched' },
        { key: key(job, TUE), at: iso(TUE), outcome: 'dispatched' },
      ],
    });
    expect(await world.h.ledger.getRun(key(job, SAT))).toMatchObject({
      at: iso(MON),
      status: 'skipped',
      skipReason: 'max-runs',
    });
    // Monday's tick arrives after all, and the sweep passes: nothing more is delivered.
    await tick(world, job, MON);
    await sweepMinutes(world.h, world.clock, '2027-01-12T09:01:00Z', '2027-01-12T09:08:00Z');
    expect(received(world.targets).map(([k]) => k)).toEqual([
      key(job, FRI),
      key(job, SUN),
      key(job, MON),
      key(job, TUE),
    ]);
  });

  it("keeps concurrency forbid at an instant of three runs: Monday's own first, the moved ones skipped(overlap)", async () => {
    const job = followingJob('forbid-three', { concurrency: 'forbid' });
    const world = await oneJob('moved6', job, FRI);
    await tick(world, job, FRI);
    // Friday's run is long over by Monday (past its maxRuntime): the slot is free.
    const monday = await tick(world, job, MON);
    expect(monday).toMatchObject({
      outcomes: [
        { key: key(job, MON), outcome: 'dispatched' },
        { key: key(job, SUN), outcome: 'skipped', reason: 'overlap' },
        { key: key(job, SAT), outcome: 'skipped', reason: 'overlap' },
      ],
    });
    await tick(world, job, MON, 2);
    await sweepMinutes(world.h, world.clock, '2027-01-11T09:01:00Z', '2027-01-11T09:08:00Z');
    expect(received(world.targets).map(([k]) => k)).toEqual([key(job, FRI), key(job, MON)]);
  });

  it("retries a forbid job's three failed runs of one instant one after another: each failed retry frees the slot, so all three are dead-lettered and none skipped(overlap)", async () => {
    const job = followingJob('forbid-retries-fail', {
      concurrency: 'forbid',
      retry: { maxAttempts: 2 },
    });
    const world = await oneJob('moved10', job, FRI);
    await tick(world, job, FRI);
    world.targets.failWith = new Error('target down');
    const runs = [key(job, MON), key(job, SUN), key(job, SAT)];
    expect(await tick(world, job, MON)).toMatchObject({
      outcomes: runs.map((k) => ({ key: k, outcome: 'delivery-failed' })),
    });
    await sweepMinutes(world.h, world.clock, '2027-01-11T09:01:00Z', '2027-01-11T09:08:00Z');
    for (const k of runs) {
      expect(await world.h.ledger.getRun(k)).toMatchObject({ status: 'failed', attempts: 2 });
    }
  });

  it("retries a forbid job's three failed runs of one instant newest first once the target is back: Monday's own is delivered, the moved ones skipped(overlap)", async () => {
    const job = followingJob('forbid-retries-recover', { concurrency: 'forbid' });
    const world = await oneJob('moved11', job, FRI);
    await tick(world, job, FRI);
    world.targets.failWith = new Error('target down');
    await tick(world, job, MON);
    world.targets.failWith = undefined;
    await sweepMinutes(world.h, world.clock, '2027-01-11T09:01:00Z', '2027-01-11T09:08:00Z');
    expect(received(world.targets).map(([k]) => k)).toEqual([key(job, FRI), key(job, MON)]);
    for (const day of [SUN, SAT]) {
      expect(await world.h.ledger.getRun(key(job, day))).toMatchObject({
        status: 'skipped',
        skipReason: 'overlap',
      });
    }
  });

  it('redrives a moved run named by its key instant, at the instant it moved to, and refuses an instant that names no run', async () => {
    const job = followingJob('redrive-moved', { retry: { maxAttempts: 1 } });
    const world = await oneJob('moved7', job, FRI);
    await tick(world, job, FRI);
    world.targets.failWith = new Error('target down');
    expect(await tick(world, job, MON)).toMatchObject({
      outcomes: [
        { outcome: 'dead-lettered' },
        { outcome: 'dead-lettered' },
        { outcome: 'dead-lettered' },
      ],
    });
    world.targets.failWith = undefined;
    world.clock.set('2027-01-11T10:00:00Z');
    // Saturday's run, dead-lettered at Monday 09:00: named by Saturday 09:00.
    expect(await world.h.dispatcher.redrive({ jobId: job.id, at: new Date(SAT) })).toMatchObject({
      key: key(job, SAT),
      at: iso(MON),
      outcome: 'dispatched',
    });
    expect(received(world.targets).at(-1)).toEqual([key(job, SAT), iso(MON)]);
    await expect(
      world.h.dispatcher.redrive({ jobId: job.id, at: new Date('2027-01-09T10:00:00Z') }),
    ).rejects.toMatchObject({ name: 'NotARunError' });
  });

  it('redrives a moved run the ledger has no item for as its first claim, found by its key instant', async () => {
    const job = followingJob('redrive-unclaimed');
    const world = await oneJob('moved8', job, MON);
    world.clock.set('2027-01-11T10:00:00Z');
    expect(await world.h.dispatcher.redrive({ jobId: job.id, at: new Date(SUN) })).toMatchObject({
      key: key(job, SUN),
      at: iso(MON),
      outcome: 'dispatched',
    });
    expect(await world.h.ledger.getRun(key(job, SUN))).toMatchObject({
      at: iso(MON),
      nominal: '2027-01-11T09:00',
      origin: 'redrive',
    });
  });

  it("answers history --at with a moved run's key instant: its item once decided, and before, the run the schedule makes of it", async () => {
    const job = followingJob('history-moved');
    const world = await oneJob('moved9', job, FRI);
    const sources = {
      ledger: world.h.ledger,
      loadJob: async () => ({ job, retentionDays: 35, definition: 'file' as const }),
    };
    await tick(world, job, FRI);
    expect(await readRunFate(sources, job.id, new Date(SUN))).toMatchObject({
      source: 'none',
      occurrence: { at: new Date(MON), moved: { nominalAt: new Date(SUN) } },
    });
    await tick(world, job, MON);
    expect(await readRunFate(sources, job.id, new Date(SUN))).toMatchObject({
      source: 'item',
      run: { key: key(job, SUN), at: iso(MON), status: 'dispatched' },
    });
  });
});
