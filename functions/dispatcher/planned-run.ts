/**
 * Planned runs: one run about to go through claim and delivery (`PlannedRun`: a tick's own,
 * `tickRun`; the job's runs at an instant, `runsAt`), its rounds, what became of it
 * (`RunOutcome`), and the fields every decision line about it logs.
 */
import { type JobDefinition, movesRuns, scheduleSpecOf } from '#jobs/job.ts';
import type { ClaimMode, MissedIncident, RunItem, RunOrigin, SkipReason } from '#ledger/index.ts';
import {
  keyInstantOf,
  MAX_MOVE_DAYS,
  type Occurrence,
  occurrencesBetween,
  periodBucket,
} from '../schedule/index.ts';

/** One run about to go through claim and delivery. */
export interface PlannedRun {
  readonly job: JobDefinition;
  readonly key: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
  readonly manual: boolean;
  readonly origin: RunOrigin;
  readonly mode: ClaimMode;
  /** The run was due and nobody decided it: raise `missed` when the claim creates it. */
  readonly missed: boolean;
  /** False when a raised `missed` is told by another run's notification (the gap's carrier). */
  readonly notify?: boolean;
  /** On the run that carries its gap's one missed notification: what the gap held. */
  readonly incident?: MissedIncident;
}

/**
 * A scheduled run as its own tick delivers it; other paths (catch-up, backfill) override the
 * origin, the claim mode and `missed`. Its key is made from its key instant: the instant the
 * schedule named, which for a run a calendar moved is not `at` (docs/semantics.md §7).
 *
 * @example
 * tickRun(job, occurrence).key //=> periodBucket(job.id, keyInstantOf(occurrence))
 */
export function tickRun(job: JobDefinition, occurrence: Occurrence): PlannedRun {
  return {
    job,
    key: runKeyOf(job.id, occurrence),
    at: occurrence.at,
    nominal: occurrence.nominal,
    dst: occurrence.dst,
    manual: false,
    origin: 'tick',
    mode: 'any',
    missed: false,
  };
}

/**
 * A scheduled run's ledger key: the period bucket of its key instant.
 *
 * @example
 * runKeyOf('invoices', movedFromSaturday) //=> periodBucket('invoices', movedFromSaturday.moved.nominalAt)
 */
export function runKeyOf(jobId: string, occurrence: Occurrence): string {
  return periodBucket(jobId, keyInstantOf(occurrence));
}

/**
 * Whether two runs of one job are the same run: the same key instant (two runs moved onto one
 * instant are two runs).
 */
export function isSameRun(a: Occurrence, b: Occurrence | undefined): boolean {
  return b !== undefined && keyInstantOf(a).getTime() === keyInstantOf(b).getTime();
}

/**
 * The job's runs due at exactly `at`, in run order (key instant order), or none when `at` is
 * no run of it (a covering tick that stands for none). Several when a calendar moved runs onto
 * the instant: every run at one instant is decided by whoever decides the instant.
 *
 * @example
 * runsAt(berlinNightly, new Date('2027-03-28T01:30:00Z')).map((o) => o.nominal) //=> ['2027-03-28T02:30']
 */
export function runsAt(job: JobDefinition, at: Date): Occurrence[] {
  return occurrencesBetween(scheduleSpecOf(job), new Date(at.getTime() - 60_000), at).filter(
    (o) => o.at.getTime() === at.getTime(),
  );
}

/**
 * The order one instant's runs are delivered in: run order, but newest first for a forbid job
 * (only one of them can hold the slot, and the newest is the one worth running, as in a
 * catch-up burst).
 *
 * @example
 * deliveryOrder(forbidJob, [movedFromSaturday, movedFromSunday, monday]) //=> [monday, movedFromSunday, movedFromSaturday]
 */
export function deliveryOrder(job: JobDefinition, runs: readonly Occurrence[]): Occurrence[] {
  return job.concurrency === 'forbid' ? [...runs].reverse() : [...runs];
}

/**
 * `each` of `runs`, one after the other, its results in order: the runs of one instant are
 * claimed and delivered in turn, never side by side (they may share a forbid slot).
 *
 * @example
 * await inTurn(deliveryOrder(job, runsAt(job, s)), (run) => deliverRun(ctx, tickRun(job, run)))
 */
export async function inTurn<T, R>(
  runs: readonly T[],
  each: (run: T) => Promise<R> | R,
): Promise<R[]> {
  const results: R[] = [];
  for (const run of runs) results.push(await each(run));
  return results;
}

/**
 * A run's key instant read back from its item: its `at`, unless the job's calendar moved runs
 * onto that instant, then the key instant of the run there whose key the item has.
 *
 * @example
 * recordedKeyInstant(invoices, { at: '2026-12-28T08:00:00.000Z', key: periodBucket('invoices', christmasAt) }) //=> christmasAt
 */
export function recordedKeyInstant(job: JobDefinition, item: Pick<RunItem, 'at' | 'key'>): Date {
  const at = new Date(item.at);
  if (!movesRuns(job)) return at;
  const run = runsAt(job, at).find((o) => runKeyOf(job.id, o) === item.key);
  return run ? keyInstantOf(run) : at;
}

/** How far a search for a run by its key instant looks first, in days around it. */
const NEAR_MOVE_DAYS = 8;

/**
 * The job's run whose key instant is `keyAt` (for a run nothing moved, its run at `keyAt`), or
 * undefined: how an operator's `--at` names a run. A moved run is looked for within a week of
 * its key instant first, then as far as a run can move.
 *
 * @example
 * runOfKey(invoices, new Date('2026-08-01T07:00:00Z'))?.at //=> 2026-08-03T07:00:00.000Z
 */
export function runOfKey(job: JobDefinition, keyAt: Date): Occurrence | undefined {
  const own = runsAt(job, keyAt).find((o) => o.moved === undefined);
  if (own || !movesRuns(job)) return own;
  // Only a run of the expression itself can have been moved from `keyAt`.
  const { calendar: _calendar, ...plain } = scheduleSpecOf(job);
  const nominal = occurrencesBetween(plain, new Date(keyAt.getTime() - 60_000), keyAt);
  if (!nominal.some((o) => o.at.getTime() === keyAt.getTime())) return undefined;
  for (const days of [NEAR_MOVE_DAYS, MAX_MOVE_DAYS + 2]) {
    const spanMs = days * 86_400_000;
    const from = new Date(keyAt.getTime() - spanMs);
    const to = new Date(keyAt.getTime() + spanMs);
    const found = occurrencesBetween(scheduleSpecOf(job), from, to).find(
      (o) => keyInstantOf(o).getTime() === keyAt.getTime(),
    );
    if (found) return found;
  }
  return undefined;
}

/** What every outcome says of its run. */
export interface OutcomeBase {
  readonly key: string;
  readonly jobId: string;
  /** UTC ISO instant of the run. */
  readonly at: string;
}

/** What happened to one run. Every variant is an expected outcome, not an error. */
export type RunOutcome =
  | (OutcomeBase & {
      readonly outcome: 'dispatched';
      readonly attempt: number;
      readonly deliveryId: string;
      readonly lagMs: number;
      readonly late: boolean;
    })
  | (OutcomeBase & { readonly outcome: 'duplicate'; readonly existing: RunItem })
  | (OutcomeBase & {
      readonly outcome: 'skipped';
      readonly reason: SkipReason;
      readonly detail: string;
    })
  | (OutcomeBase & {
      readonly outcome: 'delivery-failed';
      readonly attempt: number;
      readonly lastError: string;
      /** UTC ISO instant of the next attempt. */
      readonly retryAt: string;
    })
  | (OutcomeBase & {
      readonly outcome: 'dead-lettered';
      readonly attempt: number;
      readonly lastError: string;
    });

/** The structured fields of every decision line about a run. */
export function logFields(run: PlannedRun, extra: Record<string, unknown>) {
  return {
    jobId: run.job.id,
    expression: run.job.schedule,
    timezone: run.job.timezone,
    nominal: run.nominal,
    dst: run.dst,
    at: run.at.toISOString(),
    key: run.key,
    origin: run.origin,
    ...(run.manual ? { manual: true } : {}),
    ...extra,
  };
}

/**
 * Whether the run's current round is an operator's redrive (`generation` counts redrives; a
 * redrive of a run the ledger had no item for is its first claim, `origin: redrive`).
 *
 * @example
 * isRedriveRound({ generation: 1, origin: 'tick' }) //=> true
 */
export function isRedriveRound(item: Pick<RunItem, 'generation' | 'origin'>): boolean {
  return item.generation > 0 || item.origin === 'redrive';
}

/**
 * The attempts the run's current round may make: the job's `retry.maxAttempts`, and one in a
 * redrive's round (docs/semantics.md §6, Redrives): the operator who redrives a run watches that
 * one attempt, whoever makes it (the redriver, or the sweep after the redriver died).
 *
 * @example
 * roundMaxAttempts(jobWithFourAttempts, { generation: 1, origin: 'tick' }) //=> 1
 */
export function roundMaxAttempts(
  job: JobDefinition,
  item: Pick<RunItem, 'generation' | 'origin'>,
): number {
  return isRedriveRound(item) ? 1 : job.retry.maxAttempts;
}

/**
 * When a run dispatched at `dispatchedAtEpochMs` may be stuck: its job's `maxRuntime` over. A
 * tracked run's stuck check is due then, and until then it may still be running.
 *
 * @example
 * stuckAtEpochMs({ maxRuntimeSeconds: 900 }, Date.parse('2024-01-01T00:00:00Z'))
 * //=> Date.parse('2024-01-01T00:15:00Z')
 */
export function stuckAtEpochMs(
  job: Pick<JobDefinition, 'maxRuntimeSeconds'>,
  dispatchedAtEpochMs: number,
): number {
  return dispatchedAtEpochMs + job.maxRuntimeSeconds * 1000;
}

/**
 * Whether the run takes `concurrency: forbid`'s slot: a scheduled run of a forbid job (manual
 * runs neither take nor check it).
 */
export function holdsSlot(run: PlannedRun): boolean {
  return run.job.concurrency === 'forbid' && !run.manual;
}
