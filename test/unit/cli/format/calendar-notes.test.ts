import { describe, expect, it } from 'vitest';
import { calendarEffects, movedNote, skippedNote } from '../../../../cli/format/calendar-notes.ts';
import { calendarYear } from '../../../../cli/format/calendar-year.ts';
import {
  type BusinessCalendar,
  type ClosedDayConvention,
  nextOccurrences,
} from '../../../../functions/schedule/index.ts';

/** Weekends closed, two named days, and a freeze over the turn of the year. */
const BERLIN: BusinessCalendar = {
  name: 'berlin',
  timezone: 'Europe/Berlin',
  weekendDays: [0, 6],
  closedDayReason: (d) => ({ '2026-12-25': 'Christmas Day', '2027-03-31': 'quarter close' })[d],
  closedRanges: [{ from: '2026-12-30T12:00', to: '2027-01-05T00:00', reason: 'year-end freeze' }],
};

function firstRun(cron: string, onClosed: ClosedDayConvention, after: string) {
  const spec = { cron, timezone: 'Europe/Berlin', calendar: { calendar: BERLIN, onClosed } };
  const [run] = nextOccurrences(spec, new Date(after), 1);
  if (run === undefined) throw new Error('no run');
  return run;
}

describe('movedNote', () => {
  it.each([
    [
      'following',
      '0 9 25 12 *',
      'Fri 2026-12-25 09:00 CET — closed: Christmas Day — runs Mon 2026-12-28 09:00 (following business day)',
    ],
    [
      'preceding',
      '0 9 25 12 *',
      'Fri 2026-12-25 09:00 CET — closed: Christmas Day — runs Thu 2026-12-24 09:00 (preceding business day)',
    ],
    [
      'modified-following',
      '0 9 31 3 *',
      'Wed 2027-03-31 09:00 CEST — closed: quarter close — runs Tue 2027-03-30 09:00 (preceding business day, modified-following)',
    ],
  ] as const)('says where %s moved a run and which way it turned', (onClosed, cron, note) => {
    const run = firstRun(cron, onClosed, '2026-12-01T00:00Z');
    expect(movedNote(run, 'Europe/Berlin')).toBe(note);
  });

  it('is undefined for a run no calendar moved', () => {
    const run = firstRun('0 9 23 12 *', 'following', '2026-12-01T00:00Z');
    expect(movedNote(run, 'Europe/Berlin')).toBeUndefined();
  });
});

describe('skippedNote', () => {
  it('says closed: for a calendar reason and the bound itself for from and until', () => {
    const at = new Date('2026-12-25T08:00:00Z');
    const base = { at, nominal: '2026-12-25T09:00' };
    expect(
      skippedNote({ ...base, reason: 'calendar', detail: 'Christmas Day' }, 'Europe/Berlin'),
    ).toBe('Fri 2026-12-25 09:00 CET — closed: Christmas Day — skipped');
    expect(
      skippedNote({ ...base, reason: 'until', detail: 'at or after until (x)' }, 'Europe/Berlin'),
    ).toBe('Fri 2026-12-25 09:00 CET — at or after until (x) — skipped');
  });
});

describe('calendarEffects', () => {
  it('lists closed-day and range skips by time and counts weekend skips by weekday', () => {
    const spec = { cron: '0 9 * * *', timezone: 'Europe/Berlin', calendar: { calendar: BERLIN } };
    const effects = calendarEffects(
      spec,
      new Date('2026-12-21T00:00Z'),
      new Date('2027-01-11T00:00Z'),
    );
    expect(effects.lines).toEqual([
      'Fri 2026-12-25 09:00 CET — closed: Christmas Day — skipped',
      'Thu 2026-12-31 09:00 CET — closed: year-end freeze — skipped',
      'Fri 2027-01-01 09:00 CET — closed: year-end freeze — skipped',
      'Sat 2027-01-02 09:00 CET — closed: year-end freeze — skipped',
      'Sun 2027-01-03 09:00 CET — closed: year-end freeze — skipped',
      'Mon 2027-01-04 09:00 CET — closed: year-end freeze — skipped',
    ]);
    expect(Object.fromEntries(effects.weekendSkips)).toEqual({ Saturday: 2, Sunday: 2 });
  });
});

describe('calendarYear', () => {
  it('counts the whole dates a range closes in each year it reaches, and lists weekends Monday first', () => {
    expect(calendarYear(BERLIN, 2026).ranges.map((r) => r.closedDates)).toEqual([1]);
    expect(calendarYear(BERLIN, 2027).ranges.map((r) => r.closedDates)).toEqual([4]);
    expect(calendarYear(BERLIN, 2028).ranges).toEqual([]);
    expect(calendarYear(BERLIN, 2026).weekend).toEqual({ days: [6, 0], dates: 104 });
  });

  it('gives a month with no business day null first and last and a count of 0', () => {
    const closedAllMonth: BusinessCalendar = {
      ...BERLIN,
      closedRanges: [{ from: '2027-02-01T00:00', to: '2027-03-01T00:00', reason: 'shutdown' }],
    };
    expect(calendarYear(closedAllMonth, 2027).months[1]).toEqual({
      month: 2,
      first: null,
      last: null,
      count: 0,
    });
  });
});
