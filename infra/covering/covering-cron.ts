/**
 * The UTC schedule that wakes the dispatcher for a job: one cron expression, evaluated in UTC,
 * that fires at every instant the engine produces for the job, and at few others.
 *
 * EventBridge Scheduler could evaluate a job's cron in its own zone, but its DST rules are not
 * zonecron's (it skips or doubles runs that zonecron shifts, and cannot say `transition`). So
 * each job gets a UTC "covering" expression instead; on each tick the dispatcher asks the
 * engine which run, if any, the tick stands for, and no-ops on the extra ticks.
 *
 * The expression is computed from the engine, never from the cron text: the engine's
 * occurrences over the next two years are collected (both DST states, every gap and overlap,
 * the :30 and :45 offsets), and their UTC minutes, hours, days and months become the fields.
 *
 * Speed (10,000 jobs per synth): the runs are read from the engine once; the candidates'
 * ticks are counted by calendar arithmetic instead of being enumerated, and the winner is
 * checked twice — the engine's own parser must read its text as exactly the intended fields,
 * and every run must fall on one of its ticks. Identical inputs (the same expression after `H`
 * is resolved, zone, DST policies and start) are computed once per process.
 */

import { type JobDefinition, movesRuns, scheduleSpecOf } from '#jobs/job.ts';
import { oneShotRuns } from '#jobs/one-shot.ts';
import {
  type GapPolicy,
  iterateOccurrences,
  type OverlapPolicy,
  occurrencesBetween,
  type ParsedCron,
  parseCron,
  resolvePolicies,
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
} from './field-text.ts';
import { oneShotExpression, type ScheduleWindow, scheduleWindow } from './schedule-window.ts';
import { DAY_MS, MINUTE_MS, type UtcDay, utcDay } from './utc-day.ts';

/** A job's UTC covering schedule (architecture §3). */
export interface CoveringSchedule {
  /** Five-field engine syntax, to be evaluated in UTC, e.g. `'30 0,1 * * *'`. */
  readonly cron: string;
  /**
   * The same for EventBridge Scheduler, e.g. `'cron(30 0,1 * * ? *)'`; for an `at` job the
   * one-time `'at(2026-12-24T17:00:00)'` at its run's UTC instant (`cron` is then the yearly
   * UTC expression of that instant, for the local scheduler).
   */
  readonly awsExpression: string;
  /** Covering ticks per real run over the enumerated window (1 is perfect). */
  readonly ticksPerRun: number;
  /**
   * `every-dst-policy` when the expression also fires for every other gap/overlap policy (it
   * did not cost a single extra tick); `job-dst-policy` when it covers the job's own.
   */
  readonly covers: 'every-dst-policy' | 'job-dst-policy';
  /**
   * StartDate, EndDate and whether the job has ended, from its bounds (`schedule-window.ts`).
   * @default none: the job has neither `from`, `until` nor `at`
   */
  readonly window?: ScheduleWindow;
}

/** A covering schedule with the counts it was chosen by, for cost estimates. */
export interface CoveringDetails {
  readonly schedule: CoveringSchedule;
  /** Ticks of the expression in the counted span. */
  readonly ticks: number;
  /** Runs of the job in the counted span. */
  readonly runs: number;
  /** Length of the counted span: the window, or up to the last run for a sparse job. */
  readonly countedMs: number;
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
const TRANSITION_MARGIN_MS = 2 * DAY_MS;

const GAP_POLICIES: readonly GapPolicy[] = ['shift', 'transition', 'skip'];
const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['first', 'last', 'both'];

/** Computed coverings by {@link memoKey}; cleared when it grows past `MEMO_LIMIT`. */
const memo = new Map<string, CoveringDetails>();
const MEMO_LIMIT = 100_000;

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
 * it checks that the engine reads the expression as intended and that it fires at every run
 * it must cover.
 *
 * @example
 * coveringSchedule(berlinNightlyReport, new Date('2026-01-01T00:00:00Z'))
 * //=> { cron: '30 0,1 * * *', awsExpression: 'cron(30 0,1 * * ? *)', ticksPerRun: 2, covers: 'job-dst-policy' }
 */
export function coveringSchedule(job: JobDefinition, from: Date): CoveringSchedule {
  return coveringDetails(job, from).schedule;
}

/**
 * {@link coveringSchedule} with the tick and run counts behind `ticksPerRun`.
 *
 * @example
 * coveringDetails(berlinNightlyReport, new Date('2026-01-01T00:00:00Z')).ticks //=> 1460
 */
export function coveringDetails(job: JobDefinition, from: Date): CoveringDetails {
  const bounded = job.at !== undefined || job.from !== undefined || job.until !== undefined;
  const window = bounded ? scheduleWindow(job, from) : undefined;
  if (job.at !== undefined && window !== undefined) return oneShotDetails(job, from, window);
  const spec = coveringSpecOf(job);
  const key = memoKey(spec, from);
  let details = memo.get(key);
  if (details === undefined) {
    details = compute(spec, from);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, details);
  }
  const own = job.calendar ? ownRunCounts(job, from, details) : details;
  return window === undefined ? own : { ...own, schedule: { ...own.schedule, window } };
}

/**
 * The counts of a job with a calendar: the covering's ticks over the counted span,
 * per run the job really has in it (fewer than its expression's, so more ticks per run).
 */
function ownRunCounts(job: JobDefinition, from: Date, details: CoveringDetails): CoveringDetails {
  const to = new Date(from.getTime() + details.countedMs);
  const runs = occurrencesBetween(scheduleSpecOf(job), from, to).length;
  const ticksPerRun = runs === 0 ? details.ticks : details.ticks / runs;
  return { ...details, runs, schedule: { ...details.schedule, ticksPerRun } };
}

/**
 * An `at` job's covering: one tick, at its run. The loader refuses an `at` that runs never or
 * twice, so exactly one run is there.
 */
function oneShotDetails(job: JobDefinition, from: Date, window: ScheduleWindow): CoveringDetails {
  const [run, ...more] = oneShotRuns(job);
  if (run === undefined || more.length > 0) {
    throw new Error(
      `at job '${job.id}' must have exactly one run, has ${more.length + (run ? 1 : 0)}`,
    );
  }
  const at = run.at;
  const cron = `${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
  return {
    schedule: {
      cron,
      awsExpression: oneShotExpression(at),
      ticksPerRun: 1,
      covers: 'job-dst-policy',
      window,
    },
    ticks: 1,
    runs: 1,
    countedMs: Math.max(0, at.getTime() - from.getTime()),
  };
}

/**
 * The schedule a job's covering fires for: its expression and zone without its calendar and
 * bounds, whose runs are a subset of it (a calendar skips runs or keeps only business days of a
 * `*` day field; bounds drop runs). When the calendar moves runs to other days (`movesRuns`),
 * the day-of-month, month and day-of-week fields are widened to `*`: a moved run keeps its local
 * time of day, under the job's DST policies, on whatever day it lands. The dispatcher answers
 * the ticks that are no run with no request.
 *
 * @example
 * coveringSpecOf(exportsOnBusinessDays) //=> { cron: '0 6 * * *', timezone: 'Europe/Berlin', jobId: 'exports' }
 * coveringSpecOf(invoicesFollowing).cron //=> '0 9 * * *' (its schedule: '0 9 1 * *')
 */
export function coveringSpecOf(job: JobDefinition): ScheduleSpec {
  const { calendar: _calendar, from: _from, until: _until, ...spec } = scheduleSpecOf(job);
  if (!movesRuns(job)) return spec;
  // `H` hashes the job id and the field's position, so the time fields keep their values.
  const [minute, hour] = parseCron(spec.cron, spec.jobId).fields;
  return { ...spec, cron: `${minute} ${hour} * * *` };
}

/**
 * Everything the covering depends on: the expression as the engine resolved it (so two `H`
 * jobs that hash to the same minute share it), the zone, the effective DST policies and `from`.
 */
function memoKey(spec: ScheduleSpec, from: Date): string {
  const parsed = parseCron(spec.cron, spec.jobId);
  const { gap, overlap } = resolvePolicies(spec);
  return JSON.stringify([
    from.getTime(),
    spec.timezone,
    gap,
    overlap,
    parsed.minutes,
    parsed.hours,
    parsed.daysOfMonth,
    parsed.months,
    parsed.daysOfWeek,
    parsed.dayRule,
  ]);
}

function compute(own: ScheduleSpec, from: Date): CoveringDetails {
  const to = addUtcYears(from, COVERING_WINDOW_YEARS);

  const ownFields = new UtcFields();
  const ownRuns = collect(own, from, to.getTime(), Number.POSITIVE_INFINITY, ownFields);
  const later = collect(
    own,
    to,
    addUtcYears(from, EXTENSION_YEARS).getTime(),
    EXTENSION_MAX_RUNS,
    ownFields,
  );
  const policyRuns = otherPolicyRuns(own, from, to);
  const everyFields = ownFields.copy();
  for (const at of policyRuns) everyFields.add(at);

  // With no run in the window (February 29), count over the extension instead.
  const runCount = ownRuns.length > 0 ? ownRuns.length : later.length;
  const countUntil = ownRuns.length > 0 ? to.getTime() : (later.at(-1) ?? to.getTime());

  const ownCover = cheapest(ownFields, [ownRuns], from, countUntil);
  let chosen = ownCover;
  let covers: CoveringSchedule['covers'] = 'every-dst-policy';
  if (!ownFields.equals(everyFields)) {
    const everyCover = cheapest(everyFields, [ownRuns, policyRuns], from, countUntil);
    if (everyCover.ticks <= ownCover.ticks) {
      chosen = everyCover;
    } else {
      covers = 'job-dst-policy';
    }
  }

  return {
    schedule: {
      cron: chosen.cron,
      awsExpression: chosen.awsExpression,
      ticksPerRun: runCount === 0 ? chosen.ticks : chosen.ticks / runCount,
      covers,
    },
    ticks: chosen.ticks,
    runs: runCount,
    countedMs: countUntil - from.getTime(),
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
    fields.add(atMs);
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

/**
 * The UTC field values seen, and facts about the days that allow `L` or `d#k`, as flags.
 *
 * Consecutive instants on the same UTC day share the day's facts, which are computed once.
 */
class UtcFields {
  readonly minutes = new Uint8Array(60);
  readonly hours = new Uint8Array(24);
  readonly daysOfMonth = new Uint8Array(32);
  readonly months = new Uint8Array(13);
  readonly daysOfWeek = new Uint8Array(7);
  /** Every instant so far fell on the last day of its UTC month. */
  allLastDay = true;
  /** The `week` of `d#week` (ceil(day / 7)) every instant so far shared; 0: none yet; -1: mixed. */
  nthWeek = 0;
  private lastDay = Number.NaN;

  add(atMs: number): void {
    const day = Math.floor(atMs / DAY_MS);
    const minuteOfDay = Math.floor((atMs - day * DAY_MS) / MINUTE_MS);
    this.minutes[minuteOfDay % 60] = 1;
    this.hours[Math.floor(minuteOfDay / 60)] = 1;
    if (day === this.lastDay) return;
    this.lastDay = day;
    const facts = utcDay(day);
    this.daysOfMonth[facts.dayOfMonth] = 1;
    this.months[facts.month] = 1;
    this.daysOfWeek[facts.dayOfWeek] = 1;
    if (!facts.isLastDayOfMonth) this.allLastDay = false;
    const week = Math.ceil(facts.dayOfMonth / 7);
    if (this.nthWeek === 0) this.nthWeek = week;
    else if (this.nthWeek !== week) this.nthWeek = -1;
  }

  copy(): UtcFields {
    const copy = new UtcFields();
    copy.minutes.set(this.minutes);
    copy.hours.set(this.hours);
    copy.daysOfMonth.set(this.daysOfMonth);
    copy.months.set(this.months);
    copy.daysOfWeek.set(this.daysOfWeek);
    copy.allLastDay = this.allLastDay;
    copy.nthWeek = this.nthWeek;
    return copy;
  }

  equals(other: UtcFields): boolean {
    const same = (a: Uint8Array, b: Uint8Array) => a.every((flag, i) => flag === b[i]);
    return (
      same(this.minutes, other.minutes) &&
      same(this.hours, other.hours) &&
      same(this.daysOfMonth, other.daysOfMonth) &&
      same(this.months, other.months) &&
      same(this.daysOfWeek, other.daysOfWeek) &&
      this.allLastDay === other.allLastDay &&
      this.nthWeek === other.nthWeek
    );
  }
}

/** The values whose flag is set. */
function valuesOf(flags: Uint8Array): Set<number> {
  const values = new Set<number>();
  flags.forEach((flag, value) => {
    if (flag === 1) values.add(value);
  });
  return values;
}

/** How a covering expression picks its days, in both dialects, and the days it fires on. */
interface DayChoice {
  readonly dayOfMonth: string;
  readonly awsDayOfMonth: string;
  readonly dayOfWeek: string;
  readonly awsDayOfWeek: string;
  readonly fires: (day: UtcDay) => boolean;
  /** Whether the engine's reading of the expression's day fields is this choice. */
  readonly readAs: (parsed: ParsedCron) => boolean;
}

interface Cover {
  readonly cron: string;
  readonly awsExpression: string;
  /** Ticks of `cron` in UTC in (from, countUntil]. */
  readonly ticks: number;
}

/** The ways of choosing days over `fields`, cheapest not yet known. */
function dayChoices(fields: UtcFields): DayChoice[] {
  const daysOfMonth = valuesOf(fields.daysOfMonth);
  const daysOfWeek = valuesOf(fields.daysOfWeek);
  const options: DayChoice[] = [daysOfMonthChoice(fields, daysOfMonth)];
  if (!isFull(daysOfWeek, DAY_OF_WEEK)) options.push(daysOfWeekChoice(fields, daysOfWeek));
  if (fields.allLastDay) options.push(lastDayChoice());
  const [onlyDayOfWeek] = daysOfWeek;
  const week = fields.nthWeek;
  if (week > 0 && daysOfWeek.size === 1 && onlyDayOfWeek !== undefined) {
    options.push(nthWeekdayChoice(onlyDayOfWeek, week));
  }
  return options;
}

/** Whether the engine read the day-of-week field as every day of the week. */
function everyWeekday(parsed: ParsedCron): boolean {
  return parsed.daysOfWeek.values.length === 7;
}

/** Whether the engine read no `L`, `LW`, `W`, `dL` or `d#k` in the day fields. */
function noDayExtras(parsed: ParsedCron): boolean {
  return (
    !parsed.daysOfMonth.last &&
    !parsed.daysOfMonth.lastWeekday &&
    parsed.daysOfMonth.nearestWeekday.length === 0 &&
    parsed.daysOfWeek.last.length === 0 &&
    parsed.daysOfWeek.nth.length === 0
  );
}

/** The days of the month seen, on any day of the week. */
function daysOfMonthChoice(fields: UtcFields, daysOfMonth: ReadonlySet<number>): DayChoice {
  return {
    dayOfMonth: fieldText(daysOfMonth, DAY_OF_MONTH, ENGINE_STYLE),
    awsDayOfMonth: fieldText(daysOfMonth, DAY_OF_MONTH, AWS_STYLE),
    dayOfWeek: '*',
    awsDayOfWeek: '?',
    fires: (day) => fields.daysOfMonth[day.dayOfMonth] === 1,
    readAs: (parsed) =>
      sameValues(parsed.daysOfMonth.values, daysOfMonth) &&
      everyWeekday(parsed) &&
      noDayExtras(parsed),
  };
}

/** The days of the week seen, on any day of the month. */
function daysOfWeekChoice(fields: UtcFields, daysOfWeek: ReadonlySet<number>): DayChoice {
  return {
    dayOfMonth: '*',
    awsDayOfMonth: '?',
    dayOfWeek: fieldText(daysOfWeek, DAY_OF_WEEK, ENGINE_DAY_OF_WEEK_STYLE),
    awsDayOfWeek: fieldText(daysOfWeek, DAY_OF_WEEK, AWS_DAY_OF_WEEK_STYLE),
    fires: (day) => fields.daysOfWeek[day.dayOfWeek] === 1,
    readAs: (parsed) =>
      parsed.daysOfMonth.values.length === 31 &&
      sameValues(parsed.daysOfWeek.values, daysOfWeek) &&
      noDayExtras(parsed),
  };
}

/** `L`: the last day of every month, when every run falls on one. */
function lastDayChoice(): DayChoice {
  return {
    dayOfMonth: 'L',
    awsDayOfMonth: 'L',
    dayOfWeek: '*',
    awsDayOfWeek: '?',
    fires: (day) => day.isLastDayOfMonth,
    readAs: (parsed) =>
      parsed.daysOfMonth.last &&
      parsed.daysOfMonth.values.length === 0 &&
      !parsed.daysOfMonth.lastWeekday &&
      parsed.daysOfMonth.nearestWeekday.length === 0 &&
      everyWeekday(parsed),
  };
}

/** `d#k`: the k-th `weekday` of every month, when every run falls on that one. */
function nthWeekdayChoice(weekday: number, week: number): DayChoice {
  // AWS counts days of the week from 1 = Sunday, and `#` takes a number there.
  return {
    dayOfMonth: '*',
    awsDayOfMonth: '?',
    dayOfWeek: `${weekday}#${week}`,
    awsDayOfWeek: `${weekday + 1}#${week}`,
    fires: (day) => day.dayOfWeek === weekday && Math.ceil(day.dayOfMonth / 7) === week,
    readAs: (parsed) =>
      parsed.daysOfMonth.values.length === 31 &&
      parsed.daysOfWeek.values.length === 0 &&
      parsed.daysOfWeek.nth.length === 1 &&
      parsed.daysOfWeek.nth[0]?.weekday === weekday &&
      parsed.daysOfWeek.nth[0]?.nth === week,
  };
}

/**
 * The cheapest product expression over `fields`: minutes × hours × months × one way of choosing
 * days — the days of the month seen (any weekday), the days of the week seen (any day of the
 * month), `L` when every run falls on the last day of its month, or `d#k` when every run falls
 * on the same k-th weekday of its month. On a tie the earlier way wins.
 *
 * Throws when the winner is not read by the engine as intended, or misses an instant of
 * `mustFire`: a bug, never a config error.
 */
function cheapest(
  fields: UtcFields,
  mustFire: readonly (readonly number[])[],
  from: Date,
  countUntilMs: number,
): Cover {
  if (!fields.minutes.includes(1)) {
    throw new Error('internal: a validated job has no occurrence in the covering horizon');
  }
  let best: { cover: Cover; days: DayChoice } | undefined;
  for (const days of dayChoices(fields)) {
    const cover = write(fields, days, countTicks(fields, days, from.getTime(), countUntilMs));
    if (best === undefined || cover.ticks < best.cover.ticks) best = { cover, days };
  }
  if (best === undefined) throw new Error('internal: no covering candidate');
  checkReading(best.cover.cron, fields, best.days);
  for (const instants of mustFire) {
    const missed = instants.find((atMs) => !fires(fields, best.days, atMs));
    if (missed !== undefined) {
      throw new Error(
        `internal: covering expression '${best.cover.cron}' misses ${new Date(missed).toISOString()}`,
      );
    }
  }
  return best.cover;
}

/** Writes one candidate in both dialects. */
function write(fields: UtcFields, days: DayChoice, ticks: number): Cover {
  const minutes = valuesOf(fields.minutes);
  const hours = valuesOf(fields.hours);
  const months = valuesOf(fields.months);
  const minute = fieldText(minutes, MINUTE, ENGINE_STYLE);
  const hour = fieldText(hours, HOUR, ENGINE_STYLE);
  const month = fieldText(months, MONTH, ENGINE_STYLE);
  const cron = `${minute} ${hour} ${days.dayOfMonth} ${month} ${days.dayOfWeek}`;
  const aws = [
    fieldText(minutes, MINUTE, AWS_STYLE),
    fieldText(hours, HOUR, AWS_STYLE),
    days.awsDayOfMonth,
    fieldText(months, MONTH, AWS_STYLE),
    days.awsDayOfWeek,
    '*',
  ].join(' ');
  return { cron, awsExpression: `cron(${aws})`, ticks };
}

/**
 * Ticks of the candidate in UTC in (fromMs, untilMs], day by day: a day it fires on has
 * minutes × hours ticks, fewer on the first and last day of the span.
 */
function countTicks(fields: UtcFields, days: DayChoice, fromMs: number, untilMs: number): number {
  const minutes = [...valuesOf(fields.minutes)];
  const hours = [...valuesOf(fields.hours)];
  const perDay = minutes.length * hours.length;
  const lastMinuteOfDayMs = DAY_MS - MINUTE_MS;
  let ticks = 0;
  for (let day = Math.floor(fromMs / DAY_MS); day <= Math.floor(untilMs / DAY_MS); day += 1) {
    const facts = utcDay(day);
    if (fields.months[facts.month] !== 1 || !days.fires(facts)) continue;
    const dayStartMs = day * DAY_MS;
    if (dayStartMs > fromMs && dayStartMs + lastMinuteOfDayMs <= untilMs) {
      ticks += perDay;
      continue;
    }
    for (const hour of hours) {
      for (const minute of minutes) {
        const tickMs = dayStartMs + (hour * 60 + minute) * MINUTE_MS;
        if (tickMs > fromMs && tickMs <= untilMs) ticks += 1;
      }
    }
  }
  return ticks;
}

/** Whether the candidate has a tick at `atMs`. */
function fires(fields: UtcFields, days: DayChoice, atMs: number): boolean {
  const day = Math.floor(atMs / DAY_MS);
  const minuteOfDay = Math.floor((atMs - day * DAY_MS) / MINUTE_MS);
  const facts = utcDay(day);
  return (
    atMs % MINUTE_MS === 0 &&
    fields.minutes[minuteOfDay % 60] === 1 &&
    fields.hours[Math.floor(minuteOfDay / 60)] === 1 &&
    fields.months[facts.month] === 1 &&
    days.fires(facts)
  );
}

/** Throws unless the engine's parser reads `cron` as exactly the fields and days meant. */
function checkReading(cron: string, fields: UtcFields, days: DayChoice): void {
  const parsed = parseCron(cron);
  const asMeant =
    sameValues(parsed.minutes, valuesOf(fields.minutes)) &&
    sameValues(parsed.hours, valuesOf(fields.hours)) &&
    sameValues(parsed.months, valuesOf(fields.months)) &&
    parsed.dayRule === 'and' &&
    days.readAs(parsed);
  if (!asMeant) {
    throw new Error(`internal: the engine does not read covering expression '${cron}' as meant`);
  }
}

function sameValues(list: readonly number[], values: ReadonlySet<number>): boolean {
  return list.length === values.size && list.every((value) => values.has(value));
}

/** `at` plus whole years, in UTC (February 29 becomes March 1). */
function addUtcYears(at: Date, years: number): Date {
  const result = new Date(at.getTime());
  result.setUTCFullYear(result.getUTCFullYear() + years);
  return result;
}
