// Day matching in UTC (no DST involved): L, LW, nW, dL, d#k and the Vixie rule, each against
// calendar facts checked by hand (2026-01-01 is a Thursday).
import { describe, expect, it } from 'vitest';
import {
  nextOccurrences,
  occurrencesBetween,
  parseCron,
} from '../../../functions/schedule/index.ts';

const AFTER = new Date('2026-01-01T00:00:00Z');

function next(cron: string, count: number, after = AFTER): string[] {
  return nextOccurrences({ cron, timezone: 'UTC' }, after, count).map((o) => o.at.toISOString());
}

const at = (dates: string[], time = '12:00') => dates.map((d) => `${d}T${time}:00.000Z`);

describe('day-of-month extensions', () => {
  it('runs L on the last day of each month, the 29th of February in a leap year', () => {
    expect(next('0 12 L * *', 4)).toEqual(
      at(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']),
    );
    expect(next('0 12 L 2 *', 3)).toEqual(at(['2026-02-28', '2027-02-28', '2028-02-29']));
  });

  it('runs LW on the last weekday, stepping back from a weekend', () => {
    // Jan 31 is a Saturday, Feb 28 a Saturday, Mar 31 a Tuesday, May 31 a Sunday.
    expect(next('0 12 LW * *', 5)).toEqual(
      at(['2026-01-30', '2026-02-27', '2026-03-31', '2026-04-30', '2026-05-29']),
    );
  });

  it('runs nW on the nearest weekday inside the month', () => {
    // Feb 15 and Mar 15 are Sundays (-> Monday), Aug 15 is a Saturday (-> Friday).
    expect(next('0 12 15W 2,3,8 *', 3)).toEqual(at(['2026-02-16', '2026-03-16', '2026-08-14']));
    // Aug 1 is a Saturday: the Friday before is in July, so the Monday after.
    expect(next('0 12 1W 8 *', 1)).toEqual(at(['2026-08-03']));
    // May 31 is a Sunday: the Monday after is in June, so the Friday before.
    expect(next('0 12 31W 5 *', 1)).toEqual(at(['2026-05-29']));
  });

  it('never runs nW in a month without day n', () => {
    expect(next('0 12 30W 1-3 *', 3)).toEqual(at(['2026-01-30', '2026-03-30', '2027-01-29']));
  });
});

describe('day-of-week extensions', () => {
  it('runs dL on the last such weekday of the month', () => {
    expect(next('0 12 * * 5L', 3)).toEqual(at(['2026-01-30', '2026-02-27', '2026-03-27']));
    expect(next('0 12 * * FRIL', 1)).toEqual(at(['2026-01-30']));
  });

  it('runs d#k on the k-th such weekday, skipping months without one', () => {
    expect(next('0 12 * * MON#2', 2)).toEqual(at(['2026-01-12', '2026-02-09']));
    // The first fifth Monday of 2026 is March 30.
    expect(next('0 12 * * 1#5', 1)).toEqual(at(['2026-03-30']));
  });

  it('terminates on rare combinations: a fifth Friday in February is a Friday the 29th', () => {
    expect(next('0 0 * 2 5#5', 3)).toEqual(at(['2036-02-29', '2064-02-29', '2092-02-29'], '00:00'));
  });
});

describe('the Vixie rule', () => {
  it('runs "0 0 13 * FRI" on the 13th or any Friday', () => {
    expect(next('0 0 13 * FRI', 4)).toEqual(
      at(['2026-01-02', '2026-01-09', '2026-01-13', '2026-01-16'], '00:00'),
    );
  });

  it('runs "0 0 */2 * 1" only on odd days that are Mondays', () => {
    expect(next('0 0 */2 * 1', 4)).toEqual(
      at(['2026-01-05', '2026-01-19', '2026-02-09', '2026-02-23'], '00:00'),
    );
  });

  it('runs "0 0 L * 5L" on the last day or the last Friday', () => {
    expect(next('0 0 L * 5L', 4)).toEqual(
      at(['2026-01-30', '2026-01-31', '2026-02-27', '2026-02-28'], '00:00'),
    );
  });
});

describe('times within a day', () => {
  it('combines hour and minute lists and ranges, in order', () => {
    expect(next('10,40 9-10 * * *', 5)).toEqual([
      '2026-01-01T09:10:00.000Z',
      '2026-01-01T09:40:00.000Z',
      '2026-01-01T10:10:00.000Z',
      '2026-01-01T10:40:00.000Z',
      '2026-01-02T09:10:00.000Z',
    ]);
  });

  it('counts "after" strictly and to the minute', () => {
    expect(next('30 2 * * *', 1, new Date('2026-11-05T02:29:59.999Z'))).toEqual([
      '2026-11-05T02:30:00.000Z',
    ]);
    expect(next('30 2 * * *', 1, new Date('2026-11-05T02:30:00.000Z'))).toEqual([
      '2026-11-06T02:30:00.000Z',
    ]);
    expect(next('30 2 * * *', 1, new Date('2026-11-05T02:30:59.999Z'))).toEqual([
      '2026-11-06T02:30:00.000Z',
    ]);
  });

  it('counts every minute of a leap day exactly once', () => {
    const runs = occurrencesBetween(
      { cron: '* * 29 2 *', timezone: 'UTC' },
      new Date('2027-01-01T00:00:00Z'),
      new Date('2028-12-31T23:59:00Z'),
    );
    expect(runs).toHaveLength(1440);
    expect(runs[0]?.at.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(runs.at(-1)?.at.toISOString()).toBe('2028-02-29T23:59:00.000Z');
    expect(new Set(runs.map((r) => r.nominal)).size).toBe(1440);
  });
});

describe('H, one expression shared by several jobs', () => {
  it('runs each job at its own minute, as parseCron spreads it, one after the other', () => {
    const minutes = ['a', 'b', 'a', 'c', 'b'].map((jobId) => {
      const [run] = nextOccurrences({ cron: 'H 9 * * *', timezone: 'UTC', jobId }, AFTER, 1);
      return [jobId, run?.at.getUTCMinutes()];
    });
    const spread = (jobId: string) => parseCron('H 9 * * *', jobId).minutes[0];
    expect(new Set(minutes.map(([, minute]) => minute)).size).toBe(3);
    expect(minutes).toEqual(['a', 'b', 'a', 'c', 'b'].map((jobId) => [jobId, spread(jobId)]));
  });
});
