import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import type { Ledger } from '#ledger/index.ts';
import { runOfKey, runsAt } from '../../functions/dispatcher/planned-run.ts';
import { previousRun } from '../../functions/dispatcher/tick.ts';
import {
  keyInstantOf,
  nextOccurrences,
  type Occurrence,
  periodBucket,
  type ScheduleSpec,
  type SkippedRun,
  scheduleBetween,
} from '../../functions/schedule/index.ts';
import type { RunFate } from '../deployed/run-reads.ts';
import { CliError } from '../errors.ts';

/** The bound an instant falls outside of, as the engine names it, and the bound in words. */
export interface OutsideBound {
  readonly reason: 'from' | 'until';
  /** `before from (2026-12-21T23:00:00.000Z)`, or of an `at` job, `after its one run`. */
  readonly detail: string;
}

/** `history --at` was given an instant that is no run of the job's schedule (exit 1). */
export class NotARunError extends CliError {
  override readonly name = 'NotARunError';
  readonly jobId: string;
  readonly at: Date;
  /** The job's runs either side of `at`, when it has any. */
  readonly previousAt: Date | undefined;
  readonly nextAt: Date | undefined;
  /** When the schedule matches `at` but the job's `from`/`until` (or its `at:`) exclude it. */
  readonly bound: OutsideBound | undefined;

  constructor(
    job: JobDefinition,
    at: Date,
    near: { previousAt: Date | undefined; nextAt: Date | undefined },
    why: { bound?: OutsideBound | undefined; movedHere?: readonly Date[] } = {},
  ) {
    const { bound, movedHere = [] } = why;
    const runs = [near.previousAt, near.nextAt].filter((d) => d !== undefined);
    const nearest =
      runs.length === 0
        ? 'it has no runs near it'
        : `its ${runs.length === 1 && job.at !== undefined ? 'one run' : 'runs nearest it'}: ${runs.map((d) => d.toISOString()).join(' and ')}`;
    const what =
      job.at === undefined
        ? `${job.schedule} in ${job.timezone}`
        : `once at ${job.at} in ${job.timezone}`;
    super(
      `${at.toISOString()} is no run of '${job.id}' (${what})${bound ? `: ${bound.detail}` : movedText(movedHere)}; ${nearest}`,
    );
    this.jobId = job.id;
    this.at = at;
    this.previousAt = near.previousAt;
    this.nextAt = near.nextAt;
    this.bound = bound;
  }
}

/** The runs a calendar moved onto the instant, named by their key instants, in words. */
function movedText(keys: readonly Date[]): string {
  if (keys.length === 0) return '';
  const named = keys.map((d) => d.toISOString()).join(', ');
  return `: ${keys.length === 1 ? 'a run its calendar moved is' : 'runs its calendar moved are'} due here, named by the instant the schedule named (${named})`;
}

/** What {@link readRunFate} reads: the ledger, and the job from its jobs file when it must. */
export interface RunFateSources {
  readonly ledger: Pick<Ledger, 'getRun' | 'findSkipRange'>;
  /**
   * The job's definition, the ledger's `retention.days` and where the definition came from
   * (the stack's bundle or the jobs file), read only when the item is absent.
   */
  loadJob(): Promise<{
    readonly job: JobDefinition;
    readonly retentionDays: number;
    readonly definition: 'deployed' | 'file';
  }>;
}

/**
 * The fate of the run of `jobId` at `at`: one GetItem of its key; without an item, the job's
 * schedule says whether `at` is a run at all, or one its calendar removed (computed, as the
 * dispatcher decides it: it writes no item for it), or neither ({@link NotARunError}, naming
 * the bound when a `from`/`until` excludes it); for a run, one query of the job's skip ranges
 * (`findSkipRange`).
 *
 * An item at the run's key wins over the calendar: say, a run delivered before a deploy gave
 * the job the calendar that now closes its day.
 *
 * @example
 * await readRunFate(sources, 'minutely', new Date('2023-06-01T07:30:00Z'))
 * //=> { source: 'range', reason: 'max-runs', range: { runs: 78, … }, … }
 * await readRunFate(sources, 'exports', new Date('2026-12-25T05:00:00Z'))
 * //=> { source: 'calendar', skipped: { reason: 'calendar', detail: 'Christmas Day (DE-BE)', … },
 * //     calendar: 'berlin-business', definition: 'file', … }
 */
export async function readRunFate(
  sources: RunFateSources,
  jobId: string,
  at: Date,
): Promise<RunFate> {
  // `at` names the run by its key instant (its own instant unless a calendar moved it); the key
  // is that minute: an item of another instant in it is not this run's.
  const run = await sources.ledger.getRun(periodBucket(jobId, at));
  if (run && Date.parse(run.at) === at.getTime()) return { source: 'item', jobId, at, run };
  const { job, retentionDays, definition } = await sources.loadJob();
  const found = runAt(job, at);
  if ('reason' in found) {
    const calendar = job.calendar?.definition.name ?? '';
    return { source: 'calendar', jobId, at, skipped: found, calendar, definition };
  }
  const occurrence = found;
  if (run && Date.parse(run.at) === occurrence.at.getTime()) {
    return { source: 'item', jobId, at, run };
  }
  // A gap's range stands for runs by the instant they were due.
  const range = await sources.ledger.findSkipRange(jobId, occurrence.at);
  const { reasonInRange } = await import('#ledger/index.ts');
  const reason = range && reasonInRange(range, occurrence.at);
  if (range && reason) return { source: 'range', jobId, at, occurrence, range, reason };
  return { source: 'none', jobId, at, occurrence, retentionDays };
}

/**
 * The job's run whose key instant is `at` (its run at `at`, or the run a calendar moved from
 * `at`), or the run its calendar removed there; {@link NotARunError} naming the nearest runs,
 * and the bound that excludes `at` when one does, otherwise.
 */
function runAt(job: JobDefinition, at: Date): Occurrence | SkippedRun {
  const found = runOfKey(job, at);
  if (found) return found;
  const spec = scheduleSpecOf(job);
  const skipped = removedAt(spec, at);
  if (skipped?.reason === 'calendar') return skipped;
  const next = nextOccurrences(spec, new Date(at.getTime() - 1), 1)[0];
  const near = { previousAt: previousRun(spec, at)?.at, nextAt: next?.at };
  const movedHere = runsAt(job, at).map(keyInstantOf);
  throw new NotARunError(job, at, near, { bound: skipped && boundOf(job, skipped), movedHere });
}

/** The run a calendar or a bound removed at exactly `at`, by the engine's `scheduleBetween`. */
function removedAt(spec: ScheduleSpec, at: Date): SkippedRun | undefined {
  if (spec.calendar === undefined && spec.from === undefined && spec.until === undefined) {
    return undefined;
  }
  if (at.getTime() % 60_000 !== 0) return undefined;
  const { skipped } = scheduleBetween(spec, new Date(at.getTime() - 60_000), at);
  return skipped.find((s) => s.at.getTime() === at.getTime());
}

/** The bound in words: the engine's, or for an `at` job, which side of its one run `at` is. */
function boundOf(job: JobDefinition, skipped: SkippedRun): OutsideBound {
  const reason = skipped.reason === 'from' ? 'from' : 'until';
  if (job.at === undefined) return { reason, detail: skipped.detail };
  return { reason, detail: `${reason === 'from' ? 'before' : 'after'} its one run` };
}
