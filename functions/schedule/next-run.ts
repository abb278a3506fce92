import { calendarDaysFor } from './calendar-days.ts';
import { CALENDAR_SEARCH_YEARS, CalendarWalk, needsWalk } from './calendar-runs.ts';
import { formatLocalMinute } from './civil-calendar.ts';
import { monthDayMask, possibleMonthLengths } from './day-match.ts';
import { type LocalSlotMatcher, NO_SLOT } from './local-slots.ts';
import { cursorFor, parsedCronOf, resolvePolicies } from './occurrences.ts';
import {
  defaultZoneTables,
  MAX_MINUTE,
  minuteOf,
  ZoneTable,
  type ZoneTables,
} from './time-zone.ts';
import type {
  DstPolicies,
  NeverRunsReason,
  NextRun,
  ParsedCron,
  ScheduleSpec,
  ZoneRules,
} from './types.ts';
import { validateTimeZone } from './zone-name.ts';

const MINUTE_MS = 60_000;
/** How many slots `firstSkippedSlot` looks at for one that a gap holds. */
const SLOTS_TRIED = 8;

/**
 * The next run of a schedule strictly after `after`, or why it never runs.
 *
 * `next`, `validate`, `explain` and `describe` ask this so that a schedule with no run left
 * is answered in milliseconds, with its reason, instead of being searched to the year 275760:
 * the search stops a cycle (400 Gregorian years) past the point where the zone's rules repeat
 * (docs/semantics.md, "Limits"). The runs are those of `nextOccurrences`.
 *
 * @example
 * nextRun({ cron: '30 2 * 3 0L', timezone: 'Europe/Berlin', dst: { gap: 'skip' } },
 *   new Date('2026-12-02T00:00Z'))
 * //=> { kind: 'never', reason: { cause: 'gap-skip', searchedUntil: 2600-01-04T00:00:00.000Z,
 * //     firstSkipped: { nominal: '2027-03-28T02:30', transition: { at: 2027-03-28T01:00:00.000Z, … } },
 * //     message: "every local time it matches falls in Europe/Berlin's spring-forward gap …", … } }
 * nextRun({ cron: '0 0 * 2 1#5', timezone: 'UTC' }, new Date('2026-12-02T00:00Z'))
 * //=> { kind: 'runs', next: { at: 2044-02-29T00:00:00.000Z, nominal: '2044-02-29T00:00', dst: 'none' } }
 */
export function nextRun(spec: ScheduleSpec, after: Date): NextRun {
  return nextRunIn(defaultZoneTables, spec, after);
}

/** `nextRun` with the offsets of given zone tables. */
export function nextRunIn(tables: ZoneTables, spec: ScheduleSpec, after: Date): NextRun {
  const afterMinute = minuteOf(after, 'after');
  if (needsWalk(spec)) return nextCalendarRun(tables, spec, afterMinute);
  const cursor = cursorFor(tables, spec, afterMinute + 1, Number.POSITIVE_INFINITY);
  const next = cursor.next();
  if (next !== undefined) return { kind: 'runs', next };
  const policies = resolvePolicies(spec);
  const zone = spec.timezone;
  if (cursor.ended !== 'bound') return { kind: 'never', reason: endOfRange(zone, policies) };
  const searchedUntil = new Date(cursor.searchedUntilMinute * MINUTE_MS);
  const skipped = firstSkippedSlot(cursor.matcher, tables.rules, zone, afterMinute);
  return { kind: 'never', reason: gapSkipReason(zone, policies, searchedUntil, skipped) };
}

/** `nextRun` of a spec with a calendar or bounds: "never" decided early where it can be. */
function nextCalendarRun(tables: ZoneTables, spec: ScheduleSpec, afterMinute: number): NextRun {
  const policies = resolvePolicies(spec);
  const zone = spec.timezone;
  const early = neverAtOnce(tables, spec, afterMinute, policies);
  if (early !== undefined) return { kind: 'never', reason: early };
  const walk = new CalendarWalk(tables, spec, afterMinute + 1, Number.POSITIVE_INFINITY, false);
  const next = walk.next();
  if (next !== undefined) return { kind: 'runs', next };
  if (walk.ended === 'until') return { kind: 'never', reason: untilReason(spec, policies) };
  if (walk.ended === 'calendar') {
    const searchedUntil = new Date(walk.searchedUntilMinute * MINUTE_MS);
    const name = spec.calendar?.calendar.name ?? '';
    const message = `no run in the ${CALENDAR_SEARCH_YEARS} years searched (to ${searchedUntil.toISOString()}): every run it matches falls on a closed day or in a closed range of calendar '${name}'`;
    return {
      kind: 'never',
      reason: { cause: 'calendar', timezone: zone, policies, searchedUntil, message },
    };
  }
  if (walk.ended !== 'bound') return { kind: 'never', reason: endOfRange(zone, policies) };
  const cursor = cursorFor(tables, spec, afterMinute + 1, Number.POSITIVE_INFINITY);
  cursor.next();
  const searchedUntil = new Date(cursor.searchedUntilMinute * MINUTE_MS);
  const skipped = firstSkippedSlot(cursor.matcher, tables.rules, zone, afterMinute);
  return { kind: 'never', reason: gapSkipReason(zone, policies, searchedUntil, skipped) };
}

/**
 * "Never" without a search: `until` already reached, a calendar with every weekday closed, or
 * (under `skip`, in the job's own zone) an expression that only matches weekend days.
 */
function neverAtOnce(
  tables: ZoneTables,
  spec: ScheduleSpec,
  afterMinute: number,
  policies: DstPolicies,
): NeverRunsReason | undefined {
  const untilMinute =
    spec.until instanceof Date ? Math.ceil(spec.until.getTime() / MINUTE_MS) : Number.NaN;
  const fromMinute =
    spec.from instanceof Date
      ? Math.ceil(spec.from.getTime() / MINUTE_MS)
      : Number.NEGATIVE_INFINITY;
  if (untilMinute <= Math.max(afterMinute + 1, fromMinute)) return untilReason(spec, policies);
  const rule = spec.calendar;
  if (rule === undefined) return undefined;
  const days = calendarDaysFor(tables, rule.calendar);
  const zone = spec.timezone;
  const searchedUntil = new Date((afterMinute + 1) * MINUTE_MS);
  const base = { cause: 'calendar' as const, timezone: zone, policies, searchedUntil };
  if (days.allWeekdaysClosed) {
    return {
      ...base,
      message: `calendar '${rule.calendar.name}' closes every weekday (weekendDays ${rule.calendar.weekendDays.join(', ')})`,
    };
  }
  const onlyWeekends =
    rule.businessDay === undefined &&
    (rule.onClosed ?? 'skip') === 'skip' &&
    days.zone === validateTimeZone(zone) &&
    matchedWeekdays(parsedCronOf(spec)).every((weekday) => days.isWeekend(weekday));
  if (!onlyWeekends) return undefined;
  return {
    ...base,
    message: `every day it matches is a weekend day of calendar '${rule.calendar.name}' and onClosed is skip`,
  };
}

/** The weekdays (0-6) of the days an expression can match, over every kind of month. */
function matchedWeekdays(cron: ParsedCron): number[] {
  const seen = new Set<number>();
  for (const month of cron.months) {
    for (const length of possibleMonthLengths(month)) {
      for (let first = 0; first < 7; first++) {
        const mask = monthDayMask(cron, length, first);
        for (let day = 1; day <= length; day++) {
          if ((mask >>> (day - 1)) & 1) seen.add((first + day - 1) % 7);
        }
      }
    }
  }
  return [...seen];
}

function untilReason(spec: ScheduleSpec, policies: DstPolicies): NeverRunsReason {
  const until = spec.until as Date;
  return {
    cause: 'until',
    timezone: spec.timezone,
    policies,
    searchedUntil: until,
    message: `no run before its until (${until.toISOString()})`,
  };
}

function endOfRange(zone: string, policies: DstPolicies): NeverRunsReason {
  const searchedUntil = new Date(MAX_MINUTE * MINUTE_MS);
  return {
    cause: 'end-of-range',
    timezone: zone,
    policies,
    searchedUntil,
    message: `no run before the end of the dates javascript can hold (${searchedUntil.toISOString()})`,
  };
}

type Skipped = NonNullable<NeverRunsReason['firstSkipped']>;

function gapSkipReason(
  zone: string,
  policies: DstPolicies,
  searchedUntil: Date,
  skipped: Skipped | undefined,
): NeverRunsReason {
  let first = '';
  if (skipped !== undefined) {
    const { at, offsetBeforeMinutes, offsetAfterMinutes } = skipped.transition;
    const atMinute = at.getTime() / MINUTE_MS;
    const from = formatLocalMinute(atMinute + offsetBeforeMinutes).slice(11);
    const to = formatLocalMinute(atMinute + offsetAfterMinutes).slice(11);
    first = ` (the first, ${skipped.nominal}: clocks jump from ${from} to ${to})`;
  }
  return {
    cause: 'gap-skip',
    timezone: zone,
    policies,
    ...(skipped === undefined ? {} : { firstSkipped: skipped }),
    searchedUntil,
    message: `every local time it matches falls in ${zone}'s spring-forward gap${first}, and the gap policy is ${policies.gap}`,
  };
}

/**
 * The first matching slot after `afterMinute` that a gap holds, with its clock change: read
 * from a probe table around each slot, the first few slots tried.
 */
function firstSkippedSlot(
  matcher: LocalSlotMatcher,
  rules: ZoneRules,
  zone: string,
  afterMinute: number,
): Skipped | undefined {
  const probe = new ZoneTable(zone, rules, 4 * 1440);
  let slot = matcher.next(afterMinute - 1439, Number.POSITIVE_INFINITY);
  for (let tried = 0; tried < SLOTS_TRIED && slot !== NO_SLOT; tried++) {
    if (slot > MAX_MINUTE) return undefined;
    probe.restart(slot);
    for (let i = 1; i < probe.starts.length; i++) {
      const at = probe.starts[i] as number;
      const before = probe.offsets[i - 1] as number;
      const offset = probe.offsets[i] as number;
      if (at > afterMinute && slot >= at + before && slot < at + offset) {
        const transition = {
          at: new Date(at * MINUTE_MS),
          offsetBeforeMinutes: before,
          offsetAfterMinutes: offset,
        };
        return { nominal: formatLocalMinute(slot), transition };
      }
    }
    slot = matcher.next(slot + 1, Number.POSITIVE_INFINITY);
  }
  return undefined;
}
