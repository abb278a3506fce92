// The engine's calendar arithmetic (day numbers, weekdays, slot formatting) against Date.UTC,
// over the whole range the engine is used in and beyond.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  formatLocalMinute,
  weekdayOfDays,
} from '../../../functions/schedule/civil-calendar.ts';

describe('civil calendar', () => {
  it('agrees with Date.UTC on day numbers, weekdays and month lengths', () => {
    fc.assert(
      fc.property(fc.integer({ min: -800_000, max: 2_900_000 }), (days) => {
        const date = new Date(days * 86_400_000);
        const civil = civilFromDays(days, { year: 0, month: 0, day: 0 });
        expect(civil).toEqual({
          year: date.getUTCFullYear(),
          month: date.getUTCMonth() + 1,
          day: date.getUTCDate(),
        });
        expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days);
        expect(weekdayOfDays(days)).toBe(date.getUTCDay());
        // Day 0 of the next month is this month's last; setUTCFullYear, unlike Date.UTC, does
        // not read the years 0-99 as 1900-1999.
        const last = new Date(0);
        last.setUTCFullYear(civil.year, civil.month, 0);
        expect(daysInMonth(civil.year, civil.month)).toBe(last.getUTCDate());
      }),
      { numRuns: 3000 },
    );
  });

  it('formats a local minute as YYYY-MM-DDTHH:mm', () => {
    fc.assert(
      fc.property(fc.integer({ min: -30_000_000, max: 100_000_000 }), (minute) => {
        expect(formatLocalMinute(minute)).toBe(
          new Date(minute * 60_000).toISOString().slice(0, 16),
        );
      }),
      { numRuns: 3000 },
    );
    expect(formatLocalMinute(-1)).toBe('1969-12-31T23:59');
  });
});
