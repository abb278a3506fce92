// Checks the minute-by-minute reference itself, since the property tests trust it: its matcher
// against hand-checked calendar facts, its slot walk against tz facts, and its runs against the
// hand-written DST case table.
import { describe, expect, it } from 'vitest';
import { calendarCases, dstCases, windowCases } from '../fixtures/dst-cases.ts';
import {
  compileCron,
  localSlots,
  matchesSomeDay,
  referenceOccurrences,
} from './minute-reference.ts';

function matchingDays(cron: string, year: number, month: number, upTo = 31): number[] {
  const m = compileCron(cron);
  const days: number[] = [];
  for (let day = 1; day <= upTo; day++) {
    const d = new Date(Date.UTC(year, month - 1, day));
    if (d.getUTCMonth() !== month - 1) break;
    if (m.matchesDay({ year, month, day })) days.push(day);
  }
  return days;
}

describe('reference matcher', () => {
  it.each(calendarCases)(
    '%s matches in %i-%i (days up to %i) exactly %j',
    (cron, y, m, upTo, days) => {
      expect(matchingDays(cron, y, m, upTo)).toEqual(days);
    },
  );

  it.each([
    ['0 0 30 2 *', false],
    ['0 0 31 4 *', false],
    ['0 0 31 4,6,9,11 *', false],
    ['0 0 29 2 *', true],
    ['0 0 31 4 1', true],
    ['0 0 * 2 1#5', true],
  ] as const)('knows whether %s matches some day: %s', (cron, some) => {
    expect(matchesSomeDay(compileCron(cron))).toBe(some);
  });

  it.each([
    ['*/15 * * * *', 'cadence'],
    ['0 0-23 * * *', 'cadence'],
    ['30 2 * * *', 'wall-clock'],
    ['0 */2 * * *', 'wall-clock'],
  ] as const)('classifies %s as %s', (cron, kind) => {
    expect(compileCron(cron).kind).toBe(kind);
  });
});

describe('reference slot walk', () => {
  it('finds the 60 missing and the 60 repeated slots of Berlin 2023', () => {
    const spring = [
      ...localSlots(
        'Europe/Berlin',
        Date.parse('2023-03-25T22:00Z'),
        Date.parse('2023-03-26T03:00Z'),
      ).values(),
    ];
    const gap = spring.filter((s) => s.instantsMs.length === 0);
    expect(gap).toHaveLength(60);
    expect(gap.every((s) => s.gap?.transitionMs === Date.parse('2023-03-26T01:00Z'))).toBe(true);
    expect(gap.every((s) => s.gap?.offsetBeforeMinutes === 60)).toBe(true);

    const autumn = [
      ...localSlots(
        'Europe/Berlin',
        Date.parse('2023-10-28T22:00Z'),
        Date.parse('2023-10-29T03:00Z'),
      ).values(),
    ];
    const repeated = autumn.filter((s) => s.instantsMs.length === 2);
    expect(repeated).toHaveLength(60);
    expect(autumn.filter((s) => s.instantsMs.length === 0)).toHaveLength(0);
  });
});

// The reference walks every minute: only the cases spanning a few days.
const shortCases = dstCases.filter((c) => {
  const last = c.expected[c.expected.length - 1]?.at ?? c.after;
  return Date.parse(last) - Date.parse(c.after) <= 8 * 86_400_000;
});

describe('reference runs agree with the hand-written DST cases', () => {
  it('covers most of the table', () => {
    expect(shortCases.length).toBeGreaterThan(dstCases.length - 5);
  });

  it.each(shortCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const last = c.expected[c.expected.length - 1]?.at ?? c.after;
    const runs = referenceOccurrences(
      { cron: c.cron, timezone: c.zone, ...(c.dst ? { dst: c.dst } : {}) },
      new Date(c.after),
      new Date(last),
    );
    expect(
      runs.map((r) => {
        const at = new Date(r.atMs).toISOString();
        const [only] = r.labels;
        return r.labels.length === 1 && only
          ? { at, nominal: only.nominal, dst: only.dst }
          : { at, nominalOneOf: r.labels.map((l) => l.nominal).sort() };
      }),
    ).toEqual(
      c.expected.map((e) =>
        e.nominalOneOf ? { at: e.at, nominalOneOf: [...e.nominalOneOf].sort() } : e,
      ),
    );
  });
});

describe('reference runs agree with the hand-written window cases', () => {
  it.each(windowCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const runs = referenceOccurrences(
      { cron: c.cron, timezone: c.zone, ...(c.dst ? { dst: c.dst } : {}) },
      new Date(c.from),
      new Date(c.to),
    );
    expect(runs.map((r) => new Date(r.atMs).toISOString())).toEqual(c.expected);
  });
});
