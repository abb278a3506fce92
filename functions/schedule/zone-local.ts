import type { ZoneTable } from './time-zone.ts';
import type { DstPolicies, Occurrence } from './types.ts';

const DAY_MINUTES = 1440;

/**
 * The offset (minutes east of UTC) of a table's zone at a UTC minute, sampling as needed.
 *
 * @example
 * offsetAt(defaultZoneTables.tableFor('Europe/Berlin'), Date.parse('2026-07-01T00:00Z') / 60_000)
 * //=> 120
 */
export function offsetAt(table: ZoneTable, utcMinute: number): number {
  table.ensure(utcMinute, utcMinute);
  return table.offsets[table.segmentAt(utcMinute)] as number;
}

/**
 * The local minute (wall-clock time written as if it were UTC) of a UTC minute in a zone.
 *
 * @example
 * const berlinTable = defaultZoneTables.tableFor('Europe/Berlin');
 * formatLocalMinute(localMinuteAt(berlinTable, Date.parse('2026-07-01T00:00Z') / 60_000))
 * //=> '2026-07-01T02:00'
 */
export function localMinuteAt(table: ZoneTable, utcMinute: number): number {
  return utcMinute + offsetAt(table, utcMinute);
}

/**
 * The first UTC minute at which the zone's wall clock reads `localMinute` or later.
 *
 * Every earlier minute reads earlier, so it is where a local day or a local range starts:
 * inside a spring-forward gap it is the jump itself, inside a repeated hour the first pass.
 *
 * @example
 * new Date(firstInstantReading(berlinTable, parseLocalMinute('2026-03-29T02:30')) * 60_000)
 * //=> 2026-03-29T01:00:00.000Z (the jump from 02:00 to 03:00 CEST)
 * new Date(firstInstantReading(berlinTable, parseLocalMinute('2026-10-25T02:30')) * 60_000)
 * //=> 2026-10-25T00:30:00.000Z (the first pass of 02:30)
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
 *
 * @example
 * instantOfSlot(berlinTable, parseLocalMinute('2027-03-28T02:30'), { gap: 'shift', overlap: 'first' })
 * //=> { at: 30103290 (2027-03-28T01:30Z, 03:30 CEST), dst: 'gap' }
 * instantOfSlot(berlinTable, parseLocalMinute('2026-10-25T02:30'), { gap: 'shift', overlap: 'last' })
 * //=> { at: 29881530 (2026-10-25T01:30Z), dst: 'overlap' }
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
