// The DST policies, their defaults by schedule kind, de-duplication of instants and the
// nominal/dst tags. Berlin 2026: clocks jump 02:00 -> 03:00 on 2026-03-29 at 01:00Z and go
// back 03:00 -> 02:00 on 2026-10-25 at 01:00Z. Expected instants are worked out by hand.
import { describe, expect, it } from 'vitest';
import {
  type GapPolicy,
  nextOccurrences,
  type Occurrence,
  type OverlapPolicy,
  occurrencesBetween,
  resolvePolicies,
  type ScheduleSpec,
  scheduleKind,
} from '../../../functions/schedule/index.ts';

const runs = (list: Occurrence[]) => list.map((o) => [o.at.toISOString(), o.nominal, o.dst]);
const berlin = (
  cron: string,
  dst?: { gap?: GapPolicy; overlap?: OverlapPolicy },
): ScheduleSpec => ({
  cron,
  timezone: 'Europe/Berlin',
  ...(dst ? { dst } : {}),
});
const SPRING_EVE = new Date('2026-03-28T12:00:00Z');
const AUTUMN_EVE = new Date('2026-10-24T12:00:00Z');

describe('gap policies', () => {
  it('runs a 02:30 job at 03:30 CEST when 02:30 does not exist (shift, the wall-clock default)', () => {
    expect(runs(nextOccurrences(berlin('30 2 * * *'), SPRING_EVE, 2))).toEqual([
      ['2026-03-29T01:30:00.000Z', '2026-03-29T02:30', 'gap'],
      ['2026-03-30T00:30:00.000Z', '2026-03-30T02:30', 'none'],
    ]);
  });

  it('runs a 02:30 job at the jump, 03:00 CEST, with transition', () => {
    expect(
      runs(nextOccurrences(berlin('30 2 * * *', { gap: 'transition' }), SPRING_EVE, 1)),
    ).toEqual([['2026-03-29T01:00:00.000Z', '2026-03-29T02:30', 'gap']]);
  });

  it('drops a 02:30 run that does not exist with skip', () => {
    expect(runs(nextOccurrences(berlin('30 2 * * *', { gap: 'skip' }), SPRING_EVE, 1))).toEqual([
      ['2026-03-30T00:30:00.000Z', '2026-03-30T02:30', 'none'],
    ]);
  });

  it('moves several missing slots to one transition run, named after the first', () => {
    expect(
      runs(nextOccurrences(berlin('15,45 2 * * *', { gap: 'transition' }), SPRING_EVE, 2)),
    ).toEqual([
      ['2026-03-29T01:00:00.000Z', '2026-03-29T02:15', 'gap'],
      ['2026-03-30T00:15:00.000Z', '2026-03-30T02:15', 'none'],
    ]);
  });

  it('shifts each missing slot by the jump, keeping their order', () => {
    expect(runs(nextOccurrences(berlin('15,45 2 * * *'), SPRING_EVE, 2))).toEqual([
      ['2026-03-29T01:15:00.000Z', '2026-03-29T02:15', 'gap'],
      ['2026-03-29T01:45:00.000Z', '2026-03-29T02:45', 'gap'],
    ]);
  });

  it('runs once where a shifted slot lands on a real one, and keeps the real slot', () => {
    const spec = berlin('*/15 * * * *', { gap: 'shift' });
    expect(
      runs(
        occurrencesBetween(
          spec,
          new Date('2026-03-29T00:30:00Z'),
          new Date('2026-03-29T01:30:00Z'),
        ),
      ),
    ).toEqual([
      ['2026-03-29T00:45:00.000Z', '2026-03-29T01:45', 'none'],
      ['2026-03-29T01:00:00.000Z', '2026-03-29T03:00', 'none'],
      ['2026-03-29T01:15:00.000Z', '2026-03-29T03:15', 'none'],
      ['2026-03-29T01:30:00.000Z', '2026-03-29T03:30', 'none'],
    ]);
    expect(runs(nextOccurrences(berlin('30 2,3 * * *'), SPRING_EVE, 2))).toEqual([
      ['2026-03-29T01:30:00.000Z', '2026-03-29T03:30', 'none'],
      ['2026-03-30T00:30:00.000Z', '2026-03-30T02:30', 'none'],
    ]);
  });

  it('runs once at the jump when the first real slot is also the transition instant', () => {
    expect(
      runs(
        nextOccurrences(
          berlin('*/15 * * * *', { gap: 'transition' }),
          new Date('2026-03-29T00:50:00Z'),
          2,
        ),
      ),
    ).toEqual([
      ['2026-03-29T01:00:00.000Z', '2026-03-29T03:00', 'none'],
      ['2026-03-29T01:15:00.000Z', '2026-03-29T03:15', 'none'],
    ]);
  });

  it('keeps a cadence through the gap by default: no run is added or doubled', () => {
    expect(
      runs(
        occurrencesBetween(
          berlin('*/30 * * * *'),
          new Date('2026-03-29T00:00:00Z'),
          new Date('2026-03-29T02:00:00Z'),
        ),
      ),
    ).toEqual([
      ['2026-03-29T00:30:00.000Z', '2026-03-29T01:30', 'none'],
      ['2026-03-29T01:00:00.000Z', '2026-03-29T03:00', 'none'],
      ['2026-03-29T01:30:00.000Z', '2026-03-29T03:30', 'none'],
      ['2026-03-29T02:00:00.000Z', '2026-03-29T04:00', 'none'],
    ]);
  });

  it('shifts by 30 minutes on Lord Howe Island (02:00 -> 02:30 on 2026-10-04)', () => {
    expect(
      runs(
        nextOccurrences(
          { cron: '15 2 * * *', timezone: 'Australia/Lord_Howe' },
          new Date('2026-10-03T00:00:00Z'),
          2,
        ),
      ),
    ).toEqual([
      ['2026-10-03T15:45:00.000Z', '2026-10-04T02:15', 'gap'],
      ['2026-10-04T15:15:00.000Z', '2026-10-05T02:15', 'none'],
    ]);
  });
});

describe('overlap policies', () => {
  it.each([
    ['first', [['2026-10-25T00:30:00.000Z', '2026-10-25T02:30', 'overlap']]],
    ['last', [['2026-10-25T01:30:00.000Z', '2026-10-25T02:30', 'overlap']]],
    [
      'both',
      [
        ['2026-10-25T00:30:00.000Z', '2026-10-25T02:30', 'overlap'],
        ['2026-10-25T01:30:00.000Z', '2026-10-25T02:30', 'overlap'],
      ],
    ],
  ] as const)('runs a 02:30 job on the repeated hour per overlap %s', (overlap, expected) => {
    const list = occurrencesBetween(
      berlin('30 2 * * *', { overlap }),
      AUTUMN_EVE,
      new Date('2026-10-26T00:00:00Z'),
    );
    expect(runs(list)).toEqual(expected);
  });

  it('keeps an hourly cadence through the repeated hour by default (both)', () => {
    expect(
      runs(
        occurrencesBetween(
          berlin('0 * * * *'),
          new Date('2026-10-24T23:00:00Z'),
          new Date('2026-10-25T03:00:00Z'),
        ),
      ),
    ).toEqual([
      ['2026-10-25T00:00:00.000Z', '2026-10-25T02:00', 'overlap'],
      ['2026-10-25T01:00:00.000Z', '2026-10-25T02:00', 'overlap'],
      ['2026-10-25T02:00:00.000Z', '2026-10-25T03:00', 'none'],
      ['2026-10-25T03:00:00.000Z', '2026-10-25T04:00', 'none'],
    ]);
  });

  it('runs New York 01:30 on 2026-11-01 at 05:30Z (first) or 06:30Z (last)', () => {
    const spec = (overlap: OverlapPolicy): ScheduleSpec => ({
      cron: '30 1 * * *',
      timezone: 'America/New_York',
      dst: { overlap },
    });
    const after = new Date('2026-11-01T00:00:00Z');
    expect(nextOccurrences(spec('first'), after, 1)[0]?.at.toISOString()).toBe(
      '2026-11-01T05:30:00.000Z',
    );
    expect(nextOccurrences(spec('last'), after, 1)[0]?.at.toISOString()).toBe(
      '2026-11-01T06:30:00.000Z',
    );
  });
});

describe('a day that never happened (Pacific/Apia, 2011-12-30)', () => {
  const apia = (cron: string, gap?: GapPolicy): ScheduleSpec => ({
    cron,
    timezone: 'Pacific/Apia',
    ...(gap ? { dst: { gap } } : {}),
  });
  const window = [new Date('2011-12-29T00:00:00Z'), new Date('2012-01-01T00:00:00Z')] as const;

  it.each([undefined, 'skip'] as const)(
    'runs a daily 09:00 job once across the skipped day (gap %s)',
    (gap) => {
      expect(runs(occurrencesBetween(apia('0 9 * * *', gap), ...window))).toEqual([
        ['2011-12-29T19:00:00.000Z', '2011-12-29T09:00', 'none'],
        ['2011-12-30T19:00:00.000Z', '2011-12-31T09:00', 'none'],
        ['2011-12-31T19:00:00.000Z', '2012-01-01T09:00', 'none'],
      ]);
    },
  );

  it('runs a daily midnight job once: the shifted 12-30 00:00 is the real 12-31 00:00', () => {
    expect(runs(occurrencesBetween(apia('0 0 * * *'), ...window))).toEqual([
      ['2011-12-29T10:00:00.000Z', '2011-12-29T00:00', 'none'],
      ['2011-12-30T10:00:00.000Z', '2011-12-31T00:00', 'none'],
      ['2011-12-31T10:00:00.000Z', '2012-01-01T00:00', 'none'],
    ]);
  });

  it('runs the missing 09:00 at the jump itself with transition, as the contract says', () => {
    expect(
      runs(
        occurrencesBetween(
          apia('0 9 * * *', 'transition'),
          new Date('2011-12-30T00:00:00Z'),
          new Date('2011-12-31T00:00:00Z'),
        ),
      ),
    ).toEqual([
      ['2011-12-30T10:00:00.000Z', '2011-12-30T09:00', 'gap'],
      ['2011-12-30T19:00:00.000Z', '2011-12-31T09:00', 'none'],
    ]);
  });
});

describe('kinds and defaults', () => {
  it.each([
    ['*/15 * * * *', 'cadence'],
    ['0 * * * *', 'cadence'],
    ['@hourly', 'cadence'],
    ['0 0-23 * * 1', 'cadence'],
    ['0 */2 * * *', 'wall-clock'],
    ['* 0-22 * * *', 'wall-clock'],
    ['30 2 * * *', 'wall-clock'],
    ['0 H * * *', 'wall-clock'],
  ] as const)('classifies %j as %s', (cron, kind) => {
    expect(scheduleKind({ ...berlin(cron), jobId: 'job' })).toBe(kind);
  });

  it('defaults a cadence to skip/both and a wall-clock schedule to shift/first', () => {
    expect(resolvePolicies(berlin('0 * * * *'))).toEqual({ gap: 'skip', overlap: 'both' });
    expect(resolvePolicies(berlin('30 2 * * *'))).toEqual({ gap: 'shift', overlap: 'first' });
  });

  it('lets dst override either default alone', () => {
    expect(resolvePolicies(berlin('0 * * * *', { overlap: 'first' }))).toEqual({
      gap: 'skip',
      overlap: 'first',
    });
    expect(resolvePolicies(berlin('30 2 * * *', { gap: 'transition' }))).toEqual({
      gap: 'transition',
      overlap: 'first',
    });
  });
});
