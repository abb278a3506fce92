import { type JobDefinition, tracksCompletion } from '#jobs/job.ts';
import { pendingDeadline, performOutbox, type RunItem } from '#ledger/index.ts';
import { withRetries } from '#shared/retry.ts';
import { type CoreContext, outboxDeps, performNewOutbox, retryOptions } from './context.ts';
import { checkAtWithDeadline, raiseDeadlineMissed } from './deadline.ts';
import { deadLetter, deliverRun } from './deliver-run.ts';
import {
  holdsSlot,
  isRedriveRound,
  type PlannedRun,
  type RunOutcome,
  roundMaxAttempts,
  stuckAtEpochMs,
} from './planned-run.ts';

/** What the sweep did with one open run. */
export interface Settled {
  readonly key: string;
  readonly jobId: string;
  readonly action:
    | 'outbox'
    | 'retried'
    | 'redelivered'
    | 'dead-lettered'
    | 'stuck'
    | 'closed'
    | 'rescheduled'
    | 'left';
  readonly outcome?: RunOutcome;
}

function retryOf(job: JobDefinition, item: RunItem): PlannedRun {
  return {
    job,
    key: item.key,
    at: new Date(item.at),
    nominal: item.nominal,
    dst: item.dst,
    manual: item.manual,
    origin: 'retry',
    mode: 'reclaim',
    missed: false,
  };
}

/**
 * Settles one open run the sweep found due in the `byOpen` index, whatever its age: the
 * structural guarantee that no run stays open.
 *
 * ```
 *  outbox owed, lease over   → perform it (dead letter, notifications)
 *  claimed, lease over       → the holder died: retry (its claim counts Redelivered: the holder
 *                              may have reached the target), or dead-letter when the round is
 *                              used up
 *  delivery-failed, due      → retry, or dead-letter when the round is used up (also after a
 *                              redeploy lowered retry.maxAttempts; a redrive's round is one
 *                              attempt, and its failure raises nothing)
 *  dispatched (lambda, sfn)  → stuck once past maxRuntime, else wait until then
 *  anything else             → out of the index
 *
 *  and first, with a deadline not raised yet (§6, Deadlines):
 *  past it: claimed (lease over), delivery-failed, dispatched (lambda, sfn), failed
 *                            → deadline-missed, then the above
 *  before it: failed         → wait until it (a redrive before then clears it)
 * ```
 */
export async function reconcileRun(ctx: CoreContext, item: RunItem): Promise<Settled> {
  const now = ctx.clock().getTime();
  const base = { key: item.key, jobId: item.jobId };
  if (item.outbox.length > 0) {
    if ((item.outboxLeaseUntilEpochMs ?? 0) >= now) return { ...base, action: 'left' };
    const taken = await ctx.ledger.takeOutbox(
      item.key,
      now,
      now + ctx.options.outboxLeaseSeconds * 1000,
    );
    if (taken) await performOutbox(outboxDeps(ctx), taken);
    return { ...base, action: 'outbox' };
  }
  const job = ctx.jobs.get(item.jobId);
  return settle(ctx, job, await checkDeadline(ctx, job, item, now), now);
}

/** What the sweep does with an open run, by its status (`reconcileRun`). */
async function settle(
  ctx: CoreContext,
  job: JobDefinition | undefined,
  item: RunItem,
  now: number,
): Promise<Settled> {
  switch (item.status) {
    case 'claimed':
      if ((item.leaseUntilEpochMs ?? 0) >= now)
        return reschedule(ctx, item, item.leaseUntilEpochMs);
      return retryOrGiveUp(ctx, job, item, 'redelivered');
    case 'delivery-failed':
      // Looked at for its deadline before its retry is due.
      if (retryAtOf(item) > now) return reschedule(ctx, item, retryAtOf(item));
      return retryOrGiveUp(ctx, job, item, 'retried');
    case 'dispatched':
      if (job && tracksCompletion(job) && !item.signals.includes('stuck')) {
        return checkStuck(ctx, job, item);
      }
      return reschedule(ctx, item, tracked(job) ? pendingDeadline(item) : undefined);
    case 'failed':
      return reschedule(ctx, item, pendingDeadline(item));
    default:
      return reschedule(ctx, item, undefined);
  }
}

const tracked = (job: JobDefinition | undefined) => job !== undefined && tracksCompletion(job);

/** When a `delivery-failed` run's next attempt is due (before `retryAtEpochMs`: the check). */
const retryAtOf = (item: RunItem) => item.retryAtEpochMs ?? item.checkAtEpochMs ?? 0;

/**
 * Raises `deadline-missed` on an open run past its deadline that was not done by it: not
 * delivered (claimed by a dispatcher that died, awaiting a retry, dead-lettered), or delivered
 * to a target that reports its end and no success recorded (still dispatched, or failed). A
 * dispatched run of another target was delivered in time, or raised it at its delivery.
 */
async function checkDeadline(
  ctx: CoreContext,
  job: JobDefinition | undefined,
  item: RunItem,
  now: number,
): Promise<RunItem> {
  const deadline = pendingDeadline(item);
  if (deadline === undefined || now <= deadline) return item;
  const undone =
    (item.status === 'claimed' && (item.leaseUntilEpochMs ?? 0) < now) ||
    item.status === 'delivery-failed' ||
    item.status === 'failed' ||
    (item.status === 'dispatched' && tracked(job));
  if (!undone) return item;
  const raised = await raiseDeadlineMissed(ctx, item, {}, checkBesidesDeadline(job, item));
  return raised ? { ...item, signals: [...item.signals, 'deadline-missed'] } : item;
}

/** The check an open run needs for something else than its deadline: its retry, its stuck check. */
function checkBesidesDeadline(job: JobDefinition | undefined, item: RunItem): number | undefined {
  if (item.status === 'delivery-failed') return retryAtOf(item);
  if (item.status === 'dispatched' && job) return stuckAtEpochMs(job, dispatchedAtOf(item));
  return undefined;
}

/** When a dispatched run was handed to its target. */
const dispatchedAtOf = (item: RunItem) => Date.parse(item.dispatchedAt ?? item.at);

/** Moves the run's next check (or takes it out of the index), if nobody changed it meanwhile. */
async function reschedule(
  ctx: CoreContext,
  item: RunItem,
  nextCheckAtEpochMs: number | undefined,
): Promise<Settled> {
  await ctx.ledger.closeOpen(
    item.key,
    { status: item.status, checkAtEpochMs: item.checkAtEpochMs ?? 0 },
    nextCheckAtEpochMs,
  );
  return {
    key: item.key,
    jobId: item.jobId,
    action: nextCheckAtEpochMs === undefined ? 'closed' : 'rescheduled',
  };
}

async function retryOrGiveUp(
  ctx: CoreContext,
  job: JobDefinition | undefined,
  item: RunItem,
  action: 'retried' | 'redelivered',
): Promise<Settled> {
  const base = { key: item.key, jobId: item.jobId };
  if (!job) {
    const lastError = `job '${item.jobId}' is no longer in jobs.yaml; the run cannot be delivered`;
    await deadLetterItem(ctx, undefined, item, lastError);
    return { ...base, action: 'dead-lettered' };
  }
  const maxAttempts = roundMaxAttempts(job, item);
  if (item.roundAttempts >= maxAttempts) {
    const lastError =
      item.status === 'claimed'
        ? `dispatcher stopped during delivery attempt ${item.attempts} (lease expired at ${new Date(item.leaseUntilEpochMs ?? 0).toISOString()})`
        : `${item.lastError ?? 'delivery failed'} (${item.roundAttempts} of ${maxAttempts} attempts used)`;
    await deadLetterItem(ctx, job, item, lastError);
    return { ...base, action: 'dead-lettered' };
  }
  // Taking over an expired claim counts as a possible redelivery (deliverRun says so).
  const outcome = await deliverRun(ctx, retryOf(job, item));
  return { ...base, action, outcome };
}

async function deadLetterItem(
  ctx: CoreContext,
  job: JobDefinition | undefined,
  item: RunItem,
  lastError: string,
): Promise<void> {
  const failedAt = ctx.clock();
  if (job) {
    const run = retryOf(job, item);
    // Its last attempt failed at the target: it is not running, so a slot it holds is free.
    // A `claimed` one's dispatcher died and may have reached the target: its slot stays until
    // its hold ends (its lease's end plus maxRuntime), or the recorder hears the run end.
    if (item.status === 'delivery-failed' && holdsSlot(run)) {
      await withRetries(() => ctx.ledger.releaseSlot(job.id, item.key), retryOptions(ctx));
    }
    await deadLetter(ctx, run, item, lastError, failedAt);
    return;
  }
  const raise = !isRedriveRound(item);
  const failed = await ctx.ledger.failDelivery(item.key, item.attempts, {
    lastError,
    failedAt,
    outboxLeaseUntilEpochMs: failedAt.getTime() + ctx.options.outboxLeaseSeconds * 1000,
    raise,
  });
  if (failed && raise) {
    await performNewOutbox(
      ctx,
      item,
      { status: 'failed', failure: 'delivery', lastError, completedAt: failedAt.toISOString() },
      ['dead-letter', 'notify:dead-lettered'],
      ['dead-lettered'],
    );
  }
}

async function checkStuck(ctx: CoreContext, job: JobDefinition, item: RunItem): Promise<Settled> {
  const now = ctx.clock().getTime();
  const stuckAtMs = stuckAtEpochMs(job, dispatchedAtOf(item));
  if (now < stuckAtMs) return reschedule(ctx, item, checkAtWithDeadline(stuckAtMs, item));
  const lease = now + ctx.options.outboxLeaseSeconds * 1000;
  if (!(await ctx.ledger.markStuck(item.key, lease))) {
    return { key: item.key, jobId: item.jobId, action: 'left' };
  }
  ctx.metrics.job(job.id, 'StuckRuns');
  ctx.logger.error('stuck', {
    decision: 'stuck',
    jobId: job.id,
    expression: job.schedule,
    timezone: job.timezone,
    nominal: item.nominal,
    at: item.at,
    key: item.key,
    attempt: item.attempts,
    dispatchedAt: item.dispatchedAt,
    deliveryId: item.deliveryId,
    maxRuntimeSeconds: job.maxRuntimeSeconds,
    runningMs: now - dispatchedAtOf(item),
  });
  await performNewOutbox(ctx, item, {}, ['notify:stuck'], ['stuck']);
  return { key: item.key, jobId: item.jobId, action: 'stuck' };
}
