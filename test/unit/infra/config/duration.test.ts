import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DurationError,
  formatDurationSeconds,
  parseDurationSeconds,
} from '../../../../infra/config/duration.ts';

describe('formatDurationSeconds', () => {
  it('writes whole seconds largest unit first, in a form parseDurationSeconds reads back', () => {
    for (const [seconds, text] of [
      [900, '15m'],
      [5400, '1h30m'],
      [90_061, '1d1h1m1s'],
      [0, '0s'],
    ] as const) {
      expect(formatDurationSeconds(seconds)).toBe(text);
      expect(parseDurationSeconds(text)).toBe(seconds);
    }
  });
});

describe('parseDurationSeconds', () => {
  it.each([
    ['90s', 90],
    ['5m', 300],
    ['24h', 86_400],
    ['1h30m', 5_400],
    ['2d', 172_800],
    ['1d2h3m4s', 93_784],
    ['0s', 0],
    ['PT5M', 300],
    ['P1D', 86_400],
    ['P1DT12H', 129_600],
    ['PT1H30M15S', 5_415],
    ['P2W', 1_209_600],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseDurationSeconds(text)).toBe(seconds);
  });

  it.each([
    ['300', 'syntax'],
    ['', 'syntax'],
    ['5 min', 'syntax'],
    ['5M', 'syntax'],
    ['30m1h', 'syntax'],
    ['1ms', 'syntax'],
    ['-5m', 'syntax'],
    ['P', 'syntax'],
    ['PT', 'syntax'],
    ['P1DT', 'syntax'],
    ['P1M', 'calendar-unit'],
    ['P1Y2D', 'calendar-unit'],
    ['1.5h', 'fraction'],
    ['PT0.5S', 'fraction'],
  ] as const)('rejects %j (%s)', (text, reason) => {
    let caught: unknown;
    try {
      parseDurationSeconds(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DurationError);
    expect((caught as DurationError).reason).toBe(reason);
    expect((caught as DurationError).input).toBe(text);
    expect((caught as DurationError).message).toContain(`'${text}'`);
  });

  it('tells which forms are allowed', () => {
    expect(() => parseDurationSeconds('soon')).toThrow(
      "invalid duration 'soon' (use 90s, 5m, 24h, 1h30m, 2d, or ISO 8601 like 'PT5M', 'P1D')",
    );
  });

  it('reads the readable and the ISO form of the same duration alike', () => {
    fc.assert(
      fc.property(
        fc.nat(400),
        fc.nat(23),
        fc.nat(59),
        fc.nat(59),
        (days, hours, minutes, seconds) => {
          const readable = `${days}d${hours}h${minutes}m${seconds}s`;
          const iso = `P${days}DT${hours}H${minutes}M${seconds}S`;
          const expected = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
          expect(parseDurationSeconds(readable)).toBe(expected);
          expect(parseDurationSeconds(iso)).toBe(expected);
        },
      ),
    );
  });
});
