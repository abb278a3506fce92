/**
 * What a job says about when it runs besides its expression: its calendar, its `from`/`until`
 * bounds, `at` for a one-shot job, and its deadline; resolved into `JobDefinition` fields, with
 * what is wrong in them.
 *
 * Runs after the schema accepted the job, so every value here is well formed; what is left are
 * the questions across fields: a calendar that exists, `businessDay` with a schedule that leaves
 * the days to it, bounds in order, an `at` that runs once.
 */
import type { JobDefinition } from '#jobs/job.ts';
import { oneShotRuns, oneShotSchedule } from '#jobs/one-shot.ts';
import { parseCron } from '../../functions/schedule/index.ts';
import { type CalendarRef, type FileCalendars, resolveCalendar } from './calendar-definitions.ts';
import type { ConfigIssueCode } from './config-error.ts';
import { boundInstant } from './local-times.ts';
import type { RawJob } from './schema.ts';
import type { YamlPath } from './source-positions.ts';

/** A problem of one field of a job. */
export interface TimingProblem {
  readonly field: YamlPath;
  readonly message: string;
  readonly code: ConfigIssueCode;
}

/** The fields a job gains, or why it cannot have them (`problems`, or a calendar in error). */
export type TimingResult =
  | { readonly ok: true; readonly fields: Partial<JobDefinition> }
  | { readonly ok: false; readonly problems: readonly TimingProblem[] };

/**
 * The job's calendar, bounds, `at` schedule and deadline, as `JobDefinition` fields.
 *
 * @example
 * jobTiming({ ...raw, at: '2026-12-24T18:00' }, calendars).fields
 * //=> { schedule: '0 18 24 12 *', at: '2026-12-24T18:00', from: '2026-12-22T00:00:00.000Z', until: '2026-12-27T00:00:00.000Z' }
 */
export function jobTiming(raw: RawJob, calendars: FileCalendars): TimingResult {
  const problems: TimingProblem[] = [];
  const fields: Record<string, unknown> = {};
  const schedule = raw.at === undefined ? raw.schedule : oneShotSchedule(raw.at).schedule;
  if (raw.at !== undefined) Object.assign(fields, { at: raw.at }, oneShotSchedule(raw.at));
  if (raw.calendar !== undefined) {
    const calendar = calendarOf(raw.calendar as CalendarRef, raw, problems);
    if (calendar === 'invalid') return { ok: false, problems };
    if (calendar !== undefined) fields.calendar = calendar;
    if (calendar?.businessDay !== undefined && schedule !== undefined) {
      checkBusinessDay(schedule, raw, problems);
    }
  }
  if (raw.at === undefined) Object.assign(fields, bounds(raw, problems));
  if (raw.deadline !== undefined) fields.deadline = raw.deadline;
  return problems.length > 0 ? { ok: false, problems } : { ok: true, fields };

  function calendarOf(ref: CalendarRef, job: RawJob, found: TimingProblem[]) {
    const resolved = resolveCalendar(ref, job.timezone, calendars);
    if (resolved.kind === 'invalid') return 'invalid' as const;
    if (resolved.kind === 'resolved') return resolved.calendar;
    const field = typeof ref === 'string' ? ['calendar'] : ['calendar', 'name'];
    found.push({ field, message: resolved.message, code: 'unknown-calendar' });
    return undefined;
  }
}

/** `businessDay` picks the day itself: the day-of-month and day-of-week fields must be `*`. */
function checkBusinessDay(schedule: string, raw: RawJob, problems: TimingProblem[]): void {
  const field = ['calendar', 'businessDay'];
  if (raw.at !== undefined) {
    problems.push({
      field,
      message: 'businessDay picks a day of every month, at: names one date; give one of them',
      code: 'conflict',
    });
    return;
  }
  const fields = parseCron(schedule, raw.id).fields;
  const days = [fields[2], fields[4]];
  if (days.every((text) => text === '*' || text === '?')) return;
  problems.push({
    field,
    message: `businessDay picks the day of the month itself: the schedule's day-of-month and day-of-week fields must be *, got '${schedule}' (e.g. '${fields[0]} ${fields[1]} * ${fields[3]} *')`,
    code: 'conflict',
  });
}

/** `from` and `until` as UTC ISO instants, `from` before `until`. */
function bounds(raw: RawJob, problems: TimingProblem[]): Partial<JobDefinition> {
  const from = raw.from === undefined ? undefined : boundInstant(raw.from, raw.timezone);
  const until = raw.until === undefined ? undefined : boundInstant(raw.until, raw.timezone);
  if (from !== undefined && until !== undefined && from.getTime() >= until.getTime()) {
    problems.push({
      field: ['until'],
      message: `must be after from ('${raw.from}', ${from.toISOString()}), got '${raw.until}' (${until.toISOString()})`,
      code: 'conflict',
    });
  }
  return {
    ...(from === undefined ? {} : { from: from.toISOString() }),
    ...(until === undefined ? {} : { until: until.toISOString() }),
  };
}

/**
 * What is wrong with an `at` job's one run: none (a gap its `dst.gap: skip` skips), or two (a
 * repeated hour its `dst.overlap: both` runs twice); nothing for a job that runs once.
 */
export function oneShotProblems(job: JobDefinition): TimingProblem[] {
  if (job.at === undefined) return [];
  const runs = oneShotRuns(job);
  if (runs.length === 0) {
    return [
      {
        field: ['at'],
        message: `'${job.at}' never runs: it falls in a gap of ${job.timezone} (clocks jump over it) and dst.gap is skip${job.calendar ? ', or on a day its calendar skips' : ''}`,
        code: 'never-runs',
      },
    ];
  }
  if (runs.length > 1) {
    return [
      {
        field: ['dst', 'overlap'],
        message: `at: runs once, but '${job.at}' happens twice in ${job.timezone} (clocks go back) and dst.overlap both would run it twice; use first or last`,
        code: 'conflict',
      },
    ];
  }
  return [];
}
