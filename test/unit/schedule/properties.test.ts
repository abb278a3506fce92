// Property tests: random expressions from a grammar, zones from
// Intl.supportedValuesOf('timeZone'), instants from 1990 to 2037 biased to the zone's offset
// changes. The engine is compared with the deliberately simple minute-by-minute reference in
// test/reference/, which shares no code with it. Also: zoneTransitions against luxon's offsets,
// and the contract's shape of H (range, step, stability, spread). fast-check prints the seed
// and the shrunk counterexample on failure; re-run with that seed to reproduce.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  type GapPolicy,
  iterateOccurrences,
  nextOccurrences,
  type Occurrence,
  type OverlapPolicy,
  occurrencesBetween,
  parseCron,
  type ScheduleSpec,
  zoneTransitions,
} from '../../../functions/schedule/index.ts';
import {
  compileCron,
  localSlotOf,
  matchesInstant,
  matchesSomeDay,
  matchingSlots,
  offsetMinutes,
  referenceOccurrences,
  transitionsIn,
  windowSlots,
} from '../../reference/minute-reference.ts';

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const anyCase = (name: string) =>
  fc.constantFrom(name, name.toLowerCase(), name.charAt(0) + name.slice(1).toLowerCase());

/** A plain item over min..max: a value, a range, a step of `*`, of a range or of a value. */
function plainItem(min: number, max: number, value = fc.integer({ min, max }).map(String)) {
  const range = fc
    .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
    .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);
  const step = fc.integer({ min: 1, max: Math.max(1, Math.ceil((max - min + 1) / 2)) });
  return fc.oneof(
    { weight: 4, arbitrary: value },
    { weight: 3, arbitrary: range.map(([a, b]) => `${a}-${b}`) },
    { weight: 3, arbitrary: step.map((n) => `*/${n}`) },
    { weight: 2, arbitrary: fc.tuple(range, step).map(([[a, b], n]) => `${a}-${b}/${n}`) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min, max }), step).map(([a, n]) => `${a}/${n}`) },
  );
}

function listOf(item: fc.Arbitrary<string>) {
  return fc.array(item, { minLength: 1, maxLength: 3 }).map((items) => items.join(','));
}

const minuteField = fc.oneof(
  { weight: 2, arbitrary: fc.constant('*') },
  { weight: 6, arbitrary: listOf(plainItem(0, 59)) },
);
/** Hours around which most zones change their clocks. */
const transitionHours = fc.constantFrom(
  '0',
  '1',
  '2',
  '3',
  '23',
  '1-3',
  '0,2',
  '2,3',
  '22-23',
  '0-1',
);
const hourField = fc.oneof(
  { weight: 3, arbitrary: fc.constant('*') },
  { weight: 3, arbitrary: transitionHours },
  { weight: 4, arbitrary: listOf(plainItem(0, 23)) },
);
/** An hour field that can't cover all 24 hours: a wall-clock schedule. */
const wallClockHourField = listOf(
  fc.oneof(
    transitionHours,
    fc.integer({ min: 0, max: 23 }).map(String),
    fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 22 }))
      .map(([a, len]) => `${a}-${Math.min(23, a + len)}`),
    fc.integer({ min: 2, max: 12 }).map((n) => `*/${n}`),
  ),
);
const domField = fc.oneof(
  { weight: 8, arbitrary: fc.constant('*') },
  { weight: 1, arbitrary: fc.constant('?') },
  { weight: 4, arbitrary: listOf(plainItem(1, 31)) },
  { weight: 1, arbitrary: fc.constantFrom('L', 'LW') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 31 }).map((n) => `${n}W`) },
);
const monthValue = fc.oneof(
  fc.integer({ min: 1, max: 12 }).map(String),
  fc.integer({ min: 0, max: 11 }).chain((i) => anyCase(MONTHS[i] as string)),
);
const monthField = fc.oneof(
  { weight: 10, arbitrary: fc.constant('*') },
  { weight: 3, arbitrary: listOf(plainItem(1, 12, monthValue)) },
);
const dowName = fc.integer({ min: 0, max: 6 }).chain((i) => anyCase(DAYS[i] as string));
const dowField = fc.oneof(
  { weight: 8, arbitrary: fc.constant('*') },
  { weight: 1, arbitrary: fc.constant('?') },
  {
    weight: 4,
    arbitrary: listOf(
      plainItem(0, 7, fc.oneof(fc.integer({ min: 0, max: 7 }).map(String), dowName)),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('MON-FRI', 'FRI-SUN', 'sat-sun', '1/2', 'SUN') },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.integer({ min: 0, max: 7 }).map(String), dowName).map((d) => `${d}L`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.integer({ min: 0, max: 7 }).map(String), dowName),
        fc.integer({ min: 1, max: 5 }),
      )
      .map(([d, k]) => `${d}#${k}`),
  },
);
const macro = fc.constantFrom(
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
);

/** Expressions whose days are all `*`: every day near a transition matches, so DST shows. */
const everyDay = (hours: fc.Arbitrary<string>) =>
  fc
    .tuple(minuteField, hours, fc.constantFrom('*', '?'), fc.constantFrom('*', '?'))
    .map(([m, h, dom, dow]) => `${m} ${h} ${dom} * ${dow}`);
const expressionArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(minuteField, hourField, domField, monthField, dowField)
      .map((f) => f.join(' ')),
  },
  { weight: 6, arbitrary: everyDay(hourField) },
  { weight: 1, arbitrary: macro },
);
const wallClockExpressionArb = fc.oneof(
  fc.tuple(minuteField, wallClockHourField, domField, monthField, dowField).map((f) => f.join(' ')),
  everyDay(wallClockHourField),
);

const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];
/** Zones with DST or unusual transitions, drawn more often than their share of the list. */
const NOTABLE_ZONES = [
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/Chicago',
  'America/St_Johns',
  'Europe/Dublin',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Antarctica/Troll',
  'America/Santiago',
  'America/Havana',
  'America/Asuncion',
  'America/Sao_Paulo',
  'Asia/Kathmandu',
  'Asia/Jerusalem',
  'Asia/Gaza',
  'Asia/Tehran',
  'Africa/Casablanca',
  'Pacific/Apia',
  'Pacific/Chatham',
  'Pacific/Norfolk',
  'Pacific/Kiritimati',
  'America/Godthab',
  'America/Scoresbysund',
];
const zoneArb = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(...ZONES) },
  { weight: 1, arbitrary: fc.constantFrom(...NOTABLE_ZONES.filter((z) => ZONES.includes(z))) },
);

const transitionCache = new Map<string, number[]>();
function transitionsOfYear(zone: string, year: number): number[] {
  const key = `${zone} ${year}`;
  let found = transitionCache.get(key);
  if (!found) {
    found = transitionsIn(zone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
    transitionCache.set(key, found);
  }
  return found;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Window length: 1 hour to 2 days. */
const windowMinutesArb = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 60, max: 6 * 60 }) },
  { weight: 1, arbitrary: fc.integer({ min: 6 * 60, max: 48 * 60 }) },
);

/**
 * A zone and a window `start < at <= end` in 1990-2037. When the zone's offset changes in the
 * drawn year, the window mostly contains one of the changes (sometimes it ends just before or
 * starts just after it); otherwise it lies anywhere in the year.
 */
const zoneAndStartArb = fc
  .record({
    zone: zoneArb,
    year: fc.integer({ min: 1990, max: 2037 }),
    pick: fc.nat(),
    nearTransition: fc.integer({ min: 0, max: 99 }),
    where: fc.integer({ min: -200, max: 1200 }),
    minutes: windowMinutesArb,
    anywhere: fc.integer({ min: 0, max: 365 * DAY_MS }),
    jitterMs: fc.integer({ min: 0, max: MINUTE_MS - 1 }),
    wholeMinute: fc.boolean(),
  })
  .map(({ zone, year, pick, nearTransition, where, minutes, anywhere, jitterMs, wholeMinute }) => {
    const transitions = transitionsOfYear(zone, year);
    const windowMs = minutes * MINUTE_MS;
    const near = transitions.length > 0 && nearTransition < 85;
    const transitionMs = transitions[pick % transitions.length] as number;
    let startMs = near
      ? transitionMs - Math.round((where / 1000) * windowMs)
      : Date.UTC(year, 0, 1) + anywhere;
    startMs = Math.floor(startMs / MINUTE_MS) * MINUTE_MS + (wholeMinute ? 0 : jitterMs);
    return {
      zone,
      start: new Date(startMs),
      end: new Date(startMs + windowMs),
      changedHours: near ? changedHours(zone, transitionMs) : [],
    };
  });

/**
 * The local hours whose slots a change of offset at `atMs` skips or repeats: between the wall
 * time the clock would have shown and the one it shows.
 */
function changedHours(zone: string, atMs: number): number[] {
  const before = DateTime.fromMillis(atMs - MINUTE_MS, { zone });
  const wallBefore =
    Date.UTC(before.year, before.month - 1, before.day, before.hour, before.minute) + MINUTE_MS;
  const after = DateTime.fromMillis(atMs, { zone });
  const wallAfter = Date.UTC(after.year, after.month - 1, after.day, after.hour, after.minute);
  const hours = new Set<number>();
  for (
    let w = Math.min(wallBefore, wallAfter);
    w < Math.max(wallBefore, wallAfter);
    w += MINUTE_MS
  ) {
    hours.add(new Date(w).getUTCHours());
  }
  return [...hours].sort((a, b) => a - b);
}

/** Expressions for a window: often aimed at the hours a nearby offset change skips or repeats. */
function expressionNear(hours: number[], wallClockOnly: boolean): fc.Arbitrary<string> {
  const general = wallClockOnly ? wallClockExpressionArb : expressionArb;
  if (hours.length === 0 || (wallClockOnly && hours.length === 24)) return general;
  const aimed = fc.oneof(
    fc.subarray(hours, { minLength: 1 }).map((hs) => hs.join(',')),
    fc.constant(`${hours[0]}-${hours[hours.length - 1]}`),
  );
  const hourArb = wallClockOnly ? aimed : fc.oneof(aimed, fc.constant('*'));
  return fc.oneof({ weight: 1, arbitrary: general }, { weight: 3, arbitrary: everyDay(hourArb) });
}

/** A window and an expression aimed at it. */
const scenarioArb = (wallClockOnly: boolean) =>
  zoneAndStartArb.chain((w) =>
    expressionNear(w.changedHours, wallClockOnly).map((cron) => ({ ...w, cron })),
  );

const gapArb = fc.option(fc.constantFrom<GapPolicy>('shift', 'transition', 'skip'), {
  nil: undefined,
});
const overlapArb = fc.option(fc.constantFrom<OverlapPolicy>('first', 'last', 'both'), {
  nil: undefined,
});

/** A spec's `dst` from optional policies (absent keys, not `undefined` values). */
function dstOf(gap: GapPolicy | undefined, overlap: OverlapPolicy | undefined) {
  return {
    ...(gap === undefined ? {} : { gap }),
    ...(overlap === undefined ? {} : { overlap }),
  };
}
// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Parses with the engine; false when it rejects the expression as never matching. */
function engineAccepts(spec: ScheduleSpec): boolean {
  try {
    parseCron(spec.cron);
    return true;
  } catch (e) {
    // The generator only makes syntactically valid expressions: a rejection must be a
    // day that never occurs, which the reference can confirm.
    expect(matchesSomeDay(compileCron(spec.cron)), `engine rejected ${spec.cron}: ${e}`).toBe(
      false,
    );
    return false;
  }
}

const civil = (nominal: string) => {
  const [date = '', time = ''] = nominal.split('T');
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  return { year, month, day, hour, minute };
};

const NOMINAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

function describeRuns(runs: Occurrence[]) {
  return runs.map((r) => `${r.at.toISOString()} ${r.nominal} ${r.dst}`);
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe('properties of the engine', () => {
  it('rejects exactly the generated expressions that never match any day', () => {
    fc.assert(
      fc.property(expressionArb, (cron) => {
        const some = matchesSomeDay(compileCron(cron));
        let accepted = true;
        try {
          parseCron(cron);
        } catch {
          accepted = false;
        }
        expect(accepted, cron).toBe(some);
      }),
      { numRuns: 500 },
    );
  });

  it('gives strictly increasing whole-minute runs after "after", the same lazily', () => {
    fc.assert(
      fc.property(scenarioArb(false), gapArb, overlapArb, ({ cron, zone, start }, gap, overlap) => {
        const spec: ScheduleSpec = { cron, timezone: zone, dst: dstOf(gap, overlap) };
        if (!engineAccepts(spec)) return;
        const runs = nextOccurrences(spec, start, 12);
        // (an expression matching rarely may legitimately end at the engine's horizon)
        expect(runs.length).toBeGreaterThan(0);
        let prev = start.getTime();
        for (const run of runs) {
          const ms = run.at.getTime();
          expect(ms % 60_000, run.at.toISOString()).toBe(0);
          expect(ms, run.at.toISOString()).toBeGreaterThan(prev);
          expect(run.nominal).toMatch(NOMINAL);
          expect(['none', 'gap', 'overlap']).toContain(run.dst);
          prev = ms;
        }
        const it = iterateOccurrences(spec, start);
        const lazy: Occurrence[] = [];
        for (const run of it) {
          lazy.push(run);
          if (lazy.length === runs.length) break;
        }
        expect(describeRuns(lazy)).toEqual(describeRuns(runs));
      }),
      { numRuns: 100 },
    );
  });

  it("stands every run for a matching slot; a 'none' run's local time is its nominal", () => {
    fc.assert(
      fc.property(scenarioArb(false), gapArb, overlapArb, ({ cron, zone, start }, gap, overlap) => {
        const spec: ScheduleSpec = { cron, timezone: zone, dst: dstOf(gap, overlap) };
        if (!engineAccepts(spec)) return;
        const matcher = compileCron(cron);
        for (const run of nextOccurrences(spec, start, 12)) {
          const ms = run.at.getTime();
          const what = `${run.at.toISOString()} ${run.nominal} ${run.dst}`;
          expect(matcher.matchesSlot(civil(run.nominal)), what).toBe(true);
          if (run.dst === 'none' || run.dst === 'overlap') {
            expect(localSlotOf(zone, ms), what).toBe(run.nominal);
            expect(matchesInstant(matcher, zone, ms), what).toBe(true);
          } else {
            // A gap slot: luxon reads the nominal wall time as some other time (it doesn't exist).
            const read = DateTime.fromISO(run.nominal, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
            expect(read, what).not.toBe(run.nominal);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('agrees with the minute-by-minute reference over windows of 1 hour to 2 days, every policy', () => {
    fc.assert(
      fc.property(
        scenarioArb(false),
        gapArb,
        overlapArb,
        ({ cron, zone, start, end }, gap, overlap) => {
          const spec: ScheduleSpec = { cron, timezone: zone, dst: dstOf(gap, overlap) };
          if (!engineAccepts(spec)) return;
          const expected = referenceOccurrences(spec, start, end, windowSlots(zone, start, end));
          const runs = occurrencesBetween(spec, start, end);
          expect(runs.map((r) => r.at.toISOString())).toEqual(
            expected.map((r) => new Date(r.atMs).toISOString()),
          );
          runs.forEach((run, i) => {
            const labels = expected[i]?.labels ?? [];
            expect(labels, run.at.toISOString()).toContainEqual({
              nominal: run.nominal,
              dst: run.dst,
            });
          });
          const k = Math.min(expected.length, 5);
          if (k > 0) {
            expect(describeRuns(nextOccurrences(spec, start, k))).toEqual(
              describeRuns(runs.slice(0, k)),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('runs a wall-clock schedule exactly once per matching local slot with default policies', () => {
    fc.assert(
      fc.property(scenarioArb(true), ({ cron, zone, start, end }) => {
        const spec: ScheduleSpec = { cron, timezone: zone };
        if (compileCron(cron).kind !== 'wall-clock' || !engineAccepts(spec)) return;
        const slots = matchingSlots(spec, start, end, windowSlots(zone, start, end));
        const runs = occurrencesBetween(spec, start, end);
        // never doubled: no two runs stand for the same slot
        const nominals = runs.map((r) => r.nominal);
        expect(new Set(nominals).size).toBe(nominals.length);
        // never skipped: every matching slot's instant is a run, and nothing else is
        const slotInstants = [...new Set(slots.map((s) => s.atMs))];
        expect(runs.map((r) => r.at.getTime())).toEqual(slotInstants);
        // each run stands for one of the slots that map to its instant
        for (const run of runs) {
          const candidates = slots.filter((s) => s.atMs === run.at.getTime()).map((s) => s.nominal);
          expect(candidates).toContain(run.nominal);
        }
        // and when no two slots share an instant, one run per slot
        if (slotInstants.length === slots.length) expect(runs).toHaveLength(slots.length);
      }),
      { numRuns: 100 },
    );
  });
});

describe('zoneTransitions', () => {
  it("lists the offset changes luxon sees in a year, with luxon's offsets either side", () => {
    fc.assert(
      fc.property(zoneArb, fc.integer({ min: 1990, max: 2037 }), (zone, year) => {
        const from = Date.UTC(year, 0, 1);
        const to = Date.UTC(year + 1, 0, 1);
        const engine = zoneTransitions(zone, new Date(from), new Date(to));
        for (const t of engine) {
          const at = t.at.getTime();
          const what = `${zone} ${t.at.toISOString()}`;
          expect(at % MINUTE_MS, what).toBe(0);
          expect(at, what).toBeGreaterThan(from);
          expect(at, what).toBeLessThanOrEqual(to);
          expect(t.offsetBeforeMinutes, what).toBe(offsetMinutes(zone, at - MINUTE_MS));
          expect(t.offsetAfterMinutes, what).toBe(offsetMinutes(zone, at));
          expect(t.offsetAfterMinutes, what).not.toBe(t.offsetBeforeMinutes);
        }
        // every change found by sampling (it can miss changes days apart, never invent one)
        const ats = engine.map((t) => t.at.getTime());
        for (const found of transitionsOfYear(zone, year)) {
          if (found > from && found <= to) expect(ats, `${zone} ${year}`).toContain(found);
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('H (spread)', () => {
  const jobIdArb = fc.stringMatching(/^[a-z][a-z0-9_-]{0,24}$/);

  it('stays inside its range and is the same on every call for the same job id', () => {
    fc.assert(
      fc.property(
        jobIdArb,
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 1, max: 30 }),
        (jobId, a, b, n) => {
          const lo = Math.min(a, b);
          const hi = Math.max(a, b);
          const after = new Date('2025-12-31T23:59:00Z');
          const spec = (cron: string): ScheduleSpec => ({ cron, timezone: 'UTC', jobId });

          const single = nextOccurrences(spec(`H(${lo}-${hi}) * * * *`), after, 3);
          const minutes = single.map((r) => r.at.getUTCMinutes());
          expect(new Set(minutes).size).toBe(1);
          expect(minutes[0]).toBeGreaterThanOrEqual(lo);
          expect(minutes[0]).toBeLessThanOrEqual(hi);
          const again = nextOccurrences(spec(`H(${lo}-${hi}) * * * *`), after, 3);
          expect(describeRuns(again)).toEqual(describeRuns(single));

          // H/n: every n minutes, starting at (hash mod n)
          const stepped = nextOccurrences(spec(`H/${n} * * * *`), after, 60);
          const hourEnd = Date.parse('2026-01-01T01:00:00Z');
          const perHour = stepped.filter((r) => r.at.getTime() < hourEnd);
          const first = perHour[0]?.at.getUTCMinutes() ?? -1;
          expect(first).toBeGreaterThanOrEqual(0);
          expect(first).toBeLessThan(n);
          expect(perHour.map((r) => r.at.getUTCMinutes())).toEqual(
            Array.from({ length: Math.floor((59 - first) / n) + 1 }, (_, i) => first + i * n),
          );

          // H(a-b)/n: likewise inside a-b (when the step fits in the range)
          if (n <= hi - lo + 1) {
            const inRange = nextOccurrences(spec(`H(${lo}-${hi})/${n} * * * *`), after, 60)
              .filter((r) => r.at.getTime() < hourEnd)
              .map((r) => r.at.getUTCMinutes());
            const start = inRange[0] ?? -1;
            expect(start).toBeGreaterThanOrEqual(lo);
            expect(start).toBeLessThan(lo + n);
            expect(inRange).toEqual(
              Array.from({ length: Math.floor((hi - start) / n) + 1 }, (_, i) => start + i * n),
            );
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('chooses a day-of-month from 1-28', () => {
    fc.assert(
      fc.property(jobIdArb, (jobId) => {
        const [run] = nextOccurrences(
          { cron: '0 0 H * *', timezone: 'UTC', jobId },
          new Date('2026-01-01T00:00:00Z'),
          1,
        );
        const day = run?.at.getUTCDate() ?? 0;
        expect(day).toBeGreaterThanOrEqual(1);
        expect(day).toBeLessThanOrEqual(28);
      }),
      { numRuns: 100 },
    );
  });

  it('spreads 6,000 job ids evenly over the 60 minutes', () => {
    const counts = new Array<number>(60).fill(0);
    const after = new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < 6000; i++) {
      const [run] = nextOccurrences(
        { cron: 'H * * * *', timezone: 'UTC', jobId: `job-${i}` },
        after,
        1,
      );
      const minute = run?.at.getUTCMinutes() ?? -1;
      counts[minute] = (counts[minute] ?? 0) + 1;
    }
    // 100 expected per minute; a fair hash stays within ±50 with overwhelming probability.
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(50);
    expect(Math.max(...counts)).toBeLessThanOrEqual(150);
  });
});
