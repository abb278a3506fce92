/**
 * What a job's calendar, bounds, `at` and deadline say, in words, and whether the job has
 * ended: for `describe` and `list`. Pure: the reference instant is an argument.
 */
import type { JobDefinition } from '#jobs/job.ts';
import { oneShotRuns } from '#jobs/one-shot.ts';
import { formatUtc } from '#text/zone-time.ts';
import { WEEKDAY_NAMES } from '../../functions/calendar/calendar-definition.ts';
import { formatDurationSeconds } from '../../infra/config/duration.ts';

/** Why a job will not run again: its `until:` has passed, or its `at:` run is in the past. */
export interface JobEnd {
  readonly field: 'until' | 'at';
  /** UTC ISO instant of the `until` bound or of the `at` run. */
  readonly at: string;
}

/**
 * How a job ended by `now`, or null while it may still run.
 *
 * @example
 * jobEnd(campaign, new Date('2026-12-01T00:00:00Z'))
 * //=> { field: 'until', at: '2026-08-31T22:00:00.000Z' }
 */
export function jobEnd(job: JobDefinition, now: Date): JobEnd | null {
  if (job.at !== undefined) {
    const run = oneShotRuns(job)[0];
    if (run !== undefined && run.at.getTime() > now.getTime()) return null;
    return { field: 'at', at: (run?.at ?? new Date(job.until ?? 0)).toISOString() };
  }
  if (job.until === undefined || Date.parse(job.until) > now.getTime()) return null;
  return { field: 'until', at: new Date(job.until).toISOString() };
}

/**
 * The job's calendar in one line: name, holidays, weekends, closed entries, zone, and the
 * job's rule (`onClosed` or `businessDay`); undefined without a calendar.
 *
 * @example
 * calendarText(exports)
 * //=> 'berlin-business: holidays DE-BE (public), weekends sat, sun, 1 closed day, 1 closed range, days in Europe/Berlin; onClosed skip'
 */
export function calendarText(job: JobDefinition): string | undefined {
  const calendar = job.calendar;
  if (calendar === undefined) return undefined;
  const d = calendar.definition;
  const parts = [
    d.holidays === undefined
      ? 'no holidays'
      : `holidays ${d.holidays} (${d.holidayTypes.join(', ')})`,
    `weekends ${
      mondayFirst(d.weekendDays)
        .map((day) => WEEKDAY_NAMES[day])
        .join(', ') || 'none'
    }`,
    plural(d.closedDays.length, 'closed day'),
    plural(d.closedRanges.length, 'closed range'),
    `days in ${d.timezone}`,
  ];
  const rule =
    calendar.businessDay === undefined
      ? `onClosed ${calendar.onClosed ?? 'skip'}`
      : `businessDay ${businessDayText(calendar.businessDay)}`;
  return `${d.name}: ${parts.join(', ')}; ${rule}`;
}

/** Weekdays in the order of a European week, Monday to Sunday. */
function mondayFirst(days: readonly number[]): number[] {
  return [...days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7));
}

/** `first`, `last`, or the number as jobs.yaml writes it. */
function businessDayText(n: number): string {
  if (n === 1) return 'first';
  if (n === -1) return 'last';
  return String(n);
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * The job's bounds or its one run, in UTC; undefined for an unbounded recurring job.
 *
 * @example
 * boundsText(greeting) //=> 'one run at 2026-12-24T18:00 in Europe/Berlin (2026-12-24T17:00:00Z)'
 */
export function boundsText(job: JobDefinition): string | undefined {
  if (job.at !== undefined) {
    const run = oneShotRuns(job)[0];
    const utc = run === undefined ? 'no run: none of its instants exists' : formatUtc(run.at);
    return `one run at ${job.at} in ${job.timezone} (${utc})`;
  }
  const parts = [
    ...(job.from === undefined ? [] : [`from ${formatUtc(new Date(job.from))}`]),
    ...(job.until === undefined ? [] : [`until ${formatUtc(new Date(job.until))} (exclusive)`]),
  ];
  return parts.length === 0 ? undefined : parts.join(' ');
}

/**
 * The job's finish-by deadline in words; undefined without one.
 *
 * @example
 * deadlineText(report) //=> '07:00 Europe/Berlin wall time after each run'
 */
export function deadlineText(job: JobDefinition): string | undefined {
  const deadline = job.deadline;
  if (deadline === undefined) return undefined;
  if ('afterSeconds' in deadline) {
    return `${formatDurationSeconds(deadline.afterSeconds)} after each scheduled instant`;
  }
  return `${deadline.wallTime} ${job.timezone} wall time after each run`;
}

/**
 * Why the job ended, in words.
 *
 * @example
 * endText({ field: 'until', at: '2026-08-31T22:00:00.000Z' })
 * //=> 'ENDED: until 2026-08-31T22:00:00Z has passed, no run after it'
 */
export function endText(end: JobEnd): string {
  return end.field === 'until'
    ? `ENDED: until ${formatUtc(new Date(end.at))} has passed, no run after it`
    : `ENDED: its one run (at ${formatUtc(new Date(end.at))}) is in the past`;
}
