import { IANAZone } from 'luxon';
import { InvalidArgumentError, InvalidTimeZoneError } from './errors.ts';
import type { ZoneTransition } from './types.ts';

const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;
/** Latest minute a `Date` can hold (8.64e15 ms), minus a day of headroom. */
export const MAX_MINUTE = Math.floor(8.64e15 / MINUTE_MS) - 2 * DAY_MINUTES;
export const MIN_MINUTE = -MAX_MINUTE;
/**
 * Distance kept between the last transition we trust and the end of the sampled range. Larger
 * than any gap or overlap in the tz database (the largest are about 24 hours), so that the
 * iterator never acts on a slot near a transition it has not seen yet.
 */
export const COVER_MARGIN_MINUTES = 3 * DAY_MINUTES;
const FAR_MINUTES = 50 * 366 * DAY_MINUTES;
/** Longest window `zoneTransitions` samples: a millennium costs about half a second. */
const MAX_WINDOW_MINUTES = 1000 * 366 * DAY_MINUTES;

/**
 * Checks that `zone` is an IANA zone name and returns it.
 *
 * Fixed offsets (`+01:00`, `UTC+1`, `GMT-5`) are rejected even where the platform would accept
 * them: offsets change, names don't. Unknown names are rejected too. `UTC` and the `Etc/`
 * names are IANA names and are accepted.
 *
 * @example
 * validateTimeZone('Europe/Berlin')
 * //=> 'Europe/Berlin'
 * validateTimeZone('+01:00')
 * //=> throws InvalidTimeZoneError: invalid time zone '+01:00': fixed offsets are not allowed
 * //   (allowed an IANA zone name such as Europe/Berlin)
 */
export function validateTimeZone(zone: string): string {
  if (validZones.has(zone)) return zone;
  if (typeof zone !== 'string' || zone.trim() === '') {
    throw new InvalidTimeZoneError(
      `invalid time zone ${typeof zone === 'string' ? `'${zone}'` : `of type ${zone === null ? 'null' : typeof zone}`} (allowed an IANA zone name such as Europe/Berlin)`,
      String(zone),
    );
  }
  if (/^[+\-\d]|^(?:utc|gmt|z)\s*[+\-\d]/i.test(zone) || /^z$/i.test(zone)) {
    throw new InvalidTimeZoneError(
      `invalid time zone '${zone}': fixed offsets are not allowed (allowed an IANA zone name such as Europe/Berlin)`,
      zone,
    );
  }
  if (
    zone.length > 64 ||
    !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone) ||
    !IANAZone.isValidZone(zone) ||
    formatterFor(zone) === undefined
  ) {
    throw new InvalidTimeZoneError(
      `unknown time zone '${zone}' (allowed an IANA zone name such as Europe/Berlin)`,
      zone,
    );
  }
  if (validZones.size > 1000) validZones.clear();
  validZones.add(zone);
  return zone;
}

/** Zones already validated: luxon's check builds a new Intl formatter on every call. */
const validZones = new Set<string>();

const formatters = new Map<string, Intl.DateTimeFormat | undefined>();

function formatterFor(zone: string): Intl.DateTimeFormat | undefined {
  if (formatters.has(zone)) return formatters.get(zone);
  let formatter: Intl.DateTimeFormat | undefined;
  try {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    formatter = undefined;
  }
  if (formatters.size > 1000) formatters.clear();
  formatters.set(zone, formatter);
  return formatter;
}

/**
 * The offset changes of one zone over a growing range of UTC minutes.
 *
 * Segment i starts at `starts[i]` (UTC minutes since the epoch) and has offset `offsets[i]`
 * (minutes east of UTC) until `starts[i + 1]`, or until `coverEnd` for the last one. Every
 * segment start but the first is a real transition; the first is where sampling began.
 *
 * It is built by asking Intl for the offset once per day and bisecting to the minute where
 * two samples differ (about 0.5 ms per zone-year), then reused by every schedule in the zone:
 * converting between local wall-clock minutes and UTC becomes integer arithmetic. The samples
 * come from the same ICU data luxon reads, through a `longOffset` formatter, which is several
 * times faster than luxon's `IANAZone.offset` (it formats to parts). Limits: an offset change
 * that is undone within the same day is not seen; offsets with seconds (local mean time, mostly
 * before 1920) are floored to the minute.
 */
export class ZoneTable {
  readonly zone: string;
  starts: number[] = [];
  offsets: number[] = [];
  coverStart = 0;
  coverEnd = 0;
  private readonly formatter: Intl.DateTimeFormat;

  constructor(zone: string) {
    this.zone = zone;
    const formatter = formatterFor(zone);
    if (formatter === undefined)
      throw new InvalidTimeZoneError(`unknown time zone '${zone}'`, zone);
    this.formatter = formatter;
  }

  /** The offset (whole minutes, floored) in force at a UTC minute, straight from Intl. */
  sampleOffset(utcMinute: number): number {
    const text = this.formatter.format(utcMinute * MINUTE_MS);
    const at = text.lastIndexOf('GMT');
    const match = /([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$/.exec(text.slice(at + 3));
    if (match === null) return 0;
    const seconds =
      (Number(match[2]) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0)) *
      (match[1] === '-' ? -1 : 1);
    // Offsets with seconds (local mean time) are floored: a slot then runs at the first whole
    // UTC minute whose local time, cut to the minute, is the slot.
    return Math.floor(seconds / 60);
  }

  /**
   * Makes sure `[fromMinute - margin, toMinute + margin]` is sampled. A range far from the
   * sampled one (more than 50 years away) starts a fresh table instead of sampling the
   * distance in between; iterators notice the new arrays and find their place again.
   */
  ensure(fromMinute: number, toMinute: number): void {
    const from = Math.max(MIN_MINUTE, fromMinute - COVER_MARGIN_MINUTES);
    const to = Math.min(MAX_MINUTE, toMinute + COVER_MARGIN_MINUTES);
    const far =
      this.starts.length > 0 &&
      (from > this.coverEnd + FAR_MINUTES || to < this.coverStart - FAR_MINUTES);
    if (this.starts.length === 0 || far) {
      const start = floorToDay(from) - DAY_MINUTES;
      this.starts = [start];
      this.offsets = [this.sampleOffset(start)];
      this.coverStart = start;
      this.coverEnd = start;
      this.extendForward(Math.max(to, start + 366 * DAY_MINUTES));
      return;
    }
    if (from < this.coverStart) this.extendBackward(from);
    if (to > this.coverEnd) this.extendForward(to);
  }

  /** Extends the sampled range forward by at least a year, so extensions stay rare. */
  private extendForward(toMinute: number): void {
    const target = Math.min(MAX_MINUTE, Math.max(toMinute, this.coverEnd + 366 * DAY_MINUTES));
    let previous = this.coverEnd;
    let previousOffset = this.offsets[this.offsets.length - 1] as number;
    while (previous < target) {
      const next = Math.min(target, previous + DAY_MINUTES);
      const offset = this.sampleOffset(next);
      if (offset !== previousOffset) {
        this.findTransitions(previous, previousOffset, next, offset, this.starts, this.offsets);
      }
      previous = next;
      previousOffset = offset;
    }
    this.coverEnd = target;
  }

  private extendBackward(fromMinute: number): void {
    const target = Math.max(MIN_MINUTE, Math.min(fromMinute, this.coverStart - 366 * DAY_MINUTES));
    const starts = [target];
    const offsets = [this.sampleOffset(target)];
    let previous = target;
    let previousOffset = offsets[0] as number;
    while (previous < this.coverStart) {
      const next = Math.min(this.coverStart, previous + DAY_MINUTES);
      const offset =
        next === this.coverStart ? (this.offsets[0] as number) : this.sampleOffset(next);
      if (offset !== previousOffset) {
        this.findTransitions(previous, previousOffset, next, offset, starts, offsets);
      }
      previous = next;
      previousOffset = offset;
    }
    this.starts = starts.concat(this.starts.slice(1));
    this.offsets = offsets.concat(this.offsets.slice(1));
    this.coverStart = target;
  }

  /** Appends every transition in (from, to], knowing the offsets at both ends differ. */
  private findTransitions(
    from: number,
    fromOffset: number,
    to: number,
    toOffset: number,
    starts: number[],
    offsets: number[],
  ): void {
    if (to - from <= 1) {
      starts.push(to);
      offsets.push(toOffset);
      return;
    }
    const middle = Math.floor((from + to) / 2);
    const middleOffset = this.sampleOffset(middle);
    if (middleOffset !== fromOffset) {
      this.findTransitions(from, fromOffset, middle, middleOffset, starts, offsets);
    }
    if (middleOffset !== toOffset) {
      this.findTransitions(middle, middleOffset, to, toOffset, starts, offsets);
    }
  }

  /** Index of the segment containing a UTC minute inside the sampled range. */
  segmentAt(utcMinute: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] as number) <= utcMinute) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}

function floorToDay(minute: number): number {
  return Math.floor(minute / DAY_MINUTES) * DAY_MINUTES;
}

const tables = new Map<string, ZoneTable>();

/** The shared offset table of a validated zone. */
export function zoneTable(zone: string): ZoneTable {
  let table = tables.get(zone);
  if (table === undefined) {
    table = new ZoneTable(zone);
    if (tables.size > 500) tables.clear();
    tables.set(zone, table);
  }
  return table;
}

/** The whole minute of a valid `Date`, or an `InvalidArgumentError` naming the argument. */
export function minuteOf(date: Date, argument: string): number {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError(
      `invalid date for '${argument}' (allowed a valid Date)`,
      argument,
      date,
    );
  }
  return Math.floor(date.getTime() / MINUTE_MS);
}

/**
 * The offset changes of a zone in a window: every transition with `from < at <= to`.
 *
 * The CLI shows them next to a preview, the covering-expression code needs the offsets a
 * schedule lives in, and tests use them to aim at DST nights. Offsets are minutes east of UTC;
 * instants are whole minutes.
 *
 * @example
 * zoneTransitions('Europe/Berlin', new Date('2023-01-01T00:00Z'), new Date('2024-01-01T00:00Z'))
 * //=> [{ at: 2023-03-26T01:00:00.000Z, offsetBeforeMinutes: 60, offsetAfterMinutes: 120 },
 * //    { at: 2023-10-29T01:00:00.000Z, offsetBeforeMinutes: 120, offsetAfterMinutes: 60 }]
 */
export function zoneTransitions(zone: string, from: Date, to: Date): ZoneTransition[] {
  validateTimeZone(zone);
  const fromMs = checkedMs(from, 'from');
  const toMs = checkedMs(to, 'to');
  if (fromMs > toMs) {
    throw new InvalidArgumentError(
      `'from' (${from.toISOString()}) is after 'to' (${to.toISOString()}) (allowed from <= to)`,
      'from',
      from,
    );
  }
  const table = zoneTable(zone);
  const fromMinute = Math.floor(fromMs / MINUTE_MS);
  const toMinute = Math.floor(toMs / MINUTE_MS);
  if (toMinute - fromMinute > MAX_WINDOW_MINUTES) {
    throw new InvalidArgumentError(
      `window from ${from.toISOString()} to ${to.toISOString()} is too long (allowed at most 1000 years)`,
      'to',
      to,
    );
  }
  table.ensure(fromMinute, toMinute);
  const result: ZoneTransition[] = [];
  for (let i = Math.max(1, table.segmentAt(fromMinute)); i < table.starts.length; i++) {
    const atMs = (table.starts[i] as number) * MINUTE_MS;
    if (atMs > toMs) break;
    if (atMs <= fromMs) continue;
    result.push({
      at: new Date(atMs),
      offsetBeforeMinutes: table.offsets[i - 1] as number,
      offsetAfterMinutes: table.offsets[i] as number,
    });
  }
  return result;
}

function checkedMs(date: Date, argument: string): number {
  minuteOf(date, argument);
  const ms = date.getTime();
  if (Math.abs(ms) > MAX_MINUTE * MINUTE_MS) {
    throw new InvalidArgumentError(
      `date for '${argument}' is out of range (allowed a valid Date)`,
      argument,
      date,
    );
  }
  return ms;
}
