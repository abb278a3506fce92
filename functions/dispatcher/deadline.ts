/**
 * Finish-by deadlines on the dispatcher's side (docs/semantics.md §6, "Deadlines"): which runs
 * have one, when the sweep must look at an open run for it, and the one `deadline-missed`.
 */
import { pendingDeadline, type RunItem } from '#ledger/index.ts';
import { withRetries } from '#shared/retry.ts';
import { deadlineAt } from '../schedule/index.ts';
import { type CoreContext, performNewOutbox, retryOptions } from './context.ts';
import type { PlannedRun } from './planned-run.ts';

/** The origins of the runs the dispatcher decided to deliver: only those have a deadline. */
const DECIDED_BY_THE_DISPATCHER: ReadonlySet<string> = new Set(['tick', 'catch-up', 'sweep']);

/**
 * The instant a run the dispatcher is about to claim must be done by, from its job's
 * `deadline`; undefined for a job without one and for an operator's run (`zonecron run`,
 * `backfill`, `dlq redrive`), which the operator watches.
 *
 * @example
 * runDeadlineEpochMs({ job: { deadline: { wallTime: '07:00' }, timezone: 'Europe/Berlin', … },
 *   at: new Date('2026-10-25T04:00Z'), origin: 'tick', manual: false, … })
 * //=> Date.parse('2026-10-25T06:00:00Z')
 */
export function runDeadlineEpochMs(run: PlannedRun): number | undefined {
  const { deadline, timezone } = run.job;
  if (!deadline || run.manual || !DECIDED_BY_THE_DISPATCHER.has(run.origin)) return undefined;
  return deadlineAt(deadline, run.at, timezone).getTime();
}

/**
 * The earlier of a check the run needs anyway and its pending deadline: the sweep looks at an
 * open run then. Undefined only when neither is.
 *
 * @example
 * checkAtWithDeadline(900_000, { deadlineAtEpochMs: 600_000, signals: [] }) //=> 600000
 */
export function checkAtWithDeadline(
  checkAtEpochMs: number | undefined,
  item: Pick<RunItem, 'deadlineAtEpochMs' | 'signals'>,
): number | undefined {
  const deadline = pendingDeadline(item);
  if (deadline === undefined) return checkAtEpochMs;
  return checkAtEpochMs === undefined ? deadline : Math.min(checkAtEpochMs, deadline);
}

/**
 * Raises `deadline-missed` on the run, once whoever tries (the ledger's condition decides),
 * counts it (`DeadlineMissedRuns`), logs it and sends its notification through the outbox.
 * `changes` says what the caller knows of the run beyond `item` (its status now);
 * `checkAtEpochMs`, when the sweep must look at the run again for something else (a retry, a
 * stuck check) before the outbox lease ends. True when this call raised it.
 */
export async function raiseDeadlineMissed(
  ctx: CoreContext,
  item: RunItem,
  changes: Partial<RunItem>,
  checkAtEpochMs?: number,
): Promise<boolean> {
  const now = ctx.clock().getTime();
  const deadline = pendingDeadline(item);
  if (deadline === undefined || now <= deadline) return false;
  const lease = now + ctx.options.outboxLeaseSeconds * 1000;
  const raised = await withRetries(
    () => ctx.ledger.markDeadlineMissed(item.key, now, lease, checkAtEpochMs),
    retryOptions(ctx),
  );
  if (!raised) return false;
  const run = { ...item, ...changes };
  ctx.metrics.job(run.jobId, 'DeadlineMissedRuns');
  ctx.logger.error('deadline-missed', {
    decision: 'deadline-missed',
    jobId: run.jobId,
    nominal: run.nominal,
    at: run.at,
    key: run.key,
    status: run.status,
    attempt: run.attempts,
    deadlineAt: new Date(deadline).toISOString(),
    pastDeadlineMs: now - deadline,
  });
  await performNewOutbox(ctx, run, {}, ['notify:deadline-missed'], ['deadline-missed']);
  return true;
}
