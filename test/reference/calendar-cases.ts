// Random cases for the calendar tests: a place and its holidays, a window near a DST night, a
// month end, a holiday or a leap day, a cron, DST policies, a convention or businessDay rule,
// closed days and closed ranges near the window, bounds, sometimes a calendar in another zone.
// With the engine's and the reference's side of each, and the runs shown alike for comparing.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { expect } from 'vitest';
import {
  type ClosedDayConvention,
  nextOccurrences,
  type Occurrence,
  occurrencesBetween,
  type ScheduleSpec,
  type SkippedRun,
  scheduleBetween,
} from '../../functions/schedule/index.ts';
import {
  type CalendarFixture,
  engineCalendar,
  referenceCalendar,
} from '../unit/schedule/calendar-fixtures.ts';
import { type RefRun, type RefSkip, referenceCalendarRuns } from './calendar-reference.ts';

const PLACES = [
  {
    zone: 'Europe/Berlin',
    region: 'DE-BE',
    centers: ['2026-03-29', '2026-10-25', '2026-12-24', '2027-03-28', '2026-05-31', '2028-02-29'],
  },
  {
    zone: 'America/New_York',
    region: 'US-NY',
    centers: ['2026-03-08', '2026-11-01', '2026-07-03', '2026-11-26', '2027-01-01', '2028-02-29'],
  },
  {
    zone: 'Europe/London',
    region: 'GB-ENG',
    centers: ['2026-03-29', '2026-10-25', '2027-12-27', '2026-08-31', '2028-02-29'],
  },
  {
    zone: 'Australia/Lord_Howe',
    region: 'AU-NSW',
    centers: ['2026-04-05', '2026-10-04', '2026-12-25', '2027-01-26', '2028-02-29'],
  },
] as const;
const CRONS = [
  '0 9 * * *',
  '30 2 * * *',
  '*/30 * * * *',
  '0 0 * * *',
  '45 23 * * 1-5',
  '15 1,2,3 * * *',
  '0 18 L * *',
  '0 9 1 * *',
  '0 12 * * 6',
  '0 */4 * * *',
  '30 1 * * *',
];
const CONVENTIONS: ClosedDayConvention[] = [
  'skip',
  'following',
  'modified-following',
  'preceding',
  'modified-preceding',
];
const DAY_MS = 86_400_000;

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** A local `YYYY-MM-DDTHH:mm`, some hours after midnight of a date. */
function localAt(date: string, hours: number): string {
  return new Date(Date.parse(`${date}T00:00Z`) + hours * 3_600_000).toISOString().slice(0, 16);
}

/** Random calendar cases: a place, a window near an interesting date, a rule, closed days and ranges, bounds. */
export const calendarCases = fc
  .record({
    place: fc.integer({ min: 0, max: PLACES.length - 1 }),
    center: fc.nat(),
    shiftDays: fc.integer({ min: -3, max: 3 }),
    spanHours: fc.integer({ min: 6, max: 96 }),
    cron: fc.constantFrom(...CRONS),
    convention: fc.constantFrom(...CONVENTIONS),
    businessDay: fc.option(fc.constantFrom(1, 2, -1, -2, 3), { nil: undefined }),
    gap: fc.option(fc.constantFrom('shift', 'transition', 'skip' as const), { nil: undefined }),
    overlap: fc.option(fc.constantFrom('first', 'last', 'both' as const), { nil: undefined }),
    otherZone: fc.option(fc.constantFrom('Europe/London', 'America/New_York', 'Asia/Tokyo'), {
      freq: 4,
      nil: undefined,
    }),
    closedDays: fc.array(fc.integer({ min: -6, max: 6 }), { maxLength: 3 }),
    ranges: fc.array(
      fc.record({
        startHours: fc.integer({ min: -72, max: 72 }),
        hours: fc.integer({ min: 1, max: 60 }),
      }),
      { maxLength: 2 },
    ),
    fromHours: fc.option(fc.integer({ min: -24, max: 72 }), { freq: 4, nil: undefined }),
    untilHours: fc.option(fc.integer({ min: 0, max: 120 }), { freq: 4, nil: undefined }),
  })
  .map((c) => {
    const place = PLACES[c.place] as (typeof PLACES)[number];
    const center = addDays(place.centers[c.center % place.centers.length] as string, c.shiftDays);
    const calendarZone = c.otherZone ?? place.zone;
    const fixture: CalendarFixture = {
      name: place.region,
      timezone: calendarZone,
      region: place.region,
      closedDays: Object.fromEntries(c.closedDays.map((d) => [addDays(center, d), 'closed day'])),
      closedRanges: c.ranges.map((r, i) => ({
        from: localAt(center, r.startHours),
        to: localAt(center, r.startHours + r.hours),
        reason: `range ${i}`,
      })),
    };
    const start =
      DateTime.fromISO(`${center}T00:00`, { zone: place.zone }).toMillis() - 12 * 3_600_000;
    const from = new Date(start);
    const to = new Date(start + c.spanHours * 3_600_000);
    const dayFieldsFree =
      !/ (L|1) \* /.test(c.cron) && !c.cron.endsWith('6') && !c.cron.endsWith('1-5');
    const businessDay = dayFieldsFree ? c.businessDay : undefined;
    const dst = {
      ...(c.gap === undefined ? {} : { gap: c.gap }),
      ...(c.overlap === undefined ? {} : { overlap: c.overlap }),
    };
    const bounds = {
      ...(c.fromHours === undefined ? {} : { from: new Date(start + c.fromHours * 3_600_000) }),
      ...(c.untilHours === undefined ? {} : { until: new Date(start + c.untilHours * 3_600_000) }),
    };
    return {
      zone: place.zone,
      cron: c.cron,
      fixture,
      convention: c.convention,
      businessDay,
      dst,
      bounds,
      from,
      to,
    };
  });

export type CalendarCase = typeof calendarCases extends fc.Arbitrary<infer T> ? T : never;

export function engineSpec(c: CalendarCase): ScheduleSpec {
  return {
    cron: c.cron,
    timezone: c.zone,
    dst: c.dst,
    calendar: {
      calendar: engineCalendar(c.fixture),
      onClosed: c.convention,
      ...(c.businessDay === undefined ? {} : { businessDay: c.businessDay }),
    },
    ...c.bounds,
  };
}

export function shownRun(o: Occurrence) {
  return {
    at: o.at.toISOString(),
    nominal: o.nominal,
    dst: o.dst,
    moved: o.moved && {
      nominalAt: o.moved.nominalAt.toISOString(),
      reason: o.moved.reason,
      convention: o.moved.convention,
    },
  };
}

export function shownRefRun(r: RefRun) {
  return {
    at: new Date(r.atMs).toISOString(),
    nominal: r.nominal,
    dst: r.dst,
    moved: r.moved && {
      nominalAt: new Date(r.moved.nominalAtMs).toISOString(),
      reason: r.moved.reason,
      convention: r.moved.convention,
    },
  };
}

export function shownSkip(s: SkippedRun) {
  const cause = s.reason === 'calendar' ? (s.detail.split(';')[0] as string) : s.reason;
  return { at: s.at.toISOString(), nominal: s.nominal, reason: s.reason, cause };
}

export function shownRefSkip(s: RefSkip) {
  return {
    at: new Date(s.atMs).toISOString(),
    nominal: s.nominal,
    reason: s.reason,
    cause: s.cause,
  };
}

/** Checks one case: the preview, occurrencesBetween and nextOccurrences against the reference. */
export function checkAgainstReference(c: CalendarCase): void {
  const spec = engineSpec(c);
  const expected = referenceCalendarRuns(
    {
      cron: c.cron,
      timezone: c.zone,
      dst: c.dst,
      calendar: {
        calendar: referenceCalendar(c.fixture),
        onClosed: c.convention,
        ...(c.businessDay === undefined ? {} : { businessDay: c.businessDay }),
      },
      ...c.bounds,
    },
    c.from,
    c.to,
    16,
  );
  const preview = scheduleBetween(spec, c.from, c.to);
  expect(preview.runs.map(shownRun)).toEqual(expected.runs.map(shownRefRun));
  expect(preview.skipped.map(shownSkip)).toEqual(expected.skipped.map(shownRefSkip));
  expect(occurrencesBetween(spec, c.from, c.to).map(shownRun)).toEqual(
    expected.runs.map(shownRefRun),
  );
  if (expected.runs.length > 0) {
    const count = Math.min(3, expected.runs.length);
    expect(nextOccurrences(spec, c.from, count).map(shownRun)).toEqual(
      expected.runs.slice(0, count).map(shownRefRun),
    );
  }
}
