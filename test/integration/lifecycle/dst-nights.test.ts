import { describe, expect, inject, it } from 'vitest';
import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import {
  type GapPolicy,
  type OverlapPolicy,
  occurrencesBetween,
  periodBucket,
  zoneTransitions,
} from '../../../functions/schedule/index.ts';
import { coveringSchedule } from '../../../infra/covering/covering-cron.ts';
import { referenceOccurrences } from '../../reference/minute-reference.ts';
import { TestClock } from '../../support/doubles.ts';
import { type Lifecycle, lifecycle, sweepEvent, tickEvent } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

// Replays DST nights through the real dispatcher core, the real sweep and the recorder against
// DynamoDB Local. The runs each job must get come from the minute-by-minute reference
// (test/reference/), which shares no code with the engine, so an engine bug that both the
// dispatcher and the sweep would agree on still fails here.

const client = localDynamoClient(inject('dynamoEndpoint'));

const MINUTE_MS = 60_000;
/** Replayed on each side of the transition: every DST-affected run of the jobs lies within. */
const HALF_WINDOW_MS = 100 * MINUTE_MS;
/** Ticks arrive 3 s after their scheduled time; the sweep runs 20 s into its minute. */
const TICK_LAG_MS = 3_000;
const SWEEP_LAG_MS = 20_000;

interface JobPlan {
  readonly name: string;
  readonly schedule: string;
  readonly dst?: { gap: GapPolicy; overlap: OverlapPolicy };
  readonly catchup: 'all' | 'latest' | 'none';
  readonly concurrency: 'allow' | 'forbid';
}

// 01:30 and 02:30 local: in each of the three zones one of them falls into the spring gap and
// one into the autumn repeated hour. Each gap and each overlap policy appears at least once in
// both kinds of schedule, and every catch-up policy and both concurrency modes are exercised.
const PLANS: readonly JobPlan[] = [
  { name: 'wall-default', schedule: '30 1,2 * * *', catchup: 'all', concurrency: 'allow' },
  {
    name: 'wall-shift-first',
    schedule: '30 1,2 * * *',
    dst: { gap: 'shift', overlap: 'first' },
    catchup: 'latest',
    concurrency: 'forbid',
  },
  {
    name: 'wall-transition-last',
    schedule: '30 1,2 * * *',
    dst: { gap: 'transition', overlap: 'last' },
    catchup: 'none',
    concurrency: 'forbid',
  },
  {
    name: 'wall-skip-both',
    schedule: '30 1,2 * * *',
    dst: { gap: 'skip', overlap: 'both' },
    catchup: 'all',
    concurrency: 'allow',
  },
  { name: 'cad-default', schedule: '*/15 * * * *', catchup: 'all', concurrency: 'forbid' },
  {
    name: 'cad-shift-first',
    schedule: '*/15 * * * *',
    dst: { gap: 'shift', overlap: 'first' },
    catchup: 'latest',
    concurrency: 'allow',
  },
  {
    name: 'cad-transition-last',
    schedule: '*/15 * * * *',
    dst: { gap: 'transition', overlap: 'last' },
    catchup: 'none',
    concurrency: 'allow',
  },
];

interface Night {
  readonly name: string;
  readonly zone: string;
  readonly transition: Date;
  readonly kind: 'spring' | 'autumn';
}

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney'] as const;
/**
 * One year of nights: under today's rules another year's nights of these zones are the same
 * nights a whole number of weeks away (the same UTC time, offsets and weekday, and the same
 * covering expressions), so the replay of a second year would repeat every decision.
 */
const YEAR = 2026;

function nights(): Night[] {
  const out: Night[] = [];
  for (const zone of ZONES) {
    const changes = zoneTransitions(
      zone,
      new Date(`${YEAR}-01-01T00:00:00.000Z`),
      new Date(`${YEAR + 1}-01-01T00:00:00.000Z`),
    );
    for (const change of changes) {
      const kind = change.offsetAfterMinutes > change.offsetBeforeMinutes ? 'spring' : 'autumn';
      out.push({
        name: `${zone} ${kind} ${change.at.toISOString().slice(0, 10)}`,
        zone,
        transition: change.at,
        kind,
      });
    }
  }
  return out;
}

const NIGHTS = nights();

function jobId(night: Night, plan: JobPlan, suffix = ''): string {
  const zone = night.zone.split('/')[1]?.toLowerCase().replace(/_/g, '-') ?? 'zone';
  return `${zone}-${night.transition.toISOString().slice(0, 10)}-${plan.name}${suffix}`;
}

const coveringCache = new Map<string, string>();

/**
 * The instants EventBridge Scheduler would tick this job at within the window.
 *
 * Wall-clock jobs: their real UTC covering expression (`infra/covering/covering-cron.ts`,
 * computed for the year of the night), evaluated in UTC by the engine. Cadence jobs: the union
 * of the job's runs under every gap/overlap policy, which is what an `every-dst-policy`
 * covering fires at inside the window — computing the covering itself enumerates two years of
 * 15-minute runs (about 4 s per job), too slow to repeat for every night.
 */
function ticksOf(job: JobDefinition, from: Date, to: Date): Date[] {
  if (job.schedule.startsWith('*/')) {
    const all = new Set<number>();
    for (const gap of ['shift', 'transition', 'skip'] as const) {
      for (const overlap of ['first', 'last', 'both'] as const) {
        for (const o of occurrencesBetween(
          { ...scheduleSpecOf(job), dst: { gap, overlap } },
          from,
          to,
        )) {
          all.add(o.at.getTime());
        }
      }
    }
    return [...all].sort((a, b) => a - b).map((ms) => new Date(ms));
  }
  const year = from.getUTCFullYear();
  const cacheKey = `${job.schedule}|${job.timezone}|${JSON.stringify(job.dst ?? null)}|${year}`;
  let cron = coveringCache.get(cacheKey);
  if (!cron) {
    cron = coveringSchedule(job, new Date(`${year}-01-01T00:00:00.000Z`)).cron;
    coveringCache.set(cacheKey, cron);
  }
  return occurrencesBetween({ cron, timezone: 'UTC' }, from, to).map((o) => o.at);
}

interface Replay {
  readonly life: Lifecycle;
  readonly jobs: readonly JobDefinition[];
  /** Runs the independent reference says each job has in the window, UTC ISO. */
  readonly expected: ReadonlyMap<string, string[]>;
  readonly from: Date;
  readonly to: Date;
}

/**
 * Replays the night minute by minute: each job's ticks, then the one-minute sweep, with the
 * injected clock following along; every delivered run is reported finished one second later
 * through the recorder, as Lambda destinations would.
 */
async function replay(
  night: Night,
  plans: readonly JobPlan[],
  options: { suffix?: string; drop?: { plan: string; at: Date } } = {},
): Promise<Replay> {
  const from = new Date(night.transition.getTime() - HALF_WINDOW_MS);
  const to = new Date(night.transition.getTime() + HALF_WINDOW_MS);
  const jobs = plans.map((plan) =>
    makeJob({
      id: jobId(night, plan, options.suffix),
      schedule: plan.schedule,
      timezone: night.zone,
      ...(plan.dst ? { dst: plan.dst } : {}),
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:nightly' },
      catchup: { policy: plan.catchup },
      concurrency: plan.concurrency,
    }),
  );
  const clock = new TestClock(from.toISOString());
  // A table per replay: the sweep settles every open run of its table.
  const tableName = await createLedgerTable(client, 'dst-nights');
  const life = lifecycle({ client, tableName, clock, jobs });
  const droppedId = options.drop
    ? jobs[plans.findIndex((p) => p.name === options.drop?.plan)]?.id
    : undefined;

  const ticksByMinute = new Map<number, string[]>();
  const before = new Date(from.getTime() - MINUTE_MS);
  for (const job of jobs) {
    for (const at of ticksOf(job, before, to)) {
      const dropped = job.id === droppedId && at.getTime() === options.drop?.at.getTime();
      if (dropped) continue;
      const list = ticksByMinute.get(at.getTime()) ?? [];
      list.push(job.id);
      ticksByMinute.set(at.getTime(), list);
    }
  }

  let completed = 0;
  async function completeNewRuns() {
    for (const { envelope } of life.targets.received.slice(completed)) {
      const finishedAt = new Date(clock.now().getTime() + 1_000);
      clock.set(finishedAt.toISOString());
      const outcome = await life.complete(envelope, finishedAt);
      expect(outcome).toMatchObject({ outcome: 'recorded', status: 'succeeded' });
    }
    completed = life.targets.received.length;
  }

  for (let ms = from.getTime(); ms <= to.getTime(); ms += MINUTE_MS) {
    for (const id of ticksByMinute.get(ms) ?? []) {
      clock.set(new Date(ms + TICK_LAG_MS).toISOString());
      await life.dispatch.dispatcher.handle(tickEvent(id, new Date(ms)));
      await completeNewRuns();
    }
    clock.set(new Date(ms + SWEEP_LAG_MS).toISOString());
    await life.dispatch.dispatcher.handle(sweepEvent(new Date(ms)));
    await completeNewRuns();
  }

  const expected = new Map<string, string[]>();
  for (const job of jobs) {
    expected.set(
      job.id,
      referenceOccurrences(
        { cron: job.schedule, timezone: job.timezone, ...(job.dst ? { dst: job.dst } : {}) },
        before,
        to,
      ).map((run) => new Date(run.atMs).toISOString()),
    );
  }
  return { life, jobs, expected, from, to };
}

function signals(life: Lifecycle) {
  const m = life.dispatch.metrics;
  return {
    MissedRuns: m.total('MissedRuns'),
    LateRuns: m.total('LateRuns'),
    StuckRuns: m.total('StuckRuns'),
    SkippedOverlap: m.total('SkippedOverlap'),
    DeadLettered: m.total('DeadLettered'),
  };
}

describe('no false alarms on DST nights', () => {
  it('replays the spring and autumn nights of 2026 in Berlin, New York and Sydney (6 nights)', () => {
    expect(NIGHTS.map((n) => `${n.zone} ${n.kind} ${n.transition.toISOString()}`)).toEqual([
      'Europe/Berlin spring 2026-03-29T01:00:00.000Z',
      'Europe/Berlin autumn 2026-10-25T01:00:00.000Z',
      'America/New_York spring 2026-03-08T07:00:00.000Z',
      'America/New_York autumn 2026-11-01T06:00:00.000Z',
      'Australia/Sydney autumn 2026-04-04T16:00:00.000Z',
      'Australia/Sydney spring 2026-10-03T16:00:00.000Z',
    ]);
  });

  it.each(NIGHTS.map((night) => [night.name, night] as const))(
    '%s: every run happens exactly once and no missed, late or stuck signal is raised',
    async (_name, night) => {
      const { life, jobs, expected } = await replay(night, PLANS);

      for (const job of jobs) {
        const runs = expected.get(job.id) ?? [];
        expect(life.targets.instants(job.id), job.id).toEqual(runs);
        const keys = runs.map((at) => periodBucket(job.id, new Date(at)));
        const items = await life.dispatch.ledger.getRuns(keys);
        expect(
          keys.map((k) => items.get(k)?.status),
          job.id,
        ).toEqual(keys.map(() => 'succeeded'));
      }
      expect(signals(life)).toEqual({
        MissedRuns: 0,
        LateRuns: 0,
        StuckRuns: 0,
        SkippedOverlap: 0,
        DeadLettered: 0,
      });
      const total = [...expected.values()].reduce((n, runs) => n + runs.length, 0);
      expect(life.recorderMetrics.total('RunSucceeded')).toBe(total);
      expect(life.recorderMetrics.total('DuplicatesSuppressed')).toBe(0);
      // The replay really crossed the transition: some run stood for a shifted, moved or
      // repeated local time.
      const tags = new Set(life.targets.received.map((r) => r.envelope.dst));
      expect(tags.has(night.kind === 'spring' ? 'gap' : 'overlap')).toBe(true);
    },
  );
});

describe('a run that no tick delivered', () => {
  const berlinSpring = NIGHTS.find((n) => n.zone === 'Europe/Berlin' && n.name.includes('2026-03'));
  const newYorkAutumn = NIGHTS.find(
    (n) => n.zone === 'America/New_York' && n.name.includes('2026-11'),
  );
  if (!berlinSpring || !newYorkAutumn) throw new Error('transition table changed');

  it('raises exactly one MissedRuns and the sweep catches the run up (catch-up all)', async () => {
    // 02:30 does not exist on 2026-03-29 in Berlin: the default wall-clock policy shifts it to
    // 03:30 CEST = 01:30Z. Its tick is lost.
    const lost = new Date('2026-03-29T01:30:00.000Z');
    const plan = PLANS.find((p) => p.name === 'wall-default') as JobPlan;
    const { life, jobs, expected } = await replay(berlinSpring, [plan], {
      suffix: '-drop',
      drop: { plan: plan.name, at: lost },
    });
    const id = jobs[0]?.id as string;
    expect(expected.get(id)).toContain(lost.toISOString());
    expect(life.dispatch.metrics.count(id, 'MissedRuns')).toBe(1);
    // Caught up by the sweep after grace: missed (its own tick did not deliver it), not late.
    expect(life.dispatch.metrics.count(id, 'LateRuns')).toBe(0);
    expect(life.notifier.sent.map((n) => [n.at, n.signal])).toEqual([
      [lost.toISOString(), 'missed'],
    ]);
    expect(life.dispatch.metrics.count(id, 'StuckRuns')).toBe(0);
    expect(life.targets.instants(id)).toEqual(expected.get(id));
    const missed = life.dispatch.logger.entries.filter((e) => e.fields.decision === 'missed');
    expect(missed.map((e) => [e.fields.at, e.fields.action])).toEqual([
      [lost.toISOString(), 'delivered late'],
    ]);
  });

  it('raises exactly one MissedRuns and records the run missed (catch-up none)', async () => {
    // The second 01:15 of 2026-11-01 in New York (01:15 EST = 06:15Z) under `overlap: last`.
    const lost = new Date('2026-11-01T06:15:00.000Z');
    const plan = PLANS.find((p) => p.name === 'cad-transition-last') as JobPlan;
    const { life, jobs, expected } = await replay(newYorkAutumn, [plan], {
      suffix: '-drop',
      drop: { plan: plan.name, at: lost },
    });
    const id = jobs[0]?.id as string;
    expect(expected.get(id)).toContain(lost.toISOString());
    expect(signals(life)).toEqual({
      MissedRuns: 1,
      LateRuns: 0,
      StuckRuns: 0,
      SkippedOverlap: 0,
      DeadLettered: 0,
    });
    expect(life.targets.instants(id)).toEqual(
      expected.get(id)?.filter((at) => at !== lost.toISOString()),
    );
    expect(await life.dispatch.ledger.getRun(periodBucket(id, lost))).toMatchObject({
      status: 'skipped',
      skipReason: 'catch-up-none',
      signals: ['missed'],
    });
  });
});
