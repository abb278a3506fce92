import { InvalidArgumentError } from './errors.ts';
import { intlZoneRules } from './intl-zone-rules.ts';
import type { ZoneRules, ZoneTransition } from './types.ts';
import { validateTimeZone } from './zone-name.ts';

const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;
/** Distance between two samples of a zone's offset: see `ZoneTable`. */
const SAMPLE_STEP_MINUTES = DAY_MINUTES;
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
 * The offset changes of one zone over a growing range of UTC minutes.
 *
 * Segment i starts at `starts[i]` (UTC minutes since the epoch) and has offset `offsets[i]`
 * (minutes east of UTC) until `starts[i + 1]`, or until `coverEnd` for the last one. Every
 * segment start but the first is a real transition; the first is where sampling began.
 *
 * It is built by asking the zone's rules for the offset once per `SAMPLE_STEP_MINUTES` (a day)
 * and bisecting to the minute where two samples differ, then reused by every schedule in the
 * zone: converting between local wall-clock minutes and UTC becomes integer arithmetic.
 *
 * What it finds: every change, to the minute, when every offset lasts at least one step. Then no
 * interval between two samples holds two changes, so an interval whose ends differ holds
 * exactly one, which bisection finds, and an interval whose ends agree holds none. An offset
 * lasting less than a step can hide between two samples, with the changes into and out of it.
 * No sampling of Intl can rule that out, since Intl answers one instant at a time; the tz
 * database has no such offset (the shortest since 1970 lasted 167 hours: parts of Brazil,
 * October 2000), and the zone scan test checks every zone against the platform
 * (docs/semantics.md, "Limits").
 */
export class ZoneTable {
  readonly zone: string;
  starts: number[] = [];
  offsets: number[] = [];
  coverStart = 0;
  coverEnd = 0;
  readonly rules: ZoneRules;
  /** The least a forward extension samples: a year for shared tables, days for a probe. */
  private readonly aheadMinutes: number;

  constructor(zone: string, rules: ZoneRules, aheadMinutes = 366 * DAY_MINUTES) {
    this.zone = zone;
    this.rules = rules;
    this.aheadMinutes = aheadMinutes;
  }

  /**
   * Forgets what was sampled and samples afresh around `utcMinute` only: how an iterator that
   * jumps over months without a candidate slot avoids sampling them (see `OccurrenceCursor`).
   * Iterators notice the new arrays, as after a far `ensure`.
   */
  restart(utcMinute: number): void {
    this.starts = [];
    this.offsets = [];
    this.ensure(utcMinute, utcMinute);
  }

  /** The offset (whole minutes, floored) in force at a UTC minute, straight from the rules. */
  sampleOffset(utcMinute: number): number {
    const offset = this.rules.offsetMinutesAt(this.zone, utcMinute);
    if (!Number.isInteger(offset) || offset <= -DAY_MINUTES || offset >= DAY_MINUTES) {
      throw new InvalidArgumentError(
        `invalid offset ${String(offset)} from the zone rules for '${this.zone}' at ${new Date(utcMinute * MINUTE_MS).toISOString()} (allowed whole minutes from -1439 to 1439)`,
        'zoneRules',
        offset,
      );
    }
    return offset;
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
      this.extendForward(Math.max(to, start + this.aheadMinutes));
      return;
    }
    if (from < this.coverStart) this.extendBackward(from);
    if (to > this.coverEnd) this.extendForward(to);
  }

  /** Extends the sampled range forward by at least `aheadMinutes`, so extensions stay rare. */
  private extendForward(toMinute: number): void {
    const target = Math.min(MAX_MINUTE, Math.max(toMinute, this.coverEnd + this.aheadMinutes));
    let previous = this.coverEnd;
    let previousOffset = this.offsets[this.offsets.length - 1] as number;
    while (previous < target) {
      const next = Math.min(target, previous + SAMPLE_STEP_MINUTES);
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
      const next = Math.min(this.coverStart, previous + SAMPLE_STEP_MINUTES);
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

/**
 * The offset tables of one set of zone rules, one per zone, built on first use and shared by
 * every schedule that reads the same rules. Each engine owns one; the module-level functions
 * share `defaultZoneTables`.
 */
export class ZoneTables {
  readonly rules: ZoneRules;
  private readonly tables = new Map<string, ZoneTable>();

  constructor(rules: ZoneRules) {
    this.rules = rules;
  }

  /** The table of a validated zone. */
  tableFor(zone: string): ZoneTable {
    let table = this.tables.get(zone);
    if (table === undefined) {
      table = new ZoneTable(zone, this.rules);
      if (this.tables.size > 500) this.tables.clear();
      this.tables.set(zone, table);
    }
    return table;
  }
}

/** The tables of the platform's rules, shared by the module-level functions. */
export const defaultZoneTables = new ZoneTables(intlZoneRules);

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
  return transitionsIn(defaultZoneTables, zone, from, to);
}

/** `zoneTransitions` read from the tables of given rules. */
export function transitionsIn(
  tables: ZoneTables,
  zone: string,
  from: Date,
  to: Date,
): ZoneTransition[] {
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
  const table = tables.tableFor(zone);
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
