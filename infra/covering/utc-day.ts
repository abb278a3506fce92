/**
 * What a covering expression needs to know about a UTC day, computed from its day number
 * (days since 1970-01-01) without `Date` objects: the covering code looks at hundreds of
 * thousands of instants per job.
 */

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

/**
 * The calendar facts of day number `day` (proleptic Gregorian, Howard Hinnant's algorithm).
 *
 * @example
 * utcDay(Math.floor(Date.parse('2028-02-29T12:00:00Z') / DAY_MS))
 * //=> { dayOfMonth: 29, month: 2, dayOfWeek: 2, isLastDayOfMonth: true }
 */
export function utcDay(day: number): UtcDay {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return {
    dayOfMonth,
    month,
    dayOfWeek: (((day + 4) % 7) + 7) % 7,
    isLastDayOfMonth: dayOfMonth === daysInMonth(year, month),
  };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
