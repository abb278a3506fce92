/**
 * The local dates and date-times of jobs.yaml (`from:`, `until:`, `at:`, `closed:`), read in a
 * zone: their syntax, and the UTC instant a local date-time stands for.
 *
 * A local date-time has minutes and no seconds, as a cron slot has; `from:` and `until:` may
 * also carry an offset (`Z`, `+01:00`), which fixes their instant whatever the zone.
 */
import { DateTime } from 'luxon';

/** `YYYY-MM-DD`. */
export const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** `YYYY-MM-DDTHH:mm`. */
export const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;
/** `YYYY-MM-DD`, `YYYY-MM-DDTHH:mm`, or either with `Z` or `±HH:mm` after the time. */
const BOUND = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(Z|[+-]\d{2}:\d{2})?)?$/;

/** The forms `from:` and `until:` take, for messages. */
export const BOUND_FORMS =
  "a local date-time like '2026-12-24T18:00' or '2026-12-24', or one with an offset like '2026-12-24T18:00+01:00'";

/**
 * Whether `text` is a real date `YYYY-MM-DD` (no February 30).
 *
 * @example
 * isLocalDate('2028-02-29') //=> true
 * isLocalDate('2027-02-29') //=> false
 */
export function isLocalDate(text: string): boolean {
  const match = LOCAL_DATE.exec(text);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * Whether `text` is a real local date-time `YYYY-MM-DDTHH:mm`.
 *
 * @example
 * isLocalDateTime('2026-12-24T18:00') //=> true
 * isLocalDateTime('2026-12-24T24:00') //=> false
 */
export function isLocalDateTime(text: string): boolean {
  const match = LOCAL_DATE_TIME.exec(text);
  if (!match) return false;
  return isLocalDate(text.slice(0, 10)) && Number(match[4]) <= 23 && Number(match[5]) <= 59;
}

/**
 * Whether `text` is a `from:`/`until:` value ({@link BOUND_FORMS}).
 *
 * @example
 * isBound('2027-01-01T00:00Z') //=> true
 * isBound('2027-01-01 00:00')  //=> false
 */
export function isBound(text: string): boolean {
  const match = BOUND.exec(text);
  if (!match) return false;
  const [, date, time, offset] = match;
  if (!isLocalDate(date ?? '')) return false;
  if (time !== undefined && !isLocalDateTime(`${date}T${time}`)) return false;
  if (offset === undefined || offset === 'Z') return true;
  const [hours, minutes] = offset.slice(1).split(':').map(Number) as [number, number];
  return hours <= 14 && minutes <= 59;
}

/**
 * The UTC instant of a `from:`/`until:` value in `zone`: with an offset, that instant; without,
 * the local time in the zone. A local time the spring-forward gap skips is read as the same
 * time after the jump (02:30 → 03:30 CEST); one the repeated hour shows twice, as its first
 * showing.
 *
 * @example
 * boundInstant('2026-12-24T18:00', 'Europe/Berlin').toISOString() //=> '2026-12-24T17:00:00.000Z'
 * boundInstant('2026-12-24T18:00Z', 'Europe/Berlin').toISOString() //=> '2026-12-24T18:00:00.000Z'
 */
export function boundInstant(text: string, zone: string): Date {
  const match = BOUND.exec(text);
  const date = match?.[1] ?? text;
  const time = match?.[2] ?? '00:00';
  const offset = match?.[3];
  if (offset !== undefined) {
    return new Date(`${date}T${time}:00${offset === 'Z' ? 'Z' : offset}`);
  }
  const local = DateTime.fromISO(`${date}T${time}`, { zone });
  // In a repeated hour luxon may read the later offset; the earlier showing is an hour before.
  const earlier = local.minus({ hours: 1 });
  const sameWall = earlier.setZone(zone).toFormat("yyyy-MM-dd'T'HH:mm") === `${date}T${time}`;
  return (sameWall ? earlier : local).toJSDate();
}
