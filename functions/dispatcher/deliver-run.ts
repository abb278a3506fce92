/**
 * The claim → deliver flow of one planned run (`deliverRun`): claim, the forbid slot, delivery,
 * and the run's record: dispatched, delivery-failed (retried at a backoff) or dead-lettered.
 */
import { buildEnvelope, deliverySecretHash, newDeliverySecret } from '#jobs/envelope.ts';
import { type JobDefinition, tracksCompletion } from '#jobs/job.ts';
import { performOutbox, type RunItem } from '#ledger/index.ts';
import { describeError } from '#shared/describe-error.ts';
import { withRetries } from '#shared/retry.ts';
import {
  type CoreContext,
  type DispatcherOptions,
  outboxDeps,
  performNewOutbox,
  retryOptions,
} from './context.ts';
import { checkAtWithDeadline, raiseDeadlineMissed, runDeadlineEpochMs } from './deadline.ts';
import {
  holdsSlot,
  isRedriveRound,
  logFields,
  type OutcomeBase,
  type PlannedRun,
  type RunOutcome,
  roundMaxAttempts,
  stuckAtEpochMs,
} from './planned-run.ts';

/**
 * The wait before retry number `attempt` (1 = the first retry): 1, 2, 4, 8 … minutes by
 * default, at most 15.
 *
 * @example
 * retryDelayMs(DEFAULT_DISPATCHER_OPTIONS, 3) //=> 240000
 */
export function retryDelayMs(options: DispatcherOptions, attempt: number): number {
  const seconds = options.retryBaseSeconds * 2 ** Math.max(0, attempt - 1);
  return Math.min(options.retryMaxSeconds, seconds) * 1000;
}

/**
 * Claims one run in the ledger and, if the claim is ours, delivers it; `claimed`, when given,
 * is told the claimed item first, before any delivery (the fast path ends a gap there).
 *
 * ```
 *  claim ──refused──> duplicate (the stored item comes back; logged, counted)
 *    ├─ claimed ──> claimed(item)
 *    ├─ took over an expired claim ──> counted Redelivered (the holder may have delivered it)
 *    ├─ forbid, another run holds the job's slot ──> skipped(overlap)
 *    └─ deliver ──ok──> dispatched (late? → notify)       the write is retried in-invocation
 *            └─fail──> attempts left: delivery-failed, retried by the sweep at a backoff
 *                      none left:     failed(delivery) + one DLQ message + notify
 * ```
 */
export async function deliverRun(
  ctx: CoreContext,
  run: PlannedRun,
  claimed?: (item: RunItem) => Promise<void>,
): Promise<RunOutcome> {
  const { ledger, clock, options } = ctx;
  const nowEpochMs = clock().getTime();
  // A fresh secret per claim; its hash is stored by the claim itself, before any delivery.
  const secret = (ctx.deliverySecret ?? newDeliverySecret)();
  const deadlineAtEpochMs = runDeadlineEpochMs(run);
  const claim = await ledger.claim({
    key: run.key,
    jobId: run.job.id,
    at: run.at,
    nominal: run.nominal,
    dst: run.dst,
    manual: run.manual,
    origin: run.origin,
    target: run.job.target.arn,
    secretHash: deliverySecretHash(secret),
    mode: run.mode,
    maxAttempts: run.job.retry.maxAttempts,
    nowEpochMs,
    leaseUntilEpochMs: nowEpochMs + options.leaseSeconds * 1000,
    ttlEpochSec: Math.floor(nowEpochMs / 1000) + options.retentionDays * 86_400,
    missed: run.missed,
    ...(deadlineAtEpochMs === undefined ? {} : { deadlineAtEpochMs }),
    ...(run.notify === false ? { notify: false } : {}),
    ...(run.incident ? { incident: run.incident } : {}),
  });
  if (!claim.claimed) return duplicate(ctx, run, claim.existing, nowEpochMs);
  const item = claim.item;
  await claimed?.(item);
  if (item.previousStatus === 'claimed') reportRedelivery(ctx, run, item);
  if (run.missed && item.attempts === 1) reportMissed(ctx, run, 'delivered late');
  const outcome = await attemptDelivery(ctx, run, item, secret);
  // The claim of a missed run owes its notification; it can say what happened now.
  if (item.outbox.length > 0) {
    await performOutbox(outboxDeps(ctx), { ...item, status: STATUS_AFTER[outcome.outcome] });
  }
  return outcome;
}

const STATUS_AFTER: Record<RunOutcome['outcome'], RunItem['status']> = {
  dispatched: 'dispatched',
  duplicate: 'claimed',
  skipped: 'skipped',
  'delivery-failed': 'delivery-failed',
  'dead-lettered': 'failed',
};

/** Holds the claim: takes the forbid slot, hands the envelope to the target, records what happened. */
async function attemptDelivery(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  secret: string,
): Promise<RunOutcome> {
  let envelope: ReturnType<typeof buildEnvelope>;
  try {
    const overlap = await checkOverlap(ctx, run, item);
    if (overlap) return overlap;
    envelope = buildEnvelope(run.job, run, item.attempts, ctx.stackName, secret);
  } catch (error) {
    await releaseBeforeInvoke(ctx, run, item, error);
    throw error;
  }
  let deliveryId: string;
  try {
    ({ deliveryId } = await ctx.targets.deliver(run.job.target, envelope, {
      generation: item.generation,
    }));
  } catch (error) {
    return failAttempt(ctx, run, item, describeError(error));
  }
  return recordDelivery(ctx, run, item, deliveryId);
}

/** Counts and logs a missed run, once: called by whoever decided it. */
export function reportMissed(ctx: CoreContext, run: PlannedRun, action: string): void {
  ctx.metrics.job(run.job.id, 'MissedRuns');
  ctx.logger.error(
    'missed',
    logFields(run, {
      decision: 'missed',
      action,
      policy: run.job.catchup.policy,
      lagMs: ctx.clock().getTime() - run.at.getTime(),
    }),
  );
}

/**
 * The claim took the run over from a holder whose lease ran out: it may have died after the
 * target accepted the run, so the target may now see it twice, under the same key. Counted
 * and logged by whoever takes it over (a sweep, a late tick, a retried event).
 */
function reportRedelivery(ctx: CoreContext, run: PlannedRun, item: RunItem): void {
  ctx.metrics.job(run.job.id, 'Redelivered');
  ctx.logger.warn(
    'possible-redelivery',
    logFields(run, {
      decision: 'possible-redelivery',
      attempt: item.attempts,
      hint: 'the previous claim expired mid-delivery; consumers drop duplicates by key',
    }),
  );
}

function baseOf(run: PlannedRun): OutcomeBase {
  return { key: run.key, jobId: run.job.id, at: run.at.toISOString() };
}

function duplicate(
  ctx: CoreContext,
  run: PlannedRun,
  existing: RunItem,
  nowEpochMs: number,
): RunOutcome {
  ctx.metrics.job(run.job.id, 'DuplicatesSuppressed');
  ctx.logger.info(
    'duplicate',
    logFields(run, {
      decision: 'duplicate',
      attempt: existing.attempts,
      existingStatus: existing.status,
      lagMs: nowEpochMs - run.at.getTime(),
    }),
  );
  return { ...baseOf(run), outcome: 'duplicate', existing };
}

/**
 * How long a run holds the slot before it is dispatched: until its claim's lease ends its
 * dispatcher may still hand it to the target, and it may then run for `maxRuntime`.
 */
function undispatchedSlotUntilEpochMs(
  run: PlannedRun,
  item: Pick<RunItem, 'leaseUntilEpochMs'>,
  nowEpochMs: number,
): number {
  return (item.leaseUntilEpochMs ?? nowEpochMs) + run.job.maxRuntimeSeconds * 1000;
}

/** `concurrency: forbid`: the job's slot, or skipped(overlap). */
async function checkOverlap(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
): Promise<RunOutcome | undefined> {
  if (!holdsSlot(run)) return undefined;
  const nowEpochMs = ctx.clock().getTime();
  const untilEpochMs = undispatchedSlotUntilEpochMs(run, item, nowEpochMs);
  let slot = await ctx.ledger.acquireSlot(run.job.id, run.key, nowEpochMs, untilEpochMs);
  const holder = slot.runningKey;
  if (!slot.acquired && holder && (await cannotBeRunning(ctx, run.job, holder, nowEpochMs))) {
    slot = await ctx.ledger.acquireSlot(run.job.id, run.key, nowEpochMs, untilEpochMs, holder);
  }
  if (slot.acquired) return undefined;
  return skipOverlap(ctx, run, item, slot.runningKey);
}

/**
 * Whether the run holding the slot can no longer be running (§6 Overlap), read from its item
 * only when the slot is refused: it was dispatched more than `maxRuntime` ago. Any other holder
 * keeps the slot until its hold ends (its lease's end plus `maxRuntime`): a claimed run may
 * still be handed over, and one that ended without a report may have been invoked before its
 * dispatcher died.
 */
async function cannotBeRunning(
  ctx: CoreContext,
  job: JobDefinition,
  holderKey: string,
  nowEpochMs: number,
): Promise<boolean> {
  const holder = await ctx.ledger.getRun(holderKey);
  if (holder?.status !== 'dispatched') return false;
  return stuckAtEpochMs(job, Date.parse(holder.dispatchedAt ?? '')) < nowEpochMs;
}

/**
 * skipped(overlap): counted in the job's overlap incident first, so that the incident's second
 * skip owes the one `overlap` notification in the write that records it.
 */
async function skipOverlap(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  runningKey: string | undefined,
): Promise<RunOutcome> {
  const detail = `previous run ${runningKey ?? '(unknown)'} is still running`;
  const incident = await withRetries(
    () => ctx.ledger.countOverlapSkip(run.job.id, { key: run.key, at: run.at }),
    retryOptions(ctx),
  );
  const notice = incident.raises
    ? {
        since: incident.since,
        outboxLeaseUntilEpochMs: ctx.clock().getTime() + ctx.options.outboxLeaseSeconds * 1000,
      }
    : undefined;
  const skipped = await ctx.ledger.markSkipped(run.key, item.attempts, 'overlap', detail, notice);
  ctx.metrics.job(run.job.id, 'SkippedOverlap');
  ctx.logger.warn(
    'skipped',
    logFields(run, {
      decision: 'skipped-overlap',
      attempt: item.attempts,
      runningKey,
      overlapSkips: incident.skips,
      overlapSince: incident.since,
    }),
  );
  if (skipped && notice) {
    const changes = {
      status: 'skipped',
      skipReason: 'overlap',
      lastError: detail,
      overlapSince: notice.since,
    } as const;
    await performNewOutbox(ctx, item, changes, ['notify:overlap'], ['overlap']);
  }
  return { ...baseOf(run), outcome: 'skipped', reason: 'overlap', detail };
}

/**
 * The attempt failed before the target was called (taking the slot, or building the envelope,
 * threw): a slot this run holds is given back, as the run cannot be running (the write that
 * took it may have landed though its reply was lost). Not when this claim took over an expired
 * one, whose dispatcher may have reached the target. If giving it back fails too, the slot
 * stays until its hold ends, and the attempt's own error goes on.
 */
async function releaseBeforeInvoke(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  error: unknown,
): Promise<void> {
  if (!holdsSlot(run) || item.previousStatus === 'claimed') return;
  try {
    await withRetries(() => ctx.ledger.releaseSlot(run.job.id, run.key), retryOptions(ctx));
  } catch (releaseError) {
    ctx.logger.error(
      'slot-kept',
      logFields(run, {
        decision: 'slot-kept',
        attempt: item.attempts,
        lastError: describeError(error),
        error: describeError(releaseError),
        hint: 'the slot stays held until runningUntilEpochMs',
      }),
    );
  }
}

/** A delivery attempt failed: retry later, or dead-letter when the round's attempts are used. */
async function failAttempt(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  lastError: string,
): Promise<RunOutcome> {
  const { ledger, clock, options, metrics, logger } = ctx;
  const failedAt = clock();
  const maxAttempts = roundMaxAttempts(run.job, item);
  const fields = {
    attempt: item.attempts,
    maxAttempts,
    lastError,
    target: run.job.target.type,
    lagMs: failedAt.getTime() - run.at.getTime(),
  };
  metrics.job(run.job.id, 'DeliveryFailures');
  if (holdsSlot(run)) {
    await withRetries(() => ledger.releaseSlot(run.job.id, run.key), retryOptions(ctx));
  }
  if (item.roundAttempts < maxAttempts) {
    const retryAtEpochMs = failedAt.getTime() + retryDelayMs(options, item.roundAttempts);
    // Undelivered at its deadline: the sweep looks then, before the retry (§6, Deadlines).
    const checkAtEpochMs = checkAtWithDeadline(retryAtEpochMs, item) ?? retryAtEpochMs;
    await withRetries(
      () =>
        ledger.releaseFailed(run.key, item.attempts, {
          lastError,
          retryAtEpochMs,
          checkAtEpochMs,
        }),
      retryOptions(ctx),
    );
    const retryAt = new Date(retryAtEpochMs).toISOString();
    logger.warn('failed', logFields(run, { decision: 'delivery-failed', ...fields, retryAt }));
    return {
      ...baseOf(run),
      outcome: 'delivery-failed',
      attempt: item.attempts,
      lastError,
      retryAt,
    };
  }
  await deadLetter(ctx, run, item, lastError, failedAt);
  return { ...baseOf(run), outcome: 'dead-lettered', attempt: item.attempts, lastError };
}

/**
 * `failed(delivery)`: one dead-letter message and one notification, through the outbox. A
 * redrive's failed attempt raises neither: the operator sees it in the command's output, and
 * the run keeps the one message it has (§6, Redrives).
 */
export async function deadLetter(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  lastError: string,
  failedAt: Date,
): Promise<boolean> {
  const outboxLeaseUntilEpochMs = failedAt.getTime() + ctx.options.outboxLeaseSeconds * 1000;
  const raise = !isRedriveRound(item);
  const failed = await withRetries(
    () =>
      ctx.ledger.failDelivery(run.key, item.attempts, {
        lastError,
        failedAt,
        outboxLeaseUntilEpochMs,
        raise,
      }),
    retryOptions(ctx),
  );
  if (!failed) return false;
  if (!raise) {
    ctx.logger.warn(
      'redrive-failed',
      logFields(run, {
        decision: 'redrive-failed',
        attempt: item.attempts,
        lastError,
        target: run.job.target.type,
        hint: 'the run is failed again; no second dead letter or notification',
      }),
    );
    return true;
  }
  ctx.logger.error(
    'dead-lettered',
    logFields(run, {
      decision: 'dead-lettered',
      attempt: item.attempts,
      maxAttempts: run.job.retry.maxAttempts,
      lastError,
      target: run.job.target.type,
    }),
  );
  const changes = {
    status: 'failed',
    failure: 'delivery',
    lastError,
    completedAt: failedAt.toISOString(),
  } as const;
  await performNewOutbox(
    ctx,
    item,
    changes,
    ['dead-letter', 'notify:dead-lettered'],
    ['dead-lettered'],
  );
  // Past its deadline, undelivered: raised now; before it, by the sweep when it comes.
  await raiseDeadlineMissed(ctx, item, changes);
  return true;
}

/** The target accepted the run: record it (retried until it lands), count, log. */
async function recordDelivery(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  deliveryId: string,
): Promise<RunOutcome> {
  const dispatchedAt = ctx.clock();
  const lagMs = dispatchedAt.getTime() - run.at.getTime();
  // Late is the tick's lateness: its own first attempt. A retry that took over a dead
  // dispatcher's claim cannot tell when that one reached the target.
  const late =
    run.origin === 'tick' && item.attempts === 1 && lagMs > run.job.alarm.graceSeconds * 1000;
  const written = await writeDispatched(ctx, run, item, dispatchedAt, deliveryId, late);
  const lateRaised = late && written.lateRaised;
  reportDispatched(ctx, run, { attempt: item.attempts, deliveryId, lagMs, late, lateRaised });
  if (!written.ours) {
    ctx.logger.warn(
      'lease-lost',
      logFields(run, {
        decision: 'lease-lost',
        attempt: item.attempts,
        hint: 'the claim expired during delivery; the sweep may deliver the run again (Redelivered)',
      }),
    );
  } else {
    const changes = {
      status: written.status,
      dispatchedAt: dispatchedAt.toISOString(),
      deliveryId,
    };
    if (lateRaised) await performNewOutbox(ctx, item, changes, ['notify:late'], ['late']);
    // Delivered after its deadline (§6, Deadlines); a tracked run's stuck check stays.
    const tracked = tracksCompletion(run.job) && written.status === 'dispatched';
    const stuckAt = tracked ? stuckAtEpochMs(run.job, dispatchedAt.getTime()) : undefined;
    await raiseDeadlineMissed(ctx, item, changes, stuckAt);
  }
  return { ...baseOf(run), outcome: 'dispatched', attempt: item.attempts, deliveryId, lagMs, late };
}

/** What became of the dispatcher's write after a delivery. */
interface DispatchedWrite {
  /** The run is still this claim's: dispatched by it, or ended by the recorder for it. */
  readonly ours: boolean;
  /** Where the run is now. */
  readonly status: RunItem['status'];
  /** This write raised the run's `late` signal. */
  readonly lateRaised: boolean;
}

/**
 * `claimed` → `dispatched` for our claim, retried until it lands. Refused, it may be that the
 * target's report was recorded first (a fast run, a throttled write): then the claim was not
 * lost, and a late run gets its `late` signal on the ended run, whichever write came first.
 */
async function writeDispatched(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  dispatchedAt: Date,
  deliveryId: string,
  late: boolean,
): Promise<DispatchedWrite> {
  const outboxLeaseUntilEpochMs = dispatchedAt.getTime() + ctx.options.outboxLeaseSeconds * 1000;
  const kept = await markDispatched(ctx, run, item, dispatchedAt, deliveryId, late);
  if (kept) return { ours: true, status: 'dispatched', lateRaised: late };
  if (!tracksCompletion(run.job)) return { ours: false, status: 'claimed', lateRaised: false };
  const settled = await withRetries(
    () =>
      ctx.ledger.settleCompletedFirst(run.key, item.attempts, {
        raise: late,
        outboxLeaseUntilEpochMs,
      }),
    retryOptions(ctx),
  );
  if (!settled.completed) return { ours: false, status: 'claimed', lateRaised: false };
  return { ours: true, status: settled.completed.status, lateRaised: settled.lateRaised };
}

/**
 * `claimed` → `dispatched` for our claim, retried until it lands; false when the claim is not
 * `claimed` by us any more. A run whose completion is reported stays open until its
 * `maxRuntime` ends.
 */
function markDispatched(
  ctx: CoreContext,
  run: PlannedRun,
  item: RunItem,
  dispatchedAt: Date,
  deliveryId: string,
  late: boolean,
): Promise<boolean> {
  // A tracked run is looked at when it may be stuck, or when its deadline comes first.
  const stuckCheckAtEpochMs = tracksCompletion(run.job)
    ? checkAtWithDeadline(stuckAtEpochMs(run.job, dispatchedAt.getTime()), item)
    : undefined;
  return withRetries(
    () =>
      ctx.ledger.markDispatched(run.key, item.attempts, {
        dispatchedAt,
        deliveryId,
        stuckCheckAtEpochMs,
        late,
        outboxLeaseUntilEpochMs: dispatchedAt.getTime() + ctx.options.outboxLeaseSeconds * 1000,
      }),
    retryOptions(ctx),
  );
}

/** The metrics and the log line of a delivery; `LateRuns` counts only the write that raised `late`. */
function reportDispatched(
  ctx: CoreContext,
  run: PlannedRun,
  delivery: {
    readonly attempt: number;
    readonly deliveryId: string;
    readonly lagMs: number;
    readonly late: boolean;
    readonly lateRaised: boolean;
  },
): void {
  const { metrics } = ctx;
  const { attempt, deliveryId, lagMs, late, lateRaised } = delivery;
  const caughtUp = run.origin === 'catch-up' || run.origin === 'sweep';
  metrics.job(run.job.id, 'Dispatched');
  metrics.job(run.job.id, 'DispatchLagSeconds', Math.max(0, lagMs) / 1000);
  if (caughtUp) metrics.job(run.job.id, 'CaughtUp');
  if (lateRaised) metrics.job(run.job.id, 'LateRuns');
  // `late` is a decision of its own: the stack's Contributor Insights rule counts it by name.
  const decision = late ? 'late' : caughtUp ? 'caught-up' : 'dispatched';
  ctx.logger.info(
    decision,
    logFields(run, {
      decision,
      attempt,
      deliveryId,
      target: run.job.target.type,
      lagMs,
      ...(late ? { late: true, graceSeconds: run.job.alarm.graceSeconds } : {}),
    }),
  );
}
