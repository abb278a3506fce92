import { describe, expect, it } from 'vitest';
import { previewRuns, skippedEntriesJson } from '../../../../cli/format/run-preview.ts';
import type { BusinessCalendar } from '../../../../functions/schedule/index.ts';

const weekendsOnly: BusinessCalendar = {
  name: 'office',
  timezone: 'Europe/Berlin',
  weekendDays: [0, 6],
  closedDayReason: () => undefined,
  closedRanges: [],
};

describe('skippedEntriesJson', () => {
  it('gives each slot a DST gap skips as an object with reason gap and no instant', () => {
    const spec = { cron: '0,30 1 * * *', timezone: 'Europe/London', dst: { gap: 'skip' as const } };
    const preview = previewRuns(spec, new Date('2027-03-27T12:00Z'), 1);
    expect(skippedEntriesJson(preview, spec.timezone)).toEqual({
      skipped: ['01:00', '01:30'].map((time) => ({
        at: null,
        local: null,
        nominal: `2027-03-28T${time}`,
        reason: 'gap',
        detail: `${time} does not exist on 2027-03-28 in Europe/London`,
        note: `${time} does not exist on 2027-03-28 in Europe/London — skipped (gap policy skip)`,
      })),
    });
    expect(preview.skipped).toEqual([
      '01:00, 01:30 do not exist on 2027-03-28 in Europe/London — skipped (gap policy skip)',
    ]);
  });

  it('puts calendar skips and DST slots in one list, in order of their local slots', () => {
    const spec = {
      cron: '30 2 * * *',
      timezone: 'Europe/Berlin',
      dst: { gap: 'skip' as const },
      calendar: { calendar: weekendsOnly },
    };
    const { skipped } = skippedEntriesJson(
      previewRuns(spec, new Date('2027-03-26T12:00Z'), 1),
      spec.timezone,
    );
    expect(skipped.map((s) => [s.nominal, s.reason, s.at])).toEqual([
      ['2027-03-27T02:30', 'calendar', '2027-03-27T01:30:00.000Z'],
      ['2027-03-28T02:30', 'gap', null],
    ]);
  });

  it('lists at most 100 runs a calendar removed and counts the rest in skippedNotListed', () => {
    const closedAll: BusinessCalendar = {
      ...weekendsOnly,
      weekendDays: [],
      closedRanges: [{ from: '2027-01-01T00:00', to: '2027-01-02T00:00', reason: 'closed' }],
    };
    const spec = {
      cron: '* * * * *',
      timezone: 'Europe/Berlin',
      calendar: { calendar: closedAll },
    };
    const json = skippedEntriesJson(
      previewRuns(spec, new Date('2026-12-31T22:59Z'), 1),
      spec.timezone,
    );
    expect(json.skipped).toHaveLength(100);
    expect(json.skippedNotListed).toBe(24 * 60 - 100);
    expect(json.skipped.every((s) => s.reason === 'calendar' && s.detail === 'closed')).toBe(true);
  });

  it('has nothing to list for a schedule without skip policy, calendar or bounds', () => {
    const spec = { cron: '30 2 * * *', timezone: 'Europe/Berlin' };
    expect(skippedEntriesJson(previewRuns(spec, new Date('2027-03-27T12:00Z'), 2), 'UTC')).toEqual({
      skipped: [],
    });
  });
});
