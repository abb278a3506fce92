// The lazy iterator and the two eager entry points agree, windows tile without loss or
// double counting, and runs stay strictly increasing across years of transitions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  iterateOccurrences,
  nextOccurrences,
  type Occurrence,
  occurrencesBetween,
  type ScheduleSpec,
} from '../../../functions/schedule/index.ts';

const iso = (list: Occurrence[]) => list.map((o) => `${o.at.toISOString()} ${o.nominal} ${o.dst}`);

function take(iterator: Iterator<Occurrence>, count: number): Occurrence[] {
  const out: Occurrence[] = [];
  for (let i = 0; i < count; i++) {
    const step = iterator.next();
    if (step.done) break;
    out.push(step.value);
  }
  return out;
}

const SPECS: ScheduleSpec[] = [
  { cron: '30 2 * * *', timezone: 'Europe/Berlin' },
  { cron: '*/20 * * * *', timezone: 'America/Havana' },
  { cron: '0 0 * * *', timezone: 'America/Santiago' },
  { cron: '45 1 * * 0', timezone: 'Europe/Dublin', dst: { gap: 'transition', overlap: 'both' } },
  { cron: '0 1-3 * * *', timezone: 'Antarctica/Troll' },
  { cron: '15 10 L * *', timezone: 'Australia/Sydney', dst: { overlap: 'last' } },
];

describe('iterateOccurrences', () => {
  it.each(SPECS)('yields what nextOccurrences returns ($cron in $timezone)', (spec) => {
    const after = new Date('2025-09-01T00:00:00Z');
    expect(iso(take(iterateOccurrences(spec, after), 400))).toEqual(
      iso(nextOccurrences(spec, after, 400)),
    );
  });

  it('is lazy: the first run of an every-minute schedule comes without computing the rest', () => {
    const runs = iterateOccurrences(
      { cron: '* * * * *', timezone: 'UTC' },
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(runs.next().value?.at.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    expect(runs.next().value?.at.toISOString()).toBe('2026-01-01T00:02:00.000Z');
  });

  it('validates the spec when called, before the first next()', () => {
    expect(() => iterateOccurrences({ cron: '61 * * * *', timezone: 'UTC' }, new Date(0))).toThrow(
      /minute/,
    );
  });
});

describe('iterators far apart in one zone', () => {
  it('share the zone table without mixing up offsets, in any order of calls', () => {
    const spec: ScheduleSpec = { cron: '30 1 * * *', timezone: 'America/New_York' };
    const late = new Date('2026-10-30T00:00:00Z');
    const early = new Date('1950-04-22T00:00:00Z');
    const fresh = [iso(nextOccurrences(spec, late, 4)), iso(nextOccurrences(spec, early, 4))];
    const a = iterateOccurrences(spec, late);
    const b = iterateOccurrences(spec, early);
    const c = iterateOccurrences(spec, new Date('2190-01-01T00:00:00Z'));
    const fromA: Occurrence[] = [];
    const fromB: Occurrence[] = [];
    for (let i = 0; i < 4; i++) {
      fromA.push(a.next().value as Occurrence);
      c.next();
      fromB.push(b.next().value as Occurrence);
    }
    expect([iso(fromA), iso(fromB)]).toEqual(fresh);
    // 2026-11-01 01:30 happens twice (first kept); on 1950-04-23 New York was still on EST.
    expect(fresh[0]?.[2]).toBe('2026-11-01T05:30:00.000Z 2026-11-01T01:30 overlap');
    expect(fresh[1]?.[1]).toBe('1950-04-23T06:30:00.000Z 1950-04-23T01:30 none');
  });
});

describe('runs over years of transitions', () => {
  it.each(SPECS)('are strictly increasing whole minutes ($cron in $timezone)', (spec) => {
    const list = nextOccurrences(spec, new Date('2019-01-01T00:00:00Z'), 3000);
    expect(list).toHaveLength(3000);
    for (let i = 0; i < list.length; i++) {
      const ms = list[i]?.at.getTime() as number;
      expect(ms % 60_000).toBe(0);
      if (i > 0) expect(ms).toBeGreaterThan(list[i - 1]?.at.getTime() as number);
    }
  });
});

describe('occurrencesBetween', () => {
  it('tiles: consecutive windows together give the runs of the whole window', () => {
    const start = Date.parse('2026-03-01T00:00:00Z');
    const spanMs = 70 * 86_400_000;
    fc.assert(
      fc.property(
        fc.constantFrom(...SPECS),
        fc.uniqueArray(fc.integer({ min: 1, max: spanMs - 1 }), { maxLength: 6 }),
        (spec, cuts) => {
          const edges = [
            start,
            ...cuts.map((c) => start + c).sort((a, b) => a - b),
            start + spanMs,
          ];
          const pieces: Occurrence[] = [];
          for (let i = 0; i + 1 < edges.length; i++) {
            pieces.push(
              ...occurrencesBetween(
                spec,
                new Date(edges[i] as number),
                new Date(edges[i + 1] as number),
              ),
            );
          }
          expect(iso(pieces)).toEqual(
            iso(occurrencesBetween(spec, new Date(start), new Date(start + spanMs))),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('is the prefix of nextOccurrences that ends at "to", with from < at <= to', () => {
    const spec = SPECS[1] as ScheduleSpec;
    const from = new Date('2026-03-08T03:00:00Z');
    const to = new Date('2026-03-08T09:20:00Z');
    const window = occurrencesBetween(spec, from, to);
    const ahead = nextOccurrences(spec, from, window.length + 1);
    expect(iso(window)).toEqual(iso(ahead.slice(0, window.length)));
    expect(window.at(-1)?.at.getTime()).toBeLessThanOrEqual(to.getTime());
    expect(ahead.at(-1)?.at.getTime()).toBeGreaterThan(to.getTime());
    expect(window[0]?.at.getTime()).toBeGreaterThan(from.getTime());
  });
});
