import { InvalidTimeZoneError } from './errors.ts';
import { INTL_RULES_REPEAT_FROM_MINUTE } from './search-bound.ts';
import type { ZoneRules } from './types.ts';

const MINUTE_MS = 60_000;

/**
 * One formatter per zone, or `undefined` when the platform does not know the zone.
 *
 * The pattern is the shortest that still carries the offset (a one-letter weekday, then
 * `GMT+01:00`): formatting dominates the cost of a sample, and fewer fields format faster
 * than the full date.
 */
const formatters = new Map<string, Intl.DateTimeFormat | undefined>();

/** Whether the platform's `Intl` accepts `zone` as a time zone. */
export function intlKnowsZone(zone: string): boolean {
  return formatterFor(zone) !== undefined;
}

/**
 * The name the platform resolves `zone` to (its canonical form, in its own case), or
 * `undefined` when it does not know the zone.
 *
 * @example
 * intlResolvedZone('us/eastern')
 * //=> 'America/New_York'
 */
export function intlResolvedZone(zone: string): string | undefined {
  return formatterFor(zone)?.resolvedOptions().timeZone;
}

function formatterFor(zone: string): Intl.DateTimeFormat | undefined {
  if (formatters.has(zone)) return formatters.get(zone);
  let formatter: Intl.DateTimeFormat | undefined;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'narrow',
      timeZoneName: 'longOffset',
    });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    formatter = undefined;
  }
  if (formatters.size > 1000) formatters.clear();
  formatters.set(zone, formatter);
  return formatter;
}

/**
 * The offset a `longOffset` text ends with, in whole minutes east of UTC, floored:
 * `…GMT` is 0, `…GMT+05:30` is 330, `…GMT-00:44:30` (local mean time) is -45.
 *
 * Read by character codes from the end: a regular expression cost a third of each sample.
 * Anything else is refused, so a platform that formats offsets differently fails loudly
 * instead of reading as UTC.
 */
export function parseLongOffsetMinutes(text: string, zone: string): number {
  const at = text.lastIndexOf('GMT') + 3;
  const length = text.length - at;
  if (at === 2 || (length !== 0 && length !== 6 && length !== 9)) return unreadable(text, zone);
  if (length === 0) return 0;
  const sign = text.charCodeAt(at);
  const negative = sign === 45 || sign === 0x2212;
  if (!negative && sign !== 43) return unreadable(text, zone);
  const hours = twoDigits(text, at + 1);
  const minutes = twoDigits(text, at + 4);
  const seconds = length === 9 ? twoDigits(text, at + 7) : 0;
  if (hours < 0 || minutes < 0 || seconds < 0) return unreadable(text, zone);
  const total = hours * 3600 + minutes * 60 + seconds;
  // Offsets with seconds (local mean time) are floored: a slot then runs at the first whole
  // UTC minute whose local time, cut to the minute, is the slot.
  return Math.floor((negative ? -total : total) / 60);
}

/** The number written by two ASCII digits at `at`, or -1. */
function twoDigits(text: string, at: number): number {
  const tens = text.charCodeAt(at) - 48;
  const units = text.charCodeAt(at + 1) - 48;
  if (tens < 0 || tens > 9 || units < 0 || units > 9) return -1;
  return tens * 10 + units;
}

function unreadable(text: string, zone: string): never {
  throw new InvalidTimeZoneError(
    `cannot read the offset of time zone '${zone}' from the platform's '${text}' (allowed GMT, GMT±hh:mm or GMT±hh:mm:ss)`,
    zone,
  );
}

/**
 * The platform's time-zone rules: ICU's copy of the IANA database, read through `Intl`.
 *
 * The default of every engine, and the only rules the module-level functions use. Which
 * release of the database it holds is `process.versions.tz`. The samples come from the same
 * data luxon reads, through a `longOffset` formatter, which is several times faster than
 * luxon's `IANAZone.offset` (it formats to parts). Every zone repeats from the start of 2200
 * (`INTL_RULES_REPEAT_FROM_MINUTE`).
 *
 * @example
 * intlZoneRules.offsetMinutesAt('Asia/Kolkata', 0)
 * //=> 330
 * intlZoneRules.offsetMinutesAt('Europe/Berlin', Date.parse('2026-07-01T00:00Z') / 60_000)
 * //=> 120
 */
export const intlZoneRules: ZoneRules = {
  offsetMinutesAt(zone: string, utcMinute: number): number {
    const formatter = formatterFor(zone);
    if (formatter === undefined) {
      throw new InvalidTimeZoneError(`unknown time zone '${zone}'`, zone);
    }
    return parseLongOffsetMinutes(formatter.format(utcMinute * MINUTE_MS), zone);
  },
  repeatsFromMinute: () => INTL_RULES_REPEAT_FROM_MINUTE,
};
