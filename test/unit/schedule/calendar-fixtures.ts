// Business calendars for the calendar tests, with holidays from the date-holidays package's own
// answers (getHolidays() of each year, in English; only type 'public' closes a day).
import Holidays from 'date-holidays';
import type { BusinessCalendar, ClosedRange } from '../../../functions/schedule/index.ts';
import type { RefCalendar } from '../../reference/calendar-reference.ts';

const holidaysByRegion = new Map<string, Holidays>();

/** A region code as date-holidays names it (`DE-BE`), its holidays in English. */
function holidaysOf(region: string): Holidays {
  const known = holidaysByRegion.get(region);
  if (known !== undefined) return known;
  const [country, state] = region.split('-') as [string, string | undefined];
  const holidays = state === undefined ? new Holidays(country) : new Holidays(country, state);
  holidays.setLanguages('en');
  holidaysByRegion.set(region, holidays);
  return holidays;
}

const byYearCache = new Map<string, Map<string, string>>();

/** The public holidays of a region in the years 2025-2030, by local date. */
function publicHolidays(region: string): Map<string, string> {
  let dates = byYearCache.get(region);
  if (dates === undefined) {
    dates = new Map();
    const holidays = holidaysOf(region);
    for (let year = 2025; year <= 2030; year++) {
      for (const holiday of holidays.getHolidays(year)) {
        const date = holiday.date.slice(0, 10);
        if (holiday.type === 'public' && !dates.has(date)) dates.set(date, holiday.name);
      }
    }
    byYearCache.set(region, dates);
  }
  return dates;
}

export interface CalendarFixture {
  name: string;
  timezone: string;
  region?: string;
  weekendDays?: number[];
  closedDays?: Record<string, string>;
  closedRanges?: ClosedRange[];
}

/** The engine's calendar: holidays from getHolidays(), then the extra closed days. */
export function engineCalendar(fixture: CalendarFixture): BusinessCalendar {
  const holidays =
    fixture.region === undefined ? new Map<string, string>() : publicHolidays(fixture.region);
  const extra = fixture.closedDays ?? {};
  return {
    name: fixture.name,
    timezone: fixture.timezone,
    weekendDays: fixture.weekendDays ?? [0, 6],
    closedDayReason: (date) => holidays.get(date) ?? extra[date],
    closedRanges: fixture.closedRanges ?? [],
  };
}

/**
 * The reference's calendar: the same data as `engineCalendar`, as a separate object (the
 * reference shares no cache with the engine).
 */
export function referenceCalendar(fixture: CalendarFixture): RefCalendar {
  const region = fixture.region;
  const extra = fixture.closedDays ?? {};
  return {
    name: fixture.name,
    timezone: fixture.timezone,
    weekendDays: fixture.weekendDays ?? [0, 6],
    closedDayReason: (date) =>
      (region === undefined ? undefined : publicHolidays(region).get(date)) ?? extra[date],
    closedRanges: fixture.closedRanges ?? [],
  };
}
