import { describe, expect, it } from 'vitest';
import { closestName, editDistance, excerpt } from '#text/message-text.ts';

describe('excerpt', () => {
  it.each([
    ['short text unchanged', 'Europe/Berlin', 'Europe/Berlin'],
    ['a NUL written as an escape', 'a\u0000b', 'a\\u0000b'],
    ['an escape sequence made printable', '\u001b[31mred', '\\u001b[31mred'],
    ['long text cut to 60 characters with …', 'x'.repeat(100), `${'x'.repeat(59)}…`],
    ['characters counted, not UTF-16 units', '😀'.repeat(61), `${'😀'.repeat(59)}…`],
  ])('%s', (_name, text, expected) => {
    expect(excerpt(text)).toBe(expected);
  });
});

describe('editDistance', () => {
  it.each([
    ['timezon', 'timezone', 1],
    ['Berln', 'Berlin', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('%s to %s is %d', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});

describe('closestName', () => {
  it('picks the nearest candidate within the distance, ignoring case', () => {
    expect(closestName('TIMEZON', ['schedule', 'timezone'], { maxDistance: 2 })).toBe('timezone');
  });

  it('suggests nothing when every candidate is too far', () => {
    expect(closestName('payload', ['schedule', 'timezone'], { maxDistance: 2 })).toBeUndefined();
  });

  it('compares the other forms of a candidate and returns the candidate', () => {
    const city = (zone: string) => [zone, zone.slice(zone.lastIndexOf('/') + 1)];
    expect(
      closestName('berlin', ['Europe/Paris', 'Europe/Berlin'], { maxDistance: 1, formsOf: city }),
    ).toBe('Europe/Berlin');
  });
});
