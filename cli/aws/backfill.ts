import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import type { RunItem, RunLedger } from '#ledger/index.ts';
import type { Dispatcher } from '../../functions/dispatcher/dispatch.ts';
import { policyPicks } from '../../functions/dispatcher/gap.ts';
import { type RunOutcome, runKeyOf } from '../../functions/dispatcher/planned-run.ts';
import {
  nextOccurrences,
  type Occurrence,
  occurrencesBetween,
} from '../../functions/schedule/index.ts';
import { CliError } from '../errors.ts';

/** Most runs one backfill delivers unless `--max-runs` says otherwise. */
export const DEFAULT_BACKFILL_MAX_RUNS = 1000;

/** Why a backfill range was refused. */
export type RangeProblem = 'empty-range' | 'in-the-future' | 'too-many-runs' | 'beyond-retention';

/** A backfill range that is refused before anything is read or delivered (exit code 2). */
export class BackfillRangeError extends CliError {
  override readonly name: string = 'BackfillRangeError';
  readonly problem: RangeProblem;
  readonly from: Date;
  readonly to: Date;

  constructor(problem: RangeProblem, range: { from: Date; to: Date }, message: string) {
    super(message, { exitCode: 2 });
    this.problem = problem;
    this.from = range.from;
    this.to = range.to;
  }
}

/** One run of a backfill: the engine's occurrence, its key and what the ledger held before. */
export interface BackfillRun {
  readonly occurrence: Occurrence;
  readonly key: string;
  /** The run's item before the backfill; undefined when the ledger has none (never decided). */
  readonly before: RunItem | undefined;
}

/**
 * The engine's runs of a job in `[from, to]`, refused with a {@link BackfillRangeError} when
 * the range is empty or reversed, reaches into the future (those runs are the schedule's), or
 * holds more than `maxRuns` runs. At most `maxRuns + 1` runs are ever computed, so an absurd
 * range costs no more than a refused one.
 *
 * @example
 * backfillRuns(hourlyJob, new Date('2026-11-01T00:00Z'), new Date('2026-11-01T03:00Z'),
 *   new Date('2026-11-29T00:00Z'), 1000).length
 * //=> 4
 */
export function backfillRuns(
  job: JobDefinition,
  from: Date,
  to: Date,
  now: Date,
  maxRuns: number,
): Occurrence[] {
  const range = { from, to };
  if (to.getTime() < from.getTime()) {
    throw new BackfillRangeError(
      'empty-range',
      range,
      `--to (${to.toISOString()}) is before --from (${from.toISOString()})`,
    );
  }
  if (to.getTime() > now.getTime()) {
    throw new BackfillRangeError(
      'in-the-future',
      range,
      `--to (${to.toISOString()}) is in the future (now ${now.toISOString()}): backfill` +
        " delivers runs that were due; later runs are the schedule's (use zonecron run for one now)",
    );
  }
  const spec = scheduleSpecOf(job);
  const first = new Date(from.getTime() - 1);
  const head = nextOccurrences(spec, first, maxRuns + 1).filter((o) => o.at <= to);
  if (head.length > maxRuns) {
    throw new BackfillRangeError(
      'too-many-runs',
      range,
      `the range holds more than ${maxRuns.toLocaleString('en-US')} runs of '${job.id}';` +
        ' narrow --from/--to, or raise the limit with --max-runs <n> if you mean it',
    );
  }
  return head;
}

/**
 * The oldest instant whose run the ledger still remembers: `retention.days` before now. A run
 * before it may have been delivered and its item expired since, so the ledger cannot refuse
 * it as a duplicate.
 *
 * @example
 * retentionCutoff(new Date('2026-12-02T00:00Z'), 35) //=> 2026-10-28T00:00:00.000Z
 */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * 86_400_000);
}

/**
 * Whether a backfill of `[from, …]` reaches past the ledger's retention: refused with a
 * {@link BackfillRangeError} (`beyond-retention`, exit code 2) unless `force` (or a dry run,
 * which delivers nothing); else the warning to print (undefined when within retention).
 *
 * @example
 * checkRetention(job, new Date('2026-01-01T00:00Z'), { now, retentionDays: 35, force: true })
 * //=> "--from 2026-01-01T00:00:00.000Z is older than the ledger's retention (35 days: …)"
 */
export function checkRetention(
  job: JobDefinition,
  range: { readonly from: Date; readonly to: Date },
  opts: { readonly now: Date; readonly retentionDays: number; readonly force: boolean },
): string | undefined {
  const cutoff = retentionCutoff(opts.now, opts.retentionDays);
  if (range.from.getTime() >= cutoff.getTime()) return undefined;
  const what =
    `--from ${range.from.toISOString()} is older than the ledger's retention (` +
    `${opts.retentionDays} days: runs before ${cutoff.toISOString()}): their fates are forgotten,` +
    ` so one delivered then would be delivered again`;
  if (!opts.force) {
    throw new BackfillRangeError(
      'beyond-retention',
      range,
      `${what}; start at ${cutoff.toISOString()} or later, --dry-run to look, or --force` +
        ` if '${job.id}' may receive those runs twice`,
    );
  }
  return what;
}

/**
 * Pairs each run with its ledger item (one batched, consistent read), so a listing can say
 * which runs were delivered already.
 *
 * @example
 * await withLedgerState(ledger, job, runs) //=> [{ occurrence, key: '9f86…', before: undefined }, …]
 */
export async function withLedgerState(
  ledger: Pick<RunLedger, 'getRuns'>,
  job: JobDefinition,
  runs: readonly Occurrence[],
): Promise<BackfillRun[]> {
  const keys = runs.map((o) => runKeyOf(job.id, o));
  const items = keys.length > 0 ? await ledger.getRuns(keys, true) : new Map<string, RunItem>();
  return runs.map((occurrence, i) => {
    const key = keys[i] as string;
    return { occurrence, key, before: items.get(key) };
  });
}

/** Why a backfill stopped before its last run. */
export interface BackfillStop {
  readonly reason: 'delivery-failed' | 'overlap' | 'interrupted';
  readonly detail: string;
}

/** What a backfill did, run by run. */
export interface BackfillReport {
  /** The outcome of every run the dispatcher was asked to deliver, in order. */
  readonly outcomes: readonly RunOutcome[];
  /** Set when it stopped early; the remaining runs were not attempted. */
  readonly stopped?: BackfillStop;
  readonly notAttempted: number;
}

/** Hooks of the delivery loop: progress, and a Ctrl-C that asks it to stop between runs. */
export interface BackfillHooks {
  readonly onProgress?: (done: number, total: number) => void;
  readonly interrupted?: () => boolean;
}

/** A sentence with every run key cut to the 7 characters the listings show. */
function shortKeys(text: string): string {
  return text.replace(/\b([0-9a-f]{7})[0-9a-f]{57}\b/g, '$1');
}

/** The stop a run's outcome calls for, if any. */
function stopAfter(outcome: RunOutcome): BackfillStop | undefined {
  if (outcome.outcome === 'skipped' && outcome.reason === 'overlap') {
    return {
      reason: 'overlap',
      detail: `concurrency forbid: ${shortKeys(outcome.detail)}; run the same backfill again once it finished`,
    };
  }
  if (outcome.outcome === 'delivery-failed' || outcome.outcome === 'dead-lettered') {
    return {
      reason: 'delivery-failed',
      detail: `the target refused run ${outcome.key.slice(0, 7)}: ${outcome.lastError}`,
    };
  }
  return undefined;
}

/**
 * Delivers runs one at a time through the dispatcher's backfill route: each under its own
 * scheduled key, so a run the ledger already delivered is refused (`duplicate`) and never
 * delivered again, while one that was skipped (a pause, a catch-up policy) is delivered now.
 *
 * Stops at the first failed delivery (the target is likely down: fix it and backfill again)
 * and, for `concurrency: forbid`, at the first run the previous one still blocks, without
 * recording the rest; and between runs when `interrupted()` says so.
 *
 * @example
 * await deliverBackfill(dispatcher, job, runs)
 * //=> { outcomes: [{ outcome: 'dispatched', … }, { outcome: 'duplicate', … }], notAttempted: 0 }
 */
export async function deliverBackfill(
  dispatcher: Pick<Dispatcher, 'backfill'>,
  job: JobDefinition,
  runs: readonly BackfillRun[],
  hooks: BackfillHooks = {},
): Promise<BackfillReport> {
  const outcomes: RunOutcome[] = [];
  hooks.onProgress?.(0, runs.length);
  for (const run of runs) {
    if (hooks.interrupted?.()) {
      const detail = 'interrupted (Ctrl-C) between two runs';
      return {
        outcomes,
        stopped: { reason: 'interrupted', detail },
        notAttempted: runs.length - outcomes.length,
      };
    }
    const outcome = await dispatcher.backfill({ jobId: job.id, occurrence: run.occurrence });
    outcomes.push(outcome);
    hooks.onProgress?.(outcomes.length, runs.length);
    const stopped = stopAfter(outcome);
    if (stopped) return { outcomes, stopped, notAttempted: runs.length - outcomes.length };
  }
  return { outcomes, notAttempted: 0 };
}

/**
 * The runs of a pause that `resume --catch-up` replays: the job's catch-up policy applied to
 * the runs of the pause that were never delivered (skipped as paused, or never decided),
 * within the job's catch-up window back from the resume.
 *
 * @example
 * // catchup.policy latest, paused 09:00-12:00, an hourly job: only 12:00 is replayed
 * pausedRunsToReplay(job, runs, { from: nine, to: noon }).map((r) => r.occurrence.at)
 * //=> [2026-11-29T12:00:00.000Z]
 */
export function pausedRunsToReplay(
  job: JobDefinition,
  runs: readonly BackfillRun[],
  pause: { readonly to: Date },
): BackfillRun[] {
  const windowStartMs = pause.to.getTime() - job.catchup.windowSeconds * 1000;
  const undelivered = runs.filter(
    (r) =>
      r.occurrence.at.getTime() >= windowStartMs &&
      (r.before === undefined ||
        (r.before.status === 'skipped' && r.before.skipReason === 'paused')),
  );
  return policyPicks(job, undelivered);
}

/**
 * The job's runs during a pause, `[from, to]`, bounded by the catch-up window (nothing older is
 * ever caught up) and by the policy's run cap.
 */
export function runsOfPause(job: JobDefinition, pause: { from: Date; to: Date }): Occurrence[] {
  const windowStart = new Date(pause.to.getTime() - job.catchup.windowSeconds * 1000);
  const from = pause.from > windowStart ? pause.from : windowStart;
  if (from > pause.to) return [];
  return occurrencesBetween(scheduleSpecOf(job), new Date(from.getTime() - 1), pause.to);
}

/**
 * `resume --catch-up`: the paused runs the job's catch-up policy picks (read from the ledger
 * in one batch), delivered through the backfill route, each under its own key.
 *
 * @example
 * await catchUpResumedPause(ledger, dispatcher, job, { from: pausedAt, to: resumedAt })
 * //=> { outcomes: [{ outcome: 'dispatched', … }], notAttempted: 0 }
 */
export async function catchUpResumedPause(
  ledger: Pick<RunLedger, 'getRuns'>,
  dispatcher: Pick<Dispatcher, 'backfill'>,
  job: JobDefinition,
  pause: { readonly from: Date; readonly to: Date },
): Promise<BackfillReport> {
  const runs = await withLedgerState(ledger, job, runsOfPause(job, pause));
  return deliverBackfill(dispatcher, job, pausedRunsToReplay(job, runs, pause));
}

/**
 * The operator log's line for a backfill: the range, what it delivered, why it stopped.
 *
 * @example
 * backfillLogDetail(from, to, report)
 * //=> '2026-11-01T00:00:00.000Z to 2026-11-08T00:00:00.000Z: 7 delivered, 1 already in the ledger'
 */
export function backfillLogDetail(from: Date, to: Date, report: BackfillReport): string {
  const delivered = report.outcomes.filter((o) => o.outcome === 'dispatched').length;
  const already = report.outcomes.filter((o) => o.outcome === 'duplicate').length;
  return (
    `${from.toISOString()} to ${to.toISOString()}: ${delivered} delivered,` +
    ` ${already} already in the ledger${report.stopped ? `; stopped: ${report.stopped.reason}` : ''}`
  );
}
