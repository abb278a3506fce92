import {
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  formatLocalMinute,
  weekdayOfDays,
} from './civil-calendar.ts';
import { InvalidArgumentError } from './errors.ts';
import type { ZoneTable, ZoneTables } from './time-zone.ts';
import type { BusinessCalendar, ClosedRange } from './types.ts';
import { firstInstantReading } from './zone-local.ts';
import { validateTimeZone } from './zone-name.ts';

/** The names of the weekdays, 0 (Sunday) to 6: the reason a weekend day is closed. */
export const WEEKDAY_NAMES = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;

/** How far a convention looks for a business day: a year, then the run is skipped. */
export const MAX_MOVE_DAYS = 366;

/** How many dates `CalendarDays` answers from its front cache (a power of two: three years). */
const RECENT_DAYS = 1024;
const RECENT_MASK = RECENT_DAYS - 1;

/** A closed range as instants: `[fromMinute, toMinute)` in UTC minutes. */
export interface RangeInstants {
  readonly fromMinute: number;
  readonly toMinute: number;
  readonly reason: string;
}

const LOCAL_MINUTE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** The local minute of `YYYY-MM-DDTHH:mm`, or NaN when it is not a valid date and time. */
export function parseLocalMinute(text: unknown): number {
  if (typeof text !== 'string') return Number.NaN;
  const match = LOCAL_MINUTE.exec(text);
  if (match === null) return Number.NaN;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return Number.NaN;
  if (hour > 23 || minute > 59) return Number.NaN;
  return daysFromCivil(year, month, day) * 1440 + hour * 60 + minute;
}

/** `YYYY-MM-DD` of a day number. */
export function formatDay(day: number): string {
  return formatLocalMinute(day * 1440).slice(0, 10);
}

/**
 * What the engine knows of one calendar under one engine's zone rules: which local dates are
 * closed and why, asked once per date (`closedDayReason` is pure), and its closed ranges as
 * instants.
 *
 * Day numbers are local dates of the calendar's zone, in days since 1970-01-01.
 */
export class CalendarDays {
  readonly calendar: BusinessCalendar;
  readonly zone: string;
  readonly table: ZoneTable;
  /** Closed ranges as instants, sorted by start. */
  readonly ranges: readonly RangeInstants[];
  private readonly weekend: readonly boolean[];
  private readonly reasons = new Map<number, string | null>();
  private readonly months = new Map<number, number[]>();
  /**
   * The answers for recent dates, by day number modulo `RECENT_DAYS`: a walk asks about each
   * date of its runs, and a look-up here costs less than one in `reasons`.
   */
  private readonly recentDays = new Float64Array(RECENT_DAYS).fill(Number.NaN);
  private readonly recentReasons: (string | undefined)[] = new Array(RECENT_DAYS).fill(undefined);
  /** UTC minutes `[freeFrom, freeTo)` that no closed range holds (see `rangeAt`). */
  private freeFrom = 0;
  private freeTo = 0;

  constructor(calendar: BusinessCalendar, tables: ZoneTables) {
    this.calendar = calendar;
    this.zone = validateTimeZone(calendar.timezone);
    this.table = tables.tableFor(this.zone);
    const weekend = [false, false, false, false, false, false, false];
    for (const day of calendar.weekendDays) weekend[day] = true;
    this.weekend = weekend;
    this.ranges = calendar.closedRanges
      .map((range) => ({
        fromMinute: firstInstantReading(this.table, parseLocalMinute(range.from)),
        toMinute: firstInstantReading(this.table, parseLocalMinute(range.to)),
        reason: range.reason,
      }))
      .filter((range) => range.fromMinute < range.toMinute)
      .sort((a, b) => a.fromMinute - b.fromMinute);
  }

  /** Whether every weekday is a weekend day: then no day is ever open. */
  get allWeekdaysClosed(): boolean {
    return this.weekend.every(Boolean);
  }

  /** Whether a weekday (0-6) is a weekend day of the calendar. */
  isWeekend(weekday: number): boolean {
    return this.weekend[weekday] === true;
  }

  /**
   * Why a local date is closed, or undefined when it is a business day: its own reason
   * (`closedDayReason`), then closed ranges covering the whole day, then its weekday.
   */
  closedReason(day: number): string | undefined {
    const slot = day & RECENT_MASK;
    if (this.recentDays[slot] === day) return this.recentReasons[slot];
    let cached = this.reasons.get(day);
    if (cached === undefined) {
      cached = this.computeReason(day) ?? null;
      if (this.reasons.size >= 100_000) this.reasons.clear();
      this.reasons.set(day, cached);
    }
    const reason = cached ?? undefined;
    this.recentDays[slot] = day;
    this.recentReasons[slot] = reason;
    return reason;
  }

  private computeReason(day: number): string | undefined {
    const own = this.calendar.closedDayReason(formatDay(day));
    if (own !== undefined) {
      if (typeof own !== 'string' || own === '') {
        throw new InvalidArgumentError(
          `invalid answer ${JSON.stringify(own)} of closedDayReason('${formatDay(day)}') of calendar '${this.calendar.name}' (allowed a non-empty string or undefined)`,
          'spec.calendar.calendar.closedDayReason',
          own,
        );
      }
      return own;
    }
    const range = this.rangeCoveringDay(day);
    if (range !== undefined) return range;
    const weekday = weekdayOfDays(day);
    return this.weekend[weekday] ? WEEKDAY_NAMES[weekday] : undefined;
  }

  /** The reason of the range holding the start of a day, when ranges cover the whole day. */
  private rangeCoveringDay(day: number): string | undefined {
    if (this.ranges.length === 0) return undefined;
    const start = firstInstantReading(this.table, day * 1440);
    const end = firstInstantReading(this.table, (day + 1) * 1440);
    const first = this.rangeAt(start);
    if (first === undefined) return undefined;
    let reached = first.toMinute;
    for (let grown = true; grown && reached < end; ) {
      grown = false;
      for (const range of this.ranges) {
        if (range.fromMinute <= reached && range.toMinute > reached) {
          reached = range.toMinute;
          grown = true;
        }
      }
    }
    return reached >= end ? first.reason : undefined;
  }

  /**
   * The closed range holding a UTC minute (the first listed of those that do), if any.
   *
   * A minute no range holds leaves `[minute, next range's start)` as a stretch known free, so
   * the runs of a walk between ranges are answered without looking at the ranges.
   */
  rangeAt(utcMinute: number): RangeInstants | undefined {
    if (utcMinute >= this.freeFrom && utcMinute < this.freeTo) return undefined;
    const ranges = this.ranges;
    let i = 0;
    for (; i < ranges.length; i++) {
      const range = ranges[i] as RangeInstants;
      if (range.fromMinute > utcMinute) break;
      if (utcMinute < range.toMinute) return range;
    }
    this.freeFrom = utcMinute;
    this.freeTo =
      i < ranges.length ? (ranges[i] as RangeInstants).fromMinute : Number.POSITIVE_INFINITY;
    return undefined;
  }

  /** The end of the closed stretch of ranges holding a UTC minute: where runs resume. */
  rangeEndFrom(utcMinute: number): number {
    let reached = utcMinute;
    for (let range = this.rangeAt(reached); range !== undefined; range = this.rangeAt(reached)) {
      reached = this.ranges
        .filter((r) => r.fromMinute <= reached && r.toMinute > reached)
        .reduce((end, r) => Math.max(end, r.toMinute), reached);
    }
    return reached;
  }

  /** The next business day after `day` within `MAX_MOVE_DAYS`, or NaN. */
  nextBusinessDay(day: number, limit = day + MAX_MOVE_DAYS): number {
    for (let d = day + 1; d <= limit; d++) if (this.closedReason(d) === undefined) return d;
    return Number.NaN;
  }

  /** The last business day before `day` within `MAX_MOVE_DAYS`, or NaN. */
  previousBusinessDay(day: number, limit = day - MAX_MOVE_DAYS): number {
    for (let d = day - 1; d >= limit; d--) if (this.closedReason(d) === undefined) return d;
    return Number.NaN;
  }

  /** The business days (day numbers) of a month, in order. */
  businessDaysOf(year: number, month: number): readonly number[] {
    const key = year * 12 + month - 1;
    let days = this.months.get(key);
    if (days === undefined) {
      days = [];
      const first = daysFromCivil(year, month, 1);
      const length = daysInMonth(year, month);
      for (let d = first; d < first + length; d++) {
        if (this.closedReason(d) === undefined) days.push(d);
      }
      if (this.months.size >= 10_000) this.months.clear();
      this.months.set(key, days);
    }
    return days;
  }

  /** The `n`th business day (1 the first, -1 the last) of the month holding `day`, or NaN. */
  nthBusinessDayOfMonthOf(day: number, n: number): number {
    const date = civilFromDays(day, { year: 0, month: 0, day: 0 });
    const days = this.businessDaysOf(date.year, date.month);
    const index = n > 0 ? n - 1 : days.length + n;
    return index >= 0 && index < days.length ? (days[index] as number) : Number.NaN;
  }
}

const calendarsByTables = new WeakMap<ZoneTables, WeakMap<BusinessCalendar, CalendarDays>>();

/** The calendar's days under one engine's tables, cached for as long as both live. */
export function calendarDaysFor(tables: ZoneTables, calendar: BusinessCalendar): CalendarDays {
  let byCalendar = calendarsByTables.get(tables);
  if (byCalendar === undefined) {
    byCalendar = new WeakMap();
    calendarsByTables.set(tables, byCalendar);
  }
  let days = byCalendar.get(calendar);
  if (days === undefined) {
    checkCalendar(calendar);
    days = new CalendarDays(calendar, tables);
    byCalendar.set(calendar, days);
  }
  return days;
}

/** Throws an `InvalidArgumentError` naming the field of a calendar that is not valid. */
export function checkCalendar(calendar: BusinessCalendar): void {
  const where = 'spec.calendar.calendar';
  if (typeof calendar !== 'object' || calendar === null) {
    throw new InvalidArgumentError(
      'invalid calendar (allowed an object with name, timezone, weekendDays, closedDayReason and closedRanges)',
      where,
      calendar,
    );
  }
  if (typeof calendar.name !== 'string' || calendar.name === '') {
    throw new InvalidArgumentError(
      'invalid calendar name (allowed a non-empty string)',
      `${where}.name`,
      calendar.name,
    );
  }
  const named = `of calendar '${calendar.name}'`;
  if (
    !Array.isArray(calendar.weekendDays) ||
    !calendar.weekendDays.every((d) => Number.isInteger(d) && d >= 0 && d <= 6)
  ) {
    throw new InvalidArgumentError(
      `invalid weekendDays ${JSON.stringify(calendar.weekendDays)} ${named} (allowed whole numbers 0 (Sunday) to 6)`,
      `${where}.weekendDays`,
      calendar.weekendDays,
    );
  }
  if (typeof calendar.closedDayReason !== 'function') {
    throw new InvalidArgumentError(
      `invalid closedDayReason ${named} (allowed a function of a YYYY-MM-DD date)`,
      `${where}.closedDayReason`,
      calendar.closedDayReason,
    );
  }
  if (!Array.isArray(calendar.closedRanges)) {
    throw new InvalidArgumentError(
      `invalid closedRanges ${named} (allowed an array of { from, to, reason })`,
      `${where}.closedRanges`,
      calendar.closedRanges,
    );
  }
  for (const [i, range] of calendar.closedRanges.entries()) {
    checkRange(range, `${where}.closedRanges[${i}]`, named);
  }
}

function checkRange(range: ClosedRange, where: string, named: string): void {
  const from = parseLocalMinute(range?.from);
  const to = parseLocalMinute(range?.to);
  if (Number.isNaN(from) || Number.isNaN(to)) {
    const bad = Number.isNaN(from) ? range?.from : range?.to;
    throw new InvalidArgumentError(
      `invalid closed range bound '${String(bad)}' ${named} (allowed a local date and time YYYY-MM-DDTHH:mm)`,
      where,
      range,
    );
  }
  if (from >= to) {
    throw new InvalidArgumentError(
      `closed range from '${range.from}' is not before to '${range.to}' ${named} (allowed from < to)`,
      where,
      range,
    );
  }
  if (typeof range.reason !== 'string' || range.reason === '') {
    throw new InvalidArgumentError(
      `invalid closed range reason ${named} (allowed a non-empty string)`,
      where,
      range,
    );
  }
}
