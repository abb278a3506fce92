/**
 * A business calendar's year as `zonecron calendar` shows it: its closed days with reasons
 * (weekends summarised), its closed ranges, and each month's first and last business day, so a
 * person can hold it against the company's own holiday list.
 */

import { DateTime } from 'luxon';
import {
  type BusinessCalendar,
  businessDaysOfMonth,
  type ClosedRange,
} from '../../functions/schedule/index.ts';
import { plainTable, wrap } from './table.ts';

const WEEKDAY_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** A closed date of the year that is not closed by its weekday alone. */
export interface ClosedDate {
  readonly date: string;
  readonly reason: string;
  /** Whether the date is a weekend day of the calendar as well. */
  readonly weekend: boolean;
}

/** A closed range that reaches into the year, with the whole local dates of the year it closes. */
export interface YearRange extends ClosedRange {
  readonly closedDates: number;
}

/** One month's business days: first, last and how many; none when every day is closed. */
export interface MonthBusinessDays {
  readonly month: number;
  readonly first: string | null;
  readonly last: string | null;
  readonly count: number;
}

/** What `zonecron calendar` reports for one year. */
export interface CalendarYear {
  readonly year: number;
  /** Weekend days, 0 (Sunday) to 6, and how many dates of the year they close. */
  readonly weekend: { readonly days: readonly number[]; readonly dates: number };
  readonly closedDates: readonly ClosedDate[];
  readonly ranges: readonly YearRange[];
  readonly months: readonly MonthBusinessDays[];
}

function datesOfYear(year: number): string[] {
  const dates: string[] = [];
  for (let d = DateTime.utc(year, 1, 1); d.year === year; d = d.plus({ days: 1 })) {
    dates.push(d.toISODate() as string);
  }
  return dates;
}

function weekdayOf(date: string): number {
  return DateTime.fromISO(date, { zone: 'UTC' }).weekday % 7;
}

/**
 * The year of a calendar: closed dates with their own reason (holidays, `closed:` dates),
 * closed ranges, weekend days counted, business days per month.
 *
 * @example
 * calendarYear(berlinBusiness, 2026).months[11]
 * //=> { month: 12, first: '2026-12-01', last: '2026-12-23', count: 16 }
 */
export function calendarYear(calendar: BusinessCalendar, year: number): CalendarYear {
  const weekendDays = new Set(calendar.weekendDays);
  const closedDates: ClosedDate[] = [];
  let weekendDates = 0;
  for (const date of datesOfYear(year)) {
    const weekend = weekendDays.has(weekdayOf(date));
    if (weekend) weekendDates += 1;
    const reason = calendar.closedDayReason(date);
    if (reason !== undefined) closedDates.push({ date, reason, weekend });
  }
  const ranges = calendar.closedRanges
    .filter((r) => r.from < `${year + 1}-01-01T00:00` && r.to > `${year}-01-01T00:00`)
    .map((r) => ({ ...r, closedDates: rangeDates(r, year) }));
  const months = Array.from({ length: 12 }, (_, i) => {
    const days = businessDaysOfMonth(calendar, year, i + 1);
    return { month: i + 1, first: days[0] ?? null, last: days.at(-1) ?? null, count: days.length };
  });
  return {
    year,
    weekend: {
      days: [...weekendDays].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7)),
      dates: weekendDates,
    },
    closedDates,
    ranges,
    months,
  };
}

/** How many local dates of the year a range covers from midnight to midnight. */
function rangeDates(range: ClosedRange, year: number): number {
  return datesOfYear(year).filter((date) => {
    const next = DateTime.fromISO(date, { zone: 'UTC' }).plus({ days: 1 }).toISODate() as string;
    return range.from <= `${date}T00:00` && range.to >= `${next}T00:00`;
  }).length;
}

function dayText(date: string | null): string {
  return date === null ? '—' : `${WEEKDAY_SHORT[weekdayOf(date)]} ${date}`;
}

/**
 * The year in lines of at most 80 columns: weekends summarised, the closed dates, the ranges,
 * then a table of the months.
 *
 * @example
 * calendarYearLines(year)[0] //=> 'weekends: Sat, Sun — 104 dates of 2026, not listed'
 */
export function calendarYearLines(report: CalendarYear): string[] {
  const out: string[] = [];
  const weekend = report.weekend.days.map((d) => WEEKDAY_SHORT[d]).join(', ');
  out.push(
    report.weekend.days.length === 0
      ? 'weekends: none'
      : `weekends: ${weekend} — ${report.weekend.dates} dates of ${report.year}, not listed`,
  );
  out.push('', `closed days of ${report.year} (${report.closedDates.length}):`);
  if (report.closedDates.length === 0) out.push('  none');
  for (const c of report.closedDates) {
    out.push(
      wrap(`${dayText(c.date)}  ${c.reason}${c.weekend ? ' (a weekend day too)' : ''}`, '  '),
    );
  }
  out.push('', `closed ranges reaching into ${report.year} (${report.ranges.length}):`);
  if (report.ranges.length === 0) out.push('  none');
  for (const r of report.ranges) {
    const whole = r.closedDates === 1 ? '1 whole date' : `${r.closedDates} whole dates`;
    out.push(wrap(`${r.from} to ${r.to}  ${r.reason} (closes ${whole} of ${report.year})`, '  '));
  }
  out.push('', `business days of ${report.year}:`);
  const rows = report.months.map((m) => [
    DateTime.utc(report.year, m.month, 1).setLocale('en-US').toFormat('LLLL'),
    dayText(m.first),
    dayText(m.last),
    String(m.count),
  ]);
  const table = plainTable(['month', 'first', 'last', 'days'], rows).split('\n');
  out.push(...table.map((l) => `  ${l}`));
  return out;
}
