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

  // Shrunk failures of the property above, kept as examples.
  it("agrees on a New York job on a Tokyo calendar whose run moves from New Year's Day (its new slot is read in the job's zone)", () => {
    checkAgainstReference({
      zone: 'America/New_York',
      cron: '0 18 L * *',
      fixture: {
        name: 'US-NY',
        timezone: 'Asia/Tokyo',
        region: 'US-NY',
        closedDays: {},
        closedRanges: [],
      },
      convention: 'following',
      businessDay: undefined,
      dst: {},
      bounds: {},
      from: new Date('2026-12-31T17:00:00.000Z'),
      to: new Date('2027-01-03T23:00:00.000Z'),
    });
  });

  it('agrees on a businessDay job whose first business day holds a closed range (runs the rule does not pick are not listed)', () => {
    checkAgainstReference({
      zone: 'Europe/Berlin',
      cron: '0 0 * * *',
      fixture: {
        name: 'DE-BE',
        timezone: 'Europe/Berlin',
        region: 'DE-BE',
        closedDays: {},
        closedRanges: [{ from: '2026-03-29T10:00', to: '2026-03-30T01:00', reason: 'range 0' }],
      },
      convention: 'skip',
      businessDay: 1,
      dst: {},
      bounds: {},
      from: new Date('2026-03-28T11:00:00.000Z'),
      to: new Date('2026-03-29T22:00:00.000Z'),
    });
  });
});
