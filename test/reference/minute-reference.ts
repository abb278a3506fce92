/**
 * A deliberately simple, slow reference for the schedule engine, used only by tests.
 *
 * It shares no code with `functions/schedule/`: it has its own tiny cron matcher and finds the
 * local wall-clock slots of a window by walking UTC minute by minute and asking luxon for the
 * zone's offset at every single minute. Gaps are the slots that the walk never visits, overlaps
 * are the slots it visits more than once. The DST policies of docs/semantics.md ("Time zones and daylight saving time") are
 * then applied slot by slot, and the instants are sorted and de-duplicated.
 *
 * Only meant for windows of hours to a few days: it costs one luxon conversion per minute.
 */
import { DateTime, IANAZone } from 'luxon';

export type GapPolicy = 'shift' | 'transition' | 'skip';
export type OverlapPolicy = 'first' | 'last' | 'both';
export type DstTag = 'none' | 'gap' | 'overlap';

export interface ReferenceSpec {
  cron: string;
  timezone: string;
  dst?: { gap?: GapPolicy; overlap?: OverlapPolicy };
}

/** What a slot stands for: the local wall-clock time and how it maps to instants. */
export interface SlotLabel {
  nominal: string;
  dst: DstTag;
}

/**
 * One run of the reference. When several slots land on the same instant, `labels` lists every
 * slot that stands for it (the contract does not say which one the run reports).
 */
export interface ReferenceRun {
  atMs: number;
  labels: SlotLabel[];
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// The matcher
// ---------------------------------------------------------------------------------------------

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = [
  'JAN',
  'FEB',
  'MAR',
  'APR',
  'MAY',
  'JUN',
  'JUL',
  'AUG',
  'SEP',
  'OCT',
  'NOV',
  'DEC',
];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldDef {
  min: number;
  max: number;
  names?: string[];
  nameBase?: number;
}

const FIELDS: FieldDef[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTH_NAMES, nameBase: 1 },
  { min: 0, max: 7, names: DAY_NAMES, nameBase: 0 },
];

/** A calendar day as the matcher sees it. */
export interface CivilDay {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
}

/** A compiled expression: which local slots it matches. */
export interface CronMatcher {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  months: ReadonlySet<number>;
  /** Does the day match (day-of-month, month and day-of-week with the Vixie rule)? */
  matchesDay(day: CivilDay): boolean;
  /** Does the local slot match? */
  matchesSlot(slot: CivilDay & { hour: number; minute: number }): boolean;
  /** The kind of schedule: cadence when the hour field matches all 24 hours. */
  kind: 'cadence' | 'wall-clock';
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function weekday(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

function parseValue(text: string, def: FieldDef, endOfRange: boolean): number {
  const upper = text.toUpperCase();
  if (def.names) {
    const i = def.names.indexOf(upper);
    if (i >= 0) {
      const v = i + (def.nameBase ?? 0);
      // SUN at the end of a range means 7.
      return def === FIELDS[4] && endOfRange && v === 0 ? 7 : v;
    }
  }
  if (!/^\d+$/.test(text)) throw new Error(`reference: bad value '${text}'`);
  const v = Number(text);
  if (v < def.min || v > def.max) throw new Error(`reference: out of range '${text}'`);
  return v;
}

/** A plain item (`*`, `a`, `a-b`, with optional `/n`) as a set of values. */
function plainItem(item: string, def: FieldDef): number[] {
  const [base = '', stepText, extra] = item.split('/');
  if (extra !== undefined) throw new Error(`reference: two steps in '${item}'`);
  const step = stepText === undefined ? 1 : Number(stepText);
  if (!Number.isInteger(step) || step < 1) throw new Error(`reference: bad step in '${item}'`);
  let lo: number;
  let hi: number;
  if (base === '*' || base === '?') {
    lo = def.min;
    hi = def.max;
  } else if (base.includes('-')) {
    const [a = '', b = ''] = base.split('-');
    lo = parseValue(a, def, false);
    hi = parseValue(b, def, true);
    if (lo > hi) throw new Error(`reference: reversed range '${item}'`);
  } else {
    lo = parseValue(base, def, false);
    hi = stepText === undefined ? lo : def.max;
  }
  const out: number[] = [];
  for (let v = lo; v <= hi; v += step) out.push(v);
  return out;
}

type DayPredicate = (d: CivilDay) => boolean;

function domItem(item: string): DayPredicate {
  const u = item.toUpperCase();
  if (u === 'L') return (d) => d.day === daysInMonth(d.year, d.month);
  if (u === 'LW') {
    return (d) => {
      const last = daysInMonth(d.year, d.month);
      const wd = weekday(d.year, d.month, last);
      const target = wd === 6 ? last - 1 : wd === 0 ? last - 2 : last;
      return d.day === target;
    };
  }
  const w = /^(\d+)W$/.exec(u);
  if (w) {
    const n = Number(w[1]);
    if (n < 1 || n > 31) throw new Error(`reference: bad W day '${item}'`);
    return (d) => {
      const last = daysInMonth(d.year, d.month);
      if (n > last) return false;
      const wd = weekday(d.year, d.month, n);
      let target = n;
      if (wd === 6) target = n - 1 >= 1 ? n - 1 : n + 2;
      else if (wd === 0) target = n + 1 <= last ? n + 1 : n - 2;
      return d.day === target;
    };
  }
  const values = new Set(plainItem(item, FIELDS[2] as FieldDef));
  return (d) => values.has(d.day);
}

function dowValue(text: string): number {
  const v = parseValue(text, FIELDS[4] as FieldDef, false);
  return v === 7 ? 0 : v;
}

function dowItem(item: string): DayPredicate {
  const last = /^(\w+?)L$/i.exec(item);
  if (last) {
    const wd = dowValue(last[1] as string);
    return (d) =>
      weekday(d.year, d.month, d.day) === wd && d.day + 7 > daysInMonth(d.year, d.month);
  }
  const nth = /^(\w+)#(\d)$/.exec(item);
  if (nth) {
    const wd = dowValue(nth[1] as string);
    const k = Number(nth[2]);
    if (k < 1 || k > 5) throw new Error(`reference: bad #k '${item}'`);
    return (d) => weekday(d.year, d.month, d.day) === wd && Math.ceil(d.day / 7) === k;
  }
  const values = new Set(plainItem(item, FIELDS[4] as FieldDef).map((v) => (v === 7 ? 0 : v)));
  return (d) => values.has(weekday(d.year, d.month, d.day));
}

function anyOf(preds: DayPredicate[]): DayPredicate {
  return (d) => preds.some((p) => p(d));
}

/**
 * Compiles the subset of the contract's syntax that the tests generate: numbers, names, `*`,
 * `?`, ranges, steps, lists, macros, `L`, `LW`, `nW`, `dL`, `d#k` (no `H`). Throws a plain
 * `Error` on anything else; it is not a validator.
 */
export function compileCron(expression: string): CronMatcher {
  const trimmed = expression.trim();
  const text = MACROS[trimmed.toLowerCase()] ?? trimmed;
  const fields = text.split(/\s+/);
  if (fields.length !== 5) throw new Error(`reference: need 5 fields in '${expression}'`);
  const [minF, hourF, domF, monF, dowF] = fields as [string, string, string, string, string];
  const set = (f: string, def: FieldDef) =>
    new Set(f.split(',').flatMap((item) => plainItem(item, def)));
  const minutes = set(minF, FIELDS[0] as FieldDef);
  const hours = set(hourF, FIELDS[1] as FieldDef);
  const months = set(monF, FIELDS[3] as FieldDef);
  const dom = anyOf(domF.split(',').map(domItem));
  const dow = anyOf(dowF.split(',').map(dowItem));
  const unrestricted = (f: string) => f.startsWith('*') || f.startsWith('?');
  const vixieOr = !unrestricted(domF) && !unrestricted(dowF);
  const matchesDay = (d: CivilDay) =>
    months.has(d.month) && (vixieOr ? dom(d) || dow(d) : dom(d) && dow(d));
  return {
    minutes,
    hours,
    months,
    matchesDay,
    matchesSlot: (s) => minutes.has(s.minute) && hours.has(s.hour) && matchesDay(s),
    kind: hours.size === 24 ? 'cadence' : 'wall-clock',
  };
}

/** Whether the matcher matches any day at all: 2000-2027 holds every kind of year. */
export function matchesSomeDay(m: CronMatcher): boolean {
  for (let ms = Date.UTC(2000, 0, 1); ms < Date.UTC(2028, 0, 1); ms += DAY_MS) {
    const d = new Date(ms);
    if (m.matchesDay({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }))
      return true;
  }
  return false;
}

/** The effective policies: the contract's defaults by kind, overridden by `spec.dst`. */
export function referencePolicies(spec: ReferenceSpec): { gap: GapPolicy; overlap: OverlapPolicy } {
  const kind = compileCron(spec.cron).kind;
  return {
    gap: spec.dst?.gap ?? (kind === 'cadence' ? 'skip' : 'shift'),
    overlap: spec.dst?.overlap ?? (kind === 'cadence' ? 'both' : 'first'),
  };
}

// ---------------------------------------------------------------------------------------------
// Slots of a window
// ---------------------------------------------------------------------------------------------

/** A local wall-clock slot, as "wall minutes": minutes since 1970-01-01T00:00 of local time. */
export interface LocalSlot {
  wallMinute: number;
  /** Real instants (ms) whose local time is this slot, ascending. Empty for a gap slot. */
  instantsMs: number[];
  /** For a gap slot: the offset (minutes) before the jump, and the instant of the jump. */
  gap?: { offsetBeforeMinutes: number; transitionMs: number };
}

/** Offset of `zone` at `ms`, in minutes, from luxon. */
export function offsetMinutes(zone: string, ms: number): number {
  return IANAZone.create(zone).offset(ms);
}

/** `YYYY-MM-DDTHH:mm` of a wall minute. */
export function formatWallMinute(wallMinute: number): string {
  return new Date(wallMinute * MINUTE_MS).toISOString().slice(0, 16);
}

function civilOfWallMinute(wallMinute: number) {
  const d = new Date(wallMinute * MINUTE_MS);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
  };
}

/**
 * Every local slot seen while walking the UTC minutes from `startMs` to `endMs` (both whole
 * minutes), plus the slots the walk jumped over. A slot's real instants are only complete when
 * the walk covers them all, so callers pad their window generously.
 */
export function localSlots(zone: string, startMs: number, endMs: number): Map<number, LocalSlot> {
  const slots = new Map<number, LocalSlot>();
  let prevWall: number | undefined;
  let prevOffset = 0;
  for (let ms = startMs; ms <= endMs; ms += MINUTE_MS) {
    const offset = offsetMinutes(zone, ms);
    const wall = ms / MINUTE_MS + offset;
    if (prevWall !== undefined && wall > prevWall + 1) {
      for (let w = prevWall + 1; w < wall; w++) {
        if (!slots.has(w)) {
          slots.set(w, {
            wallMinute: w,
            instantsMs: [],
            gap: { offsetBeforeMinutes: prevOffset, transitionMs: ms },
          });
        }
      }
    }
    const slot = slots.get(wall);
    if (slot) {
      slot.instantsMs.push(ms);
      delete slot.gap;
    } else {
      slots.set(wall, { wallMinute: wall, instantsMs: [ms] });
    }
    prevWall = wall;
    prevOffset = offset;
  }
  return slots;
}

/** The instants one slot stands for under the policies, with the slot's label. */
export function slotInstants(
  slot: LocalSlot,
  policies: { gap: GapPolicy; overlap: OverlapPolicy },
): { atMs: number[]; label: SlotLabel } {
  const nominal = formatWallMinute(slot.wallMinute);
  const n = slot.instantsMs.length;
  if (n === 1) return { atMs: slot.instantsMs, label: { nominal, dst: 'none' } };
  if (n > 1) {
    const first = slot.instantsMs[0] as number;
    const last = slot.instantsMs[n - 1] as number;
    const atMs =
      policies.overlap === 'first'
        ? [first]
        : policies.overlap === 'last'
          ? [last]
          : slot.instantsMs;
    return { atMs, label: { nominal, dst: 'overlap' } };
  }
  const gap = slot.gap;
  if (!gap) throw new Error('reference: slot without instants nor gap');
  const atMs =
    policies.gap === 'shift'
      ? [(slot.wallMinute - gap.offsetBeforeMinutes) * MINUTE_MS]
      : policies.gap === 'transition'
        ? [gap.transitionMs]
        : [];
  return { atMs, label: { nominal, dst: 'gap' } };
}

/**
 * The local slots around the window `from < at <= to`, padded on both sides by more than the
 * largest jump of the offset near it (one hour more than the largest change between hourly
 * samples over the window and a day either side: Apia skipped 24 hours), so that every slot that
 * can map into the window is seen with all its instants.
 */
export function windowSlots(zone: string, from: Date, to: Date): Map<number, LocalSlot> {
  const fromMs = from.getTime();
  const toMs = to.getTime();
  let maxJumpMinutes = 0;
  let prev = offsetMinutes(zone, fromMs - DAY_MS - 3_600_000);
  for (let ms = fromMs - DAY_MS; ms <= toMs + DAY_MS + 3_600_000; ms += 3_600_000) {
    const off = offsetMinutes(zone, ms);
    maxJumpMinutes = Math.max(maxJumpMinutes, Math.abs(off - prev));
    prev = off;
  }
  const padMs = (maxJumpMinutes + 60) * MINUTE_MS;
  const startMs = Math.floor((fromMs - padMs) / MINUTE_MS) * MINUTE_MS;
  const endMs = Math.ceil((toMs + padMs) / MINUTE_MS) * MINUTE_MS;
  return localSlots(zone, startMs, endMs);
}

/**
 * The runs of `spec` with `from < at <= to`, sorted and de-duplicated, found the slow way.
 * `slots` (from `windowSlots` of the same zone and window) can be passed to share the walk
 * between several policies.
 *
 * @example
 * referenceOccurrences({ cron: '30 2 * * *', timezone: 'Europe/Berlin' },
 *   new Date('2023-03-25T12:00Z'), new Date('2023-03-26T12:00Z'))
 * //=> [{ atMs: Date.parse('2023-03-26T01:30Z'), labels: [{ nominal: '2023-03-26T02:30', dst: 'gap' }] }]
 */
export function referenceOccurrences(
  spec: ReferenceSpec,
  from: Date,
  to: Date,
  slots: Map<number, LocalSlot> = windowSlots(spec.timezone, from, to),
): ReferenceRun[] {
  const matcher = compileCron(spec.cron);
  const policies = referencePolicies(spec);
  const fromMs = from.getTime();
  const toMs = to.getTime();
  const runs = new Map<number, SlotLabel[]>();
  for (const slot of slots.values()) {
    if (!matcher.matchesSlot(civilOfWallMinute(slot.wallMinute))) continue;
    const { atMs, label } = slotInstants(slot, policies);
    for (const at of atMs) {
      if (at <= fromMs || at > toMs) continue;
      const labels = runs.get(at);
      if (labels) labels.push(label);
      else runs.set(at, [label]);
    }
  }
  return [...runs.entries()].sort(([a], [b]) => a - b).map(([atMs, labels]) => ({ atMs, labels }));
}

/**
 * The matching local slots whose single default instant (gap `shift`, overlap `first`) lies in
 * `from < at <= to`: what "one run per matching local slot" counts.
 */
export function matchingSlots(
  spec: ReferenceSpec,
  from: Date,
  to: Date,
  slots: Map<number, LocalSlot> = windowSlots(spec.timezone, from, to),
): { nominal: string; atMs: number }[] {
  const matcher = compileCron(spec.cron);
  const fromMs = from.getTime();
  const toMs = to.getTime();
  const out: { nominal: string; atMs: number }[] = [];
  for (const slot of slots.values()) {
    if (!matcher.matchesSlot(civilOfWallMinute(slot.wallMinute))) continue;
    const { atMs, label } = slotInstants(slot, { gap: 'shift', overlap: 'first' });
    const at = atMs[0];
    if (at !== undefined && at > fromMs && at <= toMs)
      out.push({ nominal: label.nominal, atMs: at });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** The local slot (`YYYY-MM-DDTHH:mm`) of an instant in a zone, via luxon. */
export function localSlotOf(zone: string, ms: number): string {
  return DateTime.fromMillis(ms, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
}

/** Does the matcher match the local time of `ms` in `zone` (luxon's view)? */
export function matchesInstant(matcher: CronMatcher, zone: string, ms: number): boolean {
  const dt = DateTime.fromMillis(ms, { zone });
  return matcher.matchesSlot({
    year: dt.year,
    month: dt.month,
    day: dt.day,
    hour: dt.hour,
    minute: dt.minute,
  });
}

/**
 * The offset changes of `zone` within `[fromMs, toMs)`, found by sampling every 5 days and
 * bisecting to the minute (two changes less than 5 days apart can be missed). Used to bias
 * random instants towards DST transitions.
 */
export function transitionsIn(zone: string, fromMs: number, toMs: number): number[] {
  const step = 5 * DAY_MS;
  const out: number[] = [];
  let prev = offsetMinutes(zone, fromMs);
  for (let ms = fromMs + step; ms < toMs + step; ms += step) {
    const off = offsetMinutes(zone, ms);
    if (off !== prev) {
      let lo = ms - step; // offset prev
      let hi = ms; // offset off
      while (hi - lo > MINUTE_MS) {
        const mid = Math.floor((lo + hi) / 2 / MINUTE_MS) * MINUTE_MS;
        if (mid <= lo || mid >= hi) break;
        if (offsetMinutes(zone, mid) === prev) lo = mid;
        else hi = mid;
      }
      out.push(hi);
      prev = off;
    }
  }
  return out;
}
