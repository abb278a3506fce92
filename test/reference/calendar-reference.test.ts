// The engine's calendar runs held against the independent reference (calendar-reference.ts):
// random schedules, DST policies, conventions, businessDay rules, closed days, closed ranges
// and bounds, in windows around DST nights, month ends, holidays and a leap day, with holidays
// of DE-BE, US-NY, GB-ENG and AU-NSW from date-holidays. Seeded, so a failure replays.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { calendarCases, checkAgainstReference } from './calendar-cases.ts';

describe('calendar runs against the minute-by-minute reference', () => {
  it('agree on runs, moved runs and skipped runs for random calendars, conventions and bounds', () => {
    fc.assert(fc.property(calendarCases, checkAgainstReference), { seed: 18_2026, numRuns: 120 });
  }, 300_000);
});
