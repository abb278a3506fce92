// The zone-rules seam: an engine computes with the rules it was given, in its own tables,
// without touching the module-level engine; what it finds in rules it has never seen is exact
// when every offset lasts a day or more (the sampling step), and not below.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createEngine,
  defaultEngine,
  InvalidArgumentError,
  intlZoneRules,
  nextOccurrences,
  type ZoneRules,
  zoneTransitions,
} from '../../../functions/schedule/index.ts';

const DAY_MINUTES = 1440;
const MINUTE_MS = 60_000;

interface Change {
  readonly atMinute: number;
  readonly offset: number;
}

/** Rules for one zone made of explicit changes; every other zone reads the platform. */
function rulesFromChanges(zone: string, firstOffset: number, changes: Change[]): ZoneRules {
  return {
    offsetMinutesAt(ruleZone, utcMinute) {
      if (ruleZone !== zone) return intlZoneRules.offsetMinutesAt(ruleZone, utcMinute);
      let offset = firstOffset;
      for (const change of changes) {
        if (change.atMinute > utcMinute) break;
        offset = change.offset;
      }
      return offset;
    },
  };
}

const at = (iso: string) => Date.parse(iso) / MINUTE_MS;
const shape = (list: { at: Date; offsetBeforeMinutes: number; offsetAfterMinutes: number }[]) =>
  list.map((t) => [t.at.toISOString(), t.offsetBeforeMinutes, t.offsetAfterMinutes]);

describe('defaultEngine', () => {
  it('is the module-level functions on the platform rules: Berlin 09:00 after the 2027 spring change is 07:00Z', () => {
    const spec = { cron: '0 9 * * *', timezone: 'Europe/Berlin' };
    const after = new Date('2027-03-29T00:00Z');
    expect(defaultEngine.zoneRules).toBe(intlZoneRules);
    expect(defaultEngine.nextOccurrences(spec, after, 1)[0]?.at.toISOString()).toBe(
      '2027-03-29T07:00:00.000Z',
    );
    expect(defaultEngine.nextOccurrences(spec, after, 3)).toEqual(nextOccurrences(spec, after, 3));
  });
});

describe('createEngine', () => {
  it('without rules reads the platform: Berlin 2023 changes at 01:00Z in March and October', () => {
    const engine = createEngine();
    expect(engine.zoneRules).toBe(intlZoneRules);
    expect(
      shape(
        engine.zoneTransitions(
          'Europe/Berlin',
          new Date('2023-01-01T00:00:00Z'),
          new Date('2024-01-01T00:00:00Z'),
        ),
      ),
    ).toEqual([
      ['2023-03-26T01:00:00.000Z', 60, 120],
      ['2023-10-29T01:00:00.000Z', 120, 60],
    ]);
  });

  it('computes runs with its own rules: 09:00 at a constant UTC+1 is 08:00Z in July', () => {
    const engine = createEngine({ zoneRules: rulesFromChanges('Europe/Berlin', 60, []) });
    const runs = engine.nextOccurrences(
      { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      new Date('2026-07-01T00:00:00Z'),
      2,
    );
    expect(runs.map((r) => [r.at.toISOString(), r.nominal, r.dst])).toEqual([
      ['2026-07-01T08:00:00.000Z', '2026-07-01T09:00', 'none'],
      ['2026-07-02T08:00:00.000Z', '2026-07-02T09:00', 'none'],
    ]);
    expect(
      engine.zoneTransitions(
        'Europe/Berlin',
        new Date('2026-01-01T00:00:00Z'),
        new Date('2027-01-01T00:00:00Z'),
      ),
    ).toEqual([]);
  });

  it('changes nothing global: the module-level functions and a second engine keep the platform', () => {
    const constant = createEngine({ zoneRules: rulesFromChanges('Europe/Berlin', 60, []) });
    const spec = { cron: '0 9 * * *', timezone: 'Europe/Berlin' };
    const july = new Date('2026-07-01T00:00:00Z');
    expect(constant.nextOccurrences(spec, july, 1)[0]?.at.toISOString()).toBe(
      '2026-07-01T08:00:00.000Z',
    );
    expect(nextOccurrences(spec, july, 1)[0]?.at.toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(createEngine().nextOccurrences(spec, july, 1)[0]?.at.toISOString()).toBe(
      '2026-07-01T07:00:00.000Z',
    );
    expect(constant.nextOccurrences(spec, july, 1)[0]?.at.toISOString()).toBe(
      '2026-07-01T08:00:00.000Z',
    );
    expect(
      shape(
        zoneTransitions(
          'Europe/Berlin',
          new Date('2026-01-01T00:00Z'),
          new Date('2026-06-01T00:00Z'),
        ),
      ),
    ).toEqual([['2026-03-29T01:00:00.000Z', 60, 120]]);
  });

  it('reads other zones from the rules too: an engine with Berlin-only rules keeps Tokyo at +9', () => {
    const engine = createEngine({ zoneRules: rulesFromChanges('Europe/Berlin', 60, []) });
    const runs = engine.occurrencesBetween(
      { cron: '0 9 * * *', timezone: 'Asia/Tokyo' },
      new Date('2026-06-30T12:00:00Z'),
      new Date('2026-07-01T12:00:00Z'),
    );
    expect(runs.map((r) => r.at.toISOString())).toEqual(['2026-07-01T00:00:00.000Z']);
  });

  it('iterates lazily with its rules', () => {
    const engine = createEngine({ zoneRules: rulesFromChanges('Europe/Berlin', 60, []) });
    const runs = engine.iterateOccurrences(
      { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      new Date('2026-07-01T00:00:00Z'),
    );
    expect(runs.next().value?.at.toISOString()).toBe('2026-07-01T08:00:00.000Z');
  });

  it.each([
    ['no object', null],
    ['no method', {}],
    ['a method that is not a function', { offsetMinutesAt: 60 }],
  ])('rejects rules with %s', (_what, zoneRules) => {
    expect(() => createEngine({ zoneRules: zoneRules as unknown as ZoneRules })).toThrow(
      expect.objectContaining({ name: 'InvalidArgumentError', argument: 'zoneRules' }),
    );
  });

  it.each([
    ['a fraction', 60.5],
    ['NaN', Number.NaN],
    ['a whole day', 1440],
    ['less than minus a day', -1440],
  ])('rejects an offset that is %s, naming the zone and the instant', (_what, offset) => {
    const engine = createEngine({ zoneRules: { offsetMinutesAt: () => offset } });
    expect(() =>
      engine.nextOccurrences(
        { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
        new Date('2026-07-01T00:00:00Z'),
        1,
      ),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      engine.nextOccurrences(
        { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
        new Date('2026-07-01T00:00:00Z'),
        1,
      ),
    ).toThrow(/invalid offset .* for 'Europe\/Berlin' at \d{4}-/);
  });
});

// -------------------------------------------------------------------------------------------
// What the offset table finds in rules it has never seen
// -------------------------------------------------------------------------------------------

/** A gap between changes of at least a day; the edges of the sampling grid are likelier. */
const gapArb = fc.oneof(
  fc.constant(DAY_MINUTES),
  fc.integer({ min: DAY_MINUTES, max: DAY_MINUTES + 1 }),
  fc.integer({ min: DAY_MINUTES, max: 3 * DAY_MINUTES }),
  fc.integer({ min: DAY_MINUTES, max: 400 * DAY_MINUTES }),
);
/** Where the first change falls in its day: at midnight UTC (a sample) or next to it. */
const phaseArb = fc.oneof(
  fc.constantFrom(0, 1, DAY_MINUTES - 1),
  fc.integer({ min: 0, max: DAY_MINUTES - 1 }),
);
/** Mostly two offsets, so that many changes come back to where they started (DST-like). */
const offsetArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(60, 120) },
  { weight: 1, arbitrary: fc.integer({ min: -1439, max: 1439 }) },
);

const rulesArb = fc
  .record({
    firstDay: fc.integer({ min: 7300, max: 22000 }), // 1990 to 2030
    phase: phaseArb,
    firstOffset: offsetArb,
    steps: fc.array(fc.tuple(gapArb, offsetArb), { maxLength: 12 }),
  })
  .map(({ firstDay, phase, firstOffset, steps }) => {
    const changes: Change[] = [];
    let atMinute = firstDay * DAY_MINUTES + phase;
    let offset = firstOffset;
    for (const [gap, next] of steps) {
      const changed = next === offset ? (offset === 1439 ? -1439 : offset + 1) : next;
      changes.push({ atMinute, offset: changed });
      atMinute += gap;
      offset = changed;
    }
    return { firstOffset, changes };
  });

/** Windows asked in any order, some far from the changes, to grow tables both ways. */
const windowsArb = fc.array(
  fc.tuple(
    fc.integer({ min: -200, max: 1200 }), // start, days from the first change
    fc.integer({ min: 0, max: 1500 }), // length, days
  ),
  { minLength: 1, maxLength: 4 },
);

describe('the offset table under arbitrary rules', () => {
  it('finds every change exactly when every offset lasts at least a day, in any order of windows', () => {
    fc.assert(
      fc.property(rulesArb, windowsArb, ({ firstOffset, changes }, windows) => {
        const engine = createEngine({
          zoneRules: rulesFromChanges('Europe/Berlin', firstOffset, changes),
        });
        const origin = changes[0]?.atMinute ?? 20000 * DAY_MINUTES;
        let before = firstOffset;
        const expected = changes.map((c) => {
          const transition = {
            at: new Date(c.atMinute * MINUTE_MS),
            offsetBeforeMinutes: before,
            offsetAfterMinutes: c.offset,
          };
          before = c.offset;
          return transition;
        });
        for (const [startDays, lengthDays] of windows) {
          const fromMinute = origin + startDays * DAY_MINUTES - 7;
          const toMinute = fromMinute + lengthDays * DAY_MINUTES + 3;
          const found = engine.zoneTransitions(
            'Europe/Berlin',
            new Date(fromMinute * MINUTE_MS),
            new Date(toMinute * MINUTE_MS),
          );
          const wanted = expected.filter((t) => {
            const minute = t.at.getTime() / MINUTE_MS;
            return minute > fromMinute && minute <= toMinute;
          });
          expect(shape(found)).toEqual(shape(wanted));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds an offset that lasts exactly one day, whatever its phase against the samples', () => {
    for (let phase = 0; phase < DAY_MINUTES; phase += 37) {
      const start = at('2027-06-01T00:00:00Z') + phase;
      const rules = rulesFromChanges('Europe/Berlin', 60, [
        { atMinute: start, offset: 120 },
        { atMinute: start + DAY_MINUTES, offset: 60 },
      ]);
      const found = createEngine({ zoneRules: rules }).zoneTransitions(
        'Europe/Berlin',
        new Date('2027-01-01T00:00:00Z'),
        new Date('2028-01-01T00:00:00Z'),
      );
      expect(found.map((t) => t.at.getTime() / MINUTE_MS - start)).toEqual([0, DAY_MINUTES]);
    }
  });

  it('misses an offset lasting 12 hours between two midnights UTC (the documented limit)', () => {
    const rules = rulesFromChanges('Europe/Berlin', 60, [
      { atMinute: at('2027-06-01T06:00:00Z'), offset: 120 },
      { atMinute: at('2027-06-01T18:00:00Z'), offset: 60 },
    ]);
    const found = createEngine({ zoneRules: rules }).zoneTransitions(
      'Europe/Berlin',
      new Date('2027-01-01T00:00:00Z'),
      new Date('2028-01-01T00:00:00Z'),
    );
    expect(found).toEqual([]);
  });
});
