import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import {
  type CalendarSkips,
  calendarSkipLines,
  calendarSkipsJson,
  withoutItems,
} from '../../../../cli/format/calendar-skips.ts';

const plain = pc.createColors(false);
const skips: CalendarSkips = {
  source: 'deployed',
  calendar: 'berlin-business',
  runs: [
    {
      at: new Date('2026-12-26T05:00:00.000Z'),
      nominal: '2026-12-26T06:00',
      reason: 'calendar',
      detail: 'Saturday',
    },
    {
      at: new Date('2026-12-25T05:00:00.000Z'),
      nominal: '2026-12-25T06:00',
      reason: 'calendar',
      detail: 'Christmas Day',
    },
  ],
};

describe('calendarSkipsJson', () => {
  it('gives each run as decided skipped with reason calendar and its detail, marked computed', () => {
    expect(calendarSkipsJson(skips)).toEqual({
      computed: true,
      source: 'deployed',
      calendar: 'berlin-business',
      runs: [
        {
          at: '2026-12-26T05:00:00.000Z',
          nominal: '2026-12-26T06:00',
          status: 'skipped',
          reason: 'calendar',
          detail: 'Saturday',
        },
        {
          at: '2026-12-25T05:00:00.000Z',
          nominal: '2026-12-25T06:00',
          status: 'skipped',
          reason: 'calendar',
          detail: 'Christmas Day',
        },
      ],
    });
  });
});

describe('calendarSkipLines', () => {
  it('titles the rows with the count, the calendar and where they were computed from', () => {
    const lines = calendarSkipLines(skips, plain).join('\n').split('\n');
    expect(lines.slice(0, 2).join(' ')).toBe(
      '2 runs skipped by calendar berlin-business (decided; computed from the deployed definition, not in the ledger)',
    );
    expect(lines).toContain('2026-12-25 05:00  2026-12-25T06:00  skipped  calendar: Christmas Day');
  });

  it('prints only the title when the calendar skipped none', () => {
    expect(calendarSkipLines({ ...skips, runs: [] }, plain)).toHaveLength(1);
  });
});

describe('withoutItems', () => {
  it('leaves out the skip of an instant the ledger has an item for, and keeps the others', () => {
    const kept = withoutItems(skips, [{ at: '2026-12-25T05:00:00.000Z' }]);
    expect(kept.runs.map((r) => r.nominal)).toEqual(['2026-12-26T06:00']);
    expect(kept.calendar).toBe('berlin-business');
  });

  it('keeps every skip when no item is at one of their instants, even one in the same minute', () => {
    expect(withoutItems(skips, [{ at: '2026-12-25T05:00:30.000Z' }]).runs).toHaveLength(2);
  });
});
