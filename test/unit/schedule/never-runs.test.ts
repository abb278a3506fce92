// "Never" as an answer: a schedule with no run left is answered by the search bound
// (functions/schedule/search-bound.ts), with its reason, and a schedule whose next run is years
// away is found by jumping to its candidate days. The runs are checked against the minute-by-
// minute reference in test/reference/, one window of a few days around each candidate day.
// How fast it is, is a benchmark's business (npm run bench), not a test's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CYCLE_DAYS,
  createEngine,
  type GapPolicy,
  INTL_RULES_REPEAT_FROM_MINUTE,
  intlZoneRules,
  iterateOccurrences,
  nextOccurrences,
  nextRun,
  occurrencesBetween,
  type ScheduleSpec,
  shiftedTransitionRules,
} from '../../../functions/schedule/index.ts';
import { compileCron, referenceOccurrences } from '../../reference/minute-reference.ts';

const DAY_MS = 86_400_000;
const AFTER = new Date('2026-12-02T00:00:00Z');
const iso = (d: Date) => d.toISOString();

const berlinLastSundayOfMarch: ScheduleSpec = {
  cron: '30 2 * 3 0L',
  timezone: 'Europe/Berlin',
  dst: { gap: 'skip' },
};

/**
 * The reference's first `count` runs after `after`: every local day the expression matches
 * (found day by day), then the reference's runs in a window of three days around it.
 */
function referenceRuns(spec: ScheduleSpec, after: Date, count: number, years: number): string[] {
  const matcher = compileCron(spec.cron);
  const found: number[] = [];
  const endMs = after.getTime() + years * 366 * DAY_MS;
  const startMs = Math.floor(after.getTime() / DAY_MS) * DAY_MS - 2 * DAY_MS;
  for (let dayMs = startMs; dayMs < endMs; dayMs += DAY_MS) {
    // A local day's runs are within a day of its UTC midnight, so later days add later runs.
    if (found.length >= count && (found[count - 1] as number) < dayMs - 2 * DAY_MS) break;
    const day = new Date(dayMs);
    const civil = {
      year: day.getUTCFullYear(),
      month: day.getUTCMonth() + 1,
      day: day.getUTCDate(),
    };
    if (!matcher.matchesDay(civil)) continue;
    const from = new Date(Math.max(after.getTime(), dayMs - 2 * DAY_MS));
    for (const run of referenceOccurrences(spec, from, new Date(dayMs + 2 * DAY_MS))) {
      if (!found.includes(run.atMs)) found.push(run.atMs);
    }
    found.sort((a, b) => a - b);
  }
  return found.slice(0, count).map((ms) => new Date(ms).toISOString());
}

describe('a schedule that never runs', () => {
  it('answers that every 02:30 on the last Sunday of March falls in the Berlin gap, skipped', () => {
    const answer = nextRun(berlinLastSundayOfMarch, AFTER);
    expect(answer.kind).toBe('never');
    if (answer.kind !== 'never') return;
    expect(answer.reason).toMatchObject({
      cause: 'gap-skip',
      timezone: 'Europe/Berlin',
      policies: { gap: 'skip', overlap: 'first' },
      firstSkipped: {
        nominal: '2027-03-28T02:30',
        transition: {
          at: new Date('2027-03-28T01:00:00Z'),
          offsetBeforeMinutes: 60,
          offsetAfterMinutes: 120,
        },
      },
    });
    // 2200 (where the platform's rules repeat) plus the three-day margin, plus 400 years.
    expect(iso(answer.reason.searchedUntil)).toBe('2600-01-04T00:00:00.000Z');
    expect(answer.reason.message).toBe(
      "every local time it matches falls in Europe/Berlin's spring-forward gap (the first, 2027-03-28T02:30: clocks jump from 02:00 to 03:00), and the gap policy is skip",
    );
  });

  it('ends nextOccurrences, occurrencesBetween and the iterator at the bound, with no run', () => {
    expect(nextOccurrences(berlinLastSundayOfMarch, AFTER, 2)).toEqual([]);
    expect(iterateOccurrences(berlinLastSundayOfMarch, AFTER).next().done).toBe(true);
    expect(occurrencesBetween(berlinLastSundayOfMarch, AFTER, new Date('9999-01-01Z'))).toEqual([]);
  });

  it('agrees with the reference that no such run comes in the next ten years', () => {
    expect(referenceRuns(berlinLastSundayOfMarch, AFTER, 1, 10)).toEqual([]);
  });

  it.each<[GapPolicy, string]>([
    ['shift', '2027-03-28T01:30:00.000Z'],
    ['transition', '2027-03-28T01:00:00.000Z'],
  ])('runs the same slots with gap %s, at %s', (gap, at) => {
    const answer = nextRun({ ...berlinLastSundayOfMarch, dst: { gap } }, AFTER);
    expect(answer.kind === 'runs' && iso(answer.next.at)).toBe(at);
  });

  it('runs them in a zone without DST: Asia/Tokyo and UTC', () => {
    const tokyo = nextRun({ ...berlinLastSundayOfMarch, timezone: 'Asia/Tokyo' }, AFTER);
    expect(tokyo.kind === 'runs' && iso(tokyo.next.at)).toBe('2027-03-27T17:30:00.000Z');
    const utc = nextRun({ ...berlinLastSundayOfMarch, timezone: 'UTC' }, AFTER);
    expect(utc.kind === 'runs' && iso(utc.next.at)).toBe('2027-03-28T02:30:00.000Z');
  });

  it("answers never for 03:00 on Chatham's last Sunday of September: its 45-minute zone jumps 02:45 → 03:45", () => {
    const answer = nextRun(
      { cron: '0 3 * 9 0L', timezone: 'Pacific/Chatham', dst: { gap: 'skip' } },
      AFTER,
    );
    expect(answer.kind === 'never' && answer.reason.message).toBe(
      "every local time it matches falls in Pacific/Chatham's spring-forward gap (the first, 2027-09-26T03:00: clocks jump from 02:45 to 03:45), and the gap policy is skip",
    );
    expect(
      referenceRuns(
        { cron: '0 3 * 9 0L', timezone: 'Pacific/Chatham', dst: { gap: 'skip' } },
        AFTER,
        1,
        6,
      ),
    ).toEqual([]);
  });

  it('answers end-of-range when the dates a Date can hold end before a run', () => {
    const answer = nextRun({ cron: '0 0 1 1 *', timezone: 'UTC' }, new Date('+275760-01-02Z'));
    expect(answer.kind === 'never' && answer.reason.cause).toBe('end-of-range');
  });
});

describe('a schedule whose next run is years away', () => {
  // The fifth Monday of February is 29 February on a Monday: 2044, 2072, then 2112 (2100 is
  // not a leap year).
  it.each([
    ['UTC', ['2044-02-29T00:00:00.000Z', '2072-02-29T00:00:00.000Z', '2112-02-29T00:00:00.000Z']],
    [
      'Europe/Berlin',
      ['2044-02-28T23:00:00.000Z', '2072-02-28T23:00:00.000Z', '2112-02-28T23:00:00.000Z'],
    ],
    [
      'Asia/Kathmandu',
      ['2044-02-28T18:15:00.000Z', '2072-02-28T18:15:00.000Z', '2112-02-28T18:15:00.000Z'],
    ],
  ])('finds 29 February on a Monday (0 0 * 2 1#5) in %s', (timezone, expected) => {
    const spec = { cron: '0 0 * 2 1#5', timezone };
    expect(nextOccurrences(spec, AFTER, 3).map((o) => iso(o.at))).toEqual(expected);
    expect(referenceRuns(spec, AFTER, 2, 50)).toEqual(expected.slice(0, 2));
  });

  it('reads 0 0 29 2 1 as Vixie cron does: 29 February or any Monday of February', () => {
    const runs = nextOccurrences({ cron: '0 0 29 2 1', timezone: 'UTC' }, AFTER, 2);
    expect(runs.map((o) => iso(o.at))).toEqual([
      '2027-02-01T00:00:00.000Z',
      '2027-02-08T00:00:00.000Z',
    ]);
  });

  it('finds the next run past the bound of the search that started before it', () => {
    const runs = nextOccurrences(
      { cron: '0 0 * 2 1#5', timezone: 'UTC' },
      new Date('2599-01-01Z'),
      1,
    );
    expect(runs.map((o) => iso(o.at))).toEqual(['2608-02-29T00:00:00.000Z']);
  });

  const zones = [
    'Europe/Berlin',
    'America/New_York',
    'Australia/Sydney',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'Asia/Kathmandu',
    'Africa/Casablanca',
    'Asia/Tokyo',
  ];
  const rareDays = fc.oneof(
    fc.constantFrom('29 2 *', '* 2 1#5', 'L 2 *', '* 3 0L', '* 10 0L', '* 9,10 0#1', '13 * 5#2'),
    fc
      .tuple(fc.integer({ min: 1, max: 31 }), fc.integer({ min: 1, max: 12 }))
      .map(([day, month]) => `${Math.min(day, month === 2 ? 29 : 30)} ${month} *`),
  );

  it('gives the reference runs for rare days in zones with and without DST, after jumps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 23 }),
        rareDays,
        fc.constantFrom(...zones),
        fc.constantFrom<GapPolicy>('shift', 'transition', 'skip'),
        fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2300, 0, 1) }),
        (minute, hour, days, timezone, gap, afterMs) => {
          const spec = { cron: `${minute} ${hour} ${days}`, timezone, dst: { gap } };
          const after = new Date(Math.floor(afterMs / 60_000) * 60_000);
          const ours = createEngine()
            .nextOccurrences(spec, after, 3)
            .map((o) => iso(o.at));
          expect(ours).toEqual(referenceRuns(spec, after, 3, 130));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('the rules repeat', () => {
  it('says every zone of the platform repeats from the start of 2200', () => {
    expect(new Date(INTL_RULES_REPEAT_FROM_MINUTE * 60_000).toISOString()).toBe(
      '2200-01-01T00:00:00.000Z',
    );
    expect(intlZoneRules.repeatsFromMinute?.('Africa/Casablanca')).toBe(
      INTL_RULES_REPEAT_FROM_MINUTE,
    );
  });

  it('moves the repeat past a transition shifted after it, for that zone only', () => {
    const at = new Date('2201-03-29T01:00:00Z');
    const rules = shiftedTransitionRules('Europe/Berlin', at, 7 * 1440);
    expect(rules.repeatsFromMinute?.('Europe/Berlin')).toBe(at.getTime() / 60_000 + 7 * 1440);
    expect(rules.repeatsFromMinute?.('Asia/Tokyo')).toBe(INTL_RULES_REPEAT_FROM_MINUTE);
  });

  it('still finds a run years away under rules that do not say when they repeat', () => {
    const engine = createEngine({ zoneRules: { offsetMinutesAt: () => 60 } });
    const runs = engine.nextOccurrences({ cron: '0 0 * 2 1#5', timezone: 'UTC' }, AFTER, 1);
    expect(runs.map((o) => iso(o.at))).toEqual(['2044-02-28T23:00:00.000Z']);
  });

  it('holds for every zone of the platform: its changes from 2200 come again 146,097 days later', () => {
    const cycleMs = CYCLE_DAYS * DAY_MS;
    const from = new Date('2200-01-01T00:00:00Z');
    const to = new Date('2206-01-01T00:00:00Z');
    const moved = (t: { at: Date; offsetBeforeMinutes: number; offsetAfterMinutes: number }) =>
      `${iso(new Date(t.at.getTime() - cycleMs))} ${t.offsetBeforeMinutes}->${t.offsetAfterMinutes}`;
    const differing = Intl.supportedValuesOf('timeZone').filter((zone) => {
      const engine = createEngine();
      const first = engine
        .zoneTransitions(zone, from, to)
        .map((t) => `${iso(t.at)} ${t.offsetBeforeMinutes}->${t.offsetAfterMinutes}`);
      const again = engine
        .zoneTransitions(zone, new Date(from.getTime() + cycleMs), new Date(to.getTime() + cycleMs))
        .map(moved);
      return first.join() !== again.join();
    });
    expect(differing).toEqual([]);
    expect(CYCLE_DAYS % 7).toBe(0);
  });
});
