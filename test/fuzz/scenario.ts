/**
 * The fuzzer's scenarios: a jobs file, a faults plan and a window, drawn by fast-check from a
 * seed, in the notation of the files themselves, so that a failing scenario, shrunk, is printed
 * as the `jobs.yaml` and `faults.yaml` that reproduce it with `zonecron simulate`.
 *
 * Jobs come from every cron form (names, steps, ranges, `L`, `W`, `#`, `H`, macros), in zones
 * with DST nights and with 30- and 45-minute offsets, under every catch-up policy, window and
 * maxRuns, both concurrencies and every target type. Histories are what the faults file
 * supports: outages, late ticks, duplicated ticks, failing and slow targets, operator pauses
 * (resumed with or without catch-up), deploys of other jobs files (schedules, zones, DST
 * policies, policies and targets changed; jobs removed, and added back), operators' backfills,
 * manual runs and redrives, hostile events (forged completions of real runs among them), and
 * (the `chaos` kind) crashes and throttling. A third of the jobs have a finish-by deadline (a
 * duration, or a wall time of their zone), and a third a business calendar (weekends, closed
 * dates and a closed range around the window, every `onClosed`, some a `businessDay`).
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { occurrencesBetween, zoneTransitions } from '../../functions/schedule/index.ts';

/** One entry of `jobs.yaml`, as written there. */
export interface FuzzJob {
  readonly id: string;
  readonly description: string;
  readonly schedule: string;
  readonly timezone: string;
  readonly dst?: { readonly gap?: string; readonly overlap?: string };
  readonly target: { readonly type: string; readonly arn: string };
  readonly catchup: { readonly policy: string; readonly window: string; readonly maxRuns: number };
  readonly retry: { readonly maxAttempts: number };
  readonly concurrency: 'allow' | 'forbid';
  readonly maxRuntime: string;
  readonly alarm: { readonly grace: string };
}

/** `faults.yaml`, as written there (instants ISO, durations like `10m`). */
export interface FuzzFaults {
  readonly seed: number;
  readonly outages: readonly { readonly from: string; readonly to: string }[];
  readonly lateTicks?: { readonly probability: number; readonly maxDelay: string };
  readonly crashes: readonly {
    readonly point: 'after-claim' | 'after-delivery';
    readonly probability: number;
  }[];
  readonly throttling?: { readonly probability: number };
  readonly targets: readonly {
    readonly job: string;
    readonly fail?: { readonly from: string; readonly to: string };
    readonly runtime?: string;
  }[];
  readonly pauses: readonly {
    readonly job: string;
    readonly from: string;
    readonly to: string;
    readonly catchUp?: boolean;
  }[];
  readonly deploys?: readonly { readonly at: string; readonly config: string }[];
  readonly operator?: readonly OperatorEntry[];
  readonly hostile?: readonly HostileEntry[];
}

/** One entry of the plan's `operator`: a command an on-call engineer runs at `at`. */
export type OperatorEntry =
  | { readonly at: string; readonly action: 'run'; readonly job: string }
  | {
      readonly at: string;
      readonly action: 'backfill';
      readonly job: string;
      readonly from: string;
      readonly to: string;
    }
  | { readonly at: string; readonly action: 'redrive'; readonly job: string; readonly run: string };

/** One entry of the plan's `hostile`: events nobody legitimate sends. */
export type HostileEntry =
  | {
      readonly at: string;
      readonly kind: 'ancient-tick' | 'future-tick';
      readonly job: string;
      readonly scheduledTime: string;
    }
  | {
      readonly at: string;
      readonly kind: 'forged-completion';
      readonly job: string;
      readonly run: string;
      readonly outcome: 'succeeded' | 'failed';
    }
  | { readonly at: string; readonly kind: 'deep-event'; readonly depth: number; readonly to: Fn }
  | { readonly at: string; readonly kind: 'huge-event'; readonly bytes: number; readonly to: Fn };

type Fn = 'dispatcher' | 'recorder';

/** One scenario: the window `(from, from + hours]`, its jobs, its faults, the tick copies. */
export interface FuzzScenario {
  readonly from: string;
  readonly hours: number;
  readonly duplicateTicks: number;
  readonly jobs: readonly FuzzJob[];
  /** The jobs file of each of `faults.deploys`, in order (`deploy-1.yaml`, …). */
  readonly deployJobs?: readonly (readonly FuzzJob[])[];
  readonly faults: FuzzFaults;
  /**
   * Each job's `deadline` by id, as jobs.yaml says it (`90m`, `2h`, `"07:00"`), in every jobs
   * file of the scenario. Drawn after the rest (so a seed's scenario is the one it was before
   * deadlines were drawn) and written into each job of the files (`jobsYaml`, `deployFiles`).
   */
  readonly deadlines?: Readonly<Record<string, string>>;
  /**
   * The business calendar of some jobs by id (named `cal-<id>` under `calendars:`), in every jobs
   * file of the scenario: drawn after the deadlines, like them, so a seed's scenario is the one
   * it was before calendars were drawn, with calendars added.
   */
  readonly calendars?: Readonly<Record<string, FuzzCalendar>>;
}

/** A job's business calendar: the calendar as `calendars:` lists it, and how the job follows it. */
export interface FuzzCalendar {
  readonly weekends: readonly string[];
  readonly closed: readonly (
    | { readonly date: string; readonly reason: string }
    | { readonly from: string; readonly to: string; readonly reason: string }
  )[];
  readonly onClosed: string;
  /** Only where every version of the job's schedule has `*` day fields. */
  readonly businessDay?: number;
}

/** How big scenarios may get. */
export interface ScenarioLimits {
  /** Fewest jobs a scenario has. @default 1 */
  readonly minJobs?: number;
  readonly maxJobs: number;
  readonly maxHours: number;
  /** Whether crashes and throttling may be drawn (compared with the model's tolerances). */
  readonly chaos: boolean;
}

/**
 * The fuzzer's default: six to twenty jobs, up to a week (less for frequent jobs: see
 * {@link MAX_RUNS_PER_SCENARIO}), and chaos in some scenarios. A scenario's cost is mostly its
 * runs and its minutes of sweeps, so more jobs and longer windows of infrequent ones simulate
 * more job-hours for the same CPU, with frequent jobs and DST nights drawn more often.
 */
export const DEFAULT_LIMITS: ScenarioLimits = {
  minJobs: 6,
  maxJobs: 20,
  maxHours: 168,
  chaos: true,
};

const ACCOUNT = 'eu-west-1:123456789012';
const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Adelaide',
  'Asia/Kathmandu',
  'Australia/Eucla',
  'UTC',
] as const;
const MINUTE_MS = 60_000;

/** Each zone's DST changes in 2027 (where it has any), and a plain day: where windows start. */
const ANCHORS: readonly number[] = [
  Date.parse('2027-06-15T00:00:00Z'),
  ...ZONES.flatMap((zone) =>
    zoneTransitions(zone, new Date('2027-01-01T00:00:00Z'), new Date('2028-01-01T00:00:00Z')).map(
      (t) => t.at.getTime(),
    ),
  ),
];

const weighted = <T>(...entries: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...entries.map(([weight, arbitrary]) => ({ weight, arbitrary })));
const some = (...values: string[]) => fc.constantFrom(...values);

// Weighted by what a run costs the simulation: most jobs run hourly or less often, few every
// five minutes, fewer every minute.
const minuteField = weighted(
  [20, some('0', '30', '45', '15')],
  [10, some('H', 'H(0-29)', 'H(30-59)')],
  [10, fc.integer({ min: 0, max: 59 }).map(String)],
  [
    5,
    fc
      .tuple(fc.integer({ min: 0, max: 29 }), fc.integer({ min: 30, max: 59 }))
      .map(([a, b]) => `${a},${b}`),
  ],
  [5, some('*/15', '*/20', '*/30', 'H/30', 'H(30-59)/10')],
  [
    4,
    weighted(
      [1, some('*/5', '*/10', 'H/15')],
      [
        1,
        fc
          .tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 4 }))
          .map(([a, k]) => `${a}-59/${5 * k}`),
      ],
    ),
  ],
  [1, fc.constant('*')],
);
const hourField = weighted(
  [5, fc.constant('*')],
  [3, some('1', '2', '3', '1-3', '0-4', '2,3', '*/2', '*/3', '9-17', 'H', 'H(0-5)', '22-23')],
  [2, fc.integer({ min: 0, max: 23 }).map(String)],
);
const domField = weighted(
  [10, fc.constant('*')],
  [2, some('L', 'LW', '15W', '1W', '1-7', 'H', '?', '1,15', '*/2', '25-31')],
);
const monthField = weighted(
  [10, fc.constant('*')],
  [1, some('JAN-DEC', '*/2', 'MAR,APR,OCT,NOV', 'mar-nov')],
);
const dowField = weighted(
  [8, fc.constant('*')],
  [
    3,
    some('MON-FRI', 'SAT,SUN', 'SUN#1', 'MON#2', '5L', 'FRIL', '1/2', '?', '0-6', 'FRI-SUN', 'sun'),
  ],
);
const expression = weighted(
  [9, fc.tuple(minuteField, hourField, domField, monthField, dowField).map((f) => f.join(' '))],
  [1, some('@hourly', '@daily', '@midnight', '@weekly', '@monthly')],
);

const TARGETS = ['lambda', 'sqs', 'sns', 'eventbridge', 'stepfunctions'] as const;

function arnOf(type: (typeof TARGETS)[number], name: string): string {
  switch (type) {
    case 'lambda':
      return `arn:aws:lambda:${ACCOUNT}:function:${name}`;
    case 'sqs':
      return `arn:aws:sqs:${ACCOUNT}:${name}`;
    case 'sns':
      return `arn:aws:sns:${ACCOUNT}:${name}`;
    case 'eventbridge':
      return `arn:aws:events:${ACCOUNT}:event-bus/${name}`;
    case 'stepfunctions':
      return `arn:aws:states:${ACCOUNT}:stateMachine:${name}`;
  }
}

const minutes = (m: number) => (m % 60 === 0 ? `${m / 60}h` : `${m}m`);

/** A job of the file, without its id (given by its place: `j1`, `j2`, …). */
const jobArbitrary = fc.record({
  schedule: expression,
  timezone: fc.constantFrom(...ZONES),
  dst: fc.option(
    fc.record(
      { gap: some('shift', 'transition', 'skip'), overlap: some('first', 'last', 'both') },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
  target: fc.constantFrom(...TARGETS),
  policy: some('all', 'latest', 'none'),
  windowMinutes: some('1', '10', '30', '60', '120', '360', '1440').map(Number),
  maxRuns: weighted([3, fc.integer({ min: 1, max: 5 })], [1, fc.constant(100)]),
  maxAttempts: fc.integer({ min: 1, max: 4 }),
  forbid: fc.boolean(),
  maxRuntimeMinutes: some('5', '15', '30', '60').map(Number),
  graceMinutes: some('1', '2', '5', '10', '30').map(Number),
});

function jobOf(index: number, j: JobDraft): FuzzJob {
  const id = `j${index + 1}`;
  const tracked = j.target === 'lambda' || j.target === 'stepfunctions';
  return {
    id,
    description: `fuzzed job ${id}`,
    schedule: j.schedule,
    timezone: j.timezone,
    ...(j.dst && Object.keys(j.dst).length > 0 ? { dst: j.dst } : {}),
    target: { type: j.target, arn: arnOf(j.target, id) },
    catchup: { policy: j.policy, window: minutes(j.windowMinutes), maxRuns: j.maxRuns },
    retry: { maxAttempts: j.maxAttempts },
    // The loader refuses forbid on a target that never reports its end when runs come closer
    // together than maxRuntime; only targets that report completion get it.
    concurrency: j.forbid && tracked ? 'forbid' : 'allow',
    maxRuntime: minutes(j.maxRuntimeMinutes),
    alarm: { grace: minutes(j.graceMinutes) },
  };
}

type JobDraft = typeof jobArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** An instant `offsetSeconds` after `fromMs`, ISO without milliseconds. */
const instantAt = (fromMs: number, offsetSeconds: number) =>
  new Date(fromMs + offsetSeconds * 1000).toISOString().replace('.000Z', 'Z');

/** `[from, to)` somewhere in the window, at least a minute long, at odd seconds. */
function intervalIn(fromMs: number, hours: number, maxMinutes: number) {
  return fc
    .record({
      startSeconds: fc.integer({ min: 0, max: hours * 3600 }),
      lengthSeconds: fc.integer({ min: 60, max: maxMinutes * 60 }),
    })
    .map(({ startSeconds, lengthSeconds }) => ({
      from: instantAt(fromMs, startSeconds + 0.5),
      to: instantAt(fromMs, startSeconds + lengthSeconds + 0.5),
    }));
}

/** The jobs files of a scenario: the first in force from the start, each deploy's from its `at`. */
interface JobFiles {
  readonly atMs: readonly number[];
  readonly files: readonly (readonly FuzzJob[])[];
}

/** The jobs deployed at an instant. */
function jobsAt(f: JobFiles, ms: number): readonly FuzzJob[] {
  let found = f.files[0] ?? [];
  f.atMs.forEach((at, i) => {
    if (at <= ms) found = f.files[i] ?? found;
  });
  return found;
}

const isTracked = (j: FuzzJob) => j.target.type === 'lambda' || j.target.type === 'stepfunctions';

/** Runs of a job a day, in its zone, from `fromMs`. */
function perDay(j: Pick<FuzzJob, 'id' | 'schedule' | 'timezone'>, fromMs: number): number {
  const spec = { cron: j.schedule, timezone: j.timezone, jobId: j.id };
  return occurrencesBetween(spec, new Date(fromMs), new Date(fromMs + 86_400_000)).length;
}

/**
 * What a deploy does to one job of the file before it: nothing (most often), a new schedule
 * (expression, zone or DST policies), new policies, a new target, or removes it; a job the file
 * before had removed is listed again, or stays out. A new expression runs at most about as
 * often as the old one did, so the scenario's size holds.
 */
function redeployed(job: FuzzJob, listed: boolean, fromMs: number): fc.Arbitrary<FuzzJob | null> {
  if (!listed) return weighted([1, fc.constant(null)], [2, fc.constant(job)]);
  const budget = Math.max(perDay(job, fromMs), 48);
  const policies = jobArbitrary.map((d) => {
    const redrawn = jobOf(Number(job.id.slice(1)) - 1, { ...d, target: job.target.type as never });
    const { catchup, retry, concurrency, maxRuntime, alarm } = redrawn;
    return { ...job, catchup, retry, concurrency, maxRuntime, alarm };
  });
  const target = fc.constantFrom(...TARGETS).map((type): FuzzJob => {
    const tracked = type === 'lambda' || type === 'stepfunctions';
    const concurrency = tracked ? job.concurrency : 'allow';
    return { ...job, target: { type, arn: arnOf(type, job.id) }, concurrency };
  });
  return weighted<FuzzJob | null>(
    [10, fc.constant(job)],
    [
      2,
      expression
        .filter((schedule) => perDay({ ...job, schedule }, fromMs) <= budget)
        .map((schedule) => ({ ...job, schedule })),
    ],
    [1, fc.constantFrom(...ZONES).map((timezone) => ({ ...job, timezone }))],
    [1, jobArbitrary.map((d) => ({ ...job, dst: d.dst ?? { gap: 'skip', overlap: 'both' } }))],
    [2, policies],
    [1, target],
    [2, fc.constant(null)],
  );
}

/**
 * Up to two deploys of the window, at least 20 minutes apart, each a jobs file derived from the
 * one before it (job by job, {@link redeployed}); at half-minutes, so no tick or sweep ties.
 */
function deploysArbitrary(fromMs: number, hours: number, jobs: readonly FuzzJob[]) {
  const lastMinute = hours * 60 - 1;
  const minutes = fc
    .tuple(
      fc.integer({ min: 0, max: lastMinute }),
      fc.array(fc.integer({ min: 20, max: Math.max(20, lastMinute) }), { maxLength: 1 }),
    )
    .map(([first, gaps]) => [first, ...gaps.map((g) => first + g)].filter((m) => m <= lastMinute));
  const count = weighted([4, fc.constant(false)], [3, fc.constant(true)]);
  return count
    .chain((any) => (any ? minutes : fc.constant([] as number[])))
    .chain((list) => {
      let files = fc.constant([jobs] as readonly (readonly FuzzJob[])[]);
      for (const _ of list) {
        files = files.chain((before) => {
          const last = before.at(-1) ?? jobs;
          const next = jobs.map((j) => {
            const current = last.find((x) => x.id === j.id);
            return redeployed(current ?? (latest(before, j.id) as FuzzJob), !!current, fromMs);
          });
          return fc
            .tuple(...next)
            .map((drawn) => [...before, drawn.filter((x): x is FuzzJob => x !== null)]);
        });
      }
      return files.map(
        (all): JobFiles => ({
          atMs: [Number.NEGATIVE_INFINITY, ...list.map((m) => fromMs + m * 60_000 + 30_000)],
          files: all,
        }),
      );
    });
}

/** A job's last definition among the files (a removed job comes back as it was). */
const latest = (files: readonly (readonly FuzzJob[])[], id: string) =>
  files.flatMap((f) => f.filter((j) => j.id === id)).at(-1);

/** The history around the jobs: what the faults file can say. */
function faultsArbitrary(fromMs: number, hours: number, jobs: readonly FuzzJob[], chaos: boolean) {
  return deploysArbitrary(fromMs, hours, jobs).chain((files) =>
    plainFaults(fromMs, hours, files, chaos).chain((faults) =>
      fc
        .array(operatorArbitrary(fromMs, hours, files, faults.targets), { maxLength: 3 })
        .map((operator) => ({
          faults: {
            ...faults,
            ...(files.files.length > 1
              ? {
                  deploys: files.atMs
                    .slice(1)
                    .map((ms, i) => ({ at: isoOf(ms), config: `deploy-${i + 1}.yaml` })),
                }
              : {}),
            ...(operator.length > 0
              ? { operator: operator.sort((a, b) => a.at.localeCompare(b.at)) }
              : {}),
          },
          deployJobs: files.files.slice(1),
        })),
    ),
  );
}

const isoOf = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Outages, late ticks, chaos, targets, pauses (of jobs every file lists) and hostile events. */
function plainFaults(fromMs: number, hours: number, files: JobFiles, chaos: boolean) {
  const jobs = files.files[0] ?? [];
  const ids = [...new Set(files.files.flatMap((f) => f.map((j) => j.id)))];
  const stable = jobs.filter((j) => files.files.every((f) => f.some((x) => x.id === j.id)));
  const tracked = new Set(files.files.flatMap((f) => f.filter(isTracked).map((j) => j.id)));
  const target = fc.constantFrom(...ids).chain((id) =>
    fc.record(
      {
        job: fc.constant(id),
        fail: intervalIn(fromMs, hours, 60),
        ...(tracked.has(id) ? { runtime: some('10s', '2m', '12m', '40m', '90m') } : {}),
      },
      { requiredKeys: ['job'] },
    ),
  );
  // One pause a job at most: a second pause while paused changes nothing, and its resume
  // would resume nothing.
  const pauses =
    stable.length === 0
      ? fc.constant([])
      : fc.uniqueArray(
          fc
            .record({
              job: fc.constantFrom(...stable.map((j) => j.id)),
              span: intervalIn(fromMs, hours, 240),
              catchUp: fc.boolean(),
            })
            .map(({ job: j, span, catchUp }) => ({
              job: j,
              ...span,
              ...(catchUp ? { catchUp } : {}),
            })),
          { maxLength: 2, selector: (p) => p.job },
        );
  return fc.record(
    {
      seed: fc.integer({ min: 1, max: 1_000_000 }),
      outages: fc.array(intervalIn(fromMs, hours, 180), { maxLength: 3 }),
      lateTicks: fc.record({
        probability: some('0.05', '0.2', '0.5', '1').map(Number),
        maxDelay: some('30s', '2m', '6m', '15m', '40m'),
      }),
      crashes: chaos
        ? fc.uniqueArray(
            fc.record({
              point: some('after-claim', 'after-delivery') as fc.Arbitrary<
                'after-claim' | 'after-delivery'
              >,
              probability: some('0.02', '0.1', '0.3').map(Number),
            }),
            { maxLength: 2, selector: (c) => c.point },
          )
        : fc.constant([]),
      throttling: chaos
        ? fc.option(fc.record({ probability: some('0.01', '0.05').map(Number) }), {
            nil: undefined,
          })
        : fc.constant(undefined),
      targets: fc.uniqueArray(target, { maxLength: 3, selector: (t) => t.job }),
      pauses,
      hostile: fc.array(hostileArbitrary(fromMs, hours, files), { maxLength: 3 }),
    },
    { requiredKeys: ['seed', 'outages', 'crashes', 'targets', 'pauses'] },
  );
}

/** Minutes of a duration the generator wrote (`10m`, `2h`). */
const minutesOf = (text: string) => Number.parseInt(text, 10) * (text.endsWith('h') ? 60 : 1);

/** The job's runs in `(fromMs, toMs]`, as ISO instants. */
const runsIn = (j: FuzzJob, fromMs: number, toMs: number) =>
  occurrencesBetween(
    {
      cron: j.schedule,
      timezone: j.timezone,
      jobId: j.id,
      ...(j.dst ? { dst: j.dst as never } : {}),
    },
    new Date(fromMs),
    new Date(toMs),
  ).map((o) => isoOf(o.at.getTime()));

/** A job deployed at `atMs` (among those `which` keeps), or none. */
function deployedJob(files: JobFiles, atMs: number, which: (j: FuzzJob) => boolean = () => true) {
  const jobs = jobsAt(files, atMs).filter(which);
  return jobs.length > 0 ? fc.constantFrom(...jobs) : fc.constant(undefined);
}

/**
 * An operator's command, at a half-minute of the window, of a job deployed then: a manual run;
 * a backfill of up to three hours before it (not reaching back past a deploy before it); a
 * redrive of a run of a job whose target fails, after (or while) it fails.
 */
function operatorArbitrary(
  fromMs: number,
  hours: number,
  files: JobFiles,
  targets: readonly {
    readonly job: string;
    readonly fail?: { readonly from: string; readonly to: string };
  }[],
): fc.Arbitrary<OperatorEntry> {
  const minute = fc.integer({ min: 1, max: hours * 60 });
  const atOf = (m: number) => fromMs + m * 60_000 + 30_000;
  const run = minute.chain((m) =>
    deployedJob(files, atOf(m)).map((j): OperatorEntry[] =>
      j ? [{ at: isoOf(atOf(m)), action: 'run', job: j.id }] : [],
    ),
  );
  const backfill = fc
    .record({
      m: minute,
      back: fc.integer({ min: 0, max: 180 }),
      span: fc.integer({ min: 0, max: 180 }),
    })
    .chain(({ m, back, span }) =>
      deployedJob(files, atOf(m)).map((j): OperatorEntry[] => {
        const atMs = atOf(m);
        const since = Math.max(
          fromMs,
          ...files.atMs.filter((d) => d <= atMs).map((d) => d + 300_000),
        );
        const toMs = Math.max(since, atMs - back * 60_000);
        const from = Math.max(since, toMs - span * 60_000);
        if (!j || toMs > atMs) return [];
        return [
          { at: isoOf(atMs), action: 'backfill', job: j.id, from: isoOf(from), to: isoOf(toMs) },
        ];
      }),
    );
  const failing = targets.filter((t) => t.fail);
  const redrive =
    failing.length === 0
      ? fc.constant([])
      : fc
          .record({
            t: fc.constantFrom(...failing),
            after: fc.integer({ min: -20, max: 120 }),
            pick: fc.nat(),
          })
          .map(({ t, after, pick }): OperatorEntry[] => {
            const fail = t.fail as { from: string; to: string };
            const atMs =
              Math.floor(Date.parse(fail.to) / 60_000) * 60_000 + after * 60_000 + 30_000;
            const job = jobsAt(files, atMs).find((j) => j.id === t.job);
            const runs = job
              ? runsIn(job, Date.parse(fail.from) - 3_600_000, Date.parse(fail.to))
              : [];
            const runAt = runs[pick % Math.max(1, runs.length)];
            if (!runAt || atMs > fromMs + hours * 3_600_000 || atMs <= Date.parse(runAt)) return [];
            return [{ at: isoOf(atMs), action: 'redrive', job: t.job, run: runAt }];
          });
  return fc
    .oneof(run, backfill, redrive)
    .filter((x) => x.length > 0)
    .map((x) => x[0] as OperatorEntry);
}

/**
 * Hostile events at some instant of the window: ticks older than their job's catch-up window
 * or well ahead of the clock, forged completions of real runs of tracked jobs (done, running or
 * to come), and events nested too deep or too big to read. The model's answer to each: nothing
 * changes.
 */
function hostileArbitrary(fromMs: number, hours: number, files: JobFiles) {
  const at = fc.integer({ min: 0, max: hours * 3600 });
  const minute = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000).toISOString();
  const tick = fc
    .record({ at, ancient: fc.boolean(), byMinutes: fc.integer({ min: 2, max: 48 * 60 }) })
    .chain(({ at: seconds, ancient, byMinutes }) =>
      deployedJob(files, fromMs + seconds * 1000).map((job): HostileEntry[] => {
        if (!job) return [];
        const atMs = fromMs + seconds * 1000;
        const offsetMinutes = ancient ? -(minutesOf(job.catchup.window) + byMinutes) : byMinutes;
        const kind = ancient ? 'ancient-tick' : 'future-tick';
        const scheduledTime = minute(atMs + offsetMinutes * 60_000);
        return [{ at: instantAt(fromMs, seconds), kind, job: job.id, scheduledTime }];
      }),
    );
  const forged = fc
    .record({
      at,
      pick: fc.nat(),
      outcome: some('succeeded', 'failed') as fc.Arbitrary<'succeeded' | 'failed'>,
    })
    .chain(({ at: seconds, pick, outcome }) =>
      deployedJob(files, fromMs + seconds * 1000, isTracked).map((job): HostileEntry[] => {
        const atMs = fromMs + seconds * 1000;
        const runs = job
          ? runsIn(job, Math.max(fromMs, atMs - 3 * 3_600_000), atMs + 1_800_000)
          : [];
        const run = runs[pick % Math.max(1, runs.length)] ?? minute(atMs);
        if (!job) return [];
        return [
          { at: instantAt(fromMs, seconds), kind: 'forged-completion', job: job.id, run, outcome },
        ];
      }),
    );
  const to = some('dispatcher', 'recorder') as fc.Arbitrary<Fn>;
  const unreadable = fc.oneof(
    fc
      .record({ at, depth: fc.integer({ min: 300, max: 5_000 }), to })
      .map(({ at: s, depth, to: fn }): HostileEntry[] => [
        { at: instantAt(fromMs, s), kind: 'deep-event', depth, to: fn },
      ]),
    fc
      .record({ at, bytes: fc.integer({ min: 300_000, max: 600_000 }), to })
      .map(({ at: s, bytes, to: fn }): HostileEntry[] => [
        { at: instantAt(fromMs, s), kind: 'huge-event', bytes, to: fn },
      ]),
  );
  return fc
    .oneof(tick, forged, forged, unreadable)
    .filter((x) => x.length > 0)
    .map((x) => x[0] as HostileEntry);
}

/**
 * The scenarios, drawn from `limits`: a window of hours to days starting near a DST change of
 * one of the zones, its jobs, and their history.
 *
 * @example
 * fc.sample(scenarioArbitrary(DEFAULT_LIMITS), { seed: 7, numRuns: 1 })[0]?.jobs.length //=> 6..20
 */
export function scenarioArbitrary(
  limits: ScenarioLimits = DEFAULT_LIMITS,
): fc.Arbitrary<FuzzScenario> {
  const window = fc
    .record({
      anchor: fc.constantFrom(...ANCHORS),
      leadMinutes: fc.integer({ min: 0, max: 12 * 60 }),
      drafts: fc.array(jobArbitrary, { minLength: limits.minJobs ?? 1, maxLength: limits.maxJobs }),
      chaos: limits.chaos
        ? weighted([3, fc.constant(false)], [1, fc.constant(true)])
        : fc.constant(false),
    })
    .chain((w) => {
      const fromMs = Math.floor(w.anchor / MINUTE_MS) * MINUTE_MS - w.leadMinutes * MINUTE_MS;
      const jobs = w.drafts.map((d, i) => jobOf(i, d));
      const maxHours = Math.min(limits.maxHours, hoursFor(jobs, fromMs));
      return fc.integer({ min: 1, max: maxHours }).map((hours) => ({ ...w, fromMs, jobs, hours }));
    });
  const drawn = window.chain(({ fromMs, jobs, hours, chaos }) => {
    return faultsArbitrary(fromMs, hours, jobs, chaos).chain(({ faults, deployJobs }) =>
      // Copies of one tick race for the claim; with crashes, throttling or failing targets one
      // copy each, so the model can be told which invocation failed and which attempt it was.
      (chaos || faults.targets.some((t) => t.fail)
        ? fc.constant(1)
        : fc.integer({ min: 1, max: 3 })
      ).map(
        (duplicateTicks): FuzzScenario => ({
          from: instantAt(fromMs, 0),
          hours,
          duplicateTicks,
          jobs,
          ...(deployJobs.length > 0 ? { deployJobs } : {}),
          faults: withoutEmpty(faults),
        }),
      ),
    );
  });
  return drawn
    .chain((s) =>
      deadlinesArbitrary(s.jobs).map(
        (deadlines): FuzzScenario => (Object.keys(deadlines).length > 0 ? { ...s, deadlines } : s),
      ),
    )
    .chain((s) =>
      calendarsArbitrary(s).map(
        (calendars): FuzzScenario => (Object.keys(calendars).length > 0 ? { ...s, calendars } : s),
      ),
    );
}

/** The local date (`YYYY-MM-DD`) and hour of an instant in a zone. */
function localOf(ms: number, zone: string): { date: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { date: `${part('year')}-${part('month')}-${part('day')}`, hour: Number(part('hour')) };
}

/** A local date `days` after `date` (`YYYY-MM-DD`), by the civil calendar. */
function plusDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Whether every version of the job's schedule in the scenario has `*` day fields. */
function anyDay(s: FuzzScenario, id: string): boolean {
  const versions = [s.jobs, ...(s.deployJobs ?? [])].flatMap((jobs) =>
    jobs.filter((j) => j.id === id),
  );
  return versions.every((j) => {
    const fields = j.schedule.split(' ');
    return fields.length === 5 && ['*', '?'].includes(fields[2] ?? '') && fields[4] === '*';
  });
}

/**
 * Business calendars for about a third of the jobs, around the window: weekends (the usual
 * two days, none, another pair, one), closed dates among the window's first local days, maybe a
 * closed local-time range crossing it, and every `onClosed` (`skip` and the four conventions,
 * moving runs weighted up), or a `businessDay` for a job whose days are all `*`. A calendar's
 * days are the job's zone's (the calendar names no zone).
 */
function calendarsArbitrary(s: FuzzScenario) {
  const fromMs = Date.parse(s.from);
  const one = (job: FuzzJob) =>
    weighted<FuzzCalendar | null>(
      [2, fc.constant(null)],
      [
        1,
        fc
          .record({
            weekends: fc.constantFrom(['sat', 'sun'], [], ['fri', 'sat'], ['sun']),
            closedDays: fc.subarray([-1, 0, 1, 2, 3], { maxLength: 3 }),
            range: fc.option(
              fc.record({
                day: fc.integer({ min: 0, max: 3 }),
                hour: fc.integer({ min: 0, max: 23 }),
                hours: fc.integer({ min: 1, max: 30 }),
              }),
              { nil: undefined },
            ),
            onClosed: weighted(
              [1, fc.constant('skip')],
              [4, some('following', 'modified-following', 'preceding', 'modified-preceding')],
            ),
            businessDay: weighted([6, fc.constant(undefined)], [1, fc.constantFrom(1, 2, -1, -2)]),
          })
          .map(({ weekends, closedDays, range, onClosed, businessDay }): FuzzCalendar => {
            const start = localOf(fromMs, job.timezone).date;
            const closed: FuzzCalendar['closed'][number][] = closedDays.map((d) => ({
              date: plusDays(start, d),
              reason: `closed day ${d}`,
            }));
            if (range) {
              const from = `${plusDays(start, range.day)}T${String(range.hour).padStart(2, '0')}:00`;
              const endHour = range.hour + range.hours;
              const to = `${plusDays(start, range.day + Math.floor(endHour / 24))}T${String(endHour % 24).padStart(2, '0')}:00`;
              closed.push({ from, to, reason: 'closed range' });
            }
            const day = businessDay !== undefined && anyDay(s, job.id) ? { businessDay } : {};
            return { weekends, closed, onClosed, ...day };
          }),
      ],
    );
  return fc.tuple(...s.jobs.map(one)).map((drawn) => {
    const entries = s.jobs.flatMap((j, i) => (drawn[i] ? [[j.id, drawn[i]] as const] : []));
    return Object.fromEntries(entries) as Record<string, FuzzCalendar>;
  });
}

/**
 * Deadlines for about a third of the jobs: a duration after the run (2 minutes to 2 hours) or a
 * wall time of the job's zone at a quarter hour. Drawn after the rest of the scenario, so a
 * seed's scenario is the one it was before deadlines were drawn, with deadlines added.
 */
function deadlinesArbitrary(jobs: readonly FuzzJob[]) {
  const one = weighted<string | null>(
    [4, fc.constant(null)],
    [1, some('2m', '10m', '30m', '1h', '2h')],
    [
      1,
      fc
        .tuple(fc.integer({ min: 0, max: 23 }), some('00', '15', '30', '45'))
        .map(([h, m]) => `${String(h).padStart(2, '0')}:${m}`),
    ],
  );
  return fc.tuple(...jobs.map(() => one)).map((drawn) => {
    const entries = jobs.flatMap((j, i) => (drawn[i] ? [[j.id, drawn[i]] as const] : []));
    return Object.fromEntries(entries) as Record<string, string>;
  });
}

/**
 * The jobs as a jobs file lists them, each with the scenario's `deadline:` for it.
 *
 * @example
 * jobsWithDeadlines([{ id: 'j1', … }], { deadlines: { j1: '2h' } })[0]?.deadline //=> '2h'
 */
function jobsWithDeadlines(
  jobs: readonly FuzzJob[],
  s: Pick<FuzzScenario, 'deadlines' | 'calendars'>,
): (FuzzJob & { deadline?: string; calendar?: object })[] {
  return jobs.map((job) => {
    const deadline = s.deadlines?.[job.id];
    const calendar = s.calendars?.[job.id];
    const rule = calendar && {
      name: `cal-${job.id}`,
      onClosed: calendar.onClosed,
      ...(calendar.businessDay === undefined ? {} : { businessDay: calendar.businessDay }),
    };
    return { ...job, ...(deadline ? { deadline } : {}), ...(rule ? { calendar: rule } : {}) };
  });
}

/** A jobs file's document: its `calendars:` (the scenario's, when it has any) and its jobs. */
function jobsDocument(jobs: readonly FuzzJob[], s: FuzzScenario): object {
  const calendars = Object.entries(s.calendars ?? {}).map(([id, c]) => [
    `cal-${id}`,
    { weekends: c.weekends, closed: c.closed },
  ]);
  return {
    ...(calendars.length > 0 ? { calendars: Object.fromEntries(calendars) } : {}),
    jobs: jobsWithDeadlines(jobs, s),
  };
}

/** Most ticks of runs a scenario's window may hold: a window of frequent jobs is shorter. */
const MAX_RUNS_PER_SCENARIO = 1_500;

/** The longest window, in hours, whose jobs run at most {@link MAX_RUNS_PER_SCENARIO} times. */
function hoursFor(jobs: readonly FuzzJob[], fromMs: number): number {
  const from = new Date(fromMs);
  const to = new Date(fromMs + 86_400_000);
  const perDay = jobs.reduce((sum, j) => {
    const spec = { cron: j.schedule, timezone: j.timezone, jobId: j.id };
    return sum + occurrencesBetween(spec, from, to).length;
  }, 0);
  return Math.max(1, Math.floor((MAX_RUNS_PER_SCENARIO * 24) / Math.max(1, perDay)));
}

/** The plan without the optional parts the draw left out. */
function withoutEmpty(
  faults: { readonly [K in keyof FuzzFaults]?: FuzzFaults[K] | undefined },
): FuzzFaults {
  return Object.fromEntries(
    Object.entries(faults).filter(([, v]) => v !== undefined),
  ) as unknown as FuzzFaults;
}

/** The scenario's window end, ISO. */
export function windowEnd(s: FuzzScenario): string {
  return instantAt(Date.parse(s.from), s.hours * 3600);
}

/**
 * The scenario's `jobs.yaml`.
 *
 * @example
 * jobsYaml(scenario) //=> 'jobs:\n  - id: j1\n    description: fuzzed job j1\n…'
 */
export function jobsYaml(s: FuzzScenario): string {
  return stringify(jobsDocument(s.jobs, s), { lineWidth: 0 });
}

/**
 * The jobs files of the scenario's deploys, by the name `faults.yaml` gives each.
 *
 * @example
 * deployFiles(scenario) //=> [['deploy-1.yaml', 'jobs:\n  - id: j1\n…']]
 */
export function deployFiles(s: FuzzScenario): [string, string][] {
  return (s.deployJobs ?? []).map((jobs, i) => [
    `deploy-${i + 1}.yaml`,
    stringify(jobsDocument(jobs, s), { lineWidth: 0 }),
  ]);
}

/**
 * The scenario's `faults.yaml`.
 *
 * @example
 * faultsYaml(scenario) //=> 'seed: 4242\noutages:\n  - from: 2027-03-28T00:10:30Z\n…'
 */
export function faultsYaml(s: FuzzScenario): string {
  // The model knows no run guards (a paused job, a forbid job's run still running): it holds
  // what a run or a backfill does once an operator decided it, as `--force` does.
  const operator = s.faults.operator?.map((entry) =>
    entry.action === 'redrive' ? entry : { ...entry, force: true },
  );
  return stringify(operator ? { ...s.faults, operator } : s.faults, { lineWidth: 0 });
}

/**
 * The command that replays the scenario.
 *
 * @example
 * simulateCommand(scenario) //=> 'zonecron simulate --config jobs.yaml --faults faults.yaml --from … --to … --duplicate-ticks 2 --json'
 */
export function simulateCommand(s: FuzzScenario): string {
  return `zonecron simulate --config jobs.yaml --faults faults.yaml --from ${s.from} --to ${windowEnd(s)} --duplicate-ticks ${s.duplicateTicks} --json`;
}
