// Properties of calendar runs that hold for any calendar, convention and bounds (fast-check,
// seeded): modified conventions stay in the nominal run's month, moved runs keep distinct key
// instants, runs come in order and never on a closed day or inside a closed range, and a spec
// whose calendar closes nothing and whose bounds are far gives today's runs exactly.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  type BusinessCalendar,
  keyInstantOf,
  nextOccurrences,
  occurrencesBetween,
  type ScheduleSpec,
} from '../../../functions/schedule/index.ts';
import { calendarCases, engineSpec } from '../../reference/calendar-cases.ts';
import { RefCalendarDays } from '../../reference/calendar-reference.ts';
import { referenceCalendar } from './calendar-fixtures.ts';

const OPTIONS = { seed: 18, numRuns: 150 };

describe('calendar run properties', () => {
  it('modified-following and modified-preceding never move a run out of its nominal month', () => {
    const modified = calendarCases.filter(
      (c) => c.convention.startsWith('modified') && c.businessDay === undefined,
    );
    fc.assert(
      fc.property(modified, (c) => {
        const spec = { ...engineSpec(c), timezone: c.fixture.timezone };
        for (const run of nextOccurrences(spec, c.from, 40)) {
          if (run.moved === undefined) continue;
          const nominalMonth = DateTime.fromJSDate(run.moved.nominalAt, {
            zone: spec.timezone,
          }).toFormat('yyyy-MM');
          expect(run.nominal.slice(0, 7)).toBe(nominalMonth);
        }
      }),
      OPTIONS,
    );
  });

  it('gives no two runs the same key instant, and lists runs by instant, then key instant', () => {
    fc.assert(
      fc.property(calendarCases, (c) => {
        const runs = nextOccurrences(engineSpec(c), c.from, 40);
        const keys = runs.map((r) => keyInstantOf(r).getTime());
        expect(new Set(keys).size).toBe(runs.length);
        for (let i = 1; i < runs.length; i++) {
          const [a, b] = [runs[i - 1], runs[i]] as [(typeof runs)[0], (typeof runs)[0]];
          const order =
            a.at.getTime() - b.at.getTime() || (keys[i - 1] as number) - (keys[i] as number);
          expect(order).toBeLessThan(0);
        }
      }),
      OPTIONS,
    );
  });

  it('never runs on a closed day or inside a closed range (closed days read by the reference)', () => {
    fc.assert(
      fc.property(calendarCases, (c) => {
        const days = new RefCalendarDays(referenceCalendar(c.fixture));
        const calendarZone = c.fixture.timezone;
        for (const run of occurrencesBetween(engineSpec(c), c.from, c.to)) {
          const date =
            calendarZone === c.zone
              ? run.nominal.slice(0, 10)
              : DateTime.fromJSDate(run.at, { zone: calendarZone }).toFormat('yyyy-MM-dd');
          expect(days.closed(date), `${run.nominal} on ${date}`).toBeUndefined();
          expect(days.rangeAt(run.at.getTime()), run.nominal).toBeUndefined();
        }
      }),
      { ...OPTIONS, numRuns: 60 },
    );
  });

  it('gives exactly the runs of today with a calendar that closes nothing and bounds far away', () => {
    const open: BusinessCalendar = {
      name: 'open',
      timezone: 'Europe/Berlin',
      weekendDays: [],
      closedDayReason: () => undefined,
      closedRanges: [],
    };
    const crons = [
      '30 2 * * *',
      '*/7 * * * *',
      '0 9 * * 1-5',
      '15 10 L * *',
      '0 0 29 2 *',
      '5 1,2,3 * * 0',
    ];
    const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'UTC'];
    const instant = fc
      .integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2029, 0, 1) })
      .map((ms) => new Date(ms));
    fc.assert(
      fc.property(
        fc.constantFrom(...crons),
        fc.constantFrom(...zones),
        instant,
        fc.constantFrom('skip', 'following', 'preceding' as const),
        (cron, timezone, after, onClosed) => {
          const plain: ScheduleSpec = { cron, timezone };
          const bounded: ScheduleSpec = {
            ...plain,
            calendar: { calendar: open, onClosed },
            from: new Date('2000-01-01T00:00Z'),
            until: new Date('9000-01-01T00:00Z'),
          };
          expect(nextOccurrences(bounded, after, 25)).toEqual(nextOccurrences(plain, after, 25));
          const to = new Date(after.getTime() + 3 * 86_400_000);
          expect(occurrencesBetween(bounded, after, to)).toEqual(
            occurrencesBetween(plain, after, to),
          );
        },
      ),
      OPTIONS,
    );
  });
});
