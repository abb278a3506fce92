/**
 * Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01).
 *
 * The engine reasons in "local minutes": a local wall-clock time written as if it were UTC,
 * counted in minutes since the epoch. These helpers convert between day numbers and dates
 * without `Date` objects, which keeps the hot path free of allocation and host-zone getters.
 */

/** Days since 1970-01-01 of a Gregorian date (month 1-12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** A civil date; month 1-12. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** The Gregorian date of a day number, written into `out` to avoid allocating. */
export function civilFromDays(days: number, out: CivilDate): CivilDate {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36524) -
      Math.floor(dayOfEra / 146096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  out.day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  out.month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  out.year = yearOfEra + era * 400 + (out.month <= 2 ? 1 : 0);
  return out;
}

/** Day of week of a day number: 0 = Sunday ... 6 = Saturday. */
export function weekdayOfDays(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** Whether a Gregorian year is a leap year. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in a month (1-12) of a year. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

function padYear(year: number): string {
  if (year >= 1000 && year <= 9999) return `${year}`;
  const sign = year < 0 ? '-' : '';
  return `${sign}${String(Math.abs(year)).padStart(4, '0')}`;
}

const scratch: CivilDate = { year: 0, month: 0, day: 0 };
const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => pad2(n));
/** `-MM-DD` by month * 32 + day, and `THH:mm` by minute of the day, built on first use. */
let monthDays: string[] | undefined;
let timesOfDay: string[] | undefined;
/** The last formatted day, because consecutive runs mostly share their date. */
let cachedDayNumber = Number.NaN;
let cachedDayText = '';
let cachedYear = Number.NaN;
let cachedYearText = '';

/** `YYYY-MM-DDTHH:mm` of a local minute (minutes since the epoch, read as wall-clock time). */
export function formatLocalMinute(localMinute: number): string {
  if (monthDays === undefined || timesOfDay === undefined) {
    monthDays = [];
    for (let month = 0; month <= 12; month++) {
      for (let day = 0; day < 32; day++) monthDays.push(`-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`);
    }
    timesOfDay = [];
    for (let minute = 0; minute < 1440; minute++) {
      timesOfDay.push(`T${TWO_DIGITS[Math.floor(minute / 60)]}:${TWO_DIGITS[minute % 60]}`);
    }
  }
  const days = Math.floor(localMinute / 1440);
  if (days !== cachedDayNumber) {
    civilFromDays(days, scratch);
    if (scratch.year !== cachedYear) {
      cachedYear = scratch.year;
      cachedYearText = padYear(scratch.year);
    }
    cachedDayText = cachedYearText + (monthDays[scratch.month * 32 + scratch.day] as string);
    cachedDayNumber = days;
  }
  return cachedDayText + (timesOfDay[localMinute - days * 1440] as string);
}
