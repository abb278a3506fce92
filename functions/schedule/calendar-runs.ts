import { type CalendarDays, calendarDaysFor, formatDay, MAX_MOVE_DAYS } from './calendar-days.ts';
import { civilFromDays, daysFromCivil, daysInMonth, formatLocalMinute } from './civil-calendar.ts';
import { InvalidArgumentError } from './errors.ts';
import {
  type CursorEnd,
  cursorFor,
  type OccurrenceCursor,
  parsedCronOf,
  resolvePolicies,
} from './occurrences.ts';
import { minuteOf, type ZoneTable, type ZoneTables } from './time-zone.ts';
import type {
  CalendarRule,
  ClosedDayConvention,
  DstPolicies,
  Occurrence,
  ScheduleSpec,
} from './types.ts';
import { firstInstantReading, instantOfSlot, localMinuteAt } from './zone-local.ts';
import { validateTimeZone } from './zone-name.ts';

const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;
const CONVENTIONS: readonly ClosedDayConvention[] = [
  'skip',
  'following',
  'modified-following',
  'preceding',
  'modified-preceding',
];
/**
 * How long a search for a calendar's next run goes on without finding one: 28 years, the
 * cycle after which (between 1901 and 2099) dates fall on the same weekdays again, so fixed
 * dates, weekday rules and weekends have met every combination (docs/semantics.md, "Calendars").
 */
export const CALENDAR_SEARCH_YEARS = 28;
const CALENDAR_SEARCH_MINUTES = Math.ceil(CALENDAR_SEARCH_YEARS * 365.25) * DAY_MINUTES;

/** A run that a calendar or a bound removed, for previews. */
export interface SkippedRun {
  /** Where the run would have been: its nominal instant, or its moved one when a bound or a range removed it after moving. */
  readonly at: Date;
  /** Its local slot in the job's zone. */
  readonly nominal: string;
  readonly reason: 'calendar' | 'from' | 'until';
  /** Why, in words: the closed day's or range's reason, or the bound. */
  readonly detail: string;
}

/** Why a walk has no more runs: the cursor's reasons, the `until` bound, or the calendar search. */
export type WalkEnd = CursorEnd | 'until' | 'calendar';

/** Whether a spec needs the calendar stage: a calendar or a bound. */
export function needsWalk(spec: ScheduleSpec): boolean {
  return spec.calendar !== undefined || spec.from !== undefined || spec.until !== undefined;
}

/** The rule of a spec's calendar, checked; businessDay only with `*` day fields. */
function checkRule(spec: ScheduleSpec, rule: CalendarRule): void {
  if (typeof rule !== 'object' || rule === null) {
    throw new InvalidArgumentError(
      'invalid calendar rule (allowed an object with calendar, onClosed, businessDay)',
      'spec.calendar',
      rule,
    );
  }
  const onClosed = rule.onClosed ?? 'skip';
  if (!CONVENTIONS.includes(onClosed)) {
    throw new InvalidArgumentError(
      `invalid onClosed '${String(onClosed)}' (allowed ${CONVENTIONS.join(', ')})`,
      'spec.calendar.onClosed',
      onClosed,
    );
  }
  const n = rule.businessDay;
  if (n === undefined) return;
  if (!Number.isInteger(n) || n === 0 || Math.abs(n) > 31) {
    throw new InvalidArgumentError(
      `invalid businessDay ${String(n)} (allowed 1 to 31 or -1 to -31: 1 the first, -1 the last)`,
      'spec.calendar.businessDay',
      n,
    );
  }
  const fields = parsedCronOf(spec).fields;
  for (const [index, name] of [
    [2, 'day-of-month'],
    [4, 'day-of-week'],
  ] as const) {
    if (fields[index] !== '*' && fields[index] !== '?') {
      throw new InvalidArgumentError(
        `businessDay needs '*' in the ${name} field of '${spec.cron}', not '${fields[index]}' (the calendar picks the day)`,
        'spec.calendar.businessDay',
        n,
      );
    }
  }
}

/** The first whole UTC minute at or after a bound, or `ifAbsent` without one. */
function boundMinute(date: Date | undefined, argument: string, ifAbsent: number): number {
  if (date === undefined) return ifAbsent;
  minuteOf(date, argument);
  return Math.ceil(date.getTime() / MINUTE_MS);
}

/**
 * A schedule's runs with its calendar and bounds applied, in order of `at` (ties by nominal
 * instant), from UTC minute `firstMinute` to `limitMinute` (both inclusive).
 *
 * It reads the plain runs (nominal runs) from an `OccurrenceCursor` started early enough, and
 * read far enough ahead, for runs moved across the window's edges; a run moved later waits in
 * `pending` until no nominal run still to come can land before it. Closed ranges and, under
 * `skip` and `businessDay`, closed days are jumped over, not visited run by run, unless the
 * walk collects what it skips (previews).
 *
 * ```
 *  nominal runs ─▶ businessDay? ─▶ closed range? ─▶ closed day? ─▶ move ─▶ bounds ─▶ pending ─▶ runs
 *                 not a run       skip            skip or         range?  from/until  (sorted)
 *                                                 convention      skip
 * ```
 */
export class CalendarWalk {
  ended: WalkEnd | undefined;
  readonly skipped: SkippedRun[] | undefined;
  private readonly cursor: OccurrenceCursor;
  private readonly days: CalendarDays | undefined;
  private readonly convention: ClosedDayConvention;
  private readonly businessDay: number | undefined;
  private readonly sameZone: boolean;
  private readonly jobTable: ZoneTable;
  private readonly policies: DstPolicies;
  private readonly fromBound: number;
  private readonly untilBound: number;
  private readonly first: number;
  private readonly limit: number;
  private readonly slop: number;
  private readonly pending: Occurrence[] = [];
  private pendingHead = 0;
  /** Whether runs come in nominal order (nothing moves), so `decided` replaces `pending`. */
  private readonly inOrder: boolean;
  /** In order: the run the last `processInOrder` decided on, if any. */
  private decided: Occurrence | undefined;
  /**
   * The next nominal run, read from the cursor but not yet decided, as numbers (its instant in
   * UTC minutes, its local slot, its DST tag, its calendar date): a run is built as an
   * `Occurrence` only when it is kept as it is.
   */
  private hasPeek = false;
  private peekAt = 0;
  private peekLocal = 0;
  private peekDst: Occurrence['dst'] = 'none';
  private peekDay = 0;
  private progressMinute: number;
  private boundDay = Number.NaN;
  private boundFromDay = 0;
  /** The closed day last moved from and its business day. */
  private moveDay = Number.NaN;
  private moveTarget = Number.NaN;
  /** The DST tag of the instant `instantOf` last found. */
  private foundDst: Occurrence['dst'] = 'none';
  /** A stretch of one offset of the job's zone, away from its changes (see `instantOf`). */
  private readonly quiet = { offset: 0, from: 0, to: 0 };
  private boundValue = Number.NaN;

  constructor(
    tables: ZoneTables,
    spec: ScheduleSpec,
    firstMinute: number,
    limitMinute: number,
    collect: boolean,
  ) {
    const rule = spec.calendar;
    if (rule !== undefined) checkRule(spec, rule);
    this.policies = resolvePolicies(spec);
    this.fromBound = boundMinute(spec.from, 'spec.from', Number.NEGATIVE_INFINITY);
    this.untilBound = boundMinute(spec.until, 'spec.until', Number.POSITIVE_INFINITY);
    this.skipped = collect ? [] : undefined;
    this.first = collect ? firstMinute : Math.max(firstMinute, this.fromBound);
    this.limit = collect ? limitMinute : Math.min(limitMinute, this.untilBound - 1);
    this.days = rule === undefined ? undefined : calendarDaysFor(tables, rule.calendar);
    this.convention = rule?.businessDay === undefined ? (rule?.onClosed ?? 'skip') : 'skip';
    this.businessDay = rule?.businessDay;
    this.inOrder = this.days === undefined || this.convention === 'skip';
    this.jobTable = tables.tableFor(validateTimeZone(spec.timezone));
    this.sameZone = this.days === undefined || this.days.zone === this.jobTable.zone;
    this.slop = this.sameZone ? 0 : DAY_MINUTES;
    const [start, end] = this.nominalWindow();
    this.cursor = cursorFor(tables, spec, start, end);
    this.progressMinute = this.first;
    this.advancePeek();
  }

  /** Where a search that ended with `calendar` stopped: no run up to this UTC minute. */
  get searchedUntilMinute(): number {
    return this.progressMinute + CALENDAR_SEARCH_MINUTES;
  }

  /** The next run, or undefined (then `ended` says why). */
  next(): Occurrence | undefined {
    if (this.inOrder) return this.nextInOrder();
    for (;;) {
      const pending = this.pending;
      if (this.pendingHead < pending.length) {
        const head = pending[this.pendingHead] as Occurrence;
        if (!this.hasPeek || this.releasable(head.at.getTime() / MINUTE_MS)) {
          this.pendingHead++;
          if (this.pendingHead >= 64 && this.pendingHead * 2 >= pending.length) {
            dropHead(pending, this.pendingHead);
            this.pendingHead = 0;
          }
          this.progressMinute = head.at.getTime() / MINUTE_MS;
          return head;
        }
      }
      if (!this.hasPeek) return undefined;
      this.processMoving();
      this.advancePeek();
    }
  }

  /**
   * `next` when no run moves (no calendar, `skip`, `businessDay`): runs come in the order of the
   * nominal runs, so each is handed on as soon as it is decided, with no queue.
   */
  private nextInOrder(): Occurrence | undefined {
    while (this.hasPeek) {
      this.processInOrder();
      this.advancePeek();
      const decided = this.decided;
      if (decided !== undefined) {
        this.decided = undefined;
        this.progressMinute = decided.at.getTime() / MINUTE_MS;
        return decided;
      }
    }
    return undefined;
  }

  /** The UTC minutes the nominal runs are read from and to, wide enough for moved runs. */
  private nominalWindow(): [number, number] {
    let start = this.first;
    let end = this.limit;
    const days = this.days;
    const convention = this.convention;
    if (days === undefined || convention === 'skip') return [start, end];
    if (convention !== 'preceding' && Number.isFinite(start)) {
      const d0 = this.calendarDayOfInstant(start);
      if (days.closedReason(d0) !== undefined || days.closedReason(d0 - 1) !== undefined) {
        const b = days.previousBusinessDay(d0);
        const from = Number.isNaN(b) ? d0 - MAX_MOVE_DAYS : b + 1;
        start = Math.min(start, firstInstantReading(days.table, from * DAY_MINUTES));
      }
      start -= this.slop;
    }
    if (convention !== 'following' && Number.isFinite(end)) {
      const dL = this.calendarDayOfInstant(end);
      if (days.closedReason(dL) !== undefined || days.closedReason(dL + 1) !== undefined) {
        const n = days.nextBusinessDay(dL);
        const to = Number.isNaN(n) ? dL + MAX_MOVE_DAYS : n;
        end = Math.max(end, firstInstantReading(days.table, to * DAY_MINUTES));
      }
      end += this.slop;
    }
    return [start, end];
  }

  private advancePeek(): void {
    const cursor = this.cursor;
    if (!cursor.step()) {
      this.hasPeek = false;
      this.ended =
        this.cursor.ended === 'limit' && this.limit === this.untilBound - 1
          ? 'until'
          : this.cursor.ended;
      return;
    }
    const atMinute = cursor.lastInstantMinute;
    if (
      this.days !== undefined &&
      !Number.isFinite(this.limit) &&
      atMinute > this.progressMinute + CALENDAR_SEARCH_MINUTES
    ) {
      this.hasPeek = false;
      this.ended = 'calendar';
      return;
    }
    this.hasPeek = true;
    this.peekAt = atMinute;
    this.peekLocal = cursor.lastLocalMinute;
    this.peekDst = cursor.lastDst;
    this.peekDay = this.sameZone
      ? Math.floor(this.peekLocal / DAY_MINUTES)
      : this.calendarDayOfInstant(atMinute);
  }

  /** The calendar's local date (day number) of a UTC minute. */
  private calendarDayOfInstant(utcMinute: number): number {
    const table = this.days === undefined ? this.jobTable : this.days.table;
    return Math.floor(localMinuteAt(table, utcMinute) / DAY_MINUTES);
  }

  /**
   * Whether a queued run at UTC minute `at` can go: no nominal run from the peeked one on can
   * give a run before it. That bound is the peeked run itself, or for runs moved, the start of
   * the earliest day a later nominal run can be moved to: the next day (moved forward), or the
   * last business day before the peeked run's (moved back; its own day when it and the next
   * are open). Read first without the zone (a local midnight is less than a day from the UTC
   * midnight of its date), and exactly only when that does not settle it.
   */
  private releasable(at: number): boolean {
    if (at > this.peekAt) return false;
    const days = this.days as CalendarDays;
    const d = this.peekDay;
    if (d !== this.boundDay) {
      this.boundDay = d;
      let from = d + 1;
      if (this.convention !== 'following') {
        const open = days.closedReason(d) === undefined;
        if (!open || days.closedReason(d + 1) !== undefined) {
          const b = open ? d : days.previousBusinessDay(d);
          from = Number.isNaN(b) ? d - MAX_MOVE_DAYS : b;
        }
      }
      this.boundFromDay = from;
      this.boundValue = Number.NaN;
    }
    if (at <= this.boundFromDay * DAY_MINUTES - DAY_MINUTES - this.slop) return true;
    if (Number.isNaN(this.boundValue)) {
      this.boundValue =
        firstInstantReading(days.table, this.boundFromDay * DAY_MINUTES) - this.slop;
    }
    return at <= this.boundValue;
  }

  /**
   * Decides the peeked nominal run when nothing moves (no calendar, `skip`, `businessDay`): a
   * run, or skipped. Kept apart from `processMoving` so that each is compiled for its own
   * kind of schedule.
   */
  private processInOrder(): void {
    const days = this.days;
    const atMinute = this.peekAt;
    const local = this.peekLocal;
    if (days === undefined) {
      if (this.inBounds(atMinute, local)) this.decided = this.peekedRun();
      return;
    }
    const day = this.peekDay;
    if (this.businessDay !== undefined) {
      const target = days.nthBusinessDayOfMonthOf(day, this.businessDay);
      if (target !== day) {
        this.jumpToBusinessDay(day, target);
        return;
      }
    }
    if (this.inClosedRange(days, atMinute, local)) return;
    const reason = days.closedReason(day);
    if (reason === undefined) {
      if (this.inBounds(atMinute, local)) this.decided = this.peekedRun();
      return;
    }
    this.skip(atMinute, local, 'calendar', reason);
    if (this.skipped === undefined) {
      const open = days.nextBusinessDay(day);
      const to = Number.isNaN(open) ? day + MAX_MOVE_DAYS : open;
      this.cursor.skipTo(firstInstantReading(days.table, to * DAY_MINUTES) - this.slop);
    }
  }

  /** Decides the peeked nominal run under a convention that moves runs: a run, moved, or skipped. */
  private processMoving(): void {
    const days = this.days as CalendarDays;
    const atMinute = this.peekAt;
    const local = this.peekLocal;
    if (this.inClosedRange(days, atMinute, local)) return;
    const reason = days.closedReason(this.peekDay);
    if (reason === undefined) {
      if (this.inBounds(atMinute, local)) this.queue(this.peekedRun());
    } else {
      this.move(atMinute, local, this.peekDay, reason, days);
    }
  }

  /** Whether a closed range holds the run at `atMinute`: then it is skipped, and so is the range. */
  private inClosedRange(days: CalendarDays, atMinute: number, local: number): boolean {
    const range = days.ranges.length === 0 ? undefined : days.rangeAt(atMinute);
    if (range === undefined) return false;
    this.skip(atMinute, local, 'calendar', range.reason);
    if (this.skipped === undefined) this.cursor.skipTo(days.rangeEndFrom(atMinute));
    return true;
  }

  /** The peeked nominal run as an `Occurrence`: built only for a run kept as it is. */
  private peekedRun(): Occurrence {
    return {
      at: new Date(this.peekAt * MINUTE_MS),
      nominal: formatLocalMinute(this.peekLocal),
      dst: this.peekDst,
    };
  }

  /** Under `businessDay`, goes on at the start of the next target day after `day`. */
  private jumpToBusinessDay(day: number, target: number): void {
    const days = this.days as CalendarDays;
    let next = target;
    const date = civilFromDays(day, { year: 0, month: 0, day: 0 });
    for (let months = 0; !(next > day) && months < 12 * CALENDAR_SEARCH_YEARS + 12; months++) {
      if (date.month === 12) {
        date.year += 1;
        date.month = 1;
      } else date.month += 1;
      next = days.nthBusinessDayOfMonthOf(
        daysFromCivil(date.year, date.month, 1),
        this.businessDay as number,
      );
    }
    if (!(next > day)) next = daysFromCivil(date.year, date.month, 1);
    this.cursor.skipTo(firstInstantReading(days.table, next * DAY_MINUTES) - this.slop);
  }

  /** The business day a convention moves a run on closed day `day` to, or NaN. */
  private targetDay(day: number, days: CalendarDays): number {
    const convention = this.convention;
    if (convention === 'following') return days.nextBusinessDay(day);
    if (convention === 'preceding') return days.previousBusinessDay(day);
    const date = civilFromDays(day, { year: 0, month: 0, day: 0 });
    const firstOfMonth = day - date.day + 1;
    const lastOfMonth = firstOfMonth + daysInMonth(date.year, date.month) - 1;
    if (convention === 'modified-following') {
      const next = days.nextBusinessDay(day, lastOfMonth);
      return Number.isNaN(next) ? days.previousBusinessDay(day, firstOfMonth) : next;
    }
    const previous = days.previousBusinessDay(day, firstOfMonth);
    return Number.isNaN(previous) ? days.nextBusinessDay(day, lastOfMonth) : previous;
  }

  /**
   * Moves the nominal run at UTC minute `at` (local slot `local`) on closed day `day` to its
   * convention's business day, same local time of day. The reasons of a moved run that is
   * skipped after all are put into words only when a preview collects them.
   */
  private move(at: number, local: number, day: number, reason: string, days: CalendarDays): void {
    const convention = this.convention;
    if (day !== this.moveDay) {
      this.moveDay = day;
      this.moveTarget = this.targetDay(day, days);
    }
    const target = this.moveTarget;
    const collect = this.skipped !== undefined;
    if (Number.isNaN(target)) {
      const where = convention.startsWith('modified')
        ? 'in its month'
        : `within ${MAX_MOVE_DAYS} days`;
      this.skip(at, local, 'calendar', `${reason}; no business day ${where} (${convention})`);
      return;
    }
    const slot = local + (target - day) * DAY_MINUTES;
    const movedAt = this.instantOf(slot);
    if (Number.isNaN(movedAt)) {
      if (collect) {
        this.skip(
          at,
          local,
          'calendar',
          `${reason}; moved to ${formatLocalMinute(slot)}, in the spring-forward gap of ${this.jobTable.zone} (gap policy skip)`,
        );
      }
      return;
    }
    const range = days.rangeAt(movedAt);
    if (range !== undefined) {
      if (collect) {
        this.skip(
          at,
          local,
          'calendar',
          `${reason}; moved to ${formatLocalMinute(slot)}, inside the closed range: ${range.reason}`,
        );
      }
      return;
    }
    if (!this.sameZone) {
      const landed = this.calendarDayOfInstant(movedAt);
      const closed = days.closedReason(landed);
      if (closed !== undefined) {
        if (collect) {
          this.skip(
            at,
            local,
            'calendar',
            `${reason}; moved to ${formatLocalMinute(slot)}, which is ${formatDay(landed)} in ${days.zone}, closed: ${closed}`,
          );
        }
        return;
      }
    }
    if (!this.inBounds(movedAt, slot)) return;
    this.queue({
      at: new Date(movedAt * MINUTE_MS),
      nominal: formatLocalMinute(slot),
      dst: this.foundDst,
      moved: { nominalAt: new Date(at * MINUTE_MS), reason, convention },
    });
  }

  /**
   * The instant of a slot in the job's zone (`instantOfSlot`, its DST tag in `foundDst`), or NaN
   * when the gap policy drops it; with a shortcut: inside a stretch of one offset, more than two
   * days from its changes, a slot has exactly one instant, `slot - offset`.
   */
  private instantOf(slot: number): number {
    const quiet = this.quiet;
    const at = slot - quiet.offset;
    if (at >= quiet.from && at < quiet.to) {
      this.foundDst = 'none';
      return at;
    }
    const found = instantOfSlot(this.jobTable, slot, this.policies);
    if (found === undefined) return Number.NaN;
    const table = this.jobTable;
    const s = table.segmentAt(found.at);
    const end = s + 1 < table.starts.length ? (table.starts[s + 1] as number) : table.coverEnd;
    quiet.offset = table.offsets[s] as number;
    quiet.from = (table.starts[s] as number) + 2 * DAY_MINUTES;
    quiet.to = end - 2 * DAY_MINUTES;
    this.foundDst = found.dst;
    return found.at;
  }

  /**
   * Whether a run the calendar keeps, at UTC minute `at` of local slot `local`, is a run: in the
   * window, and within the bounds (outside them it is skipped).
   */
  private inBounds(at: number, local: number): boolean {
    if (at < this.first || at > this.limit) return false;
    if (at < this.fromBound) {
      this.skip(
        at,
        local,
        'from',
        `before from (${new Date(this.fromBound * MINUTE_MS).toISOString()})`,
      );
      return false;
    }
    if (at >= this.untilBound) {
      this.skip(
        at,
        local,
        'until',
        `at or after until (${new Date(this.untilBound * MINUTE_MS).toISOString()})`,
      );
      return false;
    }
    return true;
  }

  /**
   * Queues a run in order, where runs move. A run that goes last is appended; one that goes
   * before queued runs (a day's own runs among the runs moved onto it) finds its place by
   * halving, not by a walk back over the day's moved runs.
   */
  private queue(run: Occurrence): void {
    const pending = this.pending;
    const length = pending.length;
    if (length === this.pendingHead || !comesBefore(run, pending[length - 1] as Occurrence)) {
      pending.push(run);
      return;
    }
    let low = this.pendingHead;
    let high = length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (comesBefore(run, pending[middle] as Occurrence)) high = middle;
      else low = middle + 1;
    }
    pending.push(run);
    for (let j = length; j > low; j--) pending[j] = pending[j - 1] as Occurrence;
    pending[low] = run;
  }

  /** Records a skipped run (UTC minute `at`, local slot `local`) when a preview collects them. */
  private skip(at: number, local: number, reason: SkippedRun['reason'], detail: string): void {
    const skipped = this.skipped;
    if (skipped === undefined) return;
    if (at < this.first || at > this.limit) return;
    skipped.push({
      at: new Date(at * MINUTE_MS),
      nominal: formatLocalMinute(local),
      reason,
      detail,
    });
  }
}

/** Removes the first `count` runs of a queue in place (no array of what it drops). */
function dropHead(pending: Occurrence[], count: number): void {
  const length = pending.length;
  for (let j = count; j < length; j++) pending[j - count] = pending[j] as Occurrence;
  pending.length = length - count;
}

/** The run order: by instant, then by nominal instant (a moved run by the instant it stood for). */
function comesBefore(a: Occurrence, b: Occurrence): boolean {
  const at = a.at.getTime() - b.at.getTime();
  if (at !== 0) return at < 0;
  return keyInstantOf(a).getTime() < keyInstantOf(b).getTime();
}

/**
 * The instant a run's key (its period bucket) is made from: the instant the schedule named,
 * which for a run a calendar moved is `moved.nominalAt`, not `at`.
 *
 * Moving a run never makes two runs of one, and two runs moved onto the same day keep two keys.
 *
 * @example
 * keyInstantOf({ at: new Date('2026-12-28T08:00Z'), nominal: '2026-12-28T09:00', dst: 'none',
 *   moved: { nominalAt: new Date('2026-12-25T08:00Z'), reason: 'Christmas Day', convention: 'following' } })
 * //=> 2026-12-25T08:00:00.000Z
 */
export function keyInstantOf(occurrence: Occurrence): Date {
  return occurrence.moved?.nominalAt ?? occurrence.at;
}
