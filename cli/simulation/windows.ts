import { zoneTransitions } from '../../functions/schedule/index.ts';

/** A stretch of simulated time: events with `from < scheduledTime <= to`. */
export interface SimulationWindow {
  readonly from: Date;
  readonly to: Date;
  /** Why this window was chosen, e.g. `Europe/Berlin springs forward at 2027-03-28T01:00:00Z`. */
  readonly reasons: readonly string[];
}

const DAY_MS = 86_400_000;
const YEAR_MS = 366 * DAY_MS;

/**
 * The windows `simulate` runs without `--from`/`--to`: ±1 day around the next spring-forward
 * and the next fall-back transition of every zone, merged where they overlap.
 *
 * Both directions, because the two nights fail in different ways (a slot that does not exist,
 * a slot that happens twice). Zones without DST contribute nothing; when no zone has a
 * transition in the coming year, the window is the day after `after`.
 *
 * @example
 * defaultWindows(['Europe/Berlin'], new Date('2023-01-01T00:00:00Z')).map((w) => w.from)
 * //=> [2023-03-25T01:00:00.000Z, 2023-10-28T01:00:00.000Z]
 */
export function defaultWindows(zones: readonly string[], after: Date): SimulationWindow[] {
  const raw: SimulationWindow[] = [];
  for (const zone of new Set(zones)) {
    const transitions = zoneTransitions(zone, after, new Date(after.getTime() + YEAR_MS));
    const forward = transitions.find((t) => t.offsetAfterMinutes > t.offsetBeforeMinutes);
    const back = transitions.find((t) => t.offsetAfterMinutes < t.offsetBeforeMinutes);
    for (const [t, verb] of [
      [forward, 'springs forward'],
      [back, 'falls back'],
    ] as const) {
      if (!t) continue;
      raw.push({
        from: new Date(t.at.getTime() - DAY_MS),
        to: new Date(t.at.getTime() + DAY_MS),
        reasons: [`${zone} ${verb} at ${t.at.toISOString()}`],
      });
    }
  }
  if (raw.length === 0) {
    return [
      {
        from: after,
        to: new Date(after.getTime() + DAY_MS),
        reasons: ['no configured zone changes its clocks in the coming year'],
      },
    ];
  }
  raw.sort((a, b) => a.from.getTime() - b.from.getTime());
  const merged: SimulationWindow[] = [];
  for (const w of raw) {
    const last = merged.at(-1);
    if (last && w.from.getTime() <= last.to.getTime()) {
      merged[merged.length - 1] = {
        from: last.from,
        to: new Date(Math.max(last.to.getTime(), w.to.getTime())),
        reasons: [...last.reasons, ...w.reasons],
      };
    } else {
      merged.push(w);
    }
  }
  return merged;
}
