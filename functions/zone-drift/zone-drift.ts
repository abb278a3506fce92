import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import type { RecordedZone } from '#jobs/jobs-bundle.ts';
import {
  intlZoneRules,
  isScheduleError,
  type Occurrence,
  type ZoneRules,
  type ZoneTransition,
} from '../schedule/index.ts';
import { recordedZoneRules, recordZone, sameRecordedZone } from './recorded-zones.ts';
import {
  type Disagreement,
  type Disagreements,
  disagreementsOf,
  scheduleFingerprint,
} from './zone-fingerprint.ts';

/**
 * What synth records of the schedules it computed the coverings for, and the dispatcher
 * checks its own zone data against: the jobs bundle's `synthesizedAt`, `fingerprints` and
 * `zones` (functions/jobs/jobs-bundle.ts).
 */
export interface ScheduleRecord {
  /** UTC ISO instant: the start of every fingerprint's window. */
  readonly synthesizedAt: string;
  /** Per enabled job, `scheduleFingerprint(job, synthesizedAt).hash`. */
  readonly fingerprints: Readonly<Record<string, string>>;
  /** Per zone of an enabled job, `recordZone(zone, synthesizedAt)`. */
  readonly zones: Readonly<Record<string, RecordedZone>>;
}

/**
 * Fingerprints every enabled job and records every zone they use, from `from` on: what synth
 * ships beside the dispatcher. Disabled jobs have no schedule deployed and are left out.
 *
 * @example
 * recordSchedules(config.jobs, synthTime)
 * //=> { synthesizedAt: '2026-11-30T15:00:00.000Z', fingerprints: { daily: 'b76e5154…' },
 * //     zones: { 'Europe/Berlin': { offsetMinutes: 60, transitions: [...] } } }
 */
export function recordSchedules(
  jobs: readonly JobDefinition[],
  from: Date,
  options: { readonly rules?: ZoneRules } = {},
): ScheduleRecord {
  const rules = options.rules ?? intlZoneRules;
  const fingerprints: Record<string, string> = {};
  const zones: Record<string, RecordedZone> = {};
  for (const job of jobs) {
    if (!job.enabled) continue;
    fingerprints[job.id] = scheduleFingerprint(scheduleSpecOf(job), from, { rules }).hash;
    zones[job.timezone] ??= recordZone(job.timezone, from, { rules });
  }
  return { synthesizedAt: from.toISOString(), fingerprints, zones };
}

/** One job whose runs synth's zone data and the runtime's disagree about. */
export interface ZoneDriftFinding {
  readonly jobId: string;
  readonly timezone: string;
  readonly expression: string;
  /**
   * What differs first: the offset at synth time, a transition, a run; `zone-unknown` when the
   * runtime does not know the zone; `fingerprint` when only the hashes differ.
   */
  readonly kind: Disagreement['kind'] | 'zone-unknown' | 'fingerprint';
  /** UTC ISO instant of the first disagreement. */
  readonly firstDisagreementAt: string;
  /** What synth's rules say there, e.g. `transition 2027-03-28T01:00Z +01:00→+02:00`. */
  readonly synth: string;
  /** What the runtime's rules say there. */
  readonly runtime: string;
  /**
   * UTC ISO instant of the first run the two place differently: from there the covering may
   * not fire when the dispatcher expects the run. `undefined` when every run compared is the
   * same instant on both sides and only the zone's transitions differ.
   */
  readonly firstRunDifferenceAt: string | undefined;
  /** False when the runs were not all compared (the run budget ran out). */
  readonly runsCompared: boolean;
}

/** The options of `findZoneDrift`. */
export interface FindZoneDriftOptions {
  /** The runtime's rules. @default intlZoneRules */
  readonly rules?: ZoneRules;
  /**
   * Runs per side compared over all jobs, and per job at most 50,000, so that one check stays
   * within a second or two whatever the jobs (`disagreementsOf`'s `runLimit`; bench/zone-drift
   * .bench.ts measures it).
   *
   * @default 500000
   */
  readonly runBudget?: number;
}

/** Runs per side one job's comparison may take, at most. */
const JOB_RUN_LIMIT = 50_000;

/**
 * The enabled jobs whose fingerprints the runtime's zone rules do not reproduce, each with the
 * first instant where synth's rules (rebuilt from the record) and the runtime's disagree.
 *
 * Zone by zone, so that it costs little when nothing drifted: a zone whose recorded offsets the
 * runtime reproduces gives every job in it the same runs (synth and dispatcher run the same
 * engine, bundled by the same synth), and its jobs are not fingerprinted at all. Jobs without
 * a recorded fingerprint or zone (an older bundle) are not checked.
 *
 * @example
 * findZoneDrift(bundle.jobs, bundle)
 * //=> [{ jobId: 'nightly', timezone: 'Europe/Berlin', expression: '30 2 * * *',
 * //      kind: 'transition', firstDisagreementAt: '2027-03-28T01:00:00.000Z',
 * //      synth: 'transition 2027-04-04T01:00Z +01:00→+02:00',
 * //      runtime: 'transition 2027-03-28T01:00Z +01:00→+02:00',
 * //      firstRunDifferenceAt: '2027-03-29T00:30:00.000Z', runsCompared: true }]
 */
export function findZoneDrift(
  jobs: readonly JobDefinition[],
  record: ScheduleRecord,
  options: FindZoneDriftOptions = {},
): ZoneDriftFinding[] {
  const from = new Date(record.synthesizedAt);
  if (Number.isNaN(from.getTime())) return [];
  const runtimeRules = options.rules ?? intlZoneRules;
  const synthRules = recordedZoneRules(record.zones);
  let budget = options.runBudget ?? 500_000;
  const findings: ZoneDriftFinding[] = [];
  for (const [zone, zoneJobs] of recordedJobsByZone(jobs, record)) {
    const recorded = record.zones[zone] as RecordedZone;
    let own: RecordedZone;
    try {
      own = recordZone(zone, from, { rules: runtimeRules });
    } catch (error) {
      if (!isScheduleError(error)) throw error;
      findings.push(...zoneJobs.map((job) => unknownZone(job, from, error.message)));
      continue;
    }
    if (sameRecordedZone(recorded, own)) continue;
    for (const job of zoneJobs) {
      const spec = scheduleSpecOf(job);
      const hash = scheduleFingerprint(spec, from, { rules: runtimeRules }).hash;
      const recordedHash = record.fingerprints[job.id] as string;
      if (hash === recordedHash) continue;
      const disagreements = disagreementsOf(spec, from, synthRules, runtimeRules, {
        runLimit: Math.min(JOB_RUN_LIMIT, budget),
      });
      budget -= disagreements.runCount;
      findings.push(findingOf(job, from, disagreements, { synth: recordedHash, runtime: hash }));
    }
  }
  return findings;
}

/** The enabled jobs with a recorded fingerprint and zone, by zone, in job order. */
function recordedJobsByZone(
  jobs: readonly JobDefinition[],
  record: ScheduleRecord,
): Map<string, JobDefinition[]> {
  const byZone = new Map<string, JobDefinition[]>();
  for (const job of jobs) {
    if (!job.enabled || !Object.hasOwn(record.fingerprints, job.id)) continue;
    if (!Object.hasOwn(record.zones, job.timezone)) continue;
    byZone.set(job.timezone, [...(byZone.get(job.timezone) ?? []), job]);
  }
  return byZone;
}

function unknownZone(job: JobDefinition, from: Date, message: string): ZoneDriftFinding {
  return {
    jobId: job.id,
    timezone: job.timezone,
    expression: job.schedule,
    kind: 'zone-unknown',
    firstDisagreementAt: from.toISOString(),
    synth: `zone ${job.timezone}`,
    runtime: message,
    firstRunDifferenceAt: from.toISOString(),
    runsCompared: true,
  };
}

function findingOf(
  job: JobDefinition,
  from: Date,
  { first, firstRun, runsCompared }: Disagreements,
  hashes: { readonly synth: string; readonly runtime: string },
): ZoneDriftFinding {
  const base = {
    jobId: job.id,
    timezone: job.timezone,
    expression: job.schedule,
    firstRunDifferenceAt: firstRun?.at.toISOString(),
    runsCompared,
  };
  if (first === undefined) {
    return {
      ...base,
      kind: 'fingerprint',
      firstDisagreementAt: from.toISOString(),
      synth: `fingerprint ${hashes.synth}`,
      runtime: `fingerprint ${hashes.runtime}`,
    };
  }
  return {
    ...base,
    kind: first.kind,
    firstDisagreementAt: first.at.toISOString(),
    ...sidesOf(first),
  };
}

/** Each side of a disagreement in a few words. */
function sidesOf(d: Disagreement): { synth: string; runtime: string } {
  switch (d.kind) {
    case 'offset':
      return { synth: `offset ${offsetText(d.a)}`, runtime: `offset ${offsetText(d.b)}` };
    case 'transition':
      return { synth: transitionText(d.a), runtime: transitionText(d.b) };
    case 'run':
      return { synth: runText(d.a), runtime: runText(d.b) };
  }
}

/**
 * An offset in minutes as `±hh:mm`.
 *
 * @example
 * offsetText(-210) //=> '-03:30'
 */
export function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  return `${sign}${hh}:${String(abs % 60).padStart(2, '0')}`;
}

function transitionText(t: ZoneTransition | undefined): string {
  if (t === undefined) return 'no transition';
  const at = `${t.at.toISOString().slice(0, 16)}Z`;
  return `transition ${at} ${offsetText(t.offsetBeforeMinutes)}→${offsetText(t.offsetAfterMinutes)}`;
}

function runText(run: Occurrence | undefined): string {
  return run === undefined ? 'no run' : `run ${run.at.toISOString()} (${run.nominal} local)`;
}
