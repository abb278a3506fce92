// deadlineAt against a minute-by-minute reference on luxon's offsets, which shares no code with
// the engine: the deadline is the first minute after the run at which the zone's wall clock
// reads the time, or the minute the clock jumps over it.
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  deadlineAt,
  InvalidArgumentError,
  zoneTransitions,
} from '../../../functions/schedule/index.ts';

const MINUTE_MS = 60_000;

function referenceDeadline(wallTime: string, runAt: Date, zone: string): Date {
  const wall = (ms: number) => DateTime.fromMillis(ms, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
  for (
    let ms = runAt.getTime() + MINUTE_MS;
    ms < runAt.getTime() + 50 * 3600_000;
    ms += MINUTE_MS
  ) {
    const now = wall(ms);
    const target = `${now.slice(0, 10)}T${wallTime}`;
    if (now === target || (wall(ms - MINUTE_MS) < target && target < now)) return new Date(ms);
  }
  throw new Error(`the reference found no ${wallTime} after ${runAt.toISOString()} in ${zone}`);
}

const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/Santiago',
  'America/St_Johns',
  'Asia/Kathmandu',
  'UTC',
];

const anyWallTime = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45, 59))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

/**
 * A zone, a whole-minute instant within 36 hours of one of its offset changes, and a wall time:
 * any, or one the clock shows within 90 minutes of the change (in the gap or the repeated hour).
 */
const caseNearTransition = fc.constantFrom(...ZONES).chain((zone) => {
  const changes = zoneTransitions(zone, new Date('2024-01-01Z'), new Date('2028-01-01Z'));
  const anchors = changes.length > 0 ? changes.map((c) => c.at.getTime()) : [Date.UTC(2026, 5, 1)];
  const near = (anchor: number, minutes: number) =>
    DateTime.fromMillis(anchor + minutes * MINUTE_MS, { zone }).toFormat('HH:mm');
  return fc
    .tuple(
      fc.constantFrom(...anchors),
      fc.integer({ min: -36 * 60, max: 36 * 60 }),
      fc.integer({ min: -90, max: 90 }),
      fc.boolean(),
      anyWallTime,
    )
    .map(([anchor, minutes, offset, nearChange, time]) => ({
      zone,
      runAt: new Date(anchor + minutes * MINUTE_MS),
      time: nearChange ? near(anchor, offset) : time,
    }));
});

describe('deadlineAt with a wall time', () => {
  it('is the first minute after the run the wall clock reads it, or jumps over it, near every DST change', () => {
    fc.assert(
      fc.property(caseNearTransition, ({ zone, runAt, time }) => {
        const at = deadlineAt({ wallTime: time }, runAt, zone);
        expect(at.toISOString()).toBe(referenceDeadline(time, runAt, zone).toISOString());
      }),
      { numRuns: 300 },
    );
  });

  it("is 07:00 of the new offset on Berlin's fall-back night", () => {
    const runAt = new Date('2026-10-25T00:30Z'); // 02:30 CEST, before the clocks go back
    expect(deadlineAt({ wallTime: '07:00' }, runAt, 'Europe/Berlin').toISOString()).toBe(
      '2026-10-25T06:00:00.000Z',
    );
  });

  it("is the next local date's when the run is at or after the time on its own date", () => {
    const runAt = new Date('2026-12-01T06:00Z'); // 07:00 CET
    expect(deadlineAt({ wallTime: '07:00' }, runAt, 'Europe/Berlin').toISOString()).toBe(
      '2026-12-02T06:00:00.000Z',
    );
  });

  it('is the first showing after the run of a time the repeated hour shows twice', () => {
    const zone = 'Europe/Berlin'; // 25 October 2026: 03:00 CEST becomes 02:00 CET
    const deadline = { wallTime: '02:30' };
    expect(deadlineAt(deadline, new Date('2026-10-25T00:10Z'), zone).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    expect(deadlineAt(deadline, new Date('2026-10-25T00:40Z'), zone).toISOString()).toBe(
      '2026-10-25T01:30:00.000Z',
    );
  });

  it('is the instant of the jump for a time the spring-forward gap removes', () => {
    const runAt = new Date('2026-03-28T23:00Z'); // 00:00 CET on 29 March
    expect(deadlineAt({ wallTime: '02:30' }, runAt, 'Europe/Berlin').toISOString()).toBe(
      '2026-03-29T01:00:00.000Z',
    );
  });

  it('refuses a wall time that is not HH:mm, naming it', () => {
    for (const text of ['7:00', '24:00', '07:60', '0700']) {
      expect(() => deadlineAt({ wallTime: text }, new Date(0), 'UTC')).toThrow(
        `a deadline's wall time is HH:mm (00:00 to 23:59), not '${text}'`,
      );
    }
  });
});

describe('deadlineAt with a duration', () => {
  it('counts from the scheduled instant, whatever the zone does meanwhile', () => {
    const runAt = new Date('2026-10-25T00:30Z');
    expect(deadlineAt({ afterSeconds: 2 * 3600 }, runAt, 'Europe/Berlin').toISOString()).toBe(
      '2026-10-25T02:30:00.000Z',
    );
  });

  it('refuses a duration that is not a whole number of seconds above 0', () => {
    for (const seconds of [0, -60, 1.5, Number.NaN]) {
      expect(() => deadlineAt({ afterSeconds: seconds }, new Date(0), 'UTC')).toThrow(
        InvalidArgumentError,
      );
    }
  });
});
