import { formatLocalClock, zoneLabel } from '#text/zone-time.ts';
import {
  type Occurrence,
  occurrencesBetween,
  resolvePolicies,
  type ScheduleSpec,
  type ZoneTransition,
  zoneTransitions,
} from '../../functions/schedule/index.ts';

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
  readonly lines: readonly ReportLine[];
}

/** One sentence of a {@link TransitionReport}, with the local slots it speaks of. */
export interface ReportLine {
  readonly text: string;
  /** True when these slots have no run at all that night. */
  readonly skipped: boolean;
  /**
   * When `skipped`, each slot on its own (`YYYY-MM-DDTHH:mm` in the schedule's zone), why it has
   * no run and the sentence in the same words: `01:00 does not exist on … — skipped (…)`, so a
   * `--json` reader gets one entry per slot; empty otherwise.
   */
  readonly skippedSlots: readonly SkippedSlot[];
}

/** A local slot a DST night leaves without a run. */
export interface SkippedSlot {
  readonly nominal: string;
  /** `gap`: the local time does not exist; `overlap`: it happens twice (the engine's `dst`). */
  readonly kind: 'gap' | 'overlap';
  /** `01:00 does not exist on 2023-03-26 in Europe/London` */
  readonly why: string;
  /** `01:00 does not exist on 2023-03-26 in Europe/London — skipped (gap policy skip)` */
  readonly text: string;
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
 *
 * @example
 * transitionReports({ cron: '30 2 * * *', timezone: 'Europe/Berlin' },
 *   new Date('2027-03-01T00:00Z'), new Date('2027-04-01T00:00Z'))[0]?.lines[0]?.text
 * //=> '02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST'
 */
export function transitionReports(spec: ScheduleSpec, from: Date, to: Date): TransitionReport[] {
  const reports: TransitionReport[] = [];
  for (const t of zoneTransitions(spec.timezone, from, to)) {
    const change = changeOf(t);
    const slots = slotsInChange(spec, change);
    if (slots.length === 0) continue;
    const groups = groupByOutcome(spec, change, slots);
    const date = slots[0]?.slice(0, 10) ?? '';
    const lines = [...groups].map(([generic, group]) =>
      reportLine(spec.timezone, change.kind, date, generic, group),
    );
    reports.push({ at: t.at, kind: change.kind, lines });
  }
  return reports;
}

/** One transition as the notes see it: which kind, how long, where its wall clock starts. */
interface Change {
  readonly at: Date;
  readonly kind: 'gap' | 'overlap';
  readonly lengthMinutes: number;
  readonly wallStartMs: number;
}

function changeOf(t: ZoneTransition): Change {
  const kind = t.offsetAfterMinutes > t.offsetBeforeMinutes ? 'gap' : 'overlap';
  const wallOffset = kind === 'gap' ? t.offsetBeforeMinutes : t.offsetAfterMinutes;
  return {
    at: t.at,
    kind,
    lengthMinutes: Math.abs(t.offsetAfterMinutes - t.offsetBeforeMinutes),
    wallStartMs: t.at.getTime() + wallOffset * MINUTE_MS,
  };
}

/** The schedule's wall-clock slots inside the change, `YYYY-MM-DDTHH:mm`. */
function slotsInChange(spec: ScheduleSpec, change: Change): string[] {
  const wallSpec: ScheduleSpec = {
    cron: spec.cron,
    timezone: 'UTC',
    ...(spec.jobId === undefined ? {} : { jobId: spec.jobId }),
  };
  return occurrencesBetween(
    wallSpec,
    new Date(change.wallStartMs - MINUTE_MS),
    new Date(change.wallStartMs + (change.lengthMinutes - 1) * MINUTE_MS),
  ).map((o) => wallClock(o.at));
}

/** Slots that share an outcome, said once for all of them. */
interface OutcomeGroup {
  readonly nominals: string[];
  /** The outcome said of each slot alone (its exact time): one sentence when all agree. */
  readonly specific: Set<string>;
  readonly skipped: boolean;
}

/** The slots grouped by what happens to them, in the engine's occurrences around the change. */
function groupByOutcome(spec: ScheduleSpec, change: Change, slots: readonly string[]) {
  const policies = resolvePolicies(spec);
  const around = occurrencesBetween(
    spec,
    new Date(change.at.getTime() - DAY_MS),
    new Date(change.at.getTime() + DAY_MS),
  );
  const groups = new Map<string, OutcomeGroup>();
  for (const nominal of slots) {
    const runs = around.filter((o) => o.nominal === nominal && o.dst === change.kind);
    const { generic, specific } =
      change.kind === 'gap'
        ? gapOutcome(spec.timezone, change, runs[0], policies.gap)
        : overlapOutcome(spec.timezone, runs);
    const group = groups.get(generic) ?? {
      nominals: [],
      specific: new Set<string>(),
      skipped: runs.length === 0 && (change.kind === 'overlap' || policies.gap === 'skip'),
    };
    group.nominals.push(nominal);
    group.specific.add(specific);
    groups.set(generic, group);
  }
  return groups;
}

/** What happens to a slot that does not exist: the general sentence and the slot's own. */
function gapOutcome(zone: string, change: Change, run: Occurrence | undefined, gap: string) {
  if (!run) {
    const generic =
      gap === 'skip'
        ? 'skipped (gap policy skip)'
        : 'runs once, together with another run at the same instant';
    return { generic, specific: generic };
  }
  if (isTransitionInstant(zone, run.at)) {
    const generic = `runs at ${formatLocalClock(run.at, zone)}, the moment clocks jump`;
    return { generic, specific: generic };
  }
  return {
    generic: `each runs ${lengthText(change.lengthMinutes)} later, at the offset before the jump`,
    specific: `runs at ${formatLocalClock(run.at, zone)}`,
  };
}

/** What happens to a slot that happens twice. */
function overlapOutcome(zone: string, runs: readonly Occurrence[]) {
  const [run] = runs;
  const generic =
    runs.length >= 2
      ? `runs at both (${runs.map((r) => zoneLabel(r.at, zone)).join(' and ')})`
      : run
        ? `runs once, at the ${overlapOrdinal(zone, run.at)} (${zoneLabel(run.at, zone)})`
        : 'does not run';
  return { generic, specific: generic };
}

/** One note: the slots, what the change does to them, and the outcome. */
function reportLine(
  zone: string,
  kind: Change['kind'],
  date: string,
  generic: string,
  group: OutcomeGroup,
): ReportLine {
  const { text, plural } = slotList(group.nominals);
  const verbs =
    kind === 'gap' ? ['does not exist', 'do not exist'] : ['happens twice', 'happen twice'];
  const outcome = group.specific.size === 1 ? [...group.specific][0] : generic;
  const skippedSlots = group.skipped
    ? group.nominals.map((nominal) => {
        const why = `${nominal.slice(11, 16)} ${verbs[0]} on ${date} in ${zone}`;
        return { nominal, kind, why, text: `${why} — ${outcome}` };
      })
    : [];
  return {
    text: `${text} ${verbs[plural ? 1 : 0]} on ${date} in ${zone} — ${outcome}`,
    skipped: group.skipped,
    skippedSlots,
  };
}
