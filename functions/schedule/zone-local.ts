import type { ZoneTable } from './time-zone.ts';
import type { DstPolicies, Occurrence } from './types.ts';

const DAY_MINUTES = 1440;

/** The offset (minutes east of UTC) of a table's zone at a UTC minute, sampling as needed. */
export function offsetAt(table: ZoneTable, utcMinute: number): number {
  table.ensure(utcMinute, utcMinute);
  return table.offsets[table.segmentAt(utcMinute)] as number;
}

/** The local minute (wall-clock time written as if it were UTC) of a UTC minute in a zone. */
export function localMinuteAt(table: ZoneTable, utcMinute: number): number {
  return utcMinute + offsetAt(table, utcMinute);
}

/**
 * The first UTC minute at which the zone's wall clock reads `localMinute` or later.
 *
 * Every earlier minute reads earlier, so it is where a local day or a local range starts:
 * inside a spring-forward gap it is the jump itself, inside a repeated hour the first pass.
 */
export function firstInstantReading(table: ZoneTable, localMinute: number): number {
  table.ensure(localMinute - 2 * DAY_MINUTES, localMinute + 2 * DAY_MINUTES);
  const starts = table.starts;
  const offsets = table.offsets;
  for (let s = table.segmentAt(localMinute - DAY_MINUTES); s < starts.length; s++) {
    const start = Math.max(starts[s] as number, localMinute - DAY_MINUTES);
    const end = s + 1 < starts.length ? (starts[s + 1] as number) : table.coverEnd;
    const candidate = Math.max(start, localMinute - (offsets[s] as number));
    if (candidate < end) return candidate;
  }
  return localMinute + DAY_MINUTES;
}

/**
 * The one instant a local slot stands for under the DST policies, or undefined when the gap
 * policy `skip` drops it: how a run moved to another day finds its instant there.
 *
 * A repeated slot takes its first pass, or its last under `last` (`both` would make two runs of
 * one, so a moved run takes the first).
 */
export function instantOfSlot(
  table: ZoneTable,
  localMinute: number,
  policies: DstPolicies,
): { at: number; dst: Occurrence['dst'] } | undefined {
  table.ensure(localMinute - 2 * DAY_MINUTES, localMinute + 2 * DAY_MINUTES);
  const starts = table.starts;
  const offsets = table.offsets;
  let first = Number.NaN;
  let last = Number.NaN;
  let s = table.segmentAt(localMinute - 2 * DAY_MINUTES);
  for (; s < starts.length && (starts[s] as number) <= localMinute + DAY_MINUTES; s++) {
    const end = s + 1 < starts.length ? (starts[s + 1] as number) : table.coverEnd;
    const u = localMinute - (offsets[s] as number);
    if (u >= (starts[s] as number) && u < end) {
      if (Number.isNaN(first)) first = u;
      last = u;
    }
  }
  if (!Number.isNaN(first)) {
    if (first === last) return { at: first, dst: 'none' };
    return { at: policies.overlap === 'last' ? last : first, dst: 'overlap' };
  }
  return gapInstant(table, localMinute, policies);
}

function gapInstant(
  table: ZoneTable,
  localMinute: number,
  policies: DstPolicies,
): { at: number; dst: Occurrence['dst'] } | undefined {
  if (policies.gap === 'skip') return undefined;
  const starts = table.starts;
  const offsets = table.offsets;
  for (
    let s = Math.max(1, table.segmentAt(localMinute - 2 * DAY_MINUTES));
    s < starts.length;
    s++
  ) {
    const at = starts[s] as number;
    const before = offsets[s - 1] as number;
    if (localMinute >= at + before && localMinute < at + (offsets[s] as number)) {
      return { at: policies.gap === 'shift' ? localMinute - before : at, dst: 'gap' };
    }
  }
  return undefined;
}
