import {
  type Occurrence,
  occurrencesBetween,
  resolvePolicies,
  type ScheduleSpec,
  zoneTransitions,
} from '../../functions/schedule/index.ts';
import { formatLocalClock, zoneLabel } from '../../functions/shared/zone-time.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Transition {
  at: Date;
  offsetBeforeMinutes: number;
  offsetAfterMinutes: number;
}

function transitionsAround(zone: string, at: Date): Transition[] {
  return zoneTransitions(zone, new Date(at.getTime() - DAY_MS), new Date(at.getTime() + DAY_MS));
}

function isTransitionInstant(zone: string, at: Date): boolean {
  return transitionsAround(zone, at).some((t) => t.at.getTime() === at.getTime());
}

/** Whether an overlap run is the earlier (`first`) or later (`second`) of the repeated hour. */
function overlapOrdinal(zone: string, at: Date): 'first' | 'second' {
  const fallBack = transitionsAround(zone, at).find(
    (t) => t.offsetAfterMinutes < t.offsetBeforeMinutes,
  );
  return fallBack && at.getTime() < fallBack.at.getTime() ? 'first' : 'second';
}

function slotParts(nominal: string): { date: string; time: string } {
  return { date: nominal.slice(0, 10), time: nominal.slice(11, 16) };
}

/**
 * The plain-words note for one DST-affected run, or undefined for an ordinary one.
 *
 * The decision is the engine's (the occurrence's `at` and `dst`); this only puts it in words.
 *
 * @example
 * occurrenceNote({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, occurrence)
 * //=> '02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:30 CEST'
 */
export function occurrenceNote(spec: ScheduleSpec, occurrence: Occurrence): string | undefined {
  const zone = spec.timezone;
  const { date, time } = slotParts(occurrence.nominal);
  if (occurrence.dst === 'gap') {
    const jump = isTransitionInstant(zone, occurrence.at) ? ', the moment clocks jump' : '';
    return `${time} does not exist on ${date} in ${zone} — runs at ${formatLocalClock(occurrence.at, zone)}${jump}`;
  }
  if (occurrence.dst === 'overlap') {
    const ordinal = overlapOrdinal(zone, occurrence.at);
    const label = zoneLabel(occurrence.at, zone);
    const what =
      resolvePolicies(spec).overlap === 'both'
        ? `runs at both; this is the ${ordinal} (${label})`
        : `runs at the ${ordinal} (${label})`;
    return `${time} happens twice on ${date} in ${zone} — ${what}`;
  }
  return undefined;
}

/** What one DST transition does to a schedule's slots, in plain words. */
export interface TransitionReport {
  /** The instant the zone's offset changes. */
  readonly at: Date;
  readonly kind: 'gap' | 'overlap';
  /** One sentence per group of slots with the same outcome; `skipped` when they never run. */
  readonly lines: readonly { readonly text: string; readonly skipped: boolean }[];
}

function wallClock(date: Date): string {
  return date.toISOString().slice(0, 16);
}

function lengthText(minutes: number): string {
  if (minutes % 60 === 0) return minutes === 60 ? '1 hour' : `${minutes / 60} hours`;
  return `${minutes} minutes`;
}

function slotList(nominals: string[]): { text: string; plural: boolean } {
  const times = nominals.map((n) => n.slice(11, 16));
  if (times.length <= 4) return { text: times.join(', '), plural: times.length > 1 };
  return { text: `${times.length} slots from ${times[0]} to ${times.at(-1)}`, plural: true };
}

/**
 * The local slots of a schedule that fall into a zone's DST transitions in (from, to], and
 * what happens to them.
 *
 * The slots come from the engine evaluating the expression in UTC over the transition's local
 * wall-clock range (UTC has no DST, so each wall-clock slot appears exactly once there); what
 * happens to each comes from the engine's occurrences in the zone.
 */
export function transitionReports(spec: ScheduleSpec, from: Date, to: Date): TransitionReport[] {
  const zone = spec.timezone;
  const policies = resolvePolicies(spec);
  const reports: TransitionReport[] = [];
  for (const t of zoneTransitions(zone, from, to)) {
    const kind = t.offsetAfterMinutes > t.offsetBeforeMinutes ? 'gap' : 'overlap';
    const lengthMinutes = Math.abs(t.offsetAfterMinutes - t.offsetBeforeMinutes);
    const wallOffset = kind === 'gap' ? t.offsetBeforeMinutes : t.offsetAfterMinutes;
    const wallStartMs = t.at.getTime() + wallOffset * MINUTE_MS;
    const wallSpec: ScheduleSpec = {
      cron: spec.cron,
      timezone: 'UTC',
      ...(spec.jobId === undefined ? {} : { jobId: spec.jobId }),
    };
    const slots = occurrencesBetween(
      wallSpec,
      new Date(wallStartMs - MINUTE_MS),
      new Date(wallStartMs + (lengthMinutes - 1) * MINUTE_MS),
    ).map((o) => wallClock(o.at));
    if (slots.length === 0) continue;
    const around = occurrencesBetween(
      spec,
      new Date(t.at.getTime() - DAY_MS),
      new Date(t.at.getTime() + DAY_MS),
    );
    const groups = new Map<
      string,
      { nominals: string[]; specific: Set<string>; skipped: boolean }
    >();
    for (const nominal of slots) {
      const runs = around.filter((o) => o.nominal === nominal && o.dst === kind);
      let generic: string;
      let specific: string;
      if (kind === 'gap') {
        const run = runs[0];
        if (!run) {
          generic =
            policies.gap === 'skip'
              ? 'skipped (gap policy skip)'
              : 'runs once, together with another run at the same instant';
          specific = generic;
        } else if (isTransitionInstant(zone, run.at)) {
          generic = `runs at ${formatLocalClock(run.at, zone)}, the moment clocks jump`;
          specific = generic;
        } else {
          generic = `each runs ${lengthText(lengthMinutes)} later, at the offset before the jump`;
          specific = `runs at ${formatLocalClock(run.at, zone)}`;
        }
      } else if (runs.length >= 2) {
        const labels = runs.map((r) => zoneLabel(r.at, zone)).join(' and ');
        generic = `runs at both (${labels})`;
        specific = generic;
      } else if (runs[0]) {
        const run = runs[0];
        generic = `runs once, at the ${overlapOrdinal(zone, run.at)} (${zoneLabel(run.at, zone)})`;
        specific = generic;
      } else {
        generic = 'does not run';
        specific = generic;
      }
      const group = groups.get(generic) ?? {
        nominals: [],
        specific: new Set<string>(),
        skipped: runs.length === 0 && (kind === 'overlap' || policies.gap === 'skip'),
      };
      group.nominals.push(nominal);
      group.specific.add(specific);
      groups.set(generic, group);
    }
    const date = slots[0]?.slice(0, 10) ?? '';
    const lines: { text: string; skipped: boolean }[] = [];
    for (const [generic, group] of groups) {
      const { text, plural } = slotList(group.nominals);
      const verb =
        kind === 'gap'
          ? plural
            ? 'do not exist'
            : 'does not exist'
          : plural
            ? 'happen twice'
            : 'happens twice';
      const outcome = group.specific.size === 1 ? [...group.specific][0] : generic;
      lines.push({
        text: `${text} ${verb} on ${date} in ${zone} — ${outcome}`,
        skipped: group.skipped,
      });
    }
    reports.push({ at: t.at, kind, lines });
  }
  return reports;
}
