import { createRequire } from 'node:module';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  businessCalendarOf,
  calendarRuleOf,
} from '../../../functions/calendar/business-calendar.ts';
import type { CalendarDefinition } from '../../../functions/calendar/calendar-definition.ts';
import { dateHolidaysSource } from '../../../functions/calendar/date-holidays-data.ts';
import { useHolidaySource } from '../../../functions/calendar/holiday-source.ts';

useHolidaySource(dateHolidaysSource());

/** The package itself, asked the way its own README asks: is this instant in a holiday? */
const Holidays = createRequire(import.meta.url)('date-holidays') as new (
  ...args: unknown[]
) => { isHoliday(at: Date): { type: string; name: string }[] | false };

function definition(overrides: Partial<CalendarDefinition>): CalendarDefinition {
  return {
    name: 'test',
    timezone: 'Europe/Berlin',
    holidayTypes: ['public'],
    weekendDays: [0, 6],
    closedDays: [],
    closedRanges: [],
    ...overrides,
  };
}

/** Every local date of the years, `YYYY-MM-DD`. */
function datesOf(fromYear: number, toYear: number): string[] {
  const dates: string[] = [];
  for (let ms = Date.UTC(fromYear, 0, 1); ms < Date.UTC(toYear + 1, 0, 1); ms += 86_400_000) {
    dates.push(new Date(ms).toISOString().slice(0, 10));
  }
  return dates;
}

describe('businessCalendarOf, holidays', () => {
  it.each([
    ['DE-BE', 'Europe/Berlin'],
    ['US-NY', 'America/New_York'],
    ['GB-ENG', 'Europe/London'],
  ])(
    'closes exactly the days date-holidays calls public holidays of %s, 2024 to 2031',
    (code, zone) => {
      const calendar = businessCalendarOf(definition({ holidays: code, timezone: zone }));
      const reference = new Holidays(...code.split('-'), { types: ['public'], timezone: zone });
      const disagreements: string[] = [];
      for (const date of datesOf(2024, 2031)) {
        const noon = DateTime.fromISO(`${date}T12:00`, { zone }).toJSDate();
        const theirs = (reference.isHoliday(noon) || []).filter((h) => h.type === 'public');
        const ours = calendar.closedDayReason(date);
        if ((ours !== undefined) !== theirs.length > 0) disagreements.push(`${date}: ${ours}`);
      }
      expect(disagreements).toEqual([]);
    },
  );

  it('names a holiday and its code as the reason', () => {
    const calendar = businessCalendarOf(definition({ holidays: 'DE-BE' }));
    expect(calendar.closedDayReason('2026-12-25')).toBe('Christmas Day (DE-BE)');
    expect(calendar.closedDayReason('2026-03-08')).toBe("International Women's Day (DE-BE)");
    expect(calendar.closedDayReason('2026-12-23')).toBeUndefined();
  });

  it('joins two holidays on one date into one reason', () => {
    const calendar = businessCalendarOf(definition({ holidays: 'US-NY' }));
    expect(calendar.closedDayReason('2027-02-15')).toBe(
      "Susan B. Anthony Day / Washington's Birthday (US-NY)",
    );
  });

  it('finds a substitute day the data lists under the previous year', () => {
    // New Year's Day 2028 is a Saturday; New York observes it on Friday 2027-12-31.
    const calendar = businessCalendarOf(definition({ holidays: 'US-NY' }));
    expect(calendar.closedDayReason('2027-12-31')).toBe("New Year's Day (substitute day) (US-NY)");
  });

  it('closes bank holidays only when the calendar names the type', () => {
    const publicOnly = businessCalendarOf(definition({ holidays: 'DE-BE' }));
    const withBank = businessCalendarOf(
      definition({ holidays: 'DE-BE', holidayTypes: ['public', 'bank'] }),
    );
    expect(publicOnly.closedDayReason('2026-12-24')).toBeUndefined();
    expect(withBank.closedDayReason('2026-12-24')).toBe('Christmas Eve (DE-BE)');
    expect(withBank.closedDayReason('2026-12-31')).toBe("New Year's Eve (DE-BE)");
  });
});

describe('businessCalendarOf, the rest of the definition', () => {
  const berlin = definition({
    name: 'berlin-business',
    holidays: 'DE-BE',
    closedDays: [
      { date: '2026-12-25', reason: 'office party' },
      { date: '2026-12-23', reason: 'move' },
    ],
    closedRanges: [{ from: '2026-12-28T00:00', to: '2027-01-04T00:00', reason: 'year-end freeze' }],
  });

  it("gives a closed date's own reason, before a holiday on the same date", () => {
    const calendar = businessCalendarOf(berlin);
    expect(calendar.closedDayReason('2026-12-23')).toBe('move');
    expect(calendar.closedDayReason('2026-12-25')).toBe('office party');
  });

  it('passes name, zone, weekend days and closed ranges to the engine as written', () => {
    const calendar = businessCalendarOf(berlin);
    expect(calendar.name).toBe('berlin-business');
    expect(calendar.timezone).toBe('Europe/Berlin');
    expect(calendar.weekendDays).toEqual([0, 6]);
    expect(calendar.closedRanges).toEqual(berlin.closedRanges);
  });

  it('answers without holidays when the calendar names none', () => {
    const calendar = businessCalendarOf(definition({ closedDays: [] }));
    expect(calendar.closedDayReason('2026-12-25')).toBeUndefined();
  });

  it('builds one calendar per definition, and one rule per job calendar', () => {
    expect(businessCalendarOf(berlin)).toBe(businessCalendarOf(berlin));
    const jobCalendar = { definition: berlin, businessDay: -1 };
    const rule = calendarRuleOf(jobCalendar);
    expect(calendarRuleOf(jobCalendar)).toBe(rule);
    expect(rule).toEqual({ calendar: businessCalendarOf(berlin), businessDay: -1 });
    expect(calendarRuleOf({ definition: berlin, onClosed: 'following' })).toMatchObject({
      onClosed: 'following',
    });
  });
});
