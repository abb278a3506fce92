import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneShotRuns, oneShotSchedule } from '#jobs/one-shot.ts';
import { boundInstant } from '../../../infra/config/local-times.ts';
import { makeJob } from '../../support/jobs.ts';

const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kathmandu',
  'America/Santiago',
  'Pacific/Kiritimati',
  'UTC',
];

/** The wall clock of `at` in `zone`, `YYYY-MM-DDTHH:mm`, read by Intl: the reference. */
function wallClock(at: Date, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/**
 * Every instant whose wall clock in `zone` reads `local`: the offsets of these zones are whole
 * quarter hours within ±15 h, so the instants are the local time read as UTC less a multiple of
 * 15 minutes in that span.
 */
function showingsOf(local: string, zone: string): number[] {
  const guess = Date.parse(`${local}:00Z`);
  const found: number[] = [];
  for (let ms = guess - 15 * 3_600_000; ms <= guess + 15 * 3_600_000; ms += 900_000) {
    if (wallClock(new Date(ms), zone) === local) found.push(ms);
  }
  return found;
}

const localDateTime = fc
  .record({
    day: fc.integer({
      min: Date.UTC(2020, 0, 1) / 86_400_000,
      max: Date.UTC(2035, 11, 31) / 86_400_000,
    }),
    minute: fc.integer({ min: 0, max: 1439 }),
  })
  .map(({ day, minute }) =>
    new Date(day * 86_400_000 + minute * 60_000).toISOString().slice(0, 16),
  );

describe('an at job, against a minute-by-minute reading of the wall clock', () => {
  it('runs once, at the first showing of its local time, or after the jump when the gap skips it', () => {
    fc.assert(
      fc.property(localDateTime, fc.constantFrom(...ZONES), (at, zone) => {
        const job = makeJob({ id: 'once', timezone: zone, at, ...oneShotSchedule(at) });
        const runs = oneShotRuns(job);
        const showings = showingsOf(at, zone);
        expect(runs).toHaveLength(1);
        if (showings.length > 0) expect(runs[0]?.at.getTime()).toBe(showings[0]);
        else expect(runs[0]?.dst).toBe('gap');
      }),
      { numRuns: 100, seed: 18 },
    );
  });

  it.each([
    ['2026-10-25T02:30', 'Europe/Berlin', '2026-10-25T00:30:00.000Z'],
    ['2026-03-29T02:30', 'Europe/Berlin', '2026-03-29T01:30:00.000Z'],
    ['2026-11-01T01:30', 'America/New_York', '2026-11-01T05:30:00.000Z'],
  ])('runs %s in %s at %s (first showing; shifted past the gap)', (at, zone, expected) => {
    const job = makeJob({ id: 'once', timezone: zone, at, ...oneShotSchedule(at) });
    expect(oneShotRuns(job).map((run) => run.at.toISOString())).toEqual([expected]);
  });

  it('has no runs for a recurring job', () => {
    expect(oneShotRuns(makeJob({ id: 'daily', schedule: '0 9 * * *' }))).toEqual([]);
  });
});

describe('boundInstant, against a minute-by-minute reading of the wall clock', () => {
  /** The reference: the first showing, or in a gap the local time read with the offset before it. */
  function expectReadAsReference(local: string, zone: string): void {
    const instant = boundInstant(local, zone).getTime();
    const showings = showingsOf(local, zone);
    if (showings.length > 0) {
      expect(instant).toBe(showings[0]);
      return;
    }
    const guess = Date.parse(`${local}:00Z`);
    const dayBefore = guess - 86_400_000;
    const offsetBefore = Date.parse(`${wallClock(new Date(dayBefore), zone)}:00Z`) - dayBefore;
    expect(instant).toBe(guess - offsetBefore);
  }

  it('reads a local from/until as its first showing, or the same time after the jump in a gap', () => {
    fc.assert(fc.property(localDateTime, fc.constantFrom(...ZONES), expectReadAsReference), {
      numRuns: 100,
      seed: 18,
    });
  });

  it.each([
    ['2026-03-29T02:30', 'Europe/Berlin'],
    ['2026-03-08T02:15', 'America/New_York'],
    ['2026-09-27T02:50', 'Pacific/Chatham'],
    ['2026-10-04T02:10', 'Australia/Lord_Howe'],
    ['2026-04-05T01:45', 'Australia/Lord_Howe'],
  ])('reads %s in %s (a gap or a repeated time) as the reference does', (local, zone) => {
    expect(showingsOf(local, zone)).not.toHaveLength(1);
    expectReadAsReference(local, zone);
  });

  it.each([
    ['2026-03-29T02:30', 'Europe/Berlin', '2026-03-29T01:30:00.000Z'],
    ['2026-10-25T02:30', 'Europe/Berlin', '2026-10-25T00:30:00.000Z'],
    ['2027-01-01', 'America/New_York', '2027-01-01T05:00:00.000Z'],
    ['2027-01-01T00:00Z', 'America/New_York', '2027-01-01T00:00:00.000Z'],
    ['2028-01-01T00:00-05:00', 'Europe/Berlin', '2028-01-01T05:00:00.000Z'],
  ])('reads %s in %s as %s', (text, zone, expected) => {
    expect(boundInstant(text, zone).toISOString()).toBe(expected);
  });
});
