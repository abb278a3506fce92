/**
 * What a calendar of jobs.yaml says, resolved by the loader: the data a `BusinessCalendar` is
 * built from (`business-calendar.ts`), carried by each job that follows it, so that a job in the
 * jobs bundle is self-contained.
 *
 * Plain JSON: it travels in `jobs.json` to the Lambdas.
 */
import type { ClosedDayConvention, ClosedRange } from '../schedule/index.ts';

/** The holiday types of the `date-holidays` data set, in its own words. */
export const HOLIDAY_TYPES = ['public', 'bank', 'school', 'optional', 'observance'] as const;

/** One of {@link HOLIDAY_TYPES}. */
export type HolidayType = (typeof HOLIDAY_TYPES)[number];

/** Weekday names as jobs.yaml writes them, index 0 (Sunday) to 6, as the engine counts. */
export const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/** A closed local date of a calendar (`YYYY-MM-DD`) and why. */
export interface ClosedDay {
  readonly date: string;
  readonly reason: string;
}

/** A named calendar of jobs.yaml, defaults applied. */
export interface CalendarDefinition {
  /** The key under `calendars:`. */
  readonly name: string;
  /** The IANA zone whose local dates are its days. */
  readonly timezone: string;
  /** A `date-holidays` code, `DE-BE`, `US-NY`, `GB-ENG`: country[-state[-region]]. @default none */
  readonly holidays?: string;
  /** Which holiday types close a day (`holidayTypes:`); `['public']` by default. */
  readonly holidayTypes: readonly HolidayType[];
  /** Closed weekdays, 0 (Sunday) to 6; Saturday and Sunday by default. */
  readonly weekendDays: readonly number[];
  /** The `closed:` entries that name a date. */
  readonly closedDays: readonly ClosedDay[];
  /** The `closed:` entries that name a local-time range, half-open. */
  readonly closedRanges: readonly ClosedRange[];
}

/**
 * How a job follows a calendar: the calendar itself and the job's rule. The engine's
 * `CalendarRule` is built from it (`calendarRuleOf`).
 */
export interface JobCalendar {
  readonly definition: CalendarDefinition;
  /** @default 'skip' */
  readonly onClosed?: ClosedDayConvention;
  /** The Nth business day of each month, 1 the first, -1 the last. @default none */
  readonly businessDay?: number;
}
