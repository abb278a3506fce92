import { InvalidArgumentError, Option } from 'commander';
import { DateTime } from 'luxon';
import { DurationError, parseDurationSeconds } from '../infra/config/duration.ts';

/**
 * Parses an instant given on the command line.
 *
 * ISO 8601 with an offset (`2023-03-26T01:30:00Z`, `2023-03-26T03:30+02:00`) is taken as
 * written; without one (`2023-03-26T01:30`, `2023-03-26`) it is read as UTC, never in the host's
 * zone, so the same command line means the same instant on every machine.
 */
export function parseInstant(value: string): Date {
  const parsed = DateTime.fromISO(value.trim(), { zone: 'UTC', setZone: true });
  if (!parsed.isValid) {
    throw new InvalidArgumentError(
      `'${value}' is not an ISO 8601 date-time (e.g. 2023-03-26T01:30:00Z)`,
    );
  }
  return parsed.toJSDate();
}

/**
 * Parses a whole number >= `min`, and <= `max` when given (commander argument parser); a
 * value outside is refused, never clipped.
 *
 * @example
 * integerAtLeast(1, 1000)('5000')
 * //=> throws InvalidArgumentError: '5000' is out of range (allowed 1 to 1000)
 */
export function integerAtLeast(min: number, max?: number): (value: string) => number {
  const allowed = max === undefined ? `>= ${min}` : `${min} to ${max}`;
  return (value: string) => {
    if (!/^\d+$/.test(value.trim())) {
      throw new InvalidArgumentError(`'${value}' is not a whole number (allowed ${allowed})`);
    }
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
      throw new InvalidArgumentError(`'${value}' is out of range (allowed ${allowed})`);
    }
    return n;
  };
}

/**
 * Parses an instant given as a duration from `now` in the notation of `jobs.yaml` (`90s`,
 * `30m`, `24h`, `7d`, ISO `PT24H`), counted back (`-1`) or forward (`+1`), or as an ISO
 * instant (`2023-03-26T00:00Z`, read as UTC without an offset).
 *
 * @example
 * instantOrDuration('2h', new Date('2026-11-29T10:00Z'), +1) //=> 2026-11-29T12:00:00.000Z
 */
export function instantOrDuration(value: string, now: Date, direction: 1 | -1): Date {
  const text = value.trim();
  try {
    return new Date(now.getTime() + direction * parseDurationSeconds(text) * 1000);
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
  }
  const instant = DateTime.fromISO(text, { zone: 'UTC', setZone: true });
  if (instant.isValid) return instant.toJSDate();
  throw new InvalidArgumentError(
    `'${value}' is neither a duration (e.g. 24h, 7d, PT30M) nor an ISO 8601 date-time`,
  );
}

/**
 * Parses `--since`: a duration back from now in the notation of `jobs.yaml` (`90s`, `30m`,
 * `24h`, `7d`, ISO `PT24H`) or an instant (`2023-03-26T00:00Z`).
 */
export function parseSince(value: string, now: Date): Date {
  return instantOrDuration(value, now, -1);
}

/**
 * `--gap <policy>`: what a local time that does not exist does (the engine's gap policies).
 *
 * @example
 * program.command('next').addOption(gapOption()).addOption(overlapOption());
 */
export function gapOption(): Option {
  return new Option('--gap <policy>', 'when a local time does not exist').choices([
    'shift',
    'transition',
    'skip',
  ]);
}

/** `--overlap <policy>`: what a local time that happens twice does. */
export function overlapOption(): Option {
  return new Option('--overlap <policy>', 'when a local time happens twice').choices([
    'first',
    'last',
    'both',
  ]);
}
