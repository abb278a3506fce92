import {
  inLastPause,
  type JobStateItem,
  type RunItem,
  type SkipReason,
  type SkipRecord,
} from '#ledger/index.ts';
import { type JobDefinition, scheduleSpecOf } from '#shared/job.ts';
import { type Occurrence, occurrencesBetween, periodBucket } from '../schedule/index.ts';
import {
  type CoreContext,
  deliverRun,
  logFields,
  type PlannedRun,
  performNewOutbox,
  type RunOutcome,
  reportMissed,
  tickRun,
} from './deliver-run.ts';

/** Which of the undecided runs of a catch-up are delivered, and which are skipped and why. */
export interface CatchupPlan {
  /** Oldest first. */
  readonly deliver: readonly Occurrence[];
  readonly skip: readonly { readonly occurrence: Occurrence; readonly reason: SkipReason }[];
}

/**
 * Applies a job's catch-up policy to the undecided runs of a range.
 *
 * - `all`: every run, oldest first; beyond `maxRuns` the **oldest** are skipped (`max-runs`).
 * - `latest`: only the newest run of the range, and only if nothing newer is due or decided.
 * - `none`: only the tick's own run; nothing is caught up.
 *
 * The tick's own run (`ownAt`, the newest by construction) is always delivered.
 *
 * @example
 * planCatchup(latestJob, [r0100, r0115, r0130], undefined, false)
 * //=> { deliver: [r0130], skip: [{ occurrence: r0100, reason: 'catch-up-latest' }, { occurrence: r0115, … }] }
 */
export function planCatchup(
  job: Pick<JobDefinition, 'catchup'>,
  undecided: readonly Occurrence[],
  ownAt: Date | undefined,
  newer: boolean,
): CatchupPlan {
  const isOwn = (o: Occurrence) => ownAt !== undefined && o.at.getTime() === ownAt.getTime();
  const split = (deliver: Occurrence[], reason: SkipReason): CatchupPlan => ({
    deliver,
    skip: undecided
      .filter((o) => !deliver.includes(o))
      .map((occurrence) => ({ occurrence, reason })),
  });
  switch (job.catchup.policy) {
    case 'none':
      return split(undecided.filter(isOwn), 'catch-up-none');
    case 'latest': {
      const newest = undecided.at(-1);
      const deliver = newest && (isOwn(newest) || !newer) ? [newest] : [];
      return split(deliver, 'catch-up-latest');
    }
    case 'all': {
      const cap = Math.max(1, job.catchup.maxRuns);
      return split(undecided.slice(-cap), 'max-runs');
    }
  }
}

/** What a catch-up is asked to decide. */
export interface CatchupRequest {
  /** Decide runs up to and including this instant. */
  readonly upTo: Date;
  /** The tick's own run, when a tick started the catch-up (it is delivered whatever the policy). */
  readonly own?: Occurrence;
  /** Runs the sweep found undecided at or before the watermark (a writer died in between). */
  readonly orphans?: readonly Occurrence[];
  /**
   * A run newer than `upTo` is due already (its tick is within its grace): under `latest`
   * nothing older is worth delivering.
   */
  readonly newerDue?: boolean;
  readonly origin: 'tick' | 'sweep';
}

/** Most runs older than the catch-up window recorded one by one; the rest are counted. */
const MAX_RECORDED_OUTSIDE_WINDOW = 500;

/**
 * Decides every undecided run of one job up to `upTo`, under the job's catch-up lease: the one
 * place catch-up policy is applied, for late ticks and for the sweep alike.
 *
 * ```
 *   runs of the job:  ─(W ── older than window ──[S-window ─────── undecided ────── upTo]
 *                          skipped(outside-window)  policy: deliver, or skipped(reason)
 *   a run inside the last pause: skipped(paused)     W moves to upTo, the lease is given back
 * ```
 *
 * Returns the outcomes of the runs it delivered; when another dispatcher holds the lease, only
 * the tick's own run is delivered (the holder decides the rest).
 */
export async function catchUpJob(
  ctx: CoreContext,
  job: JobDefinition,
  request: CatchupRequest,
): Promise<RunOutcome[]> {
  const decided = await catchUpUnderLease(ctx, job, request);
  if (decided) return decided;
  return request.own ? [await deliverRun(ctx, planned(job, request.own, request, false))] : [];
}

/**
 * {@link catchUpJob} when this dispatcher gets the job's catch-up lease; undefined when
 * another holds it (it may be deciding these runs now, or have died holding it: the lease
 * ends by itself).
 *
 * The watermark moves to `upTo` only when every run was decided: a catch-up that fails
 * half-way (a throttled read, a failed claim) gives the lease back and leaves the watermark,
 * so the retry of its event, or the next tick, decides the same runs again.
 *
 * @example
 * await catchUpUnderLease(ctx, job, { upTo, origin: 'sweep' })
 * //=> [{ outcome: 'dispatched', ... }], or undefined while another dispatcher holds the lease
 */
export async function catchUpUnderLease(
  ctx: CoreContext,
  job: JobDefinition,
  request: CatchupRequest,
): Promise<RunOutcome[] | undefined> {
  const nowEpochMs = ctx.clock().getTime();
  const leaseUntilEpochMs = nowEpochMs + ctx.options.leaseSeconds * 1000;
  const state = await ctx.ledger.acquireCatchup(job.id, nowEpochMs, leaseUntilEpochMs);
  if (!state) return undefined;
  let decidedUpTo: Date | undefined;
  try {
    const plan = await decide(ctx, job, state, request);
    await recordSkips(ctx, job, request, plan.skip);
    const outcomes: RunOutcome[] = [];
    for (const occurrence of plan.deliver) {
      const own = isSame(occurrence, request.own);
      outcomes.push(
        await deliverRun(
          ctx,
          planned(job, occurrence, request, !own && isMissed(ctx, job, occurrence)),
        ),
      );
    }
    decidedUpTo = request.upTo;
    return outcomes;
  } finally {
    await ctx.ledger.finishCatchup(job.id, leaseUntilEpochMs, decidedUpTo);
  }
}

function isSame(a: Occurrence, b: Occurrence | undefined): boolean {
  return b !== undefined && a.at.getTime() === b.at.getTime();
}

/** Past its grace: nobody delivered it in time. */
function isMissed(ctx: CoreContext, job: JobDefinition, occurrence: Occurrence): boolean {
  return ctx.clock().getTime() > occurrence.at.getTime() + job.alarm.graceSeconds * 1000;
}

function planned(
  job: JobDefinition,
  occurrence: Occurrence,
  request: CatchupRequest,
  missed: boolean,
): PlannedRun {
  const own = isSame(occurrence, request.own);
  return {
    ...tickRun(job, occurrence),
    origin: own ? 'tick' : request.origin === 'sweep' ? 'sweep' : 'catch-up',
    mode: own ? 'any' : 'create',
    missed,
  };
}

/** Lists the undecided runs of the range and applies the policy and the last pause. */
async function decide(
  ctx: CoreContext,
  job: JobDefinition,
  state: JobStateItem,
  request: CatchupRequest,
): Promise<CatchupPlan> {
  const spec = scheduleSpecOf(job);
  const upToMs = request.upTo.getTime();
  const windowStartMs = upToMs - job.catchup.windowSeconds * 1000;
  const watermarkMs = Date.parse(state.watermarkAt ?? state.sinceAt ?? request.upTo.toISOString());
  // The window is closed at its start: a run exactly `window` old is still caught up.
  const fromMs = Math.max(watermarkMs, windowStartMs - 1);
  const inWindow = fromMs < upToMs ? occurrencesBetween(spec, new Date(fromMs), request.upTo) : [];
  const orphans = (request.orphans ?? []).filter((o) => o.at.getTime() >= windowStartMs);
  const candidates = uniqueSorted([...inWindow, ...orphans]);
  const outside =
    watermarkMs < windowStartMs - 1
      ? occurrencesBetween(spec, new Date(watermarkMs), new Date(windowStartMs - 1))
      : [];
  const existing = await ctx.ledger.getRuns(
    candidates.map((o) => periodBucket(job.id, o.at)),
    true,
  );
  const undecided = candidates.filter((o) => !existing.has(periodBucket(job.id, o.at)));
  const newest = undecided.at(-1);
  const newer =
    (request.newerDue ?? false) ||
    (newest !== undefined &&
      candidates.some((o) => o.at > newest.at && existing.has(periodBucket(job.id, o.at))));
  const paused = undecided.filter((o) => inLastPause(state, o.at));
  const plan = planCatchup(
    job,
    undecided.filter((o) => !paused.includes(o)),
    request.own?.at,
    newer,
  );
  return {
    deliver: plan.deliver,
    skip: [
      ...outside.map((occurrence) => ({ occurrence, reason: 'outside-window' as const })),
      ...paused.map((occurrence) => ({ occurrence, reason: 'paused' as const })),
      ...plan.skip,
    ],
  };
}

function uniqueSorted(occurrences: readonly Occurrence[]): Occurrence[] {
  const byMs = new Map(occurrences.map((o) => [o.at.getTime(), o]));
  return [...byMs.entries()].sort(([a], [b]) => a - b).map(([, o]) => o);
}

/** Records the skipped runs (each once, conditionally), counting and logging each. */
async function recordSkips(
  ctx: CoreContext,
  job: JobDefinition,
  request: CatchupRequest,
  skips: CatchupPlan['skip'],
): Promise<void> {
  const nowEpochMs = ctx.clock().getTime();
  let unrecorded = 0;
  let recordedOutside = 0;
  for (const { occurrence, reason } of skips) {
    if (reason === 'outside-window' && recordedOutside++ >= MAX_RECORDED_OUTSIDE_WINDOW) {
      unrecorded++;
      continue;
    }
    const missed = reason !== 'paused' && isMissed(ctx, job, occurrence);
    const run = planned(job, occurrence, request, missed);
    const record: SkipRecord = {
      key: run.key,
      jobId: job.id,
      at: occurrence.at,
      nominal: occurrence.nominal,
      dst: occurrence.dst,
      origin: run.origin,
      reason,
      detail: skipDetail(job, reason),
      missed,
      nowEpochMs,
      outboxLeaseUntilEpochMs: nowEpochMs + ctx.options.outboxLeaseSeconds * 1000,
      ttlEpochSec: Math.floor(nowEpochMs / 1000) + ctx.options.retentionDays * 86_400,
    };
    if (!(await ctx.ledger.recordSkipped(record))) continue;
    ctx.metrics.job(job.id, reason === 'paused' ? 'SkippedPaused' : 'CatchupDropped');
    ctx.logger.warn('skipped', logFields(run, { decision: `skipped-${reason}`, reason }));
    if (missed) {
      reportMissed(ctx, run, `skipped (${reason})`);
      await performNewOutbox(ctx, skippedItem(record), {}, ['notify:missed'], ['missed']);
    }
  }
  if (unrecorded > 0) {
    ctx.metrics.job(job.id, 'CatchupDropped', unrecorded);
    ctx.logger.warn('skipped', {
      decision: 'skipped-outside-window',
      jobId: job.id,
      count: unrecorded,
      hint: `runs older than the catch-up window, beyond the ${MAX_RECORDED_OUTSIDE_WINDOW} recorded one by one`,
    });
  }
}

/** The item a recorded skip wrote, as the outbox needs it. */
function skippedItem(record: SkipRecord): RunItem {
  return {
    key: record.key,
    jobId: record.jobId,
    at: record.at.toISOString(),
    nominal: record.nominal,
    dst: record.dst,
    status: 'skipped',
    skipReason: record.reason,
    lastError: record.detail,
    attempts: 0,
    roundAttempts: 0,
    generation: 0,
    manual: false,
    origin: record.origin,
    signals: [],
    outbox: [],
  };
}

function skipDetail(job: JobDefinition, reason: SkipReason): string {
  const window = `${job.catchup.windowSeconds}s`;
  switch (reason) {
    case 'outside-window':
      return `older than the catch-up window (${window}) when it was caught up`;
    case 'paused':
      return 'the job was paused';
    case 'catch-up-none':
      return 'catchup.policy none: a run its own tick did not deliver is not caught up';
    case 'catch-up-latest':
      return 'catchup.policy latest: only the newest due run is caught up';
    case 'max-runs':
      return `catchup.maxRuns ${job.catchup.maxRuns}: older runs of the burst were dropped`;
    case 'overlap':
      return 'concurrency forbid: the previous run was still running';
  }
}
