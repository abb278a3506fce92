import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  type InstantContext,
  instantArgument,
  resolveInstant,
  whenArgument,
} from '../../../cli/instant.ts';

/** 21:00 in Berlin, 15:00 in New York, 05:00 the next day in Tokyo. */
const NOW = new Date('2026-12-01T20:00:00.000Z');
const at = (text: string, context: Partial<InstantContext> & { zone: string }) =>
  resolveInstant(whenArgument(text), { now: NOW, ...context }).toISOString();

describe('resolveInstant', () => {
  it.each([
    [
      'a date as midnight in the zone',
      '2026-12-02',
      'America/New_York',
      '2026-12-02T05:00:00.000Z',
    ],
    ['a local time in the zone', '2026-12-02T09:00', 'Europe/Berlin', '2026-12-02T08:00:00.000Z'],
    [
      'a local time written with a space',
      '2026-12-02 09:00',
      'Europe/Berlin',
      '2026-12-02T08:00:00.000Z',
    ],
    [
      'an instant with an offset as written, whatever the zone',
      '2026-12-02T09:00+02:00',
      'Asia/Tokyo',
      '2026-12-02T07:00:00.000Z',
    ],
    [
      'an instant in UTC as written',
      '2026-12-02T09:00Z',
      'Europe/Berlin',
      '2026-12-02T09:00:00.000Z',
    ],
    [
      "today as the zone's midnight, which is yesterday in UTC",
      'today',
      'Europe/Berlin',
      '2026-11-30T23:00:00.000Z',
    ],
    [
      "tomorrow in the zone's calendar, not in UTC's",
      'tomorrow',
      'Asia/Tokyo',
      '2026-12-02T15:00:00.000Z',
    ],
    ['tomorrow with a time', 'tomorrow 09:00', 'America/New_York', '2026-12-02T14:00:00.000Z'],
    ['yesterday', 'yesterday', 'UTC', '2026-11-30T00:00:00.000Z'],
    ['now', 'now', 'Europe/Berlin', '2026-12-01T20:00:00.000Z'],
    [
      'a local time in the spring-forward gap as after the gap',
      '2027-03-28T02:30',
      'Europe/Berlin',
      '2027-03-28T01:30:00.000Z',
    ],
  ])('reads %s', (_what, text, zone, expected) => {
    expect(at(text, { zone })).toBe(expected);
  });

  it('reads a date-only end of a range as the end of that local day (inclusive)', () => {
    expect(at('2025-06-06', { zone: 'America/New_York', bound: 'end' })).toBe(
      '2025-06-07T03:59:59.999Z',
    );
    expect(at('2025-06-06T09:00', { zone: 'America/New_York', bound: 'end' })).toBe(
      '2025-06-06T13:00:00.000Z',
    );
  });

  it.each([
    ['back', -1, '2026-12-01T18:00:00.000Z'],
    ['forward', 1, '2026-12-01T22:00:00.000Z'],
  ] as const)('counts a duration %s from now', (_way, direction, expected) => {
    expect(at('2h', { zone: 'UTC', direction })).toBe(expected);
  });
});

describe('instantArgument', () => {
  it.each([
    ['a month that does not exist', '2026-13-01'],
    ['an hour that does not exist', 'tomorrow 25:00'],
    ['a word it does not know', 'soon'],
    ['a duration, where only an instant goes', '2h'],
  ])('refuses %s as a bad value (exit code 2)', (_what, text) => {
    expect(() => instantArgument(text)).toThrow(InvalidArgumentError);
  });
});
