import type { RecordedZone } from '#jobs/jobs-bundle.ts';
import {
  InvalidArgumentError,
  intlZoneRules,
  validateTimeZone,
  type ZoneRules,
} from '../schedule/index.ts';
import { engineFor, FINGERPRINT_REACH_MS, fingerprintWindow } from './zone-fingerprint.ts';

const MINUTE_MS = 60_000;

/** The options of `recordZone`. */
export interface RecordZoneOptions {
  /** The rules to read. @default intlZoneRules (the platform's) */
  readonly rules?: ZoneRules;
  /** The fingerprint's horizon. @default 366 */
  readonly horizonDays?: number;
}

/**
 * A zone's offsets over the span a fingerprint from `from` depends on, small enough to ship
 * with the fingerprints (a zone with DST: two or three changes, about 60 bytes of JSON).
 *
 * Synth records every job zone this way, so the dispatcher can rebuild synth's rules
 * (`recordedZoneRules`) and say where its own first disagree, without the deploying machine.
 * Throws `InvalidTimeZoneError` for a zone the platform does not know.
 *
 * @example
 * recordZone('Europe/Berlin', new Date('2027-01-01T00:00Z'))
 * //=> { offsetMinutes: 60, transitions: [[30103260, 120], [30415740, 60]] }   (tz 2025c)
 */
export function recordZone(
  zone: string,
  from: Date,
  options: RecordZoneOptions = {},
): RecordedZone {
  const rules = options.rules ?? intlZoneRules;
  const { startMs, endMs } = recordedSpan(from, options.horizonDays);
  validateTimeZone(zone);
  const transitions = engineFor(rules).zoneTransitions(zone, new Date(startMs), new Date(endMs));
  return {
    offsetMinutes: rules.offsetMinutesAt(zone, startMs / MINUTE_MS),
    transitions: transitions.map((t) => [t.at.getTime() / MINUTE_MS, t.offsetAfterMinutes]),
  };
}

/**
 * Whether two records give a zone the same offsets.
 *
 * @example
 * sameRecordedZone(recordZone('Asia/Tokyo', from), recordZone('Asia/Tokyo', from)) //=> true
 */
export function sameRecordedZone(a: RecordedZone, b: RecordedZone): boolean {
  return (
    a.offsetMinutes === b.offsetMinutes &&
    a.transitions.length === b.transitions.length &&
    a.transitions.every(
      ([minute, offset], i) => b.transitions[i]?.[0] === minute && b.transitions[i]?.[1] === offset,
    )
  );
}

/** A zone asked of recorded rules that holds no record of it. */
export class UnrecordedZoneError extends InvalidArgumentError {
  readonly zone: string;
  constructor(zone: string) {
    super(`no recorded offsets for zone '${zone}'`, 'zone', zone);
    this.name = new.target.name;
    this.zone = zone;
  }
}

/**
 * Zone rules rebuilt from records: within a record's span, exactly the offsets synth read;
 * before it, its first offset; after it, its last. Any engine computes with them as with the
 * rules synth had, for every fingerprint and first disagreement in the window.
 *
 * @example
 * const synthRules = recordedZoneRules(bundle.zones);
 * firstDisagreement(spec, new Date(bundle.synthesizedAt), synthRules, intlZoneRules)
 */
export function recordedZoneRules(records: Readonly<Record<string, RecordedZone>>): ZoneRules {
  return {
    offsetMinutesAt(zone: string, utcMinute: number): number {
      const record = Object.hasOwn(records, zone) ? records[zone] : undefined;
      if (record === undefined) throw new UnrecordedZoneError(zone);
      let offset = record.offsetMinutes;
      for (const [minute, after] of record.transitions) {
        if (utcMinute < minute) break;
        offset = after;
      }
      return offset;
    },
  };
}

/** The span a record covers: the fingerprint window and its reach on both sides. */
function recordedSpan(from: Date, horizonDays?: number): { startMs: number; endMs: number } {
  const { fromMs, toMs } = fingerprintWindow(from, horizonDays);
  return { startMs: fromMs - FINGERPRINT_REACH_MS, endMs: toMs + FINGERPRINT_REACH_MS };
}
