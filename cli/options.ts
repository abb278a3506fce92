import { InvalidArgumentError, Option } from 'commander';

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
