/**
 * A schedule's daylight-saving nights in words: which nights a zone changes its clocks, and
 * what each does to the schedule's runs under its policies.
 *
 * The outcomes are the engine's (through `transitionReports`); this names the nights and the
 * policies, for `zonecron explain --tz`.
 */
import { DateTime, FixedOffsetZone } from 'luxon';
import { zoneLabel } from '#text/zone-time.ts';
import {
  type GapPolicy,
  type OverlapPolicy,
  resolvePolicies,
  type ScheduleSpec,
  scheduleKind,
  type ZoneTransition,
  zoneTransitions,
} from '../../functions/schedule/index.ts';
import { transitionReports } from './dst-notes.ts';

/** One night a zone changes its clocks, and what that does to a schedule. */
export interface DstNight {
  /** The instant the offset changes. */
  readonly at: Date;
  /** `gap`: clocks go forward, local times are skipped; `overlap`: they go back and repeat. */
  readonly kind: 'gap' | 'overlap';
  /** `2027-03-28, the last Sunday of March: clocks go forward 1 hour at 02:00 CET` */
  readonly title: string;
  /** What happens to the schedule's local times that night, one sentence each. */
  readonly lines: readonly string[];
}

const MINUTE_MS = 60_000;

/**
 * Every clock change of the schedule's zone in (from, to], with what it does to the schedule.
 *
 * A person reading a schedule wants to know which nights to watch, also the ones where
 * nothing changes for this schedule: those get one line that says so.
 *
 * @example
 * dstNights({ cron: '30 2 * * *', timezone: 'Europe/Berlin' },
 *   new Date('2027-01-01T00:00Z'), new Date('2028-01-01T00:00Z'))[0]
 * //=> { at: 2027-03-28T01:00:00.000Z, kind: 'gap',
 * //     title: '2027-03-28, the last Sunday of March: clocks go forward 1 hour at 02:00 CET',
 * //     lines: ['02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST'] }
 */
export function dstNights(spec: ScheduleSpec, from: Date, to: Date): DstNight[] {
  const zone = spec.timezone;
  const reports = transitionReports(spec, from, to);
  return zoneTransitions(zone, from, to).map((transition) => {
    const kind = transition.offsetAfterMinutes > transition.offsetBeforeMinutes ? 'gap' : 'overlap';
    const report = reports.find((r) => r.at.getTime() === transition.at.getTime());
    const lines = report?.lines.map((line) => line.text) ?? [untouched(transition, kind)];
    return { at: transition.at, kind, title: nightTitle(transition, zone, kind), lines };
  });
}

const GAP_TEXT: Record<GapPolicy, string> = {
  shift: 'a local time that does not exist runs later by the length of the jump',
  transition: 'a local time that does not exist runs at the moment the clocks jump',
  skip: 'a local time that does not exist is skipped',
};

const OVERLAP_TEXT: Record<OverlapPolicy, string> = {
  first: 'a local time that happens twice runs once, at the first',
  last: 'a local time that happens twice runs once, at the second',
  both: 'a local time that happens twice runs at both',
};

/**
 * The schedule's kind and DST policies in one sentence.
 *
 * The policies decide every DST night; saying them in words next to the nights lets a reader
 * check that they are the intended ones.
 *
 * @example
 * policySummary({ cron: '*\/15 * * * *', timezone: 'Europe/London' })
 * //=> 'in Europe/London, a cadence, which follows elapsed time (gap skip, overlap both): a local time that does not exist is skipped; a local time that happens twice runs at both'
 */
export function policySummary(spec: ScheduleSpec): string {
  const { gap, overlap } = resolvePolicies(spec);
  const kind =
    scheduleKind(spec) === 'cadence'
      ? 'a cadence, which follows elapsed time'
      : 'a wall-clock schedule';
  return `in ${spec.timezone}, ${kind} (gap ${gap}, overlap ${overlap}): ${GAP_TEXT[gap]}; ${OVERLAP_TEXT[overlap]}`;
}

function wallClock(at: Date, offsetMinutes: number): string {
  return DateTime.fromJSDate(at, { zone: FixedOffsetZone.instance(offsetMinutes) }).toFormat(
    'HH:mm',
  );
}

function lengthText(minutes: number): string {
  if (minutes % 60 !== 0) return `${minutes} minutes`;
  return minutes === 60 ? '1 hour' : `${minutes / 60} hours`;
}

/** `the last Sunday of March`, `the second Sunday of March`. */
function weekdayOfMonth(local: DateTime): string {
  const nth = ['first', 'second', 'third', 'fourth', 'fifth'][Math.ceil(local.day / 7) - 1];
  const last = local.day + 7 > (local.daysInMonth ?? 31);
  return `the ${last ? 'last' : nth} ${local.toFormat('cccc')} of ${local.toFormat('LLLL')}`;
}

function nightTitle(transition: ZoneTransition, zone: string, kind: 'gap' | 'overlap'): string {
  const { at, offsetBeforeMinutes, offsetAfterMinutes } = transition;
  const local = DateTime.fromJSDate(at, { zone }).setLocale('en-US');
  const before = new Date(at.getTime() - MINUTE_MS);
  const clocks = `${wallClock(at, offsetBeforeMinutes)} ${zoneLabel(before, zone)}`;
  const length = lengthText(Math.abs(offsetAfterMinutes - offsetBeforeMinutes));
  const direction = kind === 'gap' ? 'forward' : 'back';
  return `${local.toFormat('yyyy-LL-dd')}, ${weekdayOfMonth(local)}: clocks go ${direction} ${length} at ${clocks}`;
}

/** The night's line when none of the schedule's local times is skipped or repeated. */
function untouched(transition: ZoneTransition, kind: 'gap' | 'overlap'): string {
  const { at, offsetBeforeMinutes, offsetAfterMinutes } = transition;
  const lengthMinutes = Math.abs(offsetAfterMinutes - offsetBeforeMinutes);
  const startOffset = kind === 'gap' ? offsetBeforeMinutes : offsetAfterMinutes;
  const start = wallClock(at, startOffset);
  const end = wallClock(new Date(at.getTime() + (lengthMinutes - 1) * MINUTE_MS), startOffset);
  const what = kind === 'gap' ? 'do not exist' : 'happen twice';
  return `${start} to ${end} ${what}, and this schedule has no run then: nothing changes for it`;
}
