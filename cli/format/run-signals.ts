/**
 * What a job's recent runs in the ledger say needs attention, for `describe`: runs still open
 * (claimed, awaiting a retry, running, stuck) and runs that raised a signal (late, missed,
 * dead-lettered, failed). Pure: the runs are read elsewhere.
 */
import { type JobDefinition, tracksCompletion } from '../../functions/shared/job.ts';
import type { RunItem } from '../../functions/shared/ledger-item.ts';
import { shortDuration } from './durations.ts';
import { lagMs } from './run-history.ts';

/** What kind of attention a run needs. */
export type RunSignalKind =
  | 'claimed'
  | 'retrying'
  | 'running'
  | 'stuck'
  | 'dead-lettered'
  | 'failed'
  | 'missed'
  | 'late';

/** One run that needs, or needed, attention. */
export interface RunSignal {
  readonly kind: RunSignalKind;
  /** Still open: someone (the sweep, the recorder, an operator) has to act on it. */
  readonly open: boolean;
  readonly key: string;
  /** UTC ISO instant of the run. */
  readonly at: string;
  /** One sentence: what happened and what comes next. */
  readonly text: string;
}

/**
 * The signals among `runs` (newest first, as the ledger's `byJob` index gives them): one per
 * run that is open or signalled, the most pressing when it is both.
 *
 * @example
 * runSignals(job, [{ status: 'delivery-failed', roundAttempts: 1, lastError: 'Throttled', … }], now)
 * //=> [{ kind: 'retrying', open: true, text: 'delivery failed (attempt 1 of 3): the sweep retries it; Throttled', … }]
 */
export function runSignals(job: JobDefinition, runs: readonly RunItem[], now: Date): RunSignal[] {
  return runs.flatMap((run) => {
    const found = openSignal(job, run, now) ?? closedSignal(job, run);
    return found ? [{ ...found, key: run.key, at: run.at }] : [];
  });
}

type Found = Pick<RunSignal, 'kind' | 'open' | 'text'>;

function openSignal(job: JobDefinition, run: RunItem, now: Date): Found | undefined {
  const error = run.lastError ? `; ${run.lastError}` : '';
  if (run.status === 'claimed') {
    const lease = run.leaseUntilEpochMs ?? 0;
    return lease >= now.getTime()
      ? { kind: 'claimed', open: true, text: `being delivered (attempt ${run.attempts})` }
      : {
          kind: 'claimed',
          open: true,
          text: `claimed, but its dispatcher stopped (lease over at ${new Date(lease).toISOString()}): the sweep retries it`,
        };
  }
  if (run.status === 'delivery-failed') {
    return {
      kind: 'retrying',
      open: true,
      text: `delivery failed (attempt ${run.roundAttempts} of ${job.retry.maxAttempts}): the sweep retries it${error}`,
    };
  }
  if (run.status !== 'dispatched' || !tracksCompletion(job) || run.completedAt) return undefined;
  const since = run.dispatchedAt ?? run.at;
  return run.signals.includes('stuck')
    ? {
        kind: 'stuck',
        open: true,
        text: `running since ${since}, longer than maxRuntime (${shortDuration(job.maxRuntimeSeconds * 1000)})`,
      }
    : { kind: 'running', open: true, text: `running since ${since}` };
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
  if (run.signals.includes('missed')) {
    return {
      kind: 'missed',
      open: false,
      text: `missed: no tick of its own came; ${run.status === 'skipped' ? `skipped (${run.skipReason ?? 'catch-up'})` : 'caught up late'}`,
    };
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
