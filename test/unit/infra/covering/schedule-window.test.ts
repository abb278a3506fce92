import { describe, expect, it } from 'vitest';
import { oneShotSchedule } from '#jobs/one-shot.ts';
import { coveringDetails, coveringSchedule } from '../../../../infra/covering/covering-cron.ts';
import {
  START_DATE_MARGIN_MS,
  scheduleWindow,
} from '../../../../infra/covering/schedule-window.ts';
import { makeJob } from '../../../support/jobs.ts';

const SYNTH = new Date('2026-11-29T00:00:00.000Z');

function atJob(
  at: string,
  timezone: string,
  dst?: { gap?: 'skip' | 'shift' | 'transition'; overlap?: 'first' | 'last' },
) {
  return makeJob({ id: `at-${at}`, timezone, at, ...oneShotSchedule(at), ...(dst ? { dst } : {}) });
}

describe('scheduleWindow', () => {
  it('makes a future from and until the StartDate and EndDate', () => {
    const job = makeJob({
      id: 'b',
      from: '2027-01-01T05:00:00.000Z',
      until: '2028-01-01T05:00:00.000Z',
    });
    expect(scheduleWindow(job, SYNTH)).toEqual({
      startDate: '2027-01-01T05:00:00.000Z',
      endDate: '2028-01-01T05:00:00.000Z',
      ended: false,
    });
  });

  it('gives no StartDate for a from less than the margin after synth (Scheduler refuses one 5 minutes past)', () => {
    const soon = new Date(SYNTH.getTime() + START_DATE_MARGIN_MS).toISOString();
    const later = new Date(SYNTH.getTime() + START_DATE_MARGIN_MS + 60_000).toISOString();
    expect(scheduleWindow(makeJob({ id: 'p', from: '2026-01-01T00:00:00.000Z' }), SYNTH)).toEqual({
      ended: false,
    });
    expect(scheduleWindow(makeJob({ id: 's', from: soon }), SYNTH)).toEqual({ ended: false });
    expect(scheduleWindow(makeJob({ id: 'l', from: later }), SYNTH)).toEqual({
      startDate: later,
      ended: false,
    });
  });

  it('ends a job whose until is at or before synth, with no EndDate', () => {
    expect(scheduleWindow(makeJob({ id: 'e', until: SYNTH.toISOString() }), SYNTH)).toEqual({
      ended: true,
    });
  });

  it('gives an at job no bounds (Scheduler ignores them on one-time schedules), ended once its run passed', () => {
    expect(scheduleWindow(atJob('2026-12-24T18:00', 'Europe/Berlin'), SYNTH)).toEqual({
      ended: false,
    });
    expect(scheduleWindow(atJob('2026-11-28T18:00', 'Europe/Berlin'), SYNTH)).toEqual({
      ended: true,
    });
  });
});

describe('the covering of an at job', () => {
  it.each([
    ['2026-12-24T18:00', 'Europe/Berlin', undefined, 'at(2026-12-24T17:00:00)', '0 17 24 12 *'],
    ['2027-03-28T02:30', 'Europe/Berlin', undefined, 'at(2027-03-28T01:30:00)', '30 1 28 3 *'],
    [
      '2027-03-28T02:30',
      'Europe/Berlin',
      { gap: 'transition' as const },
      'at(2027-03-28T01:00:00)',
      '0 1 28 3 *',
    ],
    ['2027-10-31T02:30', 'Europe/Berlin', undefined, 'at(2027-10-31T00:30:00)', '30 0 31 10 *'],
    [
      '2027-10-31T02:30',
      'Europe/Berlin',
      { overlap: 'last' as const },
      'at(2027-10-31T01:30:00)',
      '30 1 31 10 *',
    ],
    [
      '2027-01-01T09:00',
      'Pacific/Kiritimati',
      undefined,
      'at(2026-12-31T19:00:00)',
      '0 19 31 12 *',
    ],
  ])('runs %s in %s (dst %o) at %s', (at, zone, dst, expression, cron) => {
    const covering = coveringSchedule(atJob(at, zone, dst), SYNTH);
    expect(covering).toEqual({
      cron,
      awsExpression: expression,
      ticksPerRun: 1,
      covers: 'job-dst-policy',
      window: { ended: false },
    });
  });

  it('counts one tick for its one run', () => {
    const details = coveringDetails(atJob('2026-12-24T18:00', 'Europe/Berlin'), SYNTH);
    expect([details.ticks, details.runs, details.countedMs]).toEqual([
      1,
      1,
      Date.parse('2026-12-24T17:00:00Z') - SYNTH.getTime(),
    ]);
  });

  it('keeps the recurring covering of a bounded job and adds its window', () => {
    const plain = makeJob({ id: 'w', schedule: '0 9 * * *' });
    const bounded = { ...plain, until: '2028-01-01T00:00:00.000Z' };
    const { window, ...rest } = coveringSchedule(bounded, SYNTH);
    expect(rest).toEqual(coveringSchedule(plain, SYNTH));
    expect(window).toEqual({ endDate: '2028-01-01T00:00:00.000Z', ended: false });
  });
});
