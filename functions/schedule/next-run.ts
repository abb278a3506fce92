import { formatLocalMinute } from './civil-calendar.ts';
import { type LocalSlotMatcher, NO_SLOT } from './local-slots.ts';
import { cursorFor, resolvePolicies } from './occurrences.ts';
import {
  defaultZoneTables,
  MAX_MINUTE,
  minuteOf,
  ZoneTable,
  type ZoneTables,
} from './time-zone.ts';
import type { DstPolicies, NeverRunsReason, NextRun, ScheduleSpec, ZoneRules } from './types.ts';

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
