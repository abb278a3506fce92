/**
 * A slow, independent reference for business calendars and bounds, used only by tests.
 *
 * It shares no code with `functions/schedule/`: the plain runs come from the minute-by-minute
 * reference (minute-reference.ts, luxon's offset at every minute), and everything a calendar
 * adds is recomputed here the plain way: a day's instants are found by reading every minute
 * around it with luxon, a closed range starts at the first minute whose wall clock reads its
 * `from` or later, a business day is found by stepping dates one by one, and a moved run's
 * instant is looked up among the walked slots. Only for windows of days: it costs a luxon
 * call per minute, and more per closed-range check.
 */
import { IANAZone } from 'luxon';
import {
  compileCron,
  formatWallMinute,
  type GapPolicy,
  type LocalSlot,
  type OverlapPolicy,
  type ReferenceSpec,
  referencePolicies,
  type SlotLabel,
  slotInstants,
} from './minute-reference.ts';

export type Convention =
  | 'skip'
  | 'following'
  | 'modified-following'
  | 'preceding'
  | 'modified-preceding';

export interface RefCalendar {
  name: string;
  timezone: string;
  weekendDays: readonly number[];
  closedDayReason(localDate: string): string | undefined;
  closedRanges: readonly { from: string; to: string; reason: string }[];
}

export interface RefCalendarSpec extends ReferenceSpec {
  calendar?: { calendar: RefCalendar; onClosed?: Convention; businessDay?: number };
  from?: Date;
  until?: Date;
}

export interface RefRun {
  atMs: number;
  nominal: string;
  dst: 'none' | 'gap' | 'overlap';
  moved?: { nominalAtMs: number; reason: string; convention: Convention };
}

export interface RefSkip {
  atMs: number;
  nominal: string;
  reason: 'calendar' | 'from' | 'until';
  /** The closed day's or range's reason, or the bound's name; no more detail than that. */
  cause: string;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const HOUR_MS = 3_600_000;
const hourOffsets = new Map<string, Map<number, number>>();

/**
 * Luxon's offset of `zone` at a minute, asked once per hour: where the offsets at the two ends
 * of an hour agree, every minute of it has that offset (no zone changes twice within an hour);
 * where they differ, luxon is asked at the minute itself.
 */
function offsetAt(zone: string, ms: number): number {
  let hours = hourOffsets.get(zone);
  if (hours === undefined) {
    hours = new Map();
    hourOffsets.set(zone, hours);
  }
  const hour = Math.floor(ms / HOUR_MS);
  const ask = (h: number): number => {
    let offset = hours.get(h);
    if (offset === undefined) {
      offset = IANAZone.create(zone).offset(h * HOUR_MS);
      hours.set(h, offset);
    }
    return offset;
  };
  const start = ask(hour);
  return start === ask(hour + 1) ? start : IANAZone.create(zone).offset(ms);
}

/** Local `yyyy-MM-ddTHH:mm` of an instant in a zone, from luxon's offset at that instant. */
function wallText(zone: string, ms: number): string {
  return new Date(ms + offsetAt(zone, ms) * MINUTE_MS).toISOString().slice(0, 16);
}

/**
 * Every local slot met walking the UTC minutes from `startMs` to `endMs`, and the slots the
 * walk jumps over (gaps): minute-reference.ts's `localSlots`, with the hourly-asked offsets.
 */
function walkSlots(zone: string, startMs: number, endMs: number): Map<number, LocalSlot> {
  const slots = new Map<number, LocalSlot>();
  let previousWall: number | undefined;
  let previousOffset = 0;
  for (let ms = startMs; ms <= endMs; ms += MINUTE_MS) {
    const offset = offsetAt(zone, ms);
    const wall = ms / MINUTE_MS + offset;
    if (previousWall !== undefined && wall > previousWall + 1) {
      for (let w = previousWall + 1; w < wall; w++) {
        if (!slots.has(w)) {
          const gap = { offsetBeforeMinutes: previousOffset, transitionMs: ms };
          slots.set(w, { wallMinute: w, instantsMs: [], gap });
        }
      }
    }
    const slot = slots.get(wall);
    if (slot === undefined) slots.set(wall, { wallMinute: wall, instantsMs: [ms] });
    else {
      slot.instantsMs.push(ms);
      delete slot.gap;
    }
    previousWall = wall;
    previousOffset = offset;
  }
  return slots;
}

/** The first whole minute whose wall clock in `zone` reads `text` or later (texts sort as times). */
export function firstMinuteReading(zone: string, text: string): number {
  const guess = Date.parse(`${text}:00Z`);
  for (let ms = guess - 15 * 3_600_000; ms < guess + 15 * 3_600_000; ms += MINUTE_MS) {
    if (wallText(zone, ms) >= text) return ms;
  }
  throw new Error(`reference: no minute reads ${text} in ${zone}`);
}

/** Adds days to a `YYYY-MM-DD` date. */
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The closed-day logic of docs/semantics.md ("Calendars"), computed minute by minute. */
export class RefCalendarDays {
  private readonly ranges: { fromMs: number; toMs: number; reason: string }[];
  private readonly cache = new Map<string, string | null>();

  constructor(readonly calendar: RefCalendar) {
    this.ranges = calendar.closedRanges
      .map((r) => ({
        fromMs: firstMinuteReading(calendar.timezone, r.from),
        toMs: firstMinuteReading(calendar.timezone, r.to),
        reason: r.reason,
      }))
      .sort((a, b) => a.fromMs - b.fromMs);
  }

  /** The reason of the first range (by start) holding an instant. */
  rangeAt(ms: number): string | undefined {
    return this.ranges.find((r) => r.fromMs <= ms && ms < r.toMs)?.reason;
  }

  /** Why a local date is closed: its own reason, ranges over every minute of it, its weekday. */
  closed(date: string): string | undefined {
    const cached = this.cache.get(date);
    if (cached !== undefined) return cached ?? undefined;
    const reason =
      this.calendar.closedDayReason(date) ??
      this.coveredBy(date) ??
      (this.calendar.weekendDays.includes(new Date(`${date}T00:00Z`).getUTCDay())
        ? WEEKDAYS[new Date(`${date}T00:00Z`).getUTCDay()]
        : undefined);
    this.cache.set(date, reason ?? null);
    return reason;
  }

  private coveredBy(date: string): string | undefined {
    if (this.ranges.length === 0) return undefined;
    const zone = this.calendar.timezone;
    const midnight = Date.parse(`${date}T00:00Z`);
    const near = this.ranges.some(
      (r) => r.fromMs < midnight + 39 * 3_600_000 && r.toMs > midnight - 15 * 3_600_000,
    );
    if (!near) return undefined;
    let first: string | undefined;
    let seen = false;
    for (let ms = midnight - 15 * 3_600_000; ms < midnight + 39 * 3_600_000; ms += MINUTE_MS) {
      if (wallText(zone, ms).slice(0, 10) !== date) continue;
      const reason = this.rangeAt(ms);
      if (reason === undefined) return undefined;
      if (!seen) first = reason;
      seen = true;
    }
    return first;
  }

  /** The business dates of a month, stepping day by day. */
  businessDates(year: number, month: number): string[] {
    const out: string[] = [];
    for (let day = 1; day <= 31; day++) {
      const date = new Date(Date.UTC(year, month - 1, day));
      if (date.getUTCMonth() !== month - 1) break;
      const text = date.toISOString().slice(0, 10);
      if (this.closed(text) === undefined) out.push(text);
    }
    return out;
  }

  /** The business day a convention moves a closed date to, or undefined. */
  moveTarget(date: string, convention: Convention): string | undefined {
    const month = date.slice(0, 7);
    const step = (direction: number, sameMonth: boolean): string | undefined => {
      for (let k = 1; k <= 366; k++) {
        const candidate = addDays(date, direction * k);
        if (sameMonth && candidate.slice(0, 7) !== month) return undefined;
        if (this.closed(candidate) === undefined) return candidate;
      }
      return undefined;
    };
    if (convention === 'following') return step(1, false);
    if (convention === 'preceding') return step(-1, false);
    if (convention === 'modified-following') return step(1, true) ?? step(-1, true);
    return step(-1, true) ?? step(1, true);
  }
}

/** One nominal run: an instant and the slot it stands for (a real slot wins a shared instant). */
interface Nominal {
  atMs: number;
  wallMinute: number;
  label: SlotLabel;
}

function nominalRuns(
  spec: ReferenceSpec,
  slots: Map<number, LocalSlot>,
  policies: { gap: GapPolicy; overlap: OverlapPolicy },
): Nominal[] {
  const matcher = compileCron(spec.cron);
  const byInstant = new Map<number, Nominal>();
  for (const slot of slots.values()) {
    const wall = new Date(slot.wallMinute * MINUTE_MS);
    const civil = {
      year: wall.getUTCFullYear(),
      month: wall.getUTCMonth() + 1,
      day: wall.getUTCDate(),
      hour: wall.getUTCHours(),
      minute: wall.getUTCMinutes(),
    };
    if (!matcher.matchesSlot(civil)) continue;
    const { atMs, label } = slotInstants(slot, policies);
    for (const at of atMs) {
      const held = byInstant.get(at);
      const wins =
        held === undefined ||
        (held.label.dst === 'gap' && label.dst !== 'gap') ||
        (held.label.dst === label.dst && slot.wallMinute < held.wallMinute);
      if (wins) byInstant.set(at, { atMs: at, wallMinute: slot.wallMinute, label });
    }
  }
  return [...byInstant.values()].sort((a, b) => a.atMs - b.atMs);
}

/**
 * The runs of `spec` with `from < at <= to` as they will happen, and what its calendar and
 * bounds remove, found the slow way. Plain runs are read `marginDays` either side of the
 * window, which must exceed the longest move the case can make.
 */
export function referenceCalendarRuns(
  spec: RefCalendarSpec,
  from: Date,
  to: Date,
  marginDays = 12,
): { runs: RefRun[]; skipped: RefSkip[] } {
  const zone = spec.timezone;
  const policies = referencePolicies(spec);
  const wideFrom = new Date(from.getTime() - marginDays * DAY_MS);
  const wideTo = new Date(to.getTime() + marginDays * DAY_MS);
  const slots = walkSlots(zone, wideFrom.getTime() - DAY_MS, wideTo.getTime() + DAY_MS);
  const inWindow = (ms: number) => ms > from.getTime() && ms <= to.getTime();
  const runs: RefRun[] = [];
  const skipped: RefSkip[] = [];
  const rule = spec.calendar;
  const days = rule === undefined ? undefined : new RefCalendarDays(rule.calendar);
  const calendarZone = rule?.calendar.timezone ?? zone;
  const dayOf = (n: { atMs: number; wallMinute: number }) =>
    calendarZone === zone
      ? formatWallMinute(n.wallMinute).slice(0, 10)
      : wallText(calendarZone, n.atMs).slice(0, 10);

  const admit = (run: RefRun) => {
    if (!inWindow(run.atMs)) return;
    if (spec.from !== undefined && run.atMs < spec.from.getTime()) {
      skipped.push({ atMs: run.atMs, nominal: run.nominal, reason: 'from', cause: 'from' });
    } else if (spec.until !== undefined && run.atMs >= spec.until.getTime()) {
      skipped.push({ atMs: run.atMs, nominal: run.nominal, reason: 'until', cause: 'until' });
    } else runs.push(run);
  };
  const skipCalendar = (n: Nominal, cause: string) => {
    if (inWindow(n.atMs)) {
      skipped.push({ atMs: n.atMs, nominal: n.label.nominal, reason: 'calendar', cause });
    }
  };

  // Nominal runs within two days of the walked edges are left out: a move from there could
  // need a slot outside the walk, and lands far outside the window anyway (the margin is longer
  // than any closed stretch of a test case by more than that).
  const nominals = nominalRuns(spec, slots, policies).filter(
    (n) => n.atMs >= wideFrom.getTime() + DAY_MS && n.atMs <= wideTo.getTime() - DAY_MS,
  );
  for (const n of nominals) {
    const plain: RefRun = { atMs: n.atMs, nominal: n.label.nominal, dst: n.label.dst };
    if (rule === undefined || days === undefined) {
      admit(plain);
      continue;
    }
    const date = dayOf(n);
    if (rule.businessDay !== undefined) {
      const list = days.businessDates(Number(date.slice(0, 4)), Number(date.slice(5, 7)));
      const pick =
        rule.businessDay > 0 ? list[rule.businessDay - 1] : list[list.length + rule.businessDay];
      if (pick !== date) continue;
    }
    const rangeReason = days.rangeAt(n.atMs);
    if (rangeReason !== undefined) {
      skipCalendar(n, rangeReason);
      continue;
    }
    const closed = days.closed(date);
    if (closed === undefined) {
      admit(plain);
      continue;
    }
    const convention = rule.onClosed ?? 'skip';
    if (convention === 'skip') {
      skipCalendar(n, closed);
      continue;
    }
    const target = days.moveTarget(date, convention);
    if (target === undefined) {
      skipCalendar(n, closed);
      continue;
    }
    const shiftDays = Math.round(
      (Date.parse(`${target}T00:00Z`) - Date.parse(`${date}T00:00Z`)) / DAY_MS,
    );
    const wall = n.wallMinute + shiftDays * 1440;
    const slot = slots.get(wall);
    if (slot === undefined) {
      // A move away from the window, from a run already outside it, cannot land in it.
      const away =
        (n.atMs > to.getTime() && shiftDays > 0) || (n.atMs <= from.getTime() && shiftDays < 0);
      if (away) continue;
      throw new Error(`reference: ${formatWallMinute(wall)} outside the walked window`);
    }
    const { atMs, label } = slotInstants(slot, policies);
    const at = policies.overlap === 'last' ? atMs[atMs.length - 1] : atMs[0];
    if (at === undefined || days.rangeAt(at) !== undefined) {
      skipCalendar(n, closed);
      continue;
    }
    if (
      calendarZone !== zone &&
      days.closed(wallText(calendarZone, at).slice(0, 10)) !== undefined
    ) {
      skipCalendar(n, closed);
      continue;
    }
    admit({
      atMs: at,
      nominal: label.nominal,
      dst: label.dst,
      moved: { nominalAtMs: n.atMs, reason: closed, convention },
    });
  }
  runs.sort(
    (a, b) =>
      a.atMs - b.atMs || (a.moved?.nominalAtMs ?? a.atMs) - (b.moved?.nominalAtMs ?? b.atMs),
  );
  skipped.sort((a, b) => a.atMs - b.atMs);
  return { runs, skipped };
}
