import { CalendarWalk, needsWalk } from './calendar-runs.ts';
import { formatLocalMinute } from './civil-calendar.ts';
import { InvalidArgumentError } from './errors.ts';
import { LocalSlotMatcher, NO_SLOT } from './local-slots.ts';
import { parseCron } from './parse-cron.ts';
import { CYCLE_MINUTES, repeatStartMinute } from './search-bound.ts';
import {
  COVER_MARGIN_MINUTES,
  defaultZoneTables,
  MAX_MINUTE,
  minuteOf,
  ZoneTable,
  type ZoneTables,
} from './time-zone.ts';
import type {
  DstPolicies,
  GapPolicy,
  Occurrence,
  OverlapPolicy,
  ParsedCron,
  ScheduleKind,
  ScheduleSpec,
} from './types.ts';
import { validateTimeZone } from './zone-name.ts';

const MINUTE_MS = 60_000;
const GAP_POLICIES: readonly GapPolicy[] = ['shift', 'transition', 'skip'];
const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['first', 'last', 'both'];
/** A run and its local slot are less than a day apart: offsets stay within ±1439 minutes. */
const MAX_OFFSET_MINUTES = 1439;
/** A stretch without a candidate slot longer than this is jumped over, not sampled... */
const JUMP_MIN_MINUTES = 14 * 1440;
/** ...by a cursor that has gone this long without a run: it searches more than it lists. */
const SEARCHING_MINUTES = 366 * 1440;
/** What a probe table samples past the minute it is asked for (see `jumpOver`). */
const PROBE_AHEAD_MINUTES = 10 * 1440;

interface CompiledCron {
  readonly parsed: ParsedCron;
  readonly matcher: LocalSlotMatcher;
  readonly kind: ScheduleKind;
}

const compiledCache = new Map<string, CompiledCron>();

/**
 * Parses once per expression, and per job id only where the expression may use `H` (the only
 * thing the id changes): thousands of jobs with their own ids and a few shared expressions
 * then share a few entries instead of evicting each other. The result is immutable.
 */
function compile(cron: string, jobId: string | undefined): CompiledCron {
  const key = /h/i.test(cron) ? `${jobId ?? ''}\u0000${cron}` : `\u0000${cron}`;
  let compiled = compiledCache.get(key);
  if (compiled === undefined) {
    const parsed = parseCron(cron, jobId);
    const matcher = new LocalSlotMatcher(parsed);
    compiled = { parsed, matcher, kind: matcher.allHours ? 'cadence' : 'wall-clock' };
    if (compiledCache.size >= 1000) compiledCache.clear();
    compiledCache.set(key, compiled);
  }
  return compiled;
}

/** Throws an `InvalidArgumentError` when a spec is not an object or its job id not a string. */
export function checkSpec(spec: ScheduleSpec): void {
  if (typeof spec !== 'object' || spec === null) {
    throw new InvalidArgumentError(
      'invalid schedule spec (allowed an object with cron and timezone)',
      'spec',
      spec,
    );
  }
  if (spec.jobId !== undefined && typeof spec.jobId !== 'string') {
    throw new InvalidArgumentError(
      `invalid job id of type ${typeof spec.jobId} (allowed a string)`,
      'spec.jobId',
      spec.jobId,
    );
  }
}

/** The parsed expression of a checked spec (cached). */
export function parsedCronOf(spec: ScheduleSpec): ParsedCron {
  checkSpec(spec);
  return compile(spec.cron, spec.jobId).parsed;
}

/**
 * Whether a schedule is a cadence or a wall-clock schedule, which picks its DST defaults.
 *
 * A cadence (the hour field matches all 24 hours) follows elapsed time; anything else names
 * local times of day. See `resolvePolicies`.
 *
 * @example
 * scheduleKind({ cron: '*\/15 * * * *', timezone: 'Europe/Berlin' })
 * //=> 'cadence'
 * scheduleKind({ cron: '30 2 * * *', timezone: 'Europe/Berlin' })
 * //=> 'wall-clock'
 */
export function scheduleKind(spec: ScheduleSpec): ScheduleKind {
  checkSpec(spec);
  return compile(spec.cron, spec.jobId).kind;
}

/**
 * The DST policies a schedule runs with: its kind's defaults, overridden by `spec.dst`.
 *
 * Cadence: gap `skip`, overlap `both` (nothing is lost in the gap, the cadence holds through
 * the repeated hour). Wall-clock: gap `shift`, overlap `first` (exactly one run per matching
 * local slot).
 *
 * @example
 * resolvePolicies({ cron: '30 2 * * *', timezone: 'Europe/Berlin' })
 * //=> { gap: 'shift', overlap: 'first' }
 * resolvePolicies({ cron: '0 * * * *', timezone: 'Europe/Berlin', dst: { overlap: 'first' } })
 * //=> { gap: 'skip', overlap: 'first' }
 */
export function resolvePolicies(spec: ScheduleSpec): DstPolicies {
  const kind = scheduleKind(spec);
  const dst: unknown = spec.dst;
  if (dst !== undefined && (typeof dst !== 'object' || dst === null)) {
    throw new InvalidArgumentError(
      'invalid dst (allowed an object with gap and/or overlap)',
      'spec.dst',
      dst,
    );
  }
  const gap = spec.dst?.gap ?? (kind === 'cadence' ? 'skip' : 'shift');
  const overlap = spec.dst?.overlap ?? (kind === 'cadence' ? 'both' : 'first');
  if (!GAP_POLICIES.includes(gap)) {
    throw new InvalidArgumentError(
      `invalid gap policy '${String(gap)}' (allowed ${GAP_POLICIES.join(', ')})`,
      'spec.dst.gap',
      gap,
    );
  }
  if (!OVERLAP_POLICIES.includes(overlap)) {
    throw new InvalidArgumentError(
      `invalid overlap policy '${String(overlap)}' (allowed ${OVERLAP_POLICIES.join(', ')})`,
      'spec.dst.overlap',
      overlap,
    );
  }
  return { gap, overlap };
}

/**
 * Why a cursor has no more runs: it reached `limitMinute`; its search bound, past which no run
 * can come (`repeatStartMinute`); or the end of `Date`'s range.
 */
export type CursorEnd = 'limit' | 'bound' | 'range';

/**
 * Walks a schedule's runs forward in UTC, one segment of constant offset at a time.
 *
 * Inside a segment, a local slot L runs at L - offset, so runs come out sorted. The DST
 * policies only act in windows next to a transition at T (offset b before, a after):
 *
 * ```
 *  gap (a > b):      UTC  ───────────┤T ······ T+(a-b)├──────────
 *                    slots of the missing local hour [T+b, T+a) land here (shift), or at T
 *                    (transition); merged with the real slots, a real slot wins a tie
 *  overlap (a < b):  UTC  ──┤T-(b-a) ··· T├T ··· T+(b-a)├──
 *                           first copies   second copies   of local [T+a, T+b): tag overlap;
 *                           `first` drops the second copies, `last` the first ones
 * ```
 *
 * `limitMinute` stops the walk early for `occurrencesBetween`. The walk also stops a cycle
 * past the later of its last run and the zone's `repeatStartMinute`: no run can come after
 * that (search-bound.ts), so a schedule that never runs is answered, not searched to the year
 * 275760. Where no slot is near, it jumps straight to the next one (`jumpOver`).
 */
export class OccurrenceCursor {
  /** Why `next()` last returned undefined. */
  ended: CursorEnd | undefined;
  /** The run `step()` or `next()` last found: its instant (UTC minutes), local slot and DST tag. */
  lastInstantMinute = 0;
  lastLocalMinute = 0;
  lastDst: Occurrence['dst'] = 'none';
  private nextMinute: number;
  private segment: number;
  private starts: number[];
  private table: ZoneTable;
  /** Whether `table` is this cursor's own probe table rather than the zone's shared one. */
  private probing = false;
  private readonly repeatStart: number;
  private boundMinute: number;
  /** Where the walk started, or the minute after its last run. */
  private sinceMinute: number;

  constructor(
    readonly matcher: LocalSlotMatcher,
    table: ZoneTable,
    private readonly policies: DstPolicies,
    firstMinute: number,
    private readonly limitMinute: number,
  ) {
    this.nextMinute = firstMinute;
    this.table = table;
    table.ensure(firstMinute, firstMinute);
    this.starts = table.starts;
    this.segment = table.segmentAt(firstMinute);
    this.repeatStart = repeatStartMinute(table.rules, table.zone);
    this.boundMinute = Math.max(firstMinute, this.repeatStart) + CYCLE_MINUTES;
    this.sinceMinute = firstMinute;
  }

  /** The last minute the walk looks at, as it stands: it moves on with every run found. */
  get searchedUntilMinute(): number {
    return Math.min(this.boundMinute, this.limitMinute, MAX_MINUTE);
  }

  next(): Occurrence | undefined {
    if (!this.step()) return undefined;
    return {
      at: new Date(this.lastInstantMinute * MINUTE_MS),
      nominal: formatLocalMinute(this.lastLocalMinute),
      dst: this.lastDst,
    };
  }

  /**
   * Finds the next run without building it: true with the run in `lastInstantMinute`,
   * `lastLocalMinute` and `lastDst`, false when there is none (then `ended` says why).
   *
   * The calendar stage reads runs this way, and builds only the runs it keeps as they are:
   * a run it moves or skips costs no `Date` and no text.
   */
  step(): boolean {
    if (!this.advance()) return false;
    if (this.lastInstantMinute > this.limitMinute) {
      this.ended = 'limit';
      return false;
    }
    this.sinceMinute = this.nextMinute;
    this.boundMinute = Math.max(this.nextMinute, this.repeatStart) + CYCLE_MINUTES;
    return true;
  }

  /** Records the run at `instantMinute` of local slot `localMinute`: always true. */
  private found(instantMinute: number, localMinute: number, dst: Occurrence['dst']): true {
    this.lastInstantMinute = instantMinute;
    this.lastLocalMinute = localMinute;
    this.lastDst = dst;
    return true;
  }

  /**
   * Goes on from UTC minute `minute` (when it is ahead): how a calendar jumps over a closed
   * range or closed days instead of looking at each of their runs.
   */
  skipTo(minute: number): void {
    if (minute > this.nextMinute) this.nextMinute = minute;
  }

  /**
   * Finds the next run (true, recorded by `found`), possibly past `limitMinute` (only the plain
   * region search stops there).
   *
   * Each turn looks at the segment holding `nextMinute`: inside a DST window next to one of its
   * transitions a window step decides (and may only move `nextMinute` on), elsewhere one
   * matcher search up to the segment's end, or up to the window before its next transition.
   */
  private advance(): boolean {
    const matcher = this.matcher;
    for (;;) {
      const u = this.nextMinute;
      if (u > this.limitMinute || u > this.boundMinute || u > MAX_MINUTE) {
        this.ended = u > this.limitMinute ? 'limit' : u > this.boundMinute ? 'bound' : 'range';
        return false;
      }
      let table = this.table;
      if (
        u >= table.coverEnd - COVER_MARGIN_MINUTES ||
        u < table.coverStart + COVER_MARGIN_MINUTES
      ) {
        if (this.jumpOver(u)) continue;
        if (!this.coverMinute(u)) {
          this.ended = 'range';
          return false;
        }
        table = this.table;
      }
      const s = this.segmentOf(u);
      const starts = this.starts;
      const offsets = table.offsets;
      const start = starts[s] as number;
      const offset = offsets[s] as number;
      const hasNext = s + 1 < starts.length;
      const end = hasNext ? (starts[s + 1] as number) : table.coverEnd - COVER_MARGIN_MINUTES;

      if (s > 0) {
        const before = offsets[s - 1] as number;
        if (offset > before && this.inGapWindow(u, start, offset - before, end)) {
          if (this.gapWindowRun(u, start, before, offset, end)) return true;
          continue;
        }
        if (offset < before && u < start + (before - offset)) {
          if (this.secondCopyRun(u, start, before, offset, end)) return true;
          continue;
        }
      }

      let regionEnd = end;
      if (hasNext) {
        const after = offsets[s + 1] as number;
        if (after < offset) {
          const windowStart = Math.max(start, end - (offset - after));
          if (u >= windowStart) {
            if (this.firstCopyRun(u, offset, end)) return true;
            continue;
          }
          regionEnd = windowStart;
        }
      }
      regionEnd = Math.min(regionEnd, this.limitMinute + 1);
      const slot = matcher.next(u + offset, regionEnd + offset);
      if (slot !== NO_SLOT) {
        this.nextMinute = slot - offset + 1;
        return this.found(slot - offset, slot, 'none');
      }
      this.nextMinute = regionEnd;
    }
  }

  /**
   * At the end of the sampled range, moves past a stretch in which no run can be: true when it
   * moved `nextMinute`, false when the next candidate is near and the table should grow.
   *
   * A run at t stands for a matching slot s with |s - t| <= 1439 (offsets are less than a day),
   * so no run comes before `slot - 1439`, where `slot` is the first matching slot from
   * `u - 1439` on. When that is more than two weeks past `u`, and the cursor has gone a year
   * without a run (it is searching: "never", or a run years away), it goes there on a probe
   * table of its own, sampled only around it, instead of sampling every day in between: a
   * search to the bound then costs a few samples a year. A cursor that keeps finding runs
   * grows the zone's shared table instead, which the next call finds sampled.
   */
  private jumpOver(u: number): boolean {
    const table = this.table;
    if (u < table.coverEnd - COVER_MARGIN_MINUTES) return false;
    if (u - this.sinceMinute < SEARCHING_MINUTES) return false;
    const slot = this.matcher.next(u - MAX_OFFSET_MINUTES, Number.POSITIVE_INFINITY);
    const earliest = slot === NO_SLOT ? Number.POSITIVE_INFINITY : slot - MAX_OFFSET_MINUTES;
    if (earliest <= u + JUMP_MIN_MINUTES) return false;
    this.nextMinute = earliest;
    if (earliest > this.limitMinute || earliest > this.boundMinute || earliest > MAX_MINUTE) {
      return true;
    }
    if (!this.probing) {
      this.table = new ZoneTable(table.zone, table.rules, PROBE_AHEAD_MINUTES);
      this.probing = true;
    }
    this.table.restart(earliest);
    this.starts = this.table.starts;
    this.segment = this.table.segmentAt(earliest);
    return true;
  }

  /**
   * Grows the zone table to cover minute `u`; false when it cannot, which happens only at the
   * ends of Date's range.
   */
  private coverMinute(u: number): boolean {
    const table = this.table;
    table.ensure(u, u + 1);
    return u < table.coverEnd - COVER_MARGIN_MINUTES;
  }

  /** The segment holding minute `u`, found from the last one (the table may have grown since). */
  private segmentOf(u: number): number {
    const table = this.table;
    if (table.starts !== this.starts) {
      this.starts = table.starts;
      this.segment = table.segmentAt(u);
    }
    const starts = this.starts;
    let s = this.segment;
    while (s + 1 < starts.length && (starts[s + 1] as number) <= u) s++;
    this.segment = s;
    return s;
  }

  /**
   * Whether minute `u` of a segment starting at `start` after a gap of `jump` minutes is one the
   * gap policy acts on: `start` itself for `transition`, the first `jump` minutes for `shift`.
   */
  private inGapWindow(u: number, start: number, jump: number, end: number): boolean {
    const gap = this.policies.gap;
    if (gap === 'transition') return u === start;
    return gap === 'shift' && u < Math.min(start + jump, end);
  }

  /**
   * The next run in the window after a gap (offset `before`, then `offset`): the slots of the
   * missing local hour at `start` (`transition`) or shifted by the jump (`shift`), merged with
   * the real slots (true, in the `last…` fields); false when the window has none, with
   * `nextMinute` moved past it.
   */
  private gapWindowRun(
    u: number,
    start: number,
    before: number,
    offset: number,
    end: number,
  ): boolean {
    const matcher = this.matcher;
    if (this.policies.gap === 'transition') {
      this.nextMinute = start + 1;
      const real = matcher.next(start + offset, start + offset + 1);
      if (real !== NO_SLOT) return this.found(start, real, 'none');
      const missing = matcher.next(start + before, start + offset);
      if (missing !== NO_SLOT) return this.found(start, missing, 'gap');
      return false;
    }
    const windowEnd = Math.min(start + (offset - before), end);
    const missing = matcher.next(u + before, windowEnd + before);
    const real = matcher.next(u + offset, windowEnd + offset);
    if (missing === NO_SLOT && real === NO_SLOT) {
      this.nextMinute = windowEnd;
      return false;
    }
    if (real - offset <= missing - before) {
      this.nextMinute = real - offset + 1;
      return this.found(real - offset, real, 'none');
    }
    this.nextMinute = missing - before + 1;
    return this.found(missing - before, missing, 'gap');
  }

  /**
   * The next second copy of a repeated local slot, in the window after an overlap (offset
   * `before`, then the smaller `offset`), as `found` records it; false, with `nextMinute` moved
   * past the window, when there is none or the policy is `first`.
   */
  private secondCopyRun(
    u: number,
    start: number,
    before: number,
    offset: number,
    end: number,
  ): boolean {
    const windowEnd = Math.min(start + (before - offset), end);
    if (this.policies.overlap !== 'first') {
      const slot = this.matcher.next(u + offset, windowEnd + offset);
      if (slot !== NO_SLOT) {
        this.nextMinute = slot - offset + 1;
        return this.found(slot - offset, slot, 'overlap');
      }
    }
    this.nextMinute = windowEnd;
    return false;
  }

  /**
   * The next first copy of a repeated local slot, in the window before an overlap that begins
   * at `end`, as `found` records it; false, with `nextMinute` moved to `end`, when there is none
   * or the policy is `last`.
   */
  private firstCopyRun(u: number, offset: number, end: number): boolean {
    if (this.policies.overlap !== 'last') {
      const slot = this.matcher.next(u + offset, end + offset);
      if (slot !== NO_SLOT) {
        this.nextMinute = slot - offset + 1;
        return this.found(slot - offset, slot, 'overlap');
      }
    }
    this.nextMinute = end;
    return false;
  }
}

/** A cursor over a valid schedule's runs from `firstMinute` on (UTC minutes since the epoch). */
export function cursorFor(
  tables: ZoneTables,
  spec: ScheduleSpec,
  firstMinute: number,
  limitMinute: number,
): OccurrenceCursor {
  const policies = resolvePolicies(spec);
  const zone = validateTimeZone(spec.timezone);
  const { matcher } = compile(spec.cron, spec.jobId);
  return new OccurrenceCursor(matcher, tables.tableFor(zone), policies, firstMinute, limitMinute);
}

/**
 * The runs of a spec from `firstMinute` to `limitMinute` (UTC minutes, inclusive): the plain
 * cursor, or the calendar stage over it when the spec has a calendar or bounds.
 */
export function runsFrom(
  tables: ZoneTables,
  spec: ScheduleSpec,
  firstMinute: number,
  limitMinute: number,
): { next(): Occurrence | undefined } {
  if (!needsWalk(spec)) return cursorFor(tables, spec, firstMinute, limitMinute);
  return new CalendarWalk(tables, spec, firstMinute, limitMinute, false);
}

/**
 * The next `count` runs of a schedule strictly after `after`.
 *
 * The dispatcher asks which run a tick stands for, the CLI previews, tests pin DST nights:
 * all of them go through here so they never disagree. Runs are the sorted, distinct UTC
 * instants of the schedule's local slots under its DST policies (docs/semantics.md, "Time zones and daylight saving time").
 * Fewer than `count` when no more can come: `nextRun` says why.
 *
 * @example
 * nextOccurrences({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, new Date('2023-03-26T00:59:59Z'), 1)
 * //=> [{ at: 2023-03-26T01:30:00.000Z, nominal: '2023-03-26T02:30', dst: 'gap' }]
 * nextOccurrences({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, new Date('2023-10-28T23:00Z'), 2)
 * //=> [{ at: 2023-10-29T00:30:00.000Z, nominal: '2023-10-29T02:30', dst: 'overlap' },
 * //    { at: 2023-10-30T01:30:00.000Z, nominal: '2023-10-30T02:30', dst: 'none' }]
 */
export function nextOccurrences(spec: ScheduleSpec, after: Date, count: number): Occurrence[] {
  return nextOccurrencesIn(defaultZoneTables, spec, after, count);
}

/** `nextOccurrences` with the offsets of given zone tables. */
export function nextOccurrencesIn(
  tables: ZoneTables,
  spec: ScheduleSpec,
  after: Date,
  count: number,
): Occurrence[] {
  checkSpec(spec);
  const afterMinute = minuteOf(after, 'after');
  if (typeof count !== 'number' || !Number.isInteger(count) || count <= 0) {
    throw new InvalidArgumentError(
      `invalid count ${String(count)} (allowed a whole number >= 1)`,
      'count',
      count,
    );
  }
  const cursor = runsFrom(tables, spec, afterMinute + 1, Number.POSITIVE_INFINITY);
  const result: Occurrence[] = [];
  while (result.length < count) {
    const next = cursor.next();
    if (next === undefined) break;
    result.push(next);
  }
  return result;
}

/**
 * Every run of a schedule with `from < at <= to`.
 *
 * Catch-up, simulation and alarms ask "what should have run in this window"; the half-open
 * window lets consecutive windows tile without counting a run twice. Memory grows with the
 * result only: runs stream from the iterator into the array.
 *
 * @example
 * occurrencesBetween({ cron: '0 * * * *', timezone: 'Europe/Berlin' },
 *   new Date('2023-10-29T00:00Z'), new Date('2023-10-29T02:00Z'))
 * //=> [{ at: 2023-10-29T01:00:00.000Z, nominal: '2023-10-29T02:00', dst: 'overlap' },
 * //    { at: 2023-10-29T02:00:00.000Z, nominal: '2023-10-29T03:00', dst: 'none' }]
 */
export function occurrencesBetween(spec: ScheduleSpec, from: Date, to: Date): Occurrence[] {
  return occurrencesBetweenIn(defaultZoneTables, spec, from, to);
}

/** `occurrencesBetween` with the offsets of given zone tables. */
export function occurrencesBetweenIn(
  tables: ZoneTables,
  spec: ScheduleSpec,
  from: Date,
  to: Date,
): Occurrence[] {
  checkSpec(spec);
  const fromMinute = minuteOf(from, 'from');
  minuteOf(to, 'to');
  if (from.getTime() > to.getTime()) {
    throw new InvalidArgumentError(
      `'from' (${from.toISOString()}) is after 'to' (${to.toISOString()}) (allowed from <= to)`,
      'from',
      from,
    );
  }
  const limitMinute = Math.floor(to.getTime() / MINUTE_MS);
  const cursor = runsFrom(tables, spec, fromMinute + 1, limitMinute);
  const result: Occurrence[] = [];
  for (let next = cursor.next(); next !== undefined; next = cursor.next()) result.push(next);
  return result;
}

/**
 * A lazy, unbounded iterator over a schedule's runs strictly after `after`.
 *
 * For callers that stream (simulations over years, "find the first run with property X")
 * without materialising an array. The spec is validated immediately, not at the first `next()`.
 * Runs are strictly increasing; the iterator ends when no run can come any more: a 400-year
 * cycle past both its last run and the start of 2200, where the platform's zone rules repeat
 * (search-bound.ts), or at the end of `Date`'s range.
 *
 * @example
 * const runs = iterateOccurrences({ cron: '0 9 * * 1-5', timezone: 'America/New_York' }, new Date('2026-03-06T00:00Z'));
 * runs.next().value.at
 * //=> 2026-03-06T14:00:00.000Z
 * runs.next().value.at
 * //=> 2026-03-09T13:00:00.000Z
 */
export function iterateOccurrences(
  spec: ScheduleSpec,
  after: Date,
): Generator<Occurrence, void, undefined> {
  return iterateOccurrencesIn(defaultZoneTables, spec, after);
}

/** `iterateOccurrences` with the offsets of given zone tables. */
export function iterateOccurrencesIn(
  tables: ZoneTables,
  spec: ScheduleSpec,
  after: Date,
): Generator<Occurrence, void, undefined> {
  checkSpec(spec);
  const afterMinute = minuteOf(after, 'after');
  const cursor = runsFrom(tables, spec, afterMinute + 1, Number.POSITIVE_INFINITY);
  return (function* walk(): Generator<Occurrence, void, undefined> {
    for (let next = cursor.next(); next !== undefined; next = cursor.next()) yield next;
  })();
}
