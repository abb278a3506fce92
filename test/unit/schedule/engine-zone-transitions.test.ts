// zoneTransitions finds every offset change to the minute, and validateTimeZone accepts IANA
// names only. Instants are the published tz transitions.
import { describe, expect, it } from 'vitest';
import {
  InvalidArgumentError,
  InvalidTimeZoneError,
  validateTimeZone,
  zoneTransitions,
} from '../../../functions/schedule/index.ts';

const shape = (zone: string, from: string, to: string) =>
  zoneTransitions(zone, new Date(from), new Date(to)).map((t) => [
    t.at.toISOString(),
    t.offsetBeforeMinutes,
    t.offsetAfterMinutes,
  ]);

describe('zoneTransitions', () => {
  it('finds both Berlin transitions of 2023', () => {
    expect(shape('Europe/Berlin', '2023-01-01T00:00:00Z', '2024-01-01T00:00:00Z')).toEqual([
      ['2023-03-26T01:00:00.000Z', 60, 120],
      ['2023-10-29T01:00:00.000Z', 120, 60],
    ]);
  });

  it('finds the day Samoa skipped and its DST changes of 2011', () => {
    expect(shape('Pacific/Apia', '2011-01-01T00:00:00Z', '2012-01-01T00:00:00Z')).toEqual([
      ['2011-04-02T14:00:00.000Z', -600, -660],
      ['2011-09-24T14:00:00.000Z', -660, -600],
      ['2011-12-30T10:00:00.000Z', -600, 840],
    ]);
  });

  it("finds Lord Howe's 30-minute and Troll's 2-hour changes", () => {
    expect(shape('Australia/Lord_Howe', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual([
      ['2026-04-04T15:00:00.000Z', 660, 630],
      ['2026-10-03T15:30:00.000Z', 630, 660],
    ]);
    expect(shape('Antarctica/Troll', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toEqual([
      ['2026-03-29T01:00:00.000Z', 0, 120],
      ['2026-10-25T01:00:00.000Z', 120, 0],
    ]);
  });

  it('counts a transition in (from, to]: excluded at from, included at to', () => {
    expect(shape('Europe/Berlin', '2023-03-26T01:00:00Z', '2023-10-29T01:00:00Z')).toEqual([
      ['2023-10-29T01:00:00.000Z', 120, 60],
    ]);
  });

  it('answers windows asked out of order, earlier after later, the same', () => {
    const late = shape('America/Santiago', '2030-01-01T00:00:00Z', '2031-01-01T00:00:00Z');
    const early = shape('America/Santiago', '1995-01-01T00:00:00Z', '1996-01-01T00:00:00Z');
    expect(early).toHaveLength(2);
    expect(
      shape('America/Santiago', '1995-01-01T00:00:00Z', '2031-01-01T00:00:00Z').slice(-late.length),
    ).toEqual(late);
  });

  it('has none in UTC', () => {
    expect(shape('UTC', '1990-01-01T00:00:00Z', '2037-01-01T00:00:00Z')).toEqual([]);
  });

  it('rejects from after to', () => {
    expect(() =>
      zoneTransitions('UTC', new Date('2026-01-02T00:00:00Z'), new Date('2026-01-01T00:00:00Z')),
    ).toThrow(InvalidArgumentError);
  });
});

describe('validateTimeZone', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Kathmandu'])(
    'accepts %s',
    (zone) => {
      expect(validateTimeZone(zone)).toBe(zone);
    },
  );

  it.each([
    '+01:00',
    '-0500',
    'UTC+1',
    'GMT-5',
    'Z',
    'Etc/GMT+5',
    'Europe/Atlantis',
    'Europe/Berlin ',
    '../etc/passwd',
    '',
  ])('rejects %j', (zone) => {
    expect(() => validateTimeZone(zone)).toThrow(InvalidTimeZoneError);
  });
});
