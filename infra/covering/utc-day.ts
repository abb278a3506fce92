/**
 * What a covering expression needs to know about a UTC day, computed from its day number
 * (days since 1970-01-01) without `Date` objects: the covering code looks at hundreds of
 * thousands of instants per job.
 */

import { civilFromDays, daysInMonth, weekdayOfDays } from '../../functions/schedule/index.ts';

/** Milliseconds in a UTC day. */
export const DAY_MS = 86_400_000;
/** Milliseconds in a minute. */
export const MINUTE_MS = 60_000;

/** The calendar facts of one UTC day. */
export interface UtcDay {
  /** 1-31. */
  readonly dayOfMonth: number;
  /** 1-12. */
  readonly month: number;
  /** 0 = Sunday … 6 = Saturday. */
  readonly dayOfWeek: number;
  /** Whether it is the last day of its month. */
  readonly isLastDayOfMonth: boolean;
}

/** Written by `civilFromDays` at each call, read at once: no allocation per day. */
const scratch = { year: 0, month: 0, day: 0 };

/**
 * The calendar facts of day number `day` (proleptic Gregorian, by the engine's civil calendar).
 *
 * @example
 * utcDay(Math.floor(Date.parse('2028-02-29T12:00:00Z') / DAY_MS))
 * //=> { dayOfMonth: 29, month: 2, dayOfWeek: 2, isLastDayOfMonth: true }
 */
export function utcDay(day: number): UtcDay {
  const { year, month, day: dayOfMonth } = civilFromDays(day, scratch);
  return {
    dayOfMonth,
    month,
    dayOfWeek: weekdayOfDays(day),
    isLastDayOfMonth: dayOfMonth === daysInMonth(year, month),
  };
}
