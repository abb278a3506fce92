import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import type { Ledger } from '#ledger/index.ts';
import { runOfKey } from '../../functions/dispatcher/planned-run.ts';
import { previousRun } from '../../functions/dispatcher/tick.ts';
import { nextOccurrences, type Occurrence, periodBucket } from '../../functions/schedule/index.ts';
import type { RunFate } from '../deployed/run-reads.ts';
import { CliError } from '../errors.ts';

/** `history --at` was given an instant that is no run of the job's schedule (exit 1). */
export class NotARunError extends CliError {
  override readonly name = 'NotARunError';
  readonly jobId: string;
  readonly at: Date;
  /** The job's runs either side of `at`, when it has any. */
  readonly previousAt: Date | undefined;
  readonly nextAt: Date | undefined;

  constructor(
    job: JobDefinition,
    at: Date,
    near: { previousAt: Date | undefined; nextAt: Date | undefined },
  ) {
    const runs = [near.previousAt, near.nextAt].filter((d) => d !== undefined);
    const nearest =
      runs.length === 0
        ? 'it has no runs near it'
        : `its runs nearest it: ${runs.map((d) => d.toISOString()).join(' and ')}`;
    super(
      `${at.toISOString()} is no run of '${job.id}' (${job.schedule} in ${job.timezone}); ${nearest}`,
    );
    this.jobId = job.id;
    this.at = at;
    this.previousAt = near.previousAt;
    this.nextAt = near.nextAt;
  }
}

/** What {@link readRunFate} reads: the ledger, and the job from its jobs file when it must. */
export interface RunFateSources {
  readonly ledger: Pick<Ledger, 'getRun' | 'findSkipRange'>;
  /** The job's definition and the ledger's `retention.days`, read only when the item is absent. */
  loadJob(): Promise<{ readonly job: JobDefinition; readonly retentionDays: number }>;
}

/**
 * The fate of the run of `jobId` at `at`: one GetItem of its key; without an item, the job's
 * schedule says whether `at` is a run at all ({@link NotARunError} when not), then one query
 * of the job's skip ranges (`findSkipRange`).
 *
 * @example
 * await readRunFate(sources, 'minutely', new Date('2023-06-01T07:30:00Z'))
 * //=> { source: 'range', reason: 'max-runs', range: { runs: 78, … }, … }
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
  const { job, retentionDays } = await sources.loadJob();
  const occurrence = runAt(job, at);
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
 * `at`); {@link NotARunError} naming the nearest runs when none.
 */
function runAt(job: JobDefinition, at: Date): Occurrence {
  const found = runOfKey(job, at);
  if (found) return found;
  const spec = scheduleSpecOf(job);
  const next = nextOccurrences(spec, new Date(at.getTime() - 1), 1)[0];
  throw new NotARunError(job, at, { previousAt: previousRun(spec, at)?.at, nextAt: next?.at });
}
