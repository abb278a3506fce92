import type { DeadLetterMessage, DeadLetters } from '../shared/dead-letters.ts';
import { DEFAULT_LEASE_SECONDS, DEFAULT_RETENTION_DAYS } from '../shared/defaults.ts';
import { buildEnvelope, type RunEnvelope } from '../shared/envelope.ts';
import type { JobDefinition } from '../shared/job.ts';
import type { AppLogger } from '../shared/logger.ts';
import type { AppMetrics } from '../shared/metrics.ts';
import type { Ledger, RunRecord } from './ledger.ts';
import type { TargetDelivery } from './targets/index.ts';

/** The dispatcher's clock: the only place it learns the time (leases, lag, TTL). */
export type Clock = () => Date;

/** Tunables of the dispatcher core; every one has a default. */
export interface DispatcherOptions {
  /**
   * How long a claim is held before another dispatcher may take the run over. Keep it above
   * the dispatcher Lambda's timeout, so a live delivery is never taken over.
   * @default DEFAULT_LEASE_SECONDS (300)
   */
  readonly leaseSeconds: number;
  /** Ledger retention: items expire this long after their last write. @default DEFAULT_RETENTION_DAYS (35) */
  readonly retentionDays: number;
  /**
   * Width of the window each sweep checks (ending at `scheduledTime − grace`). Wider than the
   * sweep's one-minute period, so one lost or late sweep does not leave a hole.
   * @default 120
   */
  readonly sweepLookbackSeconds: number;
  /** Runs delivered in parallel by one sweep. @default 8 */
  readonly sweepConcurrency: number;
}

/** Default {@link DispatcherOptions}. */
export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  leaseSeconds: DEFAULT_LEASE_SECONDS,
  retentionDays: DEFAULT_RETENTION_DAYS,
  sweepLookbackSeconds: 120,
  sweepConcurrency: 8,
};

/** Everything the dispatcher core needs, injected (architecture §7). */
export interface DispatcherDeps {
  readonly clock: Clock;
  readonly jobs: readonly JobDefinition[];
  readonly ledger: Ledger;
  readonly targets: TargetDelivery;
  readonly deadLetters: DeadLetters;
  readonly logger: AppLogger;
  readonly metrics: AppMetrics;
  readonly options?: Partial<DispatcherOptions>;
}

/** The resolved deps shared by the dispatcher's parts. */
export interface CoreContext extends Omit<DispatcherDeps, 'options'> {
  readonly options: DispatcherOptions;
}

/**
 * Why a run is being delivered: its own tick, a later tick catching it up, the sweep catching
 * up a missed run, the sweep retrying a stranded one, an operator.
 */
export type RunOrigin = 'tick' | 'catch-up' | 'sweep' | 'retry' | 'manual' | 'redrive';

/** One run about to go through claim and delivery. */
export interface PlannedRun {
  readonly job: JobDefinition;
  readonly key: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
  readonly manual: boolean;
  readonly origin: RunOrigin;
}

interface OutcomeBase {
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
  | (OutcomeBase & { readonly outcome: 'duplicate'; readonly existing: RunRecord })
  | (OutcomeBase & { readonly outcome: 'skipped-overlap'; readonly runningKey: string })
  | (OutcomeBase & {
      readonly outcome: 'delivery-failed' | 'dead-lettered';
      readonly attempt: number;
      readonly lastError: string;
    });

/** Statuses after which nobody will touch a run again without an operator. */
const SETTLED_STATUSES: ReadonlySet<string> = new Set([
  'dispatched',
  'succeeded',
  'failed',
  'skipped-overlap',
  'missed',
]);

/**
 * True when the run needs nothing more from this dispatcher: delivered, skipped,
 * dead-lettered, or a duplicate of a run someone already settled.
 *
 * A duplicate of a run another dispatcher still holds (`claimed`) or that failed and awaits
 * its retry (`delivery-failed`) is not settled: the watermark must not pass it.
 */
export function isSettled(outcome: RunOutcome): boolean {
  if (outcome.outcome === 'duplicate') return SETTLED_STATUSES.has(outcome.existing.status);
  return outcome.outcome !== 'delivery-failed';
}

/** A short, single-line description of a thrown value for the ledger and the DLQ. */
export function describeError(error: unknown): string {
  const text =
    error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}`;
  return text.replace(/\s+/g, ' ').slice(0, 1000);
}

function logFields(run: PlannedRun, extra: Record<string, unknown>) {
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
 * Claims one run in the ledger and, if the claim is ours, delivers it.
 *
 * `DeliveryFailures` counts failed delivery attempts; a run abandoned by a dead dispatcher
 * on its last attempt counts one too, when it is dead-lettered.
 *
 * ```
 *  claim ──refused──> duplicate (the stored item comes back; logged, counted)
 *    │                 └─ stored item claimed, lease expired, no attempts left → abandon → DLQ
 *    ├─ forbid + previous run still dispatched and < maxRuntime old → skipped-overlap
 *    └─ deliver ──ok──> dispatched (lag, late?)
 *            └─fail──> attempts < max: delivery-failed (claim released; caller throws)
 *                      attempts = max: one DLQ message, then failed (never retried again)
 * ```
 *
 * The DLQ message is sent while the claim is still held and before the item turns `failed`:
 * if the dispatcher dies in between, the lease expires and `abandon` sends it again — a
 * duplicate DLQ message (consumers dedupe on `key`) rather than a lost one.
 */
export async function deliverRun(ctx: CoreContext, run: PlannedRun): Promise<RunOutcome> {
  const { ledger, logger, metrics, clock, options } = ctx;
  const job = run.job;
  const base = { key: run.key, jobId: job.id, at: run.at.toISOString() };
  const claimedAt = clock();
  const nowEpochMs = claimedAt.getTime();
  const claim = await ledger.claim({
    key: run.key,
    jobId: job.id,
    at: run.at,
    nominal: run.nominal,
    dst: run.dst,
    manual: run.manual,
    maxAttempts: job.retry.maxAttempts,
    nowEpochMs,
    leaseUntilEpochMs: nowEpochMs + options.leaseSeconds * 1000,
    ttlEpochSec: Math.floor(nowEpochMs / 1000) + options.retentionDays * 86_400,
  });

  if (!claim.claimed) {
    const existing = claim.existing;
    const abandoned =
      existing.status === 'claimed' &&
      (existing.leaseUntilEpochMs ?? 0) < nowEpochMs &&
      existing.attempts >= job.retry.maxAttempts;
    if (abandoned) {
      const outcome = await abandonRun(ctx, run, existing);
      // Another dispatcher took the abandoned run over first: a duplicate like any other.
      if (outcome) return outcome;
    }
    metrics.job(job.id, 'DuplicatesSuppressed');
    logger.info(
      'duplicate',
      logFields(run, {
        decision: 'duplicate',
        attempt: existing.attempts,
        existingStatus: existing.status,
        lagMs: nowEpochMs - run.at.getTime(),
        durationMs: clock().getTime() - nowEpochMs,
      }),
    );
    return { ...base, outcome: 'duplicate', existing };
  }

  const attempt = claim.record.attempts;
  if (job.concurrency === 'forbid' && !run.manual) {
    const maxRuntimeMs = job.maxRuntimeSeconds * 1000;
    const running = await ledger.findRunning(
      job.id,
      new Date(run.at.getTime() - maxRuntimeMs),
      run.at,
    );
    const runningSinceMs = running
      ? Date.parse(running.dispatchedAt ?? running.at)
      : Number.NEGATIVE_INFINITY;
    if (running && runningSinceMs + maxRuntimeMs > nowEpochMs) {
      const reason = `previous run ${running.key} (at ${running.at}) still running`;
      await ledger.markSkippedOverlap(run.key, attempt, reason);
      metrics.job(job.id, 'SkippedOverlap');
      logger.warn(
        'skipped',
        logFields(run, {
          decision: 'skipped-overlap',
          attempt,
          runningKey: running.key,
          runningAt: running.at,
          lagMs: nowEpochMs - run.at.getTime(),
          durationMs: clock().getTime() - nowEpochMs,
        }),
      );
      return { ...base, outcome: 'skipped-overlap', runningKey: running.key };
    }
  }

  const envelope = buildEnvelope(job, run, attempt);
  const startedMs = clock().getTime();
  let deliveryId: string;
  try {
    ({ deliveryId } = await ctx.targets.deliver(job.target, envelope));
  } catch (error) {
    return failRun(ctx, run, envelope, attempt, describeError(error), startedMs);
  }
  const dispatchedAt = clock();
  const durationMs = dispatchedAt.getTime() - startedMs;
  const kept = await ledger.markDispatched(run.key, attempt, { dispatchedAt, deliveryId });
  const lagMs = dispatchedAt.getTime() - run.at.getTime();
  const late =
    run.origin !== 'manual' && run.origin !== 'redrive' && lagMs > job.alarm.graceSeconds * 1000;
  metrics.job(job.id, 'Dispatched');
  metrics.job(job.id, 'DispatchLagSeconds', Math.max(0, lagMs) / 1000);
  if (run.origin === 'catch-up' || run.origin === 'sweep') metrics.job(job.id, 'CaughtUp');
  if (late) metrics.job(job.id, 'LateRuns');
  const decision = run.origin === 'catch-up' || run.origin === 'sweep' ? 'caught-up' : 'dispatched';
  logger.info(
    decision,
    logFields(run, {
      decision,
      attempt,
      deliveryId,
      target: job.target.type,
      lagMs,
      durationMs,
      ...(late ? { late: true, graceSeconds: job.alarm.graceSeconds } : {}),
    }),
  );
  if (!kept) {
    logger.warn(
      'lease-lost',
      logFields(run, {
        decision: 'lease-lost',
        attempt,
        lagMs,
        durationMs,
        hint: 'delivery outlived the lease; another dispatcher may have delivered too',
      }),
    );
  }
  return { ...base, outcome: 'dispatched', attempt, deliveryId, lagMs, late };
}

async function failRun(
  ctx: CoreContext,
  run: PlannedRun,
  envelope: RunEnvelope,
  attempt: number,
  lastError: string,
  startedMs: number,
): Promise<RunOutcome> {
  const { ledger, logger, metrics, clock } = ctx;
  const job = run.job;
  const base = { key: run.key, jobId: job.id, at: run.at.toISOString() };
  const failedAt = clock();
  const fields = {
    attempt,
    maxAttempts: job.retry.maxAttempts,
    lastError,
    target: job.target.type,
    lagMs: failedAt.getTime() - run.at.getTime(),
    durationMs: failedAt.getTime() - startedMs,
  };
  metrics.job(job.id, 'DeliveryFailures');
  if (attempt < job.retry.maxAttempts) {
    await ledger.releaseFailed(run.key, attempt, { lastError, terminal: false, failedAt });
    logger.warn('failed', logFields(run, { decision: 'delivery-failed', ...fields }));
    return { ...base, outcome: 'delivery-failed', attempt, lastError };
  }
  await sendDeadLetter(ctx, run, envelope, attempt, lastError, failedAt);
  await ledger.releaseFailed(run.key, attempt, { lastError, terminal: true, failedAt });
  logger.error('dead-lettered', logFields(run, { decision: 'dead-lettered', ...fields }));
  return { ...base, outcome: 'dead-lettered', attempt, lastError };
}

/**
 * Dead-letters a run whose dispatcher died on its last attempt; undefined when another
 * dispatcher took it over first.
 *
 * The takeover is one conditional write (still `claimed`, same `attempts`, lease expired) that
 * sets a fresh lease without counting an attempt; then the run goes through `failRun` like a
 * failed last delivery: one DLQ message while the lease is held, then `failed`.
 *
 * ```
 *  claim@t0 (attempt = max) ── dispatcher dies ── t0 + lease ── tick / sweep at t1:
 *    claim refused → takeOverAbandoned (lease = t1 + lease) → DLQ message → failed(delivery)
 *                    └─ lost the race → duplicate (the winner sends the one DLQ message)
 * ```
 */
async function abandonRun(
  ctx: CoreContext,
  run: PlannedRun,
  existing: RunRecord,
): Promise<RunOutcome | undefined> {
  const { ledger, clock } = ctx;
  const nowEpochMs = clock().getTime();
  const leaseUntilEpochMs = nowEpochMs + ctx.options.leaseSeconds * 1000;
  const lastError = `dispatcher stopped during delivery attempt ${existing.attempts} (lease expired at ${new Date(existing.leaseUntilEpochMs ?? 0).toISOString()})`;
  // Take the expired claim over first, so exactly one dispatcher sends the DLQ message.
  const won = await ledger.takeOverAbandoned(
    run.key,
    existing.attempts,
    nowEpochMs,
    leaseUntilEpochMs,
  );
  if (!won) return undefined;
  const envelope = buildEnvelope(run.job, run, existing.attempts);
  return failRun(ctx, run, envelope, existing.attempts, lastError, nowEpochMs);
}

async function sendDeadLetter(
  ctx: CoreContext,
  run: PlannedRun,
  envelope: RunEnvelope,
  attempts: number,
  lastError: string,
  failedAt: Date,
): Promise<void> {
  const message: DeadLetterMessage = {
    version: 1,
    reason: 'delivery-failed',
    key: run.key,
    jobId: run.job.id,
    envelope,
    target: run.job.target,
    lastError,
    attempts,
    failedAt: failedAt.toISOString(),
  };
  await ctx.deadLetters.send(message);
  ctx.metrics.job(run.job.id, 'DeadLettered');
}
