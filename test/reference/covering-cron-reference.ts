/**
 * The covering algorithm as it was before it was made fast (`infra/covering/covering-cron.ts`):
 * every candidate's ticks enumerated by the engine in UTC, no memo. Kept verbatim as the
 * reference the fast version must agree with, expression for expression and count for count
 * (test/unit/infra/covering/covering-reference.test.ts). Not used by anything that ships.
 */

import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import {
  type GapPolicy,
  iterateOccurrences,
  type OverlapPolicy,
  occurrencesBetween,
  type ScheduleSpec,
  zoneTransitions,
} from '../../functions/schedule/index.ts';
import {
  AWS_DAY_OF_WEEK_STYLE,
  AWS_STYLE,
  DAY_OF_MONTH,
  DAY_OF_WEEK,
  ENGINE_DAY_OF_WEEK_STYLE,
  ENGINE_STYLE,
  fieldText,
  HOUR,
  isFull,
  MINUTE,
  MONTH,
} from '../../infra/covering/field-text.ts';

/** A job's UTC covering schedule (architecture §3). */
export interface CoveringSchedule {
  /** Five-field engine syntax, to be evaluated in UTC, e.g. `'30 0,1 * * *'`. */
  readonly cron: string;
  /** The same for EventBridge Scheduler, e.g. `'cron(30 0,1 * * ? *)'`. */
  readonly awsExpression: string;
  /** Covering ticks per real run over the enumerated window (1 is perfect). */
  readonly ticksPerRun: number;
  /**
   * `every-dst-policy` when the expression also fires for every other gap/overlap policy (it
   * did not cost a single extra tick); `job-dst-policy` when it covers the job's own.
   */
  readonly covers: 'every-dst-policy' | 'job-dst-policy';
}

/** The window whose occurrences are enumerated, and over which `ticksPerRun` is counted. */
export const COVERING_WINDOW_YEARS = 2;

/**
 * How far the days and months are followed beyond the window: 28 years is a full cycle of
 * weekdays against month lengths (1901-2099), so `L`, `LW`, `nW` and February 29 show every
 * day of the month they can ever produce. Capped by `EXTENSION_MAX_RUNS`; dense schedules reach
 * every day long before the cap.
 */
const EXTENSION_YEARS = 28;
const EXTENSION_MAX_RUNS = 5_000;

/**
 * Gap and overlap slots lie within hours of an offset change (semantics §2), so the other
 * policies are enumerated only this close to each transition; elsewhere all nine agree.
 */
const TRANSITION_MARGIN_MS = 2 * 86_400_000;

const GAP_POLICIES: readonly GapPolicy[] = ['shift', 'transition', 'skip'];
const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['first', 'last', 'both'];

/**
 * Computes the UTC covering schedule of a job for the two years after `from`.
 *
 * It always fires at every run of the job's own DST policies. It also covers every other
 * gap/overlap combination when that costs no extra tick; when it would (a 02:30 job would need
 * minute 0 for `transition` besides minute 30, doubling its ticks), it covers the job's own
 * only. That is safe because the expression and the dispatcher's job definitions change in
 * the same deploy.
 *
 * Pure: `from` is the reference instant (the stack passes its synth time). Before returning,
 * it checks with the engine that the expression fires at every run it must cover.
 *
 * @example
 * coveringSchedule(berlinNightlyReport, new Date('2026-01-01T00:00:00Z'))
 * //=> { cron: '30 0,1 * * *', awsExpression: 'cron(30 0,1 * * ? *)', ticksPerRun: 2, covers: 'job-dst-policy' }
 */
export function coveringSchedule(job: JobDefinition, from: Date): CoveringSchedule {
  const to = addUtcYears(from, COVERING_WINDOW_YEARS);
  const own = scheduleSpecOf(job);

  const ownFields = emptyFields();
  const ownRuns = collect(own, from, to.getTime(), Number.POSITIVE_INFINITY, ownFields);
  const later = collect(
    own,
    to,
    addUtcYears(from, EXTENSION_YEARS).getTime(),
    EXTENSION_MAX_RUNS,
    ownFields,
  );
  const policyRuns = otherPolicyRuns(own, from, to);
  const everyFields = copyFields(ownFields);
  for (const at of policyRuns) addInstant(everyFields, at);

  // With no run in the window (February 29), count over the extension instead.
  const runCount = ownRuns.length > 0 ? ownRuns.length : later.length;
  const countUntil = ownRuns.length > 0 ? to.getTime() : (later.at(-1) ?? to.getTime());

  const ownCover = cheapest(ownFields, ownRuns, from, countUntil);
  let chosen = ownCover;
  let covers: CoveringSchedule['covers'] = 'every-dst-policy';
  if (!sameFields(ownFields, everyFields)) {
    const mustFire = [...new Set([...ownRuns, ...policyRuns])].sort((a, b) => a - b);
    const everyCover = cheapest(everyFields, mustFire, from, countUntil);
    if (everyCover.ticks <= ownCover.ticks) {
      chosen = everyCover;
    } else {
      covers = 'job-dst-policy';
    }
  }

  return {
    cron: chosen.cron,
    awsExpression: chosen.awsExpression,
    ticksPerRun: runCount === 0 ? chosen.ticks : chosen.ticks / runCount,
    covers,
  };
}

/**
 * Streams the runs of `spec` after `after` up to `untilMs` (at most `maxRuns`) into `fields`;
 * returns their instants (ms), ascending.
 */
function collect(
  spec: ScheduleSpec,
  after: Date,
  untilMs: number,
  maxRuns: number,
  fields: UtcFields,
): number[] {
  const runs: number[] = [];
  for (const occurrence of iterateOccurrences(spec, after)) {
    const atMs = occurrence.at.getTime();
    if (atMs > untilMs || runs.length >= maxRuns) break;
    runs.push(atMs);
    addInstant(fields, atMs);
  }
  return runs;
}

/** Runs of every gap/overlap combination near each offset change in (from, to]. */
function otherPolicyRuns(spec: ScheduleSpec, from: Date, to: Date): number[] {
  const runs = new Set<number>();
  for (const transition of zoneTransitions(spec.timezone, from, to)) {
    const start = Math.max(from.getTime(), transition.at.getTime() - TRANSITION_MARGIN_MS);
    const end = Math.min(to.getTime(), transition.at.getTime() + TRANSITION_MARGIN_MS);
    for (const gap of GAP_POLICIES) {
      for (const overlap of OVERLAP_POLICIES) {
        const policy = { ...spec, dst: { gap, overlap } };
        for (const occurrence of occurrencesBetween(policy, new Date(start), new Date(end))) {
          runs.add(occurrence.at.getTime());
        }
      }
    }
  }
  return [...runs];
}

interface Cover {
  readonly cron: string;
  readonly awsExpression: string;
  /** Ticks of `cron` in UTC in (from, countUntil]. */
  readonly ticks: number;
}

/** The UTC field values seen, and facts about the days that allow `L` or `d#k`. */
interface UtcFields {
  readonly minutes: Set<number>;
  readonly hours: Set<number>;
  readonly daysOfMonth: Set<number>;
  readonly months: Set<number>;
  readonly daysOfWeek: Set<number>;
  /** Every instant so far fell on the last day of its UTC month. */
  allLastDay: boolean;
  /** The `week` of `d#week` (ceil(day / 7)) every instant so far shared; 0: none yet; -1: mixed. */
  nthWeek: number;
}

function emptyFields(): UtcFields {
  return {
    minutes: new Set(),
    hours: new Set(),
    daysOfMonth: new Set(),
    months: new Set(),
    daysOfWeek: new Set(),
    allLastDay: true,
    nthWeek: 0,
  };
}

function copyFields(fields: UtcFields): UtcFields {
  return {
    minutes: new Set(fields.minutes),
    hours: new Set(fields.hours),
    daysOfMonth: new Set(fields.daysOfMonth),
    months: new Set(fields.months),
    daysOfWeek: new Set(fields.daysOfWeek),
    allLastDay: fields.allLastDay,
    nthWeek: fields.nthWeek,
  };
}

function addInstant(fields: UtcFields, atMs: number): void {
  const at = new Date(atMs);
  const dayOfMonth = at.getUTCDate();
  fields.minutes.add(at.getUTCMinutes());
  fields.hours.add(at.getUTCHours());
  fields.daysOfMonth.add(dayOfMonth);
  fields.months.add(at.getUTCMonth() + 1);
  fields.daysOfWeek.add(at.getUTCDay());
  if (new Date(atMs + 86_400_000).getUTCDate() !== 1) fields.allLastDay = false;
  const week = Math.ceil(dayOfMonth / 7);
  if (fields.nthWeek === 0) fields.nthWeek = week;
  else if (fields.nthWeek !== week) fields.nthWeek = -1;
}

function sameFields(a: UtcFields, b: UtcFields): boolean {
  const same = (x: Set<number>, y: Set<number>) =>
    x.size === y.size && [...x].every((n) => y.has(n));
  return (
    same(a.minutes, b.minutes) &&
    same(a.hours, b.hours) &&
    same(a.daysOfMonth, b.daysOfMonth) &&
    same(a.months, b.months) &&
    same(a.daysOfWeek, b.daysOfWeek) &&
    a.allLastDay === b.allLastDay &&
    a.nthWeek === b.nthWeek
  );
}

/** How a covering expression picks its days, in both dialects. */
interface DayChoice {
  readonly dayOfMonth: string;
  readonly awsDayOfMonth: string;
  readonly dayOfWeek: string;
  readonly awsDayOfWeek: string;
}

/**
 * The cheapest product expression over `fields`: minutes × hours × months × one way of choosing
 * days — the days of the month seen (any weekday), the days of the week seen (any day of the
 * month), `L` when every run falls on the last day of its month, or `d#k` when every run falls
 * on the same k-th weekday of its month.
 *
 * Throws when the winner misses one of `mustFire` (ascending ms): a bug, never a config error.
 */
function cheapest(
  fields: UtcFields,
  mustFire: readonly number[],
  from: Date,
  countUntilMs: number,
): Cover {
  if (fields.minutes.size === 0) {
    throw new Error('internal: a validated job has no occurrence in the covering horizon');
  }
  const options: DayChoice[] = [
    {
      dayOfMonth: fieldText(fields.daysOfMonth, DAY_OF_MONTH, ENGINE_STYLE),
      awsDayOfMonth: fieldText(fields.daysOfMonth, DAY_OF_MONTH, AWS_STYLE),
      dayOfWeek: '*',
      awsDayOfWeek: '?',
    },
  ];
  if (!isFull(fields.daysOfWeek, DAY_OF_WEEK)) {
    options.push({
      dayOfMonth: '*',
      awsDayOfMonth: '?',
      dayOfWeek: fieldText(fields.daysOfWeek, DAY_OF_WEEK, ENGINE_DAY_OF_WEEK_STYLE),
      awsDayOfWeek: fieldText(fields.daysOfWeek, DAY_OF_WEEK, AWS_DAY_OF_WEEK_STYLE),
    });
  }
  if (fields.allLastDay) {
    options.push({ dayOfMonth: 'L', awsDayOfMonth: 'L', dayOfWeek: '*', awsDayOfWeek: '?' });
  }
  const [onlyDayOfWeek] = fields.daysOfWeek;
  if (fields.nthWeek > 0 && fields.daysOfWeek.size === 1 && onlyDayOfWeek !== undefined) {
    // AWS counts days of the week from 1 = Sunday, and `#` takes a number there.
    options.push({
      dayOfMonth: '*',
      awsDayOfMonth: '?',
      dayOfWeek: `${onlyDayOfWeek}#${fields.nthWeek}`,
      awsDayOfWeek: `${onlyDayOfWeek + 1}#${fields.nthWeek}`,
    });
  }

  let best: { cover: Cover; firstMissed: number | undefined } | undefined;
  for (const option of options) {
    const candidate = evaluate(fields, option, mustFire, from, countUntilMs);
    if (best === undefined || candidate.cover.ticks < best.cover.ticks) best = candidate;
  }
  if (best === undefined) throw new Error('internal: no covering candidate');
  if (best.firstMissed !== undefined) {
    throw new Error(
      `internal: covering expression '${best.cover.cron}' misses ${new Date(best.firstMissed).toISOString()}`,
    );
  }
  return best.cover;
}

/**
 * Writes one candidate and runs it through the engine in UTC: counts its ticks and finds the
 * first instant of `mustFire` it does not fire at, walking both ascending sequences at once.
 */
function evaluate(
  fields: UtcFields,
  days: DayChoice,
  mustFire: readonly number[],
  from: Date,
  countUntilMs: number,
): { cover: Cover; firstMissed: number | undefined } {
  const minute = fieldText(fields.minutes, MINUTE, ENGINE_STYLE);
  const hour = fieldText(fields.hours, HOUR, ENGINE_STYLE);
  const month = fieldText(fields.months, MONTH, ENGINE_STYLE);
  const cron = `${minute} ${hour} ${days.dayOfMonth} ${month} ${days.dayOfWeek}`;
  const aws = [
    fieldText(fields.minutes, MINUTE, AWS_STYLE),
    fieldText(fields.hours, HOUR, AWS_STYLE),
    days.awsDayOfMonth,
    fieldText(fields.months, MONTH, AWS_STYLE),
    days.awsDayOfWeek,
    '*',
  ].join(' ');

  let ticks = 0;
  let next = 0;
  let firstMissed: number | undefined;
  for (const tick of iterateOccurrences({ cron, timezone: 'UTC' }, from)) {
    const tickMs = tick.at.getTime();
    if (tickMs > countUntilMs) break;
    ticks += 1;
    while (next < mustFire.length && (mustFire[next] ?? 0) < tickMs) {
      firstMissed ??= mustFire[next];
      next += 1;
    }
    if (mustFire[next] === tickMs) next += 1;
  }
  if (next < mustFire.length) firstMissed ??= mustFire[next];
  return { cover: { cron, awsExpression: `cron(${aws})`, ticks }, firstMissed };
}

/** `at` plus whole years, in UTC (February 29 becomes March 1). */
function addUtcYears(at: Date, years: number): Date {
  const result = new Date(at.getTime());
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
}
