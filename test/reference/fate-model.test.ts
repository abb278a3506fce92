// The executable reading of docs/semantics.md §6 on hand-made histories: each test is one rule
// of the section, worked out by hand, so the fuzzer that holds the real system against the model
// trusts a model that was itself checked.
import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { makeJob } from '../support/jobs.ts';
import {
  type FateScenario,
  fateOf,
  onTimeTicks,
  type RunFate,
  type TickArrival,
} from './fate-model.ts';

const at = (hhmm: string, seconds = 0) =>
  new Date(Date.parse(`2027-06-01T${hhmm}:00.000Z`) + seconds * 1000);
const from = at('10:00');
const to = at('11:00');

/** Every five minutes in UTC, to a queue; five minutes of grace; all caught up, at most 100. */
function fiveMinutely(over: Parameters<typeof makeJob>[0] = { id: 'five' }): JobDefinition {
  return makeJob({ schedule: '*/5 * * * *', timezone: 'UTC', ...over });
}

/** Half an hour of grace: the sweep leaves the gaps of these tests to the next tick. */
const patient = { graceSeconds: 1800 };

/** A stack running since `from` where every tick arrives 200 ms after its run, unless edited. */
function scenario(jobs: readonly JobDefinition[], over: Partial<FateScenario> = {}): FateScenario {
  return {
    jobs,
    from,
    to,
    runningSince: new Date(from.getTime() + 1),
    ticks: jobs.flatMap((job) => onTimeTicks(job, from, to, 200)),
    outages: [],
    pauses: [],
    failures: [],
    targets: [],
    latencyMs: 200,
    settleMs: 2 * 3_600_000,
    ...over,
  };
}

/** The ticks without those of the runs at these instants (lost). */
const without = (ticks: readonly TickArrival[], ...lost: string[]) =>
  ticks.filter((t) => !lost.includes(t.scheduledAt.toISOString().slice(11, 16)));

/** The ticks with the one of `hhmm` arriving `seconds` late. */
const late = (ticks: readonly TickArrival[], hhmm: string, seconds: number) =>
  ticks.map((t) =>
    t.scheduledAt.getTime() === at(hhmm).getTime()
      ? { ...t, arrivesAt: new Date(t.arrivesAt.getTime() + seconds * 1000) }
      : t,
  );

const fate = (runs: readonly RunFate[], hhmm: string) =>
  runs.find((r) => r.at === at(hhmm).toISOString());

const summary = (runs: readonly RunFate[]) =>
  Object.fromEntries(runs.map((r) => [r.at.slice(11, 16), r.reason ?? r.status]));

describe('the fate model: a stack where nothing goes wrong', () => {
  it('delivers every run once, by its own tick, and owes no notification', () => {
    const job = fiveMinutely();
    const { runs, notifications } = fateOf(scenario([job]));
    expect(runs).toHaveLength(12);
    expect(runs.every((r) => r.status === 'delivered' && r.deliveries === 1)).toBe(true);
    expect(notifications).toEqual([]);
  });

  it('ignores a second copy of a tick: the run keeps the fate the first gave it', () => {
    const job = fiveMinutely();
    const ticks = onTimeTicks(job, from, to, 200);
    const { runs } = fateOf(scenario([job], { ticks: [...ticks, ...ticks] }));
    expect(runs.every((r) => r.status === 'delivered' && r.deliveries === 1)).toBe(true);
  });
});

describe('the fate model: gaps and catch-up', () => {
  const job = fiveMinutely({ id: 'five', catchup: { maxRuns: 2 } });
  const patientJob = fiveMinutely({ id: 'five', catchup: { maxRuns: 2 }, alarm: patient });

  it('gives a gap the same number of deliveries whether its next tick or the sweep reaches it first', () => {
    // Sweep first: the outage ends at 10:33, whose sweep decides 10:05–10:25 (past grace);
    // 10:30 is left to the 10:35 tick, with no budget left.
    const sweepFirst = fateOf(
      scenario([job], { outages: [{ from: at('10:02'), to: at('10:33') }] }),
    );
    // Tick first: the 10:35 tick, just after the outage, decides 10:05–10:30 in one go.
    const tickFirst = fateOf(
      scenario([job], { outages: [{ from: at('10:02'), to: at('10:35') }] }),
    );
    const caughtUp = (runs: readonly RunFate[]) =>
      runs.filter((r) => r.at > at('10:02').toISOString() && r.at < at('10:35').toISOString());
    expect(summary(caughtUp(sweepFirst.runs))).toEqual({
      '10:05': 'max-runs',
      '10:10': 'max-runs',
      '10:15': 'max-runs',
      '10:20': 'delivered',
      '10:25': 'delivered',
      '10:30': 'max-runs',
    });
    expect(summary(caughtUp(tickFirst.runs))).toEqual({
      '10:05': 'max-runs',
      '10:10': 'max-runs',
      '10:15': 'max-runs',
      '10:20': 'max-runs',
      '10:25': 'delivered',
      '10:30': 'delivered',
    });
  });

  it('owes one missed notification per decision of a gap, carried by its newest missed run', () => {
    const { notifications } = fateOf(
      scenario([job], { outages: [{ from: at('10:02'), to: at('10:35') }] }),
    );
    // Delivered (10:25, 10:30) or skipped, all six are past their grace at 10:35:00.2.
    expect(notifications).toEqual([
      {
        kind: 'missed',
        jobId: 'five',
        runs: 6,
        first: at('10:05').toISOString(),
        last: at('10:30').toISOString(),
      },
    ]);
  });

  it('gives the next gap a budget of its own once a tick delivered its own run', () => {
    const ticks = without(
      onTimeTicks(patientJob, from, to, 200),
      '10:05',
      '10:10',
      '10:15',
      '10:25',
      '10:30',
    );
    const { runs } = fateOf(scenario([patientJob], { ticks }));
    // The 10:20 tick spends the budget on 10:10 and 10:15, and delivers its own run.
    expect(summary(runs.filter((r) => r.at <= at('10:35').toISOString()))).toEqual({
      '10:05': 'max-runs',
      '10:10': 'delivered',
      '10:15': 'delivered',
      '10:20': 'delivered',
      '10:25': 'delivered',
      '10:30': 'delivered',
      '10:35': 'delivered',
    });
  });

  it('under latest, delivers the newest run of a gap the sweep decides, and none of one a tick decides', () => {
    const schedule = '5,10,15,20 10 * * *';
    const latest = fiveMinutely({ id: 'latest', schedule, catchup: { policy: 'latest' } });
    const patientLatest = { ...latest, alarm: { ...latest.alarm, ...patient } };
    // 10:10 and 10:15 lost; the 10:20 tick decides them: a newer run (its own) is decided.
    const tickFirst = fateOf(
      scenario([patientLatest], {
        ticks: without(onTimeTicks(latest, from, to, 200), '10:10', '10:15'),
      }),
    );
    expect(summary(tickFirst.runs)).toEqual({
      '10:05': 'delivered',
      '10:10': 'catch-up-latest',
      '10:15': 'catch-up-latest',
      '10:20': 'delivered',
    });
    // 10:15 and 10:20 lost: the sweep at 10:20 finds 10:15 overdue while 10:20 is due, and
    // skips it; the sweep at 10:25 finds 10:20 overdue with no newer run, and delivers it.
    const sweepFirst = fateOf(
      scenario([latest], { ticks: without(onTimeTicks(latest, from, to, 200), '10:15', '10:20') }),
    );
    expect(summary(sweepFirst.runs)).toMatchObject({
      '10:15': 'catch-up-latest',
      '10:20': 'delivered',
    });
  });

  it('under none, skips every run of a gap and calls each missed, whenever it is decided', () => {
    const none = fiveMinutely({ id: 'none', catchup: { policy: 'none' }, alarm: patient });
    const { runs, notifications } = fateOf(
      scenario([none], { ticks: without(onTimeTicks(none, from, to, 200), '10:05') }),
    );
    expect(fate(runs, '10:05')).toMatchObject({ status: 'skipped', reason: 'catch-up-none' });
    // Decided by the 10:10 tick, within its grace: a skipped run is missed all the same.
    expect(notifications).toEqual([
      {
        kind: 'missed',
        jobId: 'none',
        runs: 1,
        first: at('10:05').toISOString(),
        last: at('10:05').toISOString(),
      },
    ]);
  });

  it('ignores a tick older than the catch-up window: the sweep catches its run up instead', () => {
    const narrow = fiveMinutely({ id: 'narrow', catchup: { windowSeconds: 600 } });
    const ticks = late(onTimeTicks(narrow, from, to, 200), '10:55', 12 * 60);
    // No sweep reaches the dispatcher from 10:55:30 until 11:07, when the tick arrives first.
    const outages = [{ from: at('10:55', 30), to: at('11:07') }];
    const { runs, notifications } = fateOf(scenario([narrow], { ticks, outages }));
    expect(fate(runs, '10:55')).toMatchObject({ status: 'delivered', deliveries: 1 });
    // Read, the tick would have delivered it late; ignored, the sweep at 11:07 catches it up,
    // missed, with 11:00 (its tick was lost in the outage).
    expect(notifications).toEqual([
      {
        kind: 'missed',
        jobId: 'narrow',
        runs: 2,
        first: at('10:55').toISOString(),
        last: at('11:00').toISOString(),
      },
    ]);
  });
});

describe('the fate model: the sweep catching up after an outage', () => {
  it('walks the missed minutes half an hour at a time, and checks the newest minute too', () => {
    const minutely = makeJob({
      id: 'minutely',
      schedule: '* * * * *',
      timezone: 'UTC',
      alarm: { graceSeconds: 60 },
    });
    const end = at('11:10');
    // No invocation from 10:00:30 to 11:00:30; then the ticks of 11:01-11:03 are ten minutes late.
    const ticks = onTimeTicks(minutely, from, end, 200).map((t) =>
      t.scheduledAt > at('11:00') && t.scheduledAt <= at('11:03')
        ? { ...t, arrivesAt: new Date(t.arrivesAt.getTime() + 600_000) }
        : t,
    );
    const outages = [{ from: at('10:00', 30), to: at('11:00', 30) }];
    const { notifications } = fateOf(scenario([minutely], { to: end, ticks, outages }));
    // 11:01: the first half hour has undecided runs: everything overdue (10:01-11:00). 11:02:
    // the second half hour, nothing new, but the newest minute's 11:01 is overdue: one gap of
    // its own; so is 11:02 at 11:03, and 11:03 at 11:04.
    expect(notifications.map((n) => [n.runs, n.first.slice(11, 16), n.last.slice(11, 16)])).toEqual(
      [
        [60, '10:01', '11:00'],
        [1, '11:01', '11:01'],
        [1, '11:02', '11:02'],
        [1, '11:03', '11:03'],
      ],
    );
  });
});

describe('the fate model: pauses', () => {
  const job = fiveMinutely();
  const pause = { jobId: 'five', from: at('10:12'), to: at('10:30'), catchUp: false };

  it('skips the runs due in [pausedAt, end) for the pause, without a missed notification, and runs the one due at its end', () => {
    const { runs, notifications } = fateOf(scenario([job], { pauses: [pause] }));
    expect(summary(runs.slice(1, 6))).toEqual({
      '10:10': 'delivered',
      '10:15': 'paused',
      '10:20': 'paused',
      '10:25': 'paused',
      '10:30': 'delivered',
    });
    expect(notifications).toEqual([]);
  });

  it('decides a run due before the pause, still undecided when it began, as if there were none', () => {
    const ticks = without(onTimeTicks(job, from, to, 200), '10:10', '10:15');
    const { runs, notifications } = fateOf(scenario([job], { ticks, pauses: [pause] }));
    // The sweep at 10:15 finds 10:10 overdue and catches it up; 10:15 is the pause's.
    expect(summary(runs.slice(1, 3))).toEqual({ '10:10': 'delivered', '10:15': 'paused' });
    expect(notifications).toMatchObject([
      { kind: 'missed', runs: 1, first: at('10:10').toISOString() },
    ]);
  });

  it('delivers the runs the policy picks from the pause when it is resumed with catch-up', () => {
    const catchUp = { ...pause, catchUp: true };
    const latest = fiveMinutely({ id: 'five', catchup: { policy: 'latest' } });
    const { runs } = fateOf(scenario([latest], { pauses: [catchUp] }));
    expect(summary(runs.slice(2, 5))).toEqual({
      '10:15': 'paused',
      '10:20': 'paused',
      '10:25': 'delivered',
    });
  });
});

describe('the fate model: a pause resumed with catch-up', () => {
  it('skips the pause’s undecided runs the policy does not pick as paused, without a missed notification', () => {
    const job = fiveMinutely({ id: 'five', catchup: { maxRuns: 1 }, alarm: patient });
    const pause = { jobId: 'five', from: at('10:12'), to: at('10:30'), catchUp: true };
    // No tick of the pause comes in, so nothing decides its runs before the resume.
    const ticks = without(onTimeTicks(job, from, to, 200), '10:15', '10:20', '10:25');
    const { runs, notifications } = fateOf(scenario([job], { ticks, pauses: [pause] }));
    // The resume replays the newest, 10:25 (maxRuns 1); the 10:30 tick then finds 10:15 and
    // 10:20 undecided, and they are the pause's, as they would be had their ticks come.
    expect(summary(runs.slice(2, 6))).toEqual({
      '10:15': 'paused',
      '10:20': 'paused',
      '10:25': 'delivered',
      '10:30': 'delivered',
    });
    expect(notifications).toEqual([]);
  });

  it('delivers none of the pause’s runs under catchup.policy none, and skips them as paused', () => {
    const job = fiveMinutely({ id: 'five', catchup: { policy: 'none' }, alarm: patient });
    const pause = { jobId: 'five', from: at('10:12'), to: at('10:30'), catchUp: true };
    const ticks = without(onTimeTicks(job, from, to, 200), '10:15', '10:20', '10:25');
    const { runs, notifications } = fateOf(scenario([job], { ticks, pauses: [pause] }));
    expect(summary(runs.slice(2, 6))).toEqual({
      '10:15': 'paused',
      '10:20': 'paused',
      '10:25': 'paused',
      '10:30': 'delivered',
    });
    expect(notifications).toEqual([]);
  });
});

describe('the fate model: the window and the missed signal of a gap', () => {
  const lost = (job: JobDefinition, ...hhmm: string[]) =>
    without(onTimeTicks(job, from, to, 200), ...hhmm);

  it('ends a tick’s window at the tick’s own run, closed at its start', () => {
    const narrow = fiveMinutely({ id: 'narrow', catchup: { windowSeconds: 600 }, alarm: patient });
    const s = scenario([narrow], { ticks: lost(narrow, '10:05', '10:10', '10:15', '10:20') });
    const { runs } = fateOf(s);
    // The 10:25 tick: the window is [10:15, 10:25].
    expect(summary(runs.slice(0, 4))).toEqual({
      '10:05': 'outside-window',
      '10:10': 'outside-window',
      '10:15': 'delivered',
      '10:20': 'delivered',
    });
  });

  it('calls a run the gap skips missed even within its grace', () => {
    const none = fiveMinutely({ id: 'none', catchup: { policy: 'none' }, alarm: patient });
    const s = scenario([none], { ticks: lost(none, '10:05') });
    expect(fateOf(s).notifications).toMatchObject([
      { kind: 'missed', jobId: 'none', runs: 1, first: at('10:05').toISOString() },
    ]);
  });
});

describe('the fate model: instants that are not runs', () => {
  it('ignores a tick of a run more than the clock skew (60 s) ahead of it', () => {
    const job = fiveMinutely({ id: 'five', catchup: { policy: 'none' }, alarm: patient });
    const early = { jobId: 'five', scheduledAt: at('10:45'), arrivesAt: at('10:20', 1) };
    const { runs, notifications } = fateOf(
      scenario([job], { ticks: [...onTimeTicks(job, from, to, 200), early] }),
    );
    // Read, it would have delivered 10:45 at 10:20 and skipped 10:25-10:40 as its gap.
    expect(runs.every((r) => r.status === 'delivered')).toBe(true);
    expect(notifications).toEqual([]);
  });

  it('starts a fresh job at its first tick: runs before it are not runs, and never missed', () => {
    const job = fiveMinutely();
    const ticks = without(onTimeTicks(job, from, to, 200), '10:05', '10:10');
    const { runningSince: _, ...rest } = scenario([job], { ticks });
    const fresh = fateOf(rest);
    expect(fresh.runs[0]?.at).toBe(at('10:15').toISOString());
    expect(fresh.runs.every((r) => r.status === 'delivered')).toBe(true);
    expect(fresh.notifications).toEqual([]);
    // The same history on a job that was running: its two first runs are a gap, caught up.
    const running = fateOf(scenario([job], { ticks }));
    expect(summary(running.runs.slice(0, 2))).toEqual({
      '10:05': 'delivered',
      '10:10': 'delivered',
    });
    expect(running.notifications).toMatchObject([
      { kind: 'missed', runs: 1 },
      { kind: 'missed', runs: 1 },
    ]);
  });
});

describe('the fate model: invocations that fail, targets that refuse, runs that overlap', () => {
  it('delivers a run by the retry of its failed tick, a minute later and within grace, without a signal', () => {
    const job = fiveMinutely();
    const failures = [
      { kind: 'tick' as const, jobId: 'five', scheduledAt: at('10:20'), attempt: 1 },
    ];
    const { runs, notifications } = fateOf(scenario([job], { failures }));
    expect(fate(runs, '10:20')).toMatchObject({ status: 'delivered' });
    expect(notifications).toEqual([]);
  });

  it('owes late when the run’s own tick delivers it past its grace, the sweep having been out of reach', () => {
    const job = fiveMinutely({ id: 'five', alarm: { graceSeconds: 60 } });
    const ticks = late(onTimeTicks(job, from, to, 200), '10:20', 70);
    const outages = [{ from: at('10:20', 30), to: at('10:20', 65) }];
    const { runs, notifications } = fateOf(scenario([job], { ticks, outages }));
    expect(fate(runs, '10:20')).toMatchObject({ status: 'delivered' });
    expect(notifications).toEqual([
      {
        kind: 'late',
        jobId: 'five',
        runs: 1,
        first: at('10:20').toISOString(),
        last: at('10:20').toISOString(),
      },
    ]);
  });

  it('retries a refused delivery at the sweeps 60 s, then 120 s later, and dead-letters it once every attempt failed', () => {
    const job = fiveMinutely();
    const failingUntil = (hhmm: string, seconds: number) => [
      { jobId: 'five', fail: { from: at('10:29'), to: at(hhmm, seconds) } },
    ];
    // Attempts at 10:30:00.2, 10:31:00.2, 10:33:00.2.
    const recovered = fateOf(scenario([job], { targets: failingUntil('10:33', 0) }));
    const dead = fateOf(scenario([job], { targets: failingUntil('10:33', 1) }));
    expect(fate(recovered.runs, '10:30')).toMatchObject({ status: 'delivered' });
    expect(recovered.notifications).toEqual([]);
    expect(fate(dead.runs, '10:30')).toMatchObject({ status: 'dead-lettered', deliveries: 0 });
    expect(dead.notifications).toMatchObject([
      { kind: 'dead-lettered', first: at('10:30').toISOString() },
    ]);
  });

  it('skips runs of a forbid job while the previous one runs, notifying once per incident', () => {
    const job = fiveMinutely({
      id: 'slow',
      concurrency: 'forbid',
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:slow' },
    });
    const targets = [{ jobId: 'slow', runtimeMs: 12 * 60_000 }];
    const { runs, notifications } = fateOf(scenario([job], { targets }));
    // 10:05 runs until 10:17:00.4; 10:10 and 10:15 overlap it; 10:20 takes the slot.
    expect(summary(runs.slice(0, 4))).toEqual({
      '10:05': 'delivered',
      '10:10': 'overlap',
      '10:15': 'overlap',
      '10:20': 'delivered',
    });
    expect(notifications.filter((n) => n.kind === 'overlap')).toHaveLength(4);
    expect(notifications[0]).toMatchObject({ kind: 'overlap', first: at('10:15').toISOString() });
  });

  it('owes stuck for a tracked run that has not reported within maxRuntime', () => {
    const job = fiveMinutely({
      id: 'hang',
      schedule: '30 10 * * *',
      maxRuntimeSeconds: 600,
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:hang' },
    });
    const { notifications } = fateOf(
      scenario([job], { targets: [{ jobId: 'hang', runtimeMs: 900_000 }] }),
    );
    expect(notifications).toEqual([
      {
        kind: 'stuck',
        jobId: 'hang',
        runs: 1,
        first: at('10:30').toISOString(),
        last: at('10:30').toISOString(),
      },
    ]);
  });
});

describe('the fate model: deploys', () => {
  const job = fiveMinutely({ id: 'five', alarm: patient });
  const deployAt = at('10:22', 30);

  it('takes a new schedule at the first sweep after the deploy: the new runs at or before it are no runs, the old ones keep their fates', () => {
    const quarterly = { ...job, schedule: '*/15 * * * *' };
    const ticks = [
      ...onTimeTicks(job, from, at('10:22'), 200),
      ...onTimeTicks(quarterly, at('10:22'), to, 200),
    ];
    const { runs, notifications } = fateOf(
      scenario([job], { ticks, deploys: [{ at: deployAt, jobs: [quarterly] }] }),
    );
    // The sweep at 10:23 is the deploy instant: old runs up to 10:20, new ones from 10:30.
    expect(runs.map((r) => r.at.slice(11, 16))).toEqual([
      '10:05',
      '10:10',
      '10:15',
      '10:20',
      '10:30',
      '10:45',
      '11:00',
    ]);
    expect(runs.every((r) => r.status === 'delivered')).toBe(true);
    expect(notifications).toEqual([]);
  });

  it('leaves an old run undecided at the deploy instant undecided, and decides the new schedule’s gap under its own policy', () => {
    const quarterly = {
      ...job,
      schedule: '*/15 * * * *',
      catchup: { ...job.catchup, policy: 'none' as const },
    };
    // No invocation from 10:19 to 10:40: the deploy takes effect at the 10:40 sweep; 10:45's
    // tick then finds nothing of the new schedule undecided before it.
    const outages = [{ from: at('10:19'), to: at('10:40') }];
    const ticks = [
      ...onTimeTicks(job, from, at('10:22'), 200),
      ...onTimeTicks(quarterly, at('10:22'), to, 200),
    ];
    const { runs } = fateOf(
      scenario([job], { ticks, outages, deploys: [{ at: deployAt, jobs: [quarterly] }] }),
    );
    // The old schedule's 10:20–10:35 stay undecided; its 10:40 and the new 10:30 are no runs.
    expect(summary(runs.filter((r) => r.status === 'undecided'))).toEqual({
      '10:20': 'undecided',
      '10:25': 'undecided',
      '10:30': 'undecided',
      '10:35': 'undecided',
    });
    expect(fate(runs, '10:40')).toBeUndefined();
    expect(fate(runs, '10:45')).toMatchObject({ status: 'delivered' });
  });

  it('moves nothing for a deploy of new policies: the gap after it is decided under them', () => {
    const latest = { ...job, catchup: { ...job.catchup, policy: 'latest' as const } };
    const ticks = without(onTimeTicks(job, from, to, 200), '10:30', '10:35');
    const { runs } = fateOf(
      scenario([job], { ticks, deploys: [{ at: deployAt, jobs: [latest] }] }),
    );
    expect(runs).toHaveLength(12);
    // The 10:40 tick decides 10:30 and 10:35 under latest: a newer run (its own) is decided.
    expect(summary(runs.slice(5, 8))).toEqual({
      '10:30': 'catch-up-latest',
      '10:35': 'catch-up-latest',
      '10:40': 'delivered',
    });
  });

  it('ends a removed job at the first sweep without it, and starts it again at the deploy instant of the deploy listing it again, replaying nothing of its absence', () => {
    const back = at('10:42', 30);
    const ticks = onTimeTicks(job, from, to, 200).filter(
      (t) => t.scheduledAt < deployAt || t.scheduledAt > back,
    );
    const deploys = [
      { at: deployAt, jobs: [] },
      { at: back, jobs: [job] },
    ];
    const { runs, notifications } = fateOf(scenario([job], { ticks, deploys }));
    expect(runs.map((r) => r.at.slice(11, 16))).toEqual([
      '10:05',
      '10:10',
      '10:15',
      '10:20',
      '10:45',
      '10:50',
      '10:55',
      '11:00',
    ]);
    expect(runs.every((r) => r.status === 'delivered')).toBe(true);
    expect(notifications).toEqual([]);
  });
});

describe('the fate model: operators', () => {
  const job = fiveMinutely({ id: 'five', alarm: patient });

  it('runs a manual run of the minute, under a job of its own, outside the forbid slot and any gap', () => {
    const forbid = {
      ...job,
      concurrency: 'forbid' as const,
      target: { type: 'lambda' as const, arn: 'arn:aws:lambda:us-east-1:000000000000:function:f' },
    };
    const targets = [{ jobId: 'five', runtimeMs: 4 * 60_000 }];
    const operator = [{ at: at('10:11', 30), action: 'run' as const, jobId: 'five' }];
    const { runs } = fateOf(scenario([forbid], { targets, operator }));
    expect(runs.find((r) => r.jobId === 'manual:five')).toMatchObject({
      at: at('10:11').toISOString(),
      status: 'delivered',
      deliveries: 1,
    });
    expect(runs.filter((r) => r.jobId === 'five').every((r) => r.status === 'delivered')).toBe(
      true,
    );
  });

  it('backfills the skipped and undecided runs of a range, not the delivered ones, without a missed signal', () => {
    const none = { ...job, catchup: { ...job.catchup, policy: 'none' as const } };
    const ticks = without(onTimeTicks(none, from, to, 200), '10:10', '10:15');
    const operator = [
      {
        at: at('10:30', 30),
        action: 'backfill' as const,
        jobId: 'five',
        from: at('10:05'),
        to: at('10:20'),
      },
    ];
    const plain = fateOf(scenario([none], { ticks }));
    const backfilled = fateOf(scenario([none], { ticks, operator }));
    expect(summary(plain.runs.slice(0, 4))).toMatchObject({
      '10:10': 'catch-up-none',
      '10:15': 'catch-up-none',
    });
    expect(
      backfilled.runs.slice(0, 4).every((r) => r.status === 'delivered' && r.deliveries === 1),
    ).toBe(true);
    expect(backfilled.notifications).toEqual(plain.notifications);
  });

  it('redrives a dead-lettered run once: delivered when the target takes it, dead-lettered again, silently, when not', () => {
    const once = { ...job, retry: { maxAttempts: 1 } };
    const targets = [{ jobId: 'five', fail: { from: at('10:19'), to: at('10:40') } }];
    const redrive = (hhmm: string) => [
      { at: at(hhmm, 30), action: 'redrive' as const, jobId: 'five', run: at('10:20') },
    ];
    const ok = fateOf(scenario([once], { targets, operator: redrive('10:45') }));
    const refused = fateOf(scenario([once], { targets, operator: redrive('10:35') }));
    expect(fate(ok.runs, '10:20')).toMatchObject({ status: 'delivered', deliveries: 1 });
    expect(fate(refused.runs, '10:20')).toMatchObject({ status: 'dead-lettered', deliveries: 0 });
    expect(
      refused.notifications.filter(
        (n) => n.kind === 'dead-lettered' && n.first === at('10:20').toISOString(),
      ),
    ).toHaveLength(1);
  });
});

describe('the fate model: deadlines', () => {
  const owed = (notifications: readonly { kind: string; first: string }[]) =>
    notifications.filter((n) => n.kind === 'deadline-missed').map((n) => n.first.slice(11, 16));
  const lambda = { type: 'lambda' as const, arn: 'arn:aws:lambda:us-east-1:0:function:f' };

  it('owes deadline-missed for a queue run delivered after its deadline, and none for one delivered before', () => {
    const job = fiveMinutely({ id: 'five', deadline: { afterSeconds: 120 }, alarm: patient });
    const ticks = late(onTimeTicks(job, from, to, 200), '10:20', 150);
    expect(owed(fateOf(scenario([job], { ticks })).notifications)).toEqual(['10:20']);
  });

  it('owes deadline-missed for a tracked run whose success comes after its deadline, or never', () => {
    const job = fiveMinutely({
      id: 'slow',
      schedule: '30 10 * * *',
      target: lambda,
      deadline: { afterSeconds: 600 },
    });
    const taking = (minutes: number) =>
      owed(
        fateOf(scenario([job], { targets: [{ jobId: 'slow', runtimeMs: minutes * 60_000 }] }))
          .notifications,
      );
    expect(taking(9)).toEqual([]);
    expect(taking(11)).toEqual(['10:30']);
    expect(taking(200)).toEqual(['10:30']);
  });

  it('owes deadline-missed for a run retried past its deadline and for one dead-lettered before it, once', () => {
    const job = fiveMinutely({
      id: 'five',
      deadline: { afterSeconds: 90 },
      retry: { maxAttempts: 3 },
    });
    const failing = (hhmm: string) => [
      { jobId: 'five', fail: { from: at('10:29'), to: at(hhmm) } },
    ];
    // Attempts at 10:30:00.2 (refused), 10:31:00.2 (refused or delivered), 10:33:00.2.
    expect(owed(fateOf(scenario([job], { targets: failing('10:31') })).notifications)).toEqual([]);
    expect(owed(fateOf(scenario([job], { targets: failing('10:32') })).notifications)).toEqual([
      '10:30',
    ]);
    const once = { ...job, retry: { maxAttempts: 1 } };
    expect(owed(fateOf(scenario([once], { targets: failing('10:31') })).notifications)).toEqual([
      '10:30',
    ]);
  });

  it('owes none for a run skipped, nor for one an operator redrove before its deadline', () => {
    const skipped = fiveMinutely({
      id: 'five',
      deadline: { afterSeconds: 60 },
      catchup: { policy: 'none' },
    });
    const ticks = without(onTimeTicks(skipped, from, to, 200), '10:20');
    expect(owed(fateOf(scenario([skipped], { ticks })).notifications)).toEqual([]);
    const once = fiveMinutely({
      id: 'five',
      deadline: { afterSeconds: 3600 },
      retry: { maxAttempts: 1 },
    });
    const targets = [{ jobId: 'five', fail: { from: at('10:19'), to: at('10:21') } }];
    const operator = [
      { at: at('10:25'), action: 'redrive' as const, jobId: 'five', run: at('10:20') },
    ];
    expect(owed(fateOf(scenario([once], { targets, operator })).notifications)).toEqual([]);
    expect(owed(fateOf(scenario([once], { targets })).notifications)).toEqual(['10:20']);
  });
});
