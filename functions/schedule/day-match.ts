import type { ParsedCron } from './types.ts';

/**
 * The days of one month that a parsed expression matches, as a bit mask (bit d-1 = day d).
 *
 * Which days match depends only on the month's length and the weekday of its 1st (`L`, `LW`,
 * `nW`, `dL` and `d#k` included), so there are just 28 distinct masks per expression; the
 * engine computes them once and looks them up while iterating.
 */
export function monthDayMask(cron: ParsedCron, length: number, firstWeekday: number): number {
  const dom = cron.daysOfMonth;
  const dow = cron.daysOfWeek;
  let domMask = 0;
  for (const day of dom.values) if (day <= length) domMask |= 1 << (day - 1);
  if (dom.last) domMask |= 1 << (length - 1);
  if (dom.lastWeekday) domMask |= 1 << (lastWeekdayOfMonth(length, firstWeekday) - 1);
  for (const day of dom.nearestWeekday) {
    const nearest = nearestWeekday(day, length, firstWeekday);
    if (nearest > 0) domMask |= 1 << (nearest - 1);
  }

  let dowMask = 0;
  for (let day = 1; day <= length; day++) {
    const weekday = (firstWeekday + day - 1) % 7;
    const nth = Math.ceil(day / 7);
    const matches =
      dow.values.includes(weekday) ||
      (day + 7 > length && dow.last.includes(weekday)) ||
      dow.nth.some((item) => item.weekday === weekday && item.nth === nth);
    if (matches) dowMask |= 1 << (day - 1);
  }
  return cron.dayRule === 'or' ? domMask | dowMask : domMask & dowMask;
}

function weekdayOf(day: number, firstWeekday: number): number {
  return (firstWeekday + day - 1) % 7;
}

function lastWeekdayOfMonth(length: number, firstWeekday: number): number {
  const weekday = weekdayOf(length, firstWeekday);
  if (weekday === 6) return length - 1;
  if (weekday === 0) return length - 2;
  return length;
}

/** The weekday nearest to `day` inside the month, or 0 when the month has no such day. */
function nearestWeekday(day: number, length: number, firstWeekday: number): number {
  if (day > length) return 0;
  const weekday = weekdayOf(day, firstWeekday);
  if (weekday === 6) return day - 1 >= 1 ? day - 1 : day + 2;
  if (weekday === 0) return day + 1 <= length ? day + 1 : day - 2;
  return day;
}

/** The lengths a month (1-12) can have. */
export function possibleMonthLengths(month: number): readonly number[] {
  if (month === 2) return [28, 29];
  return month === 4 || month === 6 || month === 9 || month === 11 ? [30] : [31];
}
