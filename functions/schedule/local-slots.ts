import { type CivilDate, civilFromDays, daysInMonth, weekdayOfDays } from './civil-calendar.ts';
import { monthDayMask } from './day-match.ts';
import type { ParsedCron } from './types.ts';

/** No slot in the searched range. */
export const NO_SLOT = Number.POSITIVE_INFINITY;

/** 400 Gregorian years: the calendar (weekdays included) repeats after that. */
const MAX_MONTH_STEPS = 400 * 12 + 12;

/**
 * Finds matching local wall-clock slots by jumping field by field, never minute by minute.
 *
 * Slots are "local minutes": wall-clock time written as if it were UTC, in minutes since the
 * epoch. Lookup tables give the next allowed minute and hour in O(1); the matching days of a
 * month are one of 28 precomputed bit masks (by month length and weekday of the 1st), so a
 * search costs a few table lookups per month it crosses and is bounded by the 400-year cycle.
 */
export class LocalSlotMatcher {
  readonly allHours: boolean;
  private readonly nextMinute = new Int8Array(61);
  private readonly nextHour = new Int8Array(25);
  private readonly monthAllowed = new Uint8Array(13);
  private readonly dayMasks = new Int32Array(28);
  private readonly date: CivilDate = { year: 0, month: 0, day: 0 };
  /** The day of the last search and whether it matched, for the common "same day" case. */
  private cachedDay = Number.NaN;
  private cachedDayMatches = false;

  constructor(cron: ParsedCron) {
    fillNext(this.nextMinute, cron.minutes);
    fillNext(this.nextHour, cron.hours);
    for (const month of cron.months) this.monthAllowed[month] = 1;
    for (let length = 28; length <= 31; length++) {
      for (let weekday = 0; weekday < 7; weekday++) {
        this.dayMasks[(length - 28) * 7 + weekday] = monthDayMask(cron, length, weekday);
      }
    }
    this.allHours = cron.hours.length === 24;
  }

  /** The first matching slot in `[fromLocal, limitLocal)`, or `NO_SLOT`. */
  next(fromLocal: number, limitLocal: number): number {
    if (fromLocal >= limitLocal) return NO_SLOT;
    const dayNumber = Math.floor(fromLocal / 1440);
    const minuteOfDay = fromLocal - dayNumber * 1440;
    const hour = (minuteOfDay / 60) | 0;
    const minute = minuteOfDay - hour * 60;
    if (dayNumber === this.cachedDay && this.cachedDayMatches) {
      const slot = this.sameDaySlot(dayNumber, hour, minute);
      if (slot >= 0) return slot < limitLocal ? slot : NO_SLOT;
    }
    return this.searchDays(dayNumber, hour, minute, limitLocal);
  }

  /**
   * The fast path for a day known to match: the slot at `hour` and the next allowed minute of
   * it, or -1 when the hour itself is not allowed or has no allowed minute left.
   */
  private sameDaySlot(dayNumber: number, hour: number, minute: number): number {
    if (this.nextHour[hour] !== hour) return -1;
    const nextMinute = this.nextMinute[minute] as number;
    return nextMinute >= 0 ? dayNumber * 1440 + hour * 60 + nextMinute : -1;
  }

  /**
   * Walks from `hour:minute` of `dayNumber` to the first matching slot: day masks pick the day,
   * `firstTimeOfDay` the time; a day whose allowed times are all past moves on to the next day.
   */
  private searchDays(dayNumber: number, hour: number, minute: number, limitLocal: number): number {
    const date = civilFromDays(dayNumber, this.date);
    let monthSteps = 0;
    let length = daysInMonth(date.year, date.month);
    let mask = this.maskOf(date.month, dayNumber - date.day + 1, length);
    for (;;) {
      if (dayNumber * 1440 >= limitLocal) return NO_SLOT;
      const remaining = mask >>> (date.day - 1);
      if (remaining === 0) {
        // Nothing left this month: go to the 1st of the next one.
        if (++monthSteps > MAX_MONTH_STEPS) return NO_SLOT;
        dayNumber = this.toFirstOfNextMonth(dayNumber, length);
        length = daysInMonth(date.year, date.month);
        mask = this.maskOf(date.month, dayNumber, length);
        hour = 0;
        minute = 0;
        continue;
      }
      const skip = 31 - Math.clz32(remaining & -remaining);
      if (skip > 0) {
        dayNumber += skip;
        date.day += skip;
        hour = 0;
        minute = 0;
      }
      const minuteOfDay = this.firstTimeOfDay(hour, minute);
      if (minuteOfDay < 0) {
        dayNumber += 1;
        date.day += 1;
        hour = 0;
        minute = 0;
        if (date.day > length) mask = 0;
        continue;
      }
      this.cachedDay = dayNumber;
      this.cachedDayMatches = true;
      const slot = dayNumber * 1440 + minuteOfDay;
      return slot < limitLocal ? slot : NO_SLOT;
    }
  }

  /** The first allowed minute of the day at or after `hour:minute`, or -1 when none is left. */
  private firstTimeOfDay(hour: number, minute: number): number {
    for (;;) {
      const nextHour = this.nextHour[hour] as number;
      if (nextHour < 0) return -1;
      if (nextHour !== hour) {
        hour = nextHour;
        minute = 0;
      }
      const nextMinute = this.nextMinute[minute] as number;
      if (nextMinute >= 0) return hour * 60 + nextMinute;
      hour += 1;
      minute = 0;
    }
  }

  /** Moves `this.date` from day `dayNumber` of a `length`-day month to the 1st of the next; its day number. */
  private toFirstOfNextMonth(dayNumber: number, length: number): number {
    const date = this.date;
    const firstDayNumber = dayNumber + length - date.day + 1;
    if (date.month === 12) {
      date.year += 1;
      date.month = 1;
    } else date.month += 1;
    date.day = 1;
    return firstDayNumber;
  }

  /** The day mask of a month, or 0 when the month is not allowed. */
  private maskOf(month: number, firstDayNumber: number, length: number): number {
    if (this.monthAllowed[month] === 0) return 0;
    return this.dayMasks[(length - 28) * 7 + weekdayOfDays(firstDayNumber)] as number;
  }
}

function fillNext(table: Int8Array, values: readonly number[]): void {
  table.fill(-1);
  const present = new Set(values);
  let next = -1;
  for (let i = table.length - 2; i >= 0; i--) {
    if (present.has(i)) next = i;
    table[i] = next;
  }
}
