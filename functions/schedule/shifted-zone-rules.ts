import { InvalidArgumentError } from './errors.ts';
import { intlZoneRules } from './intl-zone-rules.ts';
import { minuteOf } from './time-zone.ts';
import type { ZoneRules } from './types.ts';
import { validateTimeZone } from './zone-name.ts';

/**
 * Zone rules that differ from `base` in one thing: one transition of one zone happens
 * `shiftMinutes` later (earlier when negative).
 *
 * The smallest realistic difference between two copies of the tz database, and the one a
 * government decision produces: what a schedule does if a country moves its clock change by
 * a week, or if synth and runtime disagree about it. Between the old and the new instant the
 * offset keeps its value from the side of the moved transition:
 *
 * ```
 *  base:     before ──────┤T├── after ───────────────────
 *  shift>0:  before ─────────────────────┤T+shift├── after
 *  shift<0:  before ──┤T+shift├── after ─────────────────
 * ```
 *
 * `transitionAt` must be the instant of a transition of `zone` under `base` (see
 * `zoneTransitions`), and the moved one must not reach another transition (checked once a day
 * and at the last minute of the move, like the engine samples).
 * The engine sees offsets that last at least a day, so keep the moved transition at least a
 * day away from its neighbours.
 *
 * @example
 * const rules = shiftedTransitionRules('Europe/Berlin', new Date('2027-03-28T01:00Z'), 7 * 24 * 60);
 * createEngine({ zoneRules: rules }).zoneTransitions('Europe/Berlin',
 *   new Date('2027-01-01T00:00Z'), new Date('2027-06-01T00:00Z'))
 * //=> [{ at: 2027-04-04T01:00:00.000Z, offsetBeforeMinutes: 60, offsetAfterMinutes: 120 }]
 */
export function shiftedTransitionRules(
  zone: string,
  transitionAt: Date,
  shiftMinutes: number,
  base: ZoneRules = intlZoneRules,
): ZoneRules {
  validateTimeZone(zone);
  const at = minuteOf(transitionAt, 'transitionAt');
  if (!Number.isInteger(shiftMinutes)) {
    throw new InvalidArgumentError(
      `invalid shift ${String(shiftMinutes)} (allowed a whole number of minutes)`,
      'shiftMinutes',
      shiftMinutes,
    );
  }
  const before = base.offsetMinutesAt(zone, at - 1);
  const after = base.offsetMinutesAt(zone, at);
  if (before === after || at * 60_000 !== transitionAt.getTime()) {
    throw new InvalidArgumentError(
      `no transition of '${zone}' at ${transitionAt.toISOString()} (allowed the instant of one, see zoneTransitions)`,
      'transitionAt',
      transitionAt,
    );
  }
  // [low, high) takes the offset of the side the transition moved away from.
  const low = Math.min(at, at + shiftMinutes);
  const high = Math.max(at, at + shiftMinutes);
  const moved = shiftMinutes > 0 ? before : after;
  if (!keeps(base, zone, low, high, shiftMinutes > 0 ? after : before)) {
    throw new InvalidArgumentError(
      `shifting the transition of '${zone}' at ${transitionAt.toISOString()} by ${shiftMinutes} minutes reaches another transition (allowed a shift that stays between its neighbours)`,
      'shiftMinutes',
      shiftMinutes,
    );
  }
  return {
    offsetMinutesAt(ruleZone: string, utcMinute: number): number {
      if (ruleZone === zone && utcMinute >= low && utcMinute < high) return moved;
      return base.offsetMinutesAt(ruleZone, utcMinute);
    },
    // Past the moved stretch the rules are the base's, and repeat where the base's do.
    repeatsFromMinute(ruleZone: string): number | undefined {
      const repeatsFrom = base.repeatsFromMinute?.(ruleZone);
      if (repeatsFrom === undefined || ruleZone !== zone) return repeatsFrom;
      return Math.max(repeatsFrom, high);
    },
  };
}

/** Whether `base` gives `offset` throughout [low, high), sampled once a day and at the end. */
function keeps(base: ZoneRules, zone: string, low: number, high: number, offset: number): boolean {
  for (let minute = low; minute < high; minute += 1440) {
    if (base.offsetMinutesAt(zone, minute) !== offset) return false;
  }
  return high === low || base.offsetMinutesAt(zone, high - 1) === offset;
}
