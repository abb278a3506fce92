import { calendarDaysFor, formatDay, parseLocalMinute } from './calendar-days.ts';
import { CalendarWalk, type SkippedRun } from './calendar-runs.ts';
import { InvalidArgumentError } from './errors.ts';
import { checkSpec } from './occurrences.ts';
import { defaultZoneTables, minuteOf, type ZoneTables } from './time-zone.ts';
import type { BusinessCalendar, Occurrence, ScheduleSpec } from './types.ts';

/** What `scheduleBetween` answers: the runs, and what a calendar or a bound removed. */
export interface SchedulePreview {
  /** The runs with `from < at <= to`, as they will happen (a moved run at its new instant). */
  readonly runs: Occurrence[];
  /** The runs a calendar or a bound removed, by `at`, each with its reason. */
  readonly skipped: SkippedRun[];
}

/**
 * A schedule's runs in a window as they will happen, and what its calendar and bounds remove.
 *
 * `next --json`, `explain` and `simulate` show a person what the dispatcher will do; the
 * dispatcher decides with the same walk, so preview and production cannot disagree. A skipped
 * run is listed at its nominal instant with the closed day's or range's reason (`calendar`),
 * or at the instant it would have had with the bound it falls outside (`from`, `until`). Runs
 * a `businessDay` rule does not pick are not runs, and not listed.
 *
 * @example
 * const christmas = { name: 'berlin', timezone: 'Europe/Berlin', weekendDays: [0, 6],
 *   closedDayReason: (d) => (d === '2026-12-25' ? 'Christmas Day' : undefined), closedRanges: [] };
 * scheduleBetween({ cron: '0 9 * * *', timezone: 'Europe/Berlin', calendar: { calendar: christmas } },
 *   new Date('2026-12-24T00:00Z'), new Date('2026-12-27T00:00Z'))
 * //=> { runs: [{ at: 2026-12-24T08:00:00.000Z, nominal: '2026-12-24T09:00', dst: 'none' }],
 * //     skipped: [{ at: 2026-12-25T08:00:00.000Z, nominal: '2026-12-25T09:00', reason: 'calendar', detail: 'Christmas Day' },
 * //               { at: 2026-12-26T08:00:00.000Z, nominal: '2026-12-26T09:00', reason: 'calendar', detail: 'Saturday' }] }
 */
export function scheduleBetween(spec: ScheduleSpec, from: Date, to: Date): SchedulePreview {
  return scheduleBetweenIn(defaultZoneTables, spec, from, to);
}

/** `scheduleBetween` with the offsets of given zone tables. */
export function scheduleBetweenIn(
  tables: ZoneTables,
  spec: ScheduleSpec,
  from: Date,
  to: Date,
): SchedulePreview {
  checkSpec(spec);
  const fromMinute = minuteOf(from, 'from');
  const toMinute = minuteOf(to, 'to');
  if (fromMinute > toMinute || from.getTime() > to.getTime()) {
    throw new InvalidArgumentError(
      `'from' (${from.toISOString()}) is after 'to' (${to.toISOString()}) (allowed from <= to)`,
      'from',
      from,
    );
  }
  const walk = new CalendarWalk(tables, spec, fromMinute + 1, toMinute, true);
  const runs: Occurrence[] = [];
  for (let next = walk.next(); next !== undefined; next = walk.next()) runs.push(next);
  const skipped = [...(walk.skipped ?? [])].sort((a, b) => a.at.getTime() - b.at.getTime());
  return { runs, skipped };
}

/**
 * The business days of a month of a calendar, as local dates of its zone (`YYYY-MM-DD`).
 *
 * `zonecron calendar` prints them, with the first and the last, so a person can check a
 * calendar against the company's own list; `businessDay` counts in this list.
 *
 * @example
 * businessDaysOfMonth({ name: 'berlin', timezone: 'Europe/Berlin', weekendDays: [0, 6],
 *   closedDayReason: (d) => (d === '2028-02-29' ? 'leap day' : undefined), closedRanges: [] }, 2028, 2).slice(-2)
 * //=> ['2028-02-25', '2028-02-28']
 */
export function businessDaysOfMonth(
  calendar: BusinessCalendar,
  year: number,
  month: number,
): string[] {
  return businessDaysOfMonthIn(defaultZoneTables, calendar, year, month);
}

/** `businessDaysOfMonth` with the offsets of given zone tables. */
export function businessDaysOfMonthIn(
  tables: ZoneTables,
  calendar: BusinessCalendar,
  year: number,
  month: number,
): string[] {
  if (!Number.isInteger(year) || year < 1 || year > 9999) {
    throw new InvalidArgumentError(`invalid year ${String(year)} (allowed 1-9999)`, 'year', year);
  }
  if (!Number.isInteger(month) || month < 1 || month > 12) {
    throw new InvalidArgumentError(`invalid month ${String(month)} (allowed 1-12)`, 'month', month);
  }
  return calendarDaysFor(tables, calendar).businessDaysOf(year, month).map(formatDay);
}

/**
 * Why a local date (`YYYY-MM-DD`, in the calendar's zone) is closed, or undefined when it is a
 * business day.
 *
 * The reason a run on that date is skipped or moved with: the calendar's own reason (a
 * holiday), then closed ranges that cover the whole day (their reason), then the weekday.
 *
 * @example
 * const freeze = { name: 'berlin', timezone: 'Europe/Berlin', weekendDays: [0, 6], closedDayReason: () => undefined,
 *   closedRanges: [{ from: '2026-12-28T00:00', to: '2027-01-04T00:00', reason: 'year-end freeze' }] };
 * closedDayOf(freeze, '2026-12-31')
 * //=> 'year-end freeze'
 * closedDayOf(freeze, '2027-01-02')
 * //=> 'year-end freeze' (a Saturday, but the range comes before the weekday)
 * closedDayOf(freeze, '2027-01-04')
 * //=> undefined
 */
export function closedDayOf(calendar: BusinessCalendar, localDate: string): string | undefined {
  return closedDayOfIn(defaultZoneTables, calendar, localDate);
}

/** `closedDayOf` with the offsets of given zone tables. */
export function closedDayOfIn(
  tables: ZoneTables,
  calendar: BusinessCalendar,
  localDate: string,
): string | undefined {
  const minute = parseLocalMinute(`${localDate}T00:00`);
  if (Number.isNaN(minute)) {
    throw new InvalidArgumentError(
      `invalid local date '${String(localDate)}' (allowed YYYY-MM-DD)`,
      'localDate',
      localDate,
    );
  }
  return calendarDaysFor(tables, calendar).closedReason(minute / 1440);
}
