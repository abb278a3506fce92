import { type JobDefinition, scheduleIdOf, scheduleSpecOf } from '#jobs/job.ts';
import { inLastPause, type JobStateItem, reasonInRange } from '#ledger/index.ts';
import { type Occurrence, occurrencesBetween } from '../schedule/index.ts';
import { catchUpJob, catchUpUnderLease, deliverOnTime } from './catch-up.ts';
import type { CoreContext } from './context.ts';
import { deliverRun } from './deliver-run.ts';
import type { TickEvent } from './events.ts';
import {
  deliveryOrder,
  inTurn,
  logFields,
  type RunOutcome,
  runsAt,
  tickRun,
} from './planned-run.ts';

/** Who pauses a job that jobs.yaml disables (`enabled: false`). */
export const CONFIG_PAUSED_BY = 'jobs.yaml';

/** What one tick did. */
export interface TickResult {
  readonly kind: 'tick';
  readonly jobId: string;
  readonly scheduledAt: string;
  /** Runs claimed, skipped or attempted, oldest first. */
  readonly outcomes: readonly RunOutcome[];
}

/** Growing steps of the search for a job's previous run, in seconds: up to eight years. */
const PREVIOUS_RUN_STEPS = [120, 3_600, 86_400, 32 * 86_400, 366 * 86_400, 8 * 366 * 86_400];

/**
 * The job's last run before `at`, or undefined when it has none in eight years (a leap-day job
 * can wait that long). Searched in growing steps, so a frequent job costs one small engine
 * call. Not bounded by the catch-up window: a watermark behind it means runs were never
 * decided, and the catch-up records those older than the window as skipped.
 *
 * @example
 * previousRun({ cron: '0 * * * *', timezone: 'UTC' }, new Date('2023-06-01T10:00Z'))?.at
 * //=> 2023-06-01T09:00:00.000Z
 */
export function previousRun(
  spec: ReturnType<typeof scheduleSpecOf>,
  at: Date,
): Occurrence | undefined {
  const end = new Date(at.getTime() - 1);
  for (const seconds of PREVIOUS_RUN_STEPS) {
    const runs = occurrencesBetween(spec, new Date(at.getTime() - seconds * 1000), end);
    const last = runs.at(-1);
    if (last) return last;
  }
  return undefined;
}

/**
 * Handles one per-job tick at S (already validated: known, enabled, not in the future).
 *
 * ```
 *   S is no run of the job (the covering's other DST variant)  → nothing, no request
 *   swap W: P <= W < S, not paused                               → deliver S   (3 requests)
 *   (S stands for every run due at S: several when a calendar moved runs onto it, each claimed
 *   under its own key, in run order)
 *   otherwise, by the job's state:
 *     none yet          → on the roster, W = since = S, deliver S
 *     paused            → S skipped(paused); or resumed when the pause ended / jobs.yaml re-enabled it
 *     W >= S            → a retried tick: deliver S (the claim refuses a duplicate), or a
 *                         late tick of a run inside the last pause: S skipped(paused)
 *     W < P             → catch-up of (W, S] under the job's policy, S always delivered
 * ```
 */
export async function handleTick(
  ctx: CoreContext,
  job: JobDefinition,
  event: TickEvent,
): Promise<TickResult> {
  const s = event.scheduledAt;
  const result = (outcomes: readonly RunOutcome[]): TickResult => ({
    kind: 'tick',
    jobId: job.id,
    scheduledAt: s.toISOString(),
    outcomes,
  });
  const own = runsAt(job, s);
  if (own.length === 0) return result([]);
  const previous = previousRun(scheduleSpecOf(job), s);
  const swap = await ctx.ledger.swapWatermark(job.id, {
    previous: previous?.at,
    scheduledAt: s,
    scheduleId: scheduleIdOf(job),
  });
  if (swap.swapped) {
    return result(
      await inTurn(deliveryOrder(job, own), (run) => deliverOnTime(ctx, job, run, swap)),
    );
  }
  return result(await slowPath(ctx, job, own, previous, swap.state));
}

/** The instant S the tick's runs are due at (they all are). */
function dueAt(own: readonly Occurrence[]): Date {
  return (own[0] as Occurrence).at;
}

async function slowPath(
  ctx: CoreContext,
  job: JobDefinition,
  own: readonly Occurrence[],
  previous: Occurrence | undefined,
  read: JobStateItem | undefined,
): Promise<RunOutcome[]> {
  const s = dueAt(own);
  if (!read?.sinceAt) {
    // On the roster before its state exists: a deploy that drops the job ends it, even when no
    // sweep of this bundle ever enrolled it (the roster without a state is harmless).
    await ctx.ledger.enrol([job.id]);
    if (read?.pausedAt) return inTurn(own, (run) => skipPaused(ctx, job, run, read));
    await ctx.ledger.createJobState(job.id, s, scheduleIdOf(job));
    return inTurn(deliveryOrder(job, own), (run) => deliverRun(ctx, tickRun(job, run)));
  }
  // The first tick under a new schedule: it takes effect just before S at the latest.
  const state = await adoptedSchedule(ctx, job, read, new Date(s.getTime() - 1));
  const sinceAt = state.sinceAt ?? read.sinceAt;
  if (s.getTime() < Date.parse(sinceAt)) {
    return inTurn(own, (run) => beforeFirstRun(ctx, job, run, state));
  }
  if (state.pausedAt) return paused(ctx, job, own, previous, state);
  if (Date.parse(state.watermarkAt ?? sinceAt) >= s.getTime()) {
    return inTurn(deliveryOrder(job, own), (run) => repeatedTick(ctx, job, run, state));
  }
  return catchUpJob(ctx, job, { upTo: s, own, origin: 'tick' });
}

/**
 * A tick of a run at or before W: a repeated or late tick. The run was decided: by its own item
 * (the claim refuses a duplicate), as part of the last pause, or inside a gap's skip range.
 */
async function repeatedTick(
  ctx: CoreContext,
  job: JobDefinition,
  own: Occurrence,
  state: JobStateItem,
): Promise<RunOutcome> {
  // A tick late enough to arrive after its pause ended: the run fell in the pause.
  if (inLastPause(state, own.at)) return skipPaused(ctx, job, own, state);
  // A gap's range holds only runs older than the newest it decided, which is W: the repeated
  // tick of the newest run (the common duplicate) needs no look.
  const older = Date.parse(state.watermarkAt ?? '') > own.at.getTime();
  const range = older ? await ctx.ledger.findSkipRange(job.id, own.at) : undefined;
  const reason = range && reasonInRange(range, own.at);
  if (!range || !reason) return deliverRun(ctx, tickRun(job, own));
  const run = tickRun(job, own);
  ctx.logger.info('duplicate', logFields(run, { decision: 'duplicate', existing: 'skip-range' }));
  ctx.metrics.job(job.id, 'DuplicatesSuppressed');
  const detail = `decided with its gap at ${range.decidedAt}`;
  return {
    key: run.key,
    jobId: job.id,
    at: own.at.toISOString(),
    outcome: 'skipped',
    reason,
    detail,
  };
}

/** A tick of a run before the job's first: nothing was expected then; ignored and counted. */
function beforeFirstRun(
  ctx: CoreContext,
  job: JobDefinition,
  own: Occurrence,
  state: JobStateItem,
): RunOutcome {
  const run = tickRun(job, own);
  ctx.metrics.global('RejectedTicks');
  ctx.logger.warn('ignored', {
    ...logFields(run, { decision: 'ignored' }),
    message: 'before-first-run',
    sinceAt: state.sinceAt,
  });
  return {
    key: run.key,
    jobId: job.id,
    at: own.at.toISOString(),
    outcome: 'skipped',
    reason: 'outside-window',
    detail: `before the job's first run (${state.sinceAt}): not a run of this deploy`,
  };
}

/**
 * The job state under the job's schedule as deployed: when W was decided under another one (a
 * deploy changed the expression, zone or DST policies), or a deploy had removed the job and this
 * one lists it again, the schedule takes effect at the deploy instant (the first event of the
 * bundle, `eventAt` when this is it) and W moves up to it, so none of its runs at or before
 * it is delivered or missed; its runs after it that no tick decided are a gap like any other.
 * Whoever adopts it first wins; the others read the state it wrote.
 *
 * ```
 *   old schedule ──── W ─────────── deploy instant ──── new schedule's runs from here on
 *                        not runs: neither delivered nor missed
 * ```
 */
export async function adoptedSchedule(
  ctx: CoreContext,
  job: JobDefinition,
  state: JobStateItem,
  eventAt: Date,
): Promise<JobStateItem> {
  const scheduleId = scheduleIdOf(job);
  const changed = state.scheduleId !== undefined && state.scheduleId !== scheduleId;
  if (!changed && !state.removedAt) return state;
  // Its retirement took it off the roster: back on before it starts again, like a first tick.
  if (state.removedAt) await ctx.ledger.enrol([job.id]);
  const at = await ctx.deployInstant(eventAt);
  if (await ctx.ledger.adoptSchedule(state, { scheduleId, at })) {
    const decision = state.removedAt ? 'job-listed-again' : 'schedule-changed';
    ctx.logger.info(decision, {
      decision,
      jobId: job.id,
      ...(changed ? { from: state.scheduleId, to: scheduleId } : { removedAt: state.removedAt }),
      effectiveAt: at.toISOString(),
      hint: 'runs before this instant are not runs of this deploy: none is delivered or missed',
    });
  }
  const now = await ctx.ledger.getJobState(job.id);
  return now ?? state;
}

/** True when a pause no longer applies: its end passed, or jobs.yaml enables the job again. */
export function pauseEnded(job: JobDefinition, state: JobStateItem, now: Date): boolean {
  if (state.pausedBy === CONFIG_PAUSED_BY) return job.enabled;
  return state.pausedUntil !== undefined && Date.parse(state.pausedUntil) <= now.getTime();
}

/**
 * When an ended pause ended: at its `--until` instant, however late the first tick or sweep
 * after it came (a run due after it is live, one due before it was paused); now for a pause
 * that jobs.yaml ended.
 *
 * @example
 * pauseEndAt({ jobId: 'j', pausedAt: '…', pausedUntil: '2023-06-01T10:30:00.000Z' },
 *   new Date('2023-06-01T10:34:00Z')) //=> 2023-06-01T10:30:00.000Z
 */
export function pauseEndAt(state: JobStateItem, now: Date): Date {
  const until = state.pausedUntil === undefined ? Number.NaN : Date.parse(state.pausedUntil);
  return until < now.getTime() ? new Date(until) : now;
}

async function paused(
  ctx: CoreContext,
  job: JobDefinition,
  own: readonly Occurrence[],
  previous: Occurrence | undefined,
  state: JobStateItem,
): Promise<RunOutcome[]> {
  const s = dueAt(own);
  const now = ctx.clock();
  if (!pauseEnded(job, state, now)) {
    // Nothing undecided before it, and due inside the pause: the cheap skip.
    const watermarkMs = Date.parse(state.watermarkAt ?? state.sinceAt ?? '');
    const noGap = previous === undefined || watermarkMs >= previous.at.getTime();
    const ownPaused = s.getTime() >= Date.parse(state.pausedAt ?? '');
    if (noGap && ownPaused) return inTurn(own, (run) => skipPaused(ctx, job, run, state));
    return catchUpAround(ctx, job, own, state, ownPaused);
  }
  // A pause by jobs.yaml ends with the deploy that enables the job, whose first tick this is.
  const endedAt = state.pausedBy === CONFIG_PAUSED_BY && s < now ? s : pauseEndAt(state, now);
  await ctx.ledger.resume(job.id, { at: endedAt });
  ctx.logger.info('resumed', {
    decision: 'resumed',
    jobId: job.id,
    pausedAt: state.pausedAt,
    pausedBy: state.pausedBy,
    resumedAt: endedAt.toISOString(),
    by: state.pausedBy === CONFIG_PAUSED_BY ? 'jobs.yaml enables the job' : 'the pause ended',
  });
  // The runs since W, those of the pause skipped(paused), and S itself unless it fell in it.
  const ownPaused = Date.parse(state.pausedAt ?? '') <= s.getTime() && s < endedAt;
  return catchUpAround(ctx, job, own, state, ownPaused);
}

/**
 * The catch-up of a paused job's gap before S, and S; when another dispatcher holds the
 * catch-up lease, S alone: skipped(paused) if it is due inside the pause (W stays for the
 * holder to move), delivered otherwise.
 */
async function catchUpAround(
  ctx: CoreContext,
  job: JobDefinition,
  own: readonly Occurrence[],
  state: JobStateItem,
  ownPaused: boolean,
): Promise<RunOutcome[]> {
  const request = { upTo: dueAt(own), own, origin: 'tick' } as const;
  const decided = await catchUpUnderLease(ctx, job, request);
  if (decided) return decided;
  if (ownPaused) return inTurn(own, (run) => skipPaused(ctx, job, run, state, false));
  return inTurn(deliveryOrder(job, own), (run) => deliverRun(ctx, tickRun(job, run)));
}

/** Records a run of a paused job as skipped(paused) and (unless told not to) moves W past it. */
export async function skipPaused(
  ctx: CoreContext,
  job: JobDefinition,
  occurrence: Occurrence,
  state: JobStateItem,
  moveWatermark = true,
): Promise<RunOutcome> {
  const run = tickRun(job, occurrence);
  const nowEpochMs = ctx.clock().getTime();
  const detail = `paused by ${state.pausedBy ?? 'an operator'}${state.pauseReason ? `: ${state.pauseReason}` : ''}`;
  const { recorded } = await ctx.ledger.recordSkipped({
    key: run.key,
    jobId: job.id,
    at: occurrence.at,
    nominal: occurrence.nominal,
    dst: occurrence.dst,
    origin: 'tick',
    reason: 'paused',
    detail,
    missed: false,
    nowEpochMs,
    outboxLeaseUntilEpochMs: nowEpochMs,
    ttlEpochSec: Math.floor(nowEpochMs / 1000) + ctx.options.retentionDays * 86_400,
  });
  if (moveWatermark) await ctx.ledger.advanceWatermark(job.id, occurrence.at);
  if (recorded) {
    ctx.metrics.job(job.id, 'SkippedPaused');
    ctx.logger.info('skipped', logFields(run, { decision: 'skipped-paused', detail }));
  }
  return {
    key: run.key,
    jobId: job.id,
    at: occurrence.at.toISOString(),
    outcome: 'skipped',
    reason: 'paused',
    detail,
  };
}
