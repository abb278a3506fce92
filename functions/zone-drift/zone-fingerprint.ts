import { createHash } from 'node:crypto';
import {
  createEngine,
  defaultEngine,
  InvalidArgumentError,
  intlZoneRules,
  type Occurrence,
  resolvePolicies,
  type ScheduleEngine,
  type ScheduleSpec,
  validateTimeZone,
  type ZoneRules,
  type ZoneTransition,
} from '../schedule/index.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** How many runs after `from` go into the hash, whatever the cadence. */
const LEADING_RUNS = 16;
/** How many runs next to each transition go into the hash. */
const RUNS_PER_TRANSITION = 64;
/** How many runs a fingerprint shows. */
const SHOWN_RUNS = 3;
/**
 * How far a run can depend on offsets before or after it: more than any offset change (at most
 * two days between -24 h and +24 h), so two rule sets that agree this far around a run give it
 * the same instant.
 */
export const FINGERPRINT_REACH_MS = 3 * DAY_MS;
const REACH_MS = FINGERPRINT_REACH_MS;

/** The options of `scheduleFingerprint` and `firstDisagreement`. */
export interface FingerprintOptions {
  /**
   * The zone rules to compute with.
   *
   * @default intlZoneRules (the platform's)
   */
  readonly rules?: ZoneRules;
  /**
   * How many days after `from` the fingerprint covers.
   *
   * @default 366
   */
  readonly horizonDays?: number;
}

/** What a schedule does over a horizon, condensed: see `scheduleFingerprint`. */
export interface ScheduleFingerprint {
  /** 16 lowercase hex digits: the first 64 bits of a SHA-256. */
  readonly hash: string;
  /** The first three runs after `from`, UTC ISO instants, for log lines. */
  readonly firstRuns: readonly string[];
}

/**
 * A short hash of what a schedule does in the year after `from` under some zone rules, equal
 * wherever the same rules give the same answers.
 *
 * Synth computes it on the deploying machine and ships it; the dispatcher recomputes it, from
 * the same `from`, on Lambda's Node.js. A difference means that the two copies of the tz
 * database disagree about the job's zone in that window (or that the job or the engine
 * changed), so the covering schedule may fire at the wrong UTC minutes; `firstDisagreement`
 * then says where.
 *
 * The hash is the first 16 hex digits of the SHA-256 of these lines, joined by `\n` (minutes
 * are UTC minutes since the epoch; `from` is cut to the minute; docs/architecture.md §1):
 *
 * ```
 * zonecron-fingerprint 1
 * spec <zone> <cron> <jobId or -> <gap policy> <overlap policy>
 * window <from minute> <from minute + horizon>
 * offset <offset at from>
 * transition <minute> <offset before> <offset after>   every transition in the window
 * run <minute>                                          the first 16 runs in the window
 * near <transition minute> run <minute>                 up to 64 runs per transition, within
 *                                                       its offset change on either side
 * ```
 *
 * Why only some runs: a run depends on nothing but the spec and the offsets around it, and the
 * offset at `from` plus the transitions are the offsets over the whole window, so the runs left
 * out add nothing, except where a change just outside the window moves a run just inside it.
 * The bounded runs keep the cost per job constant: hashing all 527,040 runs of an every-minute
 * job takes most of a second.
 *
 * @example
 * scheduleFingerprint({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, new Date('2027-01-01T00:00Z'))
 * //=> { hash: 'b76e515420e26758', firstRuns: ['2027-01-01T08:00:00.000Z',
 * //     '2027-01-02T08:00:00.000Z', '2027-01-03T08:00:00.000Z'] }   (tz 2025c)
 */
export function scheduleFingerprint(
  spec: ScheduleSpec,
  from: Date,
  options: FingerprintOptions = {},
): ScheduleFingerprint {
  const engine = engineFor(options.rules);
  const { fromMs, toMs } = windowOf(from, options.horizonDays);
  const policies = resolvePolicies(spec);
  const zone = validateTimeZone(spec.timezone);
  const facts = zoneFacts(engine, zone, fromMs, toMs);
  const lines = [
    'zonecron-fingerprint 1',
    `spec ${zone} ${spec.cron} ${spec.jobId ?? '-'} ${policies.gap} ${policies.overlap}`,
    ...facts.lines,
  ];
  // Lazily, so that a yearly job does not compute 16 years of runs (and zone tables) to keep one.
  const leading: Occurrence[] = [];
  for (const run of engine.iterateOccurrences(spec, new Date(fromMs))) {
    if (run.at.getTime() > toMs || leading.length >= LEADING_RUNS) break;
    leading.push(run);
  }
  for (const run of leading) lines.push(`run ${minuteOf(run.at)}`);
  for (const t of facts.transitions) {
    const reachMs = Math.abs(t.offsetAfterMinutes - t.offsetBeforeMinutes) * MINUTE_MS;
    const startMs = Math.max(fromMs, t.at.getTime() - reachMs - MINUTE_MS);
    const endMs = Math.min(toMs, t.at.getTime() + reachMs);
    let count = 0;
    for (const run of engine.iterateOccurrences(spec, new Date(startMs))) {
      if (run.at.getTime() > endMs || ++count > RUNS_PER_TRANSITION) break;
      lines.push(`near ${minuteOf(t.at)} run ${minuteOf(run.at)}`);
    }
  }
  const hash = createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
  return { hash, firstRuns: leading.slice(0, SHOWN_RUNS).map((run) => run.at.toISOString()) };
}

interface ZoneFacts {
  /** The window, the offset at its start and every transition in it, as fingerprint lines. */
  readonly lines: readonly string[];
  readonly transitions: readonly ZoneTransition[];
}

/** Per engine, the facts of each (zone, window) asked for: every job in a zone shares them. */
const zoneFactsCache = new WeakMap<ScheduleEngine, Map<string, ZoneFacts>>();

function zoneFacts(engine: ScheduleEngine, zone: string, fromMs: number, toMs: number): ZoneFacts {
  let cache = zoneFactsCache.get(engine);
  if (cache === undefined) {
    cache = new Map();
    zoneFactsCache.set(engine, cache);
  }
  const key = `${zone} ${fromMs} ${toMs}`;
  let facts = cache.get(key);
  if (facts === undefined) {
    const transitions = engine.zoneTransitions(zone, new Date(fromMs), new Date(toMs));
    const lines = [
      `window ${fromMs / MINUTE_MS} ${toMs / MINUTE_MS}`,
      `offset ${engine.zoneRules.offsetMinutesAt(zone, fromMs / MINUTE_MS)}`,
      ...transitions.map(
        (t) => `transition ${minuteOf(t.at)} ${t.offsetBeforeMinutes} ${t.offsetAfterMinutes}`,
      ),
    ];
    facts = { lines, transitions };
    if (cache.size >= 1000) cache.clear();
    cache.set(key, facts);
  }
  return facts;
}

/** Where two rule sets first disagree about a schedule: see `firstDisagreement`. */
export type Disagreement =
  | { readonly kind: 'offset'; readonly at: Date; readonly a: number; readonly b: number }
  | {
      readonly kind: 'transition';
      readonly at: Date;
      readonly a: ZoneTransition | undefined;
      readonly b: ZoneTransition | undefined;
    }
  | {
      readonly kind: 'run';
      readonly at: Date;
      readonly a: Occurrence | undefined;
      readonly b: Occurrence | undefined;
    };

/**
 * The first instant in (from, from + horizon] where rules `a` and `b` give a schedule different
 * runs or its zone different transitions, or `from` itself when they disagree about the offset
 * there; `undefined` when they agree on that offset, on every transition and on every run in
 * the window.
 *
 * For the log line that follows a fingerprint mismatch: "Europe/Berlin: synth and runtime
 * first disagree at 2027-03-28T01:00Z". `a` and `b` are each side's transition or run at that
 * point, `undefined` on the side that has none. Cheap: runs are compared only within three
 * days of where the offsets differ (a run depends on no offset further away), at most 50,000
 * per side (`disagreementsOf`'s `runLimit`; an earlier run difference beyond it goes unseen).
 *
 * @example
 * firstDisagreement({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, new Date('2027-01-01T00:00Z'),
 *   intlZoneRules, shiftedTransitionRules('Europe/Berlin', new Date('2027-03-28T01:00Z'), 10080))
 * //=> { kind: 'transition', at: 2027-03-28T01:00:00.000Z,
 * //     a: { at: 2027-03-28T01:00:00.000Z, offsetBeforeMinutes: 60, offsetAfterMinutes: 120 },
 * //     b: { at: 2027-04-04T01:00:00.000Z, offsetBeforeMinutes: 60, offsetAfterMinutes: 120 } }
 */
export function firstDisagreement(
  spec: ScheduleSpec,
  from: Date,
  a: ZoneRules,
  b: ZoneRules,
  options: Omit<FingerprintOptions, 'rules'> = {},
): Disagreement | undefined {
  return disagreementsOf(spec, from, a, b, options).first;
}

/** A disagreement about a run's instant. */
export type RunDisagreement = Extract<Disagreement, { readonly kind: 'run' }>;

/** What `disagreementsOf` finds. */
export interface Disagreements {
  /** What `firstDisagreement` returns. */
  readonly first: Disagreement | undefined;
  /**
   * The first run whose instant differs; `undefined` when no compared run differs, though the
   * zone's transitions may (an every-15-minutes job runs at the same UTC instants under both).
   */
  readonly firstRun: RunDisagreement | undefined;
  /** False when `runLimit` stopped the comparison before every run that could differ. */
  readonly runsCompared: boolean;
  /** How many runs per side were compared. */
  readonly runCount: number;
}

/** The options of `disagreementsOf`. */
export interface DisagreementOptions extends Omit<FingerprintOptions, 'rules'> {
  /**
   * At most this many runs per side are compared, so that an every-minute job under a
   * long-lasting difference stays cheap (50,000 runs: five weeks of every minute, a year of
   * every 15 minutes).
   *
   * @default 50000
   */
  readonly runLimit?: number;
}

/**
 * `firstDisagreement`, and besides it the first run that differs: whether the rules disagree
 * about the schedule's instants, or only about its zone.
 *
 * Runs are compared only where they can differ: within three days (the reach) of a stretch
 * where the two rule sets give the zone different offsets. Exact unless `runLimit` runs were
 * compared first (`runsCompared: false`).
 *
 * @example
 * disagreementsOf({ cron: '*\/15 * * * *', timezone: 'Europe/Berlin' }, new Date('2027-01-01T00:00Z'),
 *   intlZoneRules, shiftedTransitionRules('Europe/Berlin', new Date('2027-03-28T01:00Z'), 10080))
 * //=> { first: { kind: 'transition', at: 2027-03-28T01:00:00.000Z, … }, firstRun: undefined,
 * //     runsCompared: true, runCount: 1248 }
 */
export function disagreementsOf(
  spec: ScheduleSpec,
  from: Date,
  a: ZoneRules,
  b: ZoneRules,
  options: DisagreementOptions = {},
): Disagreements {
  const [engineA, engineB] = [engineFor(a), engineFor(b)];
  const { fromMs, toMs } = windowOf(from, options.horizonDays);
  const zone = validateTimeZone(spec.timezone);
  resolvePolicies(spec); // refuses a bad spec even where no run is compared
  const offsetA = a.offsetMinutesAt(zone, fromMs / MINUTE_MS);
  const offsetB = b.offsetMinutesAt(zone, fromMs / MINUTE_MS);
  const transition = firstTransitionDifference(engineA, engineB, zone, fromMs, toMs);
  const stretches = offsetDifferences(engineA, engineB, zone, fromMs - REACH_MS, toMs + REACH_MS);
  const ranges = mergedRanges(
    stretches.map(
      ([p, q]): Range => [Math.max(fromMs, p - REACH_MS), Math.min(toMs, q + REACH_MS)],
    ),
  );
  const scan = firstRunDifference(engineA, engineB, spec, ranges, options.runLimit ?? 50_000);
  const result = { firstRun: scan.run, runsCompared: scan.complete, runCount: scan.count };
  if (offsetA !== offsetB) {
    return { first: { kind: 'offset', at: new Date(fromMs), a: offsetA, b: offsetB }, ...result };
  }
  const run = scan.run;
  const runFirst =
    run !== undefined && (transition === undefined || run.at.getTime() < transition.at.getTime());
  return { first: runFirst ? run : transition, ...result };
}

function firstTransitionDifference(
  engineA: ScheduleEngine,
  engineB: ScheduleEngine,
  zone: string,
  fromMs: number,
  toMs: number,
): Disagreement | undefined {
  const listA = engineA.zoneTransitions(zone, new Date(fromMs), new Date(toMs));
  const listB = engineB.zoneTransitions(zone, new Date(fromMs), new Date(toMs));
  for (let i = 0; i < Math.max(listA.length, listB.length); i++) {
    const [ta, tb] = [listA[i], listB[i]];
    if (ta !== undefined && tb !== undefined && sameTransition(ta, tb)) continue;
    const at = Math.min(ta?.at.getTime() ?? Infinity, tb?.at.getTime() ?? Infinity);
    return { kind: 'transition', at: new Date(at), a: ta, b: tb };
  }
  return undefined;
}

/** `[start, end]` in epoch milliseconds. */
type Range = readonly [number, number];

/**
 * The stretches of `[startMs, endMs]` where the engines give the zone different offsets, as
 * `[first instant, end)`: both sides' transitions walked in order.
 */
function offsetDifferences(
  engineA: ScheduleEngine,
  engineB: ScheduleEngine,
  zone: string,
  startMs: number,
  endMs: number,
): Range[] {
  const [start, end] = [new Date(startMs), new Date(endMs)];
  const changes = [
    ...engineA.zoneTransitions(zone, start, end).map((t) => ({ side: 'a', t })),
    ...engineB.zoneTransitions(zone, start, end).map((t) => ({ side: 'b', t })),
  ].sort((x, y) => x.t.at.getTime() - y.t.at.getTime());
  let offsetA = engineA.zoneRules.offsetMinutesAt(zone, startMs / MINUTE_MS);
  let offsetB = engineB.zoneRules.offsetMinutesAt(zone, startMs / MINUTE_MS);
  let open: number | undefined = offsetA === offsetB ? undefined : startMs;
  const stretches: Range[] = [];
  for (const { side, t } of changes) {
    if (side === 'a') offsetA = t.offsetAfterMinutes;
    else offsetB = t.offsetAfterMinutes;
    const atMs = t.at.getTime();
    if (open === undefined && offsetA !== offsetB) open = atMs;
    else if (open !== undefined && offsetA === offsetB) {
      // Both sides changing at the same instant open and close nothing.
      if (atMs > open) stretches.push([open, atMs]);
      open = undefined;
    }
  }
  if (open !== undefined) stretches.push([open, endMs]);
  return stretches;
}

/** Sorted ranges with the overlapping and empty ones merged away. */
function mergedRanges(ranges: readonly Range[]): Range[] {
  const merged: [number, number][] = [];
  for (const [start, end] of ranges) {
    if (end <= start) continue;
    const last = merged[merged.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/**
 * The first run in `ranges` whose instant differs between the engines, comparing at most
 * `limit` runs per side; `complete` is false when the limit stopped it first.
 */
function firstRunDifference(
  engineA: ScheduleEngine,
  engineB: ScheduleEngine,
  spec: ScheduleSpec,
  ranges: readonly Range[],
  limit: number,
): { run: RunDisagreement | undefined; complete: boolean; count: number } {
  let count = 0;
  for (const [startMs, endMs] of ranges) {
    const runsA = engineA.iterateOccurrences(spec, new Date(startMs));
    const runsB = engineB.iterateOccurrences(spec, new Date(startMs));
    for (;;) {
      const ra = within(runsA, endMs);
      const rb = within(runsB, endMs);
      if (ra === undefined && rb === undefined) break;
      if (count++ >= limit) return { run: undefined, complete: false, count: limit };
      if (ra !== undefined && rb !== undefined && ra.at.getTime() === rb.at.getTime()) continue;
      const at = Math.min(ra?.at.getTime() ?? Infinity, rb?.at.getTime() ?? Infinity);
      return { run: { kind: 'run', at: new Date(at), a: ra, b: rb }, complete: true, count };
    }
  }
  return { run: undefined, complete: true, count };
}

/** The next run of an iterator if it is due by `toMs`. */
function within(
  runs: Generator<Occurrence, void, undefined>,
  toMs: number,
): Occurrence | undefined {
  const step = runs.next();
  return !step.done && step.value.at.getTime() <= toMs ? step.value : undefined;
}

function sameTransition(a: ZoneTransition, b: ZoneTransition): boolean {
  return (
    a.at.getTime() === b.at.getTime() &&
    a.offsetBeforeMinutes === b.offsetBeforeMinutes &&
    a.offsetAfterMinutes === b.offsetAfterMinutes
  );
}

/**
 * The IANA time-zone database release the running Node.js carries (`process.versions.tz`,
 * ICU's copy), or `unknown`.
 *
 * Synth records it next to the fingerprints; the dispatcher logs it with its own when they
 * differ.
 *
 * @example
 * zoneDataVersion()
 * //=> '2025c'
 */
export function zoneDataVersion(): string {
  return process.versions.tz ?? 'unknown';
}

/**
 * Orders two tz database releases (`2025c` before `2026a`, `2026z` before `2027a`): negative
 * when `a` is older, positive when newer, 0 when the same; `undefined` when either is not a
 * release name (`unknown`).
 *
 * @example
 * compareZoneDataVersions('2025c', '2026b') //=> -1
 */
export function compareZoneDataVersions(a: string, b: string): number | undefined {
  const pattern = /^(\d{4})([a-z]+)$/;
  const [ma, mb] = [pattern.exec(a), pattern.exec(b)];
  if (!ma || !mb) return undefined;
  const [yearA, lettersA] = [Number(ma[1]), ma[2] as string];
  const [yearB, lettersB] = [Number(mb[1]), mb[2] as string];
  if (yearA !== yearB) return Math.sign(yearA - yearB);
  if (lettersA.length !== lettersB.length) return Math.sign(lettersA.length - lettersB.length);
  return lettersA === lettersB ? 0 : lettersA < lettersB ? -1 : 1;
}

/** One engine per rule set, so that every job in a zone shares the zone's offset table. */
const engines = new WeakMap<ZoneRules, ScheduleEngine>([
  // The platform's rules: the module-level engine, whose tables synth's coverings and the
  // dispatcher's runs fill anyway.
  [intlZoneRules, defaultEngine],
]);

/**
 * The one engine this module computes with under `rules` (created on first use): fingerprints,
 * first disagreements and recorded zones under the same rules share its offset tables.
 *
 * @example
 * engineFor(shiftedRules).zoneTransitions('Europe/Berlin', from, to)
 */
export function engineFor(rules: ZoneRules = intlZoneRules): ScheduleEngine {
  let engine = engines.get(rules);
  if (engine === undefined) {
    engine = createEngine({ zoneRules: rules });
    engines.set(rules, engine);
  }
  return engine;
}

/**
 * The window a fingerprint covers, `(from, from + horizonDays]` with `from` cut to the minute,
 * as epoch milliseconds; throws `InvalidArgumentError` for an invalid date or horizon.
 *
 * @example
 * fingerprintWindow(new Date('2027-01-01T00:00:30Z'), 1)
 * //=> { fromMs: 1798761600000, toMs: 1798848000000 }
 */
export function fingerprintWindow(from: Date, horizonDays = 366): { fromMs: number; toMs: number } {
  return windowOf(from, horizonDays);
}

function windowOf(from: Date, horizonDays = 366): { fromMs: number; toMs: number } {
  if (!(from instanceof Date) || Number.isNaN(from.getTime())) {
    throw new InvalidArgumentError("invalid date for 'from' (allowed a valid Date)", 'from', from);
  }
  if (!Number.isInteger(horizonDays) || horizonDays < 1 || horizonDays > 36_600) {
    throw new InvalidArgumentError(
      `invalid horizon of ${String(horizonDays)} days (allowed a whole number from 1 to 36600)`,
      'horizonDays',
      horizonDays,
    );
  }
  const fromMs = Math.floor(from.getTime() / MINUTE_MS) * MINUTE_MS;
  return { fromMs, toMs: fromMs + horizonDays * DAY_MS };
}

function minuteOf(date: Date): number {
  return date.getTime() / MINUTE_MS;
}
