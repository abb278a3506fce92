/**
 * Readable durations for `jobs.yaml`: `90s`, `5m`, `24h`, `1h30m`, `2d`, or ISO 8601 such as
 * `PT5M`, `P1D`, `P1DT12H`, `P2W`.
 *
 * Everything becomes whole seconds: the stack, the dispatcher and the ledger all count in
 * seconds, and a unit that lives in the variable name (`windowSeconds`) cannot be mixed up.
 * Months and years are rejected: they have no fixed length, and "a window of one month" would
 * mean something different in February.
 */

import { excerpt } from '#text/message-text.ts';
import { InfraError } from '../errors/infra-error.ts';

/** The forms a duration may take, for messages. */
export const DURATION_FORMS = "90s, 5m, 24h, 1h30m, 2d, or ISO 8601 like 'PT5M', 'P1D'";

/** Why a duration string was rejected. */
export type DurationErrorReason = 'syntax' | 'calendar-unit' | 'fraction' | 'too-large';

/**
 * A duration string that is not one of the accepted forms.
 *
 * Carries the offending `input` and a machine-readable `reason`; the message says which forms
 * are allowed.
 */
export class DurationError extends InfraError {
  readonly input: string;
  readonly reason: DurationErrorReason;

  constructor(input: string, reason: DurationErrorReason, message: string) {
    super(message);
    this.input = input;
    this.reason = reason;
  }
}

const SECONDS_PER_WEEK = 604_800;

// Units in descending order, each at most once: `1h30m`, `2d12h`, `90s`.
const READABLE = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
// ISO 8601 durations with fixed-length units only. Weeks stand alone, as the standard says.
const ISO_WEEKS = /^P(\d+)W$/;
const ISO = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const ISO_CALENDAR = /^P(?:\d+(?:[.,]\d+)?Y)?(?:\d+(?:[.,]\d+)?M)?/;

/**
 * Parses a duration into whole seconds.
 *
 * Accepts the readable form (`d`, `h`, `m`, `s`, largest unit first, no spaces) and ISO 8601
 * durations made of weeks, days, hours, minutes and seconds. Rejects bare numbers (is `300`
 * seconds or minutes?), fractions, months, years and empty strings.
 *
 * @example
 * parseDurationSeconds('1h30m') //=> 5400
 * parseDurationSeconds('PT5M')  //=> 300
 * parseDurationSeconds('P1D')   //=> 86400
 * parseDurationSeconds('5 min') // throws DurationError: invalid duration '5 min' (use 90s, …)
 */
export function parseDurationSeconds(input: string): number {
  const text = input.trim();
  const readable = READABLE.exec(text);
  if (readable && text !== '') {
    const [, d, h, m, s] = readable;
    return checked(input, sum([d, h, m, s], [86_400, 3_600, 60, 1]));
  }
  const weeks = ISO_WEEKS.exec(text);
  if (weeks) return checked(input, sum([weeks[1]], [SECONDS_PER_WEEK]));
  const iso = ISO.exec(text);
  if (iso && text !== 'P' && !text.endsWith('T')) {
    const [, d, h, m, s] = iso;
    return checked(input, sum([d, h, m, s], [86_400, 3_600, 60, 1]));
  }
  if (/^P/.test(text) && ISO_CALENDAR.exec(text)?.[0] !== 'P') {
    throw new DurationError(
      input,
      'calendar-unit',
      `invalid duration '${excerpt(input)}': months and years have no fixed length (use days or weeks, e.g. 'P30D')`,
    );
  }
  if (/\d[.,]\d/.test(text)) {
    throw new DurationError(
      input,
      'fraction',
      `invalid duration '${excerpt(input)}': use whole units (e.g. '1h30m' instead of '1.5h')`,
    );
  }
  throw new DurationError(
    input,
    'syntax',
    `invalid duration '${excerpt(input)}' (use ${DURATION_FORMS})`,
  );
}

function sum(parts: (string | undefined)[], factors: number[]): number {
  let total = 0;
  parts.forEach((part, i) => {
    if (part !== undefined) total += Number(part) * (factors[i] ?? 0);
  });
  return total;
}

function checked(input: string, seconds: number): number {
  if (!Number.isSafeInteger(seconds)) {
    throw new DurationError(input, 'too-large', `invalid duration '${excerpt(input)}': too large`);
  }
  return seconds;
}

/**
 * Whole seconds in the readable form `parseDurationSeconds` reads, largest unit first.
 *
 * @example
 * formatDurationSeconds(5400) //=> '1h30m'
 * formatDurationSeconds(900)  //=> '15m'
 */
export function formatDurationSeconds(seconds: number): string {
  let rest = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('') || '0s';
}
