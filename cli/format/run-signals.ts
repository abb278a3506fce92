/**
 * What a job's recent runs in the ledger say needs attention, for `describe`: runs still open
 * (claimed, delivery failed and awaiting a retry, dispatched and running past maxRuntime) and
 * runs that raised a signal (dead-lettered, failed, missed, late). Pure: the runs are read
 * elsewhere, and `now` is the clock's reading.
 */

import { type JobDefinition, tracksCompletion } from '#jobs/job.ts';
import type { RunItem } from '#ledger/index.ts';
import { shortDuration } from './durations.ts';
import { lagMs } from './run-history.ts';

/**
 * What kind of attention a run needs:
 *
 * - `claimed`: a dispatcher holds it (its lease may have run out: the sweep retries it);
 * - `delivery-failed`: an attempt failed, the sweep retries it;
 * - `stuck`: delivered to a target that reports completion, not finished after maxRuntime;
 * - `dead-lettered`: its attempts ran out, it went to the dead-letter queue;
 * - `failed`: the target ran it and reported failure;
 * - `deadline-missed`: not done by the job's `deadline` (not delivered, or not succeeded);
 * - `missed`: no tick of its own came, a catch-up delivered or skipped it;
 * - `late`: delivered later than the job's grace.
 */
export type RunSignalKind =
  | 'claimed'
  | 'delivery-failed'
  | 'stuck'
  | 'dead-lettered'
  | 'failed'
  | 'deadline-missed'
  | 'missed'
  | 'late';

/** One run that needs, or needed, attention. */
export interface RunSignal {
  readonly kind: RunSignalKind;
  /** The run is still open in the ledger: the sweep, the recorder or an operator acts on it. */
  readonly open: boolean;
  readonly key: string;
  /** UTC ISO instant of the run. */
  readonly at: string;
  /** One sentence: what happened and what comes next. */
  readonly text: string;
}

/**
 * The signals among `runs` (newest first, as the ledger's `byJob` index gives them): one per
 * run that is open or signalled, the open one when it is both.
 *
 * @example
 * runSignals(job, [{ status: 'delivery-failed', roundAttempts: 1, lastError: 'Throttled', … }], now)
 * //=> [{ kind: 'delivery-failed', open: true,
 * //      text: 'delivery failed (attempt 1 of 3): the sweep retries it; Throttled', … }]
 */
export function runSignals(job: JobDefinition, runs: readonly RunItem[], now: Date): RunSignal[] {
  return runs.flatMap((run) => {
    const found = openSignal(job, run, now) ?? closedSignal(job, run);
    return found ? [{ ...found, key: run.key, at: run.at }] : [];
  });
}

type Found = Pick<RunSignal, 'kind' | 'open' | 'text'>;

function openSignal(job: JobDefinition, run: RunItem, now: Date): Found | undefined {
  if (run.status === 'claimed') {
    const lease = run.leaseUntilEpochMs ?? 0;
    const text =
      lease >= now.getTime()
        ? `being delivered (attempt ${run.attempts}, lease until ${new Date(lease).toISOString()})`
        : `claimed, but its dispatcher stopped (lease over at ${new Date(lease).toISOString()}): the sweep retries it`;
    return { kind: 'claimed', open: true, text };
  }
  if (run.status === 'delivery-failed') {
    const error = run.lastError ? `; ${run.lastError}` : '';
    return {
      kind: 'delivery-failed',
      open: true,
      text: `delivery failed (attempt ${run.roundAttempts} of ${job.retry.maxAttempts}): the sweep retries it${error}`,
    };
  }
  return stuckSignal(job, run, now);
}

/** A tracked run still `dispatched` after maxRuntime: flagged by the sweep, or by the clock. */
function stuckSignal(job: JobDefinition, run: RunItem, now: Date): Found | undefined {
  if (run.status !== 'dispatched' || !tracksCompletion(job) || run.completedAt) return undefined;
  const since = run.dispatchedAt ?? run.at;
  const maxRuntimeMs = job.maxRuntimeSeconds * 1000;
  const overdue = now.getTime() - Date.parse(since) > maxRuntimeMs;
  if (!overdue && !run.signals.includes('stuck')) return undefined;
  return {
    kind: 'stuck',
    open: true,
    text: `dispatched at ${since} and not finished after maxRuntime (${shortDuration(maxRuntimeMs)})`,
  };
}

function closedSignal(job: JobDefinition, run: RunItem): Found | undefined {
  const error = run.lastError ? `: ${run.lastError}` : '';
  if (run.status === 'failed') {
    return run.failure === 'delivery'
      ? {
          kind: 'dead-lettered',
          open: false,
          text: `dead-lettered after ${run.attempts} attempt${run.attempts === 1 ? '' : 's'}${error} (zonecron dlq list shows whether it is still queued)`,
        }
      : { kind: 'failed', open: false, text: `the target reported failure${error}` };
  }
  if (run.signals.includes('deadline-missed')) {
    const deadline = run.deadlineAtEpochMs;
    const by = deadline === undefined ? '' : ` by ${new Date(deadline).toISOString()}`;
    const what = tracksCompletion(job) ? 'succeeded' : 'delivered';
    return {
      kind: 'deadline-missed',
      open: false,
      text: `deadline missed: not ${what}${by}; now ${run.status}`,
    };
  }
  if (run.signals.includes('missed')) {
    const how =
      run.status === 'skipped' ? `skipped (${run.skipReason ?? 'catch-up'})` : 'caught up late';
    return { kind: 'missed', open: false, text: `missed: no tick of its own came; ${how}` };
  }
  if (run.signals.includes('late')) {
    const lag = lagMs(run);
    return {
      kind: 'late',
      open: false,
      text: `late: delivered ${lag === undefined ? 'after' : `${shortDuration(lag)} after`} its time (grace ${shortDuration(job.alarm.graceSeconds * 1000)})`,
    };
  }
  return undefined;
}
