import { type JobDefinition, movesRuns } from '#jobs/job.ts';
import type {
  JobStateItem,
  MissedIncident,
  PauseSpan,
  RunItem,
  SkipRange,
  SkipReason,
  SkipRecord,
} from '#ledger/index.ts';
import { keyInstantOf, type Occurrence, periodBucket } from '../schedule/index.ts';
import { type CoreContext, performNewOutbox } from './context.ts';
import { deliverRun, reportMissed } from './deliver-run.ts';
import {
  type GapScan,
  type GapSkip,
  inPause,
  MAX_SKIPS_RECORDED,
  POLICY_SKIP_REASON,
  pauseSpans,
  scanGap,
} from './gap.ts';
import {
  deliveryOrder,
  inTurn,
  isSameRun,
  logFields,
  type PlannedRun,
  type RunOutcome,
  runKeyOf,
  runsAt,
  tickRun,
} from './planned-run.ts';

/** What a catch-up is asked to decide. */
export interface CatchupRequest {
  /** Decide runs up to and including this instant. */
  readonly upTo: Date;
  /**
   * The tick's own runs, when a tick started the catch-up (delivered whatever the policy): every
   * run due at its instant, in run order (several when a calendar moved runs onto it).
   */
  readonly own?: readonly Occurrence[];
  /**
   * Runs the sweep found at or before the watermark with no item and in no gap's range (a
   * writer died in between).
   */
  readonly orphans?: readonly Occurrence[];
  /**
   * A run newer than `upTo` is due already (its tick is within its grace): under `latest`
   * nothing older is worth delivering.
   */
  readonly newerDue?: boolean;
  readonly origin: 'tick' | 'sweep';
}

/** One gap's decision: what is delivered, what is skipped one by one, and the range. */
interface GapPlan {
  /**
   * Oldest first: orphans, the policy's candidates, then the tick's own run; newest first for a
   * forbid job (only one of them can hold the slot, and the newest is the one worth running).
   */
  readonly deliver: readonly Occurrence[];
  readonly skips: readonly GapSkip[];
  readonly range?: SkipRange;
  /** How many of `deliver` are caught up from the gap (the policy's budget spends them). */
  readonly caughtUp: number;
  /**
   * Whether the tick delivers its own run, which ends the gap: not when the run is paused, or
   * already decided by another (a sweep that decided it and died before it moved W).
   */
  readonly endsGap: boolean;
  /** The gap's first run, if it has any. */
  readonly firstMs?: number;
  /** The orphans at W their dying tick left, delivered as that tick's own (`tickOrphans`). */
  readonly ticksOrphans: readonly Occurrence[];
}

/**
 * The fast path's run: its tick moved W straight to it (`swapWatermark`), keeping the budget of
 * any gap W was behind. The gap ends only once the claim is the tick's: a run another already
 * decided (a sweep that skipped it and died before it moved W, or is still finishing) leaves
 * the gap and its budget as they are, like a late tick's catch-up does.
 *
 * ```
 *   swap W := S (gapCaughtUp kept) ── claim S ──ours──> endGap: gapCaughtUp cleared
 *                                            └─refused──> duplicate: the gap goes on
 * ```
 *
 * Only a swap that found a budget costs the extra write; an on-time run stays at its requests.
 *
 * @example
 * await deliverOnTime(ctx, job, own, { swapped: true, gapCaughtUp: 1 })
 * //=> { outcome: 'dispatched', ... } (and the job state no longer has gapCaughtUp)
 */
export async function deliverOnTime(
  ctx: CoreContext,
  job: JobDefinition,
  own: Occurrence,
  swap: { readonly gapCaughtUp?: number },
): Promise<RunOutcome> {
  const run = tickRun(job, own);
  if (!swap.gapCaughtUp) return deliverRun(ctx, run);
  return deliverRun(ctx, run, async (item) => {
    if (ownedByItsTick(item)) await ctx.ledger.endGap(job.id, own.at);
  });
}

/**
 * Decides every undecided run of one job up to `upTo`, under the job's catch-up lease: the one
 * place catch-up policy is applied, for late ticks and for the sweep alike.
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
  return inTurn(deliveryOrder(job, request.own ?? []), (own) =>
    deliverRun(ctx, planned(job, own, request, false)),
  );
}

/**
 * {@link catchUpJob} when this dispatcher gets the job's catch-up lease; undefined when
 * another holds it (it may be deciding these runs now, or have died holding it: the lease
 * ends by itself).
 *
 * ```
 *   runs of the job: ─(W ── outside-window ──[upTo-window ── newest `keep` delivered ──] upTo
 *                        the rest of the gap: skipped, the newest 100 one by one, the others
 *                        in one range item; a run inside a pause: skipped(paused)
 * ```
 *
 * The gap's policy budget is shared by every catch-up until a tick delivers its own run (the
 * job state's `gapCaughtUp`), so the tick and the sweep, whichever comes first, and the
 * sweep's chunks, never deliver more than `maxRuns` of one gap. The watermark moves to `upTo`
 * once every skip is recorded, before the deliveries: a catch-up that fails before leaves the
 * watermark, so a later catch-up (the retry of its event, a later sweep or tick) decides the
 * gap again; the skips already recorded stand (conditional writes, first one wins), and a
 * newer run whose own tick comes first is delivered as that tick's (docs/semantics.md §6). One
 * that fails delivering leaves orphans, which the sweep delivers.
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
  const acquired = await ctx.ledger.acquireCatchup(job.id, nowEpochMs, leaseUntilEpochMs);
  if (!acquired) return undefined;
  const state = await withGapEnded(ctx, job, acquired);
  const { plan, incident } = await decideGap(ctx, job, request, state, leaseUntilEpochMs);
  const outcomes: RunOutcome[] = ownSkipped(job, request, plan);
  for (const occurrence of plan.deliver) {
    const run = planned(job, occurrence, request, isMissedRun(ctx, job, occurrence, request, plan));
    const origin = isAmong(occurrence, plan.ticksOrphans) ? { origin: 'tick' as const } : {};
    outcomes.push(await deliverRun(ctx, withIncident({ ...run, ...origin }, incident)));
  }
  return outcomes;
}

/**
 * Plans the gap, records its skips and range, then moves W and records the budget spent, all
 * before any delivery: a dispatcher that dies delivering leaves runs at or before W with no
 * item, which the sweep delivers as orphans, and never a budget that a later catch-up of the
 * same gap spends again. Gives the lease back whatever happens.
 */
async function decideGap(
  ctx: CoreContext,
  job: JobDefinition,
  request: CatchupRequest,
  state: JobStateItem,
  leaseUntilEpochMs: number,
): Promise<{ plan: GapPlan; incident: MissedIncident | undefined }> {
  let finished: { upTo: Date; gapCaughtUp: number } | undefined;
  try {
    const plan = await planGap(ctx, job, state, request);
    const incident = await recordSkips(ctx, job, request, plan);
    finished = { upTo: request.upTo, gapCaughtUp: budgetSpent(state, plan) };
    return { plan, incident };
  } finally {
    await ctx.ledger.finishCatchup(job.id, leaseUntilEpochMs, finished);
  }
}

/**
 * The job state with no budget spent when the run at W is its tick's: a fast-path tick that
 * claimed its own run and died before it ended the gap (`endGap`) still ended it, and so did
 * one that moved W onto it and died before its claim (no item at W, `swappedAt`): the sweep
 * delivers that orphan as the tick's own. A run its tick skipped for a pause was not delivered
 * and ends nothing: the gap's budget goes on past the pause. Read only while a budget is
 * recorded, which is rare: a gap caught up in more than one catch-up.
 */
async function withGapEnded(
  ctx: CoreContext,
  job: JobDefinition,
  state: JobStateItem,
): Promise<JobStateItem> {
  if (!state.gapCaughtUp || !state.watermarkAt) return state;
  // Of several runs at W, the first in run order: its tick claims it first.
  const key = firstKeyAt(job, new Date(state.watermarkAt));
  const atW = key === undefined ? undefined : (await ctx.ledger.getRuns([key], true)).get(key);
  const claimed = atW ? ownedByItsTick(atW) && atW.skipReason !== 'paused' : swappedAtW(state);
  return claimed ? { ...state, gapCaughtUp: 0 } : state;
}

/** Whether W stands where the fast path's tick moved it, onto that tick's own run. */
function swappedAtW(state: JobStateItem): boolean {
  return state.swappedAt !== undefined && state.swappedAt === state.watermarkAt;
}

/**
 * The sweep's orphans at W that the fast path's tick left (it moved W onto its own runs and
 * died before their claims): delivered as that tick's own runs (origin tick), as the tick meant
 * to, so they end the gap like the tick's delivery would (§6 Gaps and catch-up).
 *
 * @example
 * tickOrphans({ watermarkAt: s, swappedAt: s, … }, [older, runAtS]) //=> [runAtS]
 */
function tickOrphans(state: JobStateItem, live: readonly Occurrence[]): Occurrence[] {
  return swappedAtW(state) ? live.filter((o) => o.at.toISOString() === state.watermarkAt) : [];
}

/**
 * The key of the job's first run (in run order) at `at`, or undefined when `at` is no run. A
 * job whose calendar moves no run has at most one run at an instant, keyed by it: no engine call.
 */
function firstKeyAt(job: JobDefinition, at: Date): string | undefined {
  if (!movesRuns(job)) return periodBucket(job.id, at);
  const first = runsAt(job, at)[0];
  return first === undefined ? undefined : keyOf(job, first);
}

/**
 * The gap's budget spent once this catch-up delivers: a tick that delivers its own run ends the
 * gap, so the next one has a budget of its own.
 */
function budgetSpent(state: JobStateItem, plan: GapPlan): number {
  if (plan.endsGap) return 0;
  return (state.gapCaughtUp ?? 0) + plan.caughtUp;
}

/** The tick's own run's outcome when its pause skipped it (the delivered ones come after). */
function ownSkipped(job: JobDefinition, request: CatchupRequest, plan: GapPlan): RunOutcome[] {
  return (request.own ?? [])
    .filter((own) => !isAmong(own, plan.deliver))
    .map((own) => ({
      key: keyOf(job, own),
      jobId: job.id,
      at: own.at.toISOString(),
      outcome: 'skipped',
      reason: 'paused',
      detail: skipDetail(job, 'paused'),
    }));
}

/** Whether the run is one of `runs` (the same key instant). */
function isAmong(run: Occurrence, runs: readonly Occurrence[] | undefined): boolean {
  return runs?.some((o) => isSameRun(run, o)) ?? false;
}

/** Past its grace: nobody delivered it in time. */
function isMissed(ctx: CoreContext, job: JobDefinition, occurrence: Occurrence): boolean {
  return ctx.clock().getTime() > occurrence.at.getTime() + job.alarm.graceSeconds * 1000;
}

/**
 * A delivered run of the gap that is missed: not a tick's own run, on time by definition (or
 * `late`), nor the orphan its dying tick left (delivered as the tick's own).
 */
function isMissedRun(
  ctx: CoreContext,
  job: JobDefinition,
  occurrence: Occurrence,
  request: CatchupRequest,
  plan: Pick<GapPlan, 'ticksOrphans'>,
): boolean {
  if (isAmong(occurrence, request.own) || isAmong(occurrence, plan.ticksOrphans)) return false;
  return isMissed(ctx, job, occurrence);
}

function planned(
  job: JobDefinition,
  occurrence: Occurrence,
  request: CatchupRequest,
  missed: boolean,
): PlannedRun {
  const own = isAmong(occurrence, request.own);
  return {
    ...tickRun(job, occurrence),
    origin: own ? 'tick' : request.origin === 'sweep' ? 'sweep' : 'catch-up',
    mode: own ? 'any' : 'create',
    missed,
  };
}

/** How many of a gap's newest runs in the window the policy may still deliver. */
function budgetOf(job: JobDefinition, state: JobStateItem): number {
  switch (job.catchup.policy) {
    case 'all':
      return Math.max(0, job.catchup.maxRuns - (state.gapCaughtUp ?? 0));
    case 'latest':
      return (state.gapCaughtUp ?? 0) > 0 ? 0 : 1;
    case 'none':
      return 0;
  }
}

/** Scans the gap, reads what its candidates already have, and applies the policy. */
async function planGap(
  ctx: CoreContext,
  job: JobDefinition,
  state: JobStateItem,
  request: CatchupRequest,
): Promise<GapPlan> {
  const upToMs = request.upTo.getTime();
  const ownRuns = request.own ?? [];
  const afterMs = Date.parse(state.watermarkAt ?? state.sinceAt ?? request.upTo.toISOString());
  const pauses = pauseSpans(state);
  const countFromMs = Math.max(afterMs, upToMs - ctx.options.retentionDays * 86_400_000);
  const scan = scanGap(job, {
    afterMs,
    upToMs,
    countFromMs,
    ...(ownRuns[0] ? { ownMs: ownRuns[0].at.getTime() } : {}),
    pauses,
    keep: budgetOf(job, state),
  });
  // The tick's own runs are read too: one another decided does not end the gap.
  const ownKeys = ownRuns.map((o) => keyOf(job, o));
  const existing = await ctx.ledger.getRuns(
    [...scan.candidates.map((o) => keyOf(job, o)), ...ownKeys],
    true,
  );
  const undecided = scan.candidates.filter((o) => !existing.has(keyOf(job, o)));
  // Under latest, a newer run due or decided makes the gap's moot: a tick's own run is one, and
  // so is a run of the gap inside a pause (skipped for it; a resume --catch-up may replay it).
  const newestCandidateMs = scan.candidates.at(-1)?.at.getTime() ?? Number.POSITIVE_INFINITY;
  const passLatest =
    job.catchup.policy === 'latest' &&
    (request.newerDue === true ||
      ownRuns.length > 0 ||
      (scan.lastMs ?? 0) > newestCandidateMs ||
      undecided.length < scan.candidates.length);
  const deliver = passLatest ? [] : undecided;
  const dropped = passLatest ? undecided : [];
  const orphans = sortOrphans(request, scan.windowStartMs, pauses);
  const ticksOrphans = tickOrphans(state, orphans.live);
  const ownPaused = ownRuns[0] !== undefined && inPause(pauses, ownRuns[0].at.getTime());
  const own = ownPaused ? [] : ownRuns;
  const oldestFirst = [...orphans.live, ...deliver, ...own];
  return {
    // A forbid job's runs take one slot: the newest goes first, the older find it held.
    deliver: job.concurrency === 'forbid' ? oldestFirst.reverse() : oldestFirst,
    skips: [
      ...orphans.skips,
      ...scan.skips,
      ...dropped.map((occurrence) => ({ occurrence, reason: 'catch-up-latest' as const })),
      ...(ownPaused
        ? ownRuns.map((occurrence) => ({ occurrence, reason: 'paused' as const }))
        : []),
    ],
    ...(scan.needsRange
      ? { range: rangeOf(ctx, job, { afterMs, countFromMs }, scan, pauses) }
      : {}),
    caughtUp: deliver.length,
    endsGap: own.length > 0 && ownedByItsTick(existing.get(ownKeys[0] ?? '')),
    ...(scan.firstMs === undefined ? {} : { firstMs: scan.firstMs }),
    ticksOrphans,
  };
}

/** A tick's own run still its tick's: undecided, or claimed by a copy or retry of that tick. */
function ownedByItsTick(item: RunItem | undefined): boolean {
  return item === undefined || item.origin === 'tick';
}

function keyOf(job: JobDefinition, occurrence: Occurrence): string {
  return runKeyOf(job.id, occurrence);
}

/** The range item of a gap's runs that have no item of their own. */
function rangeOf(
  ctx: CoreContext,
  job: JobDefinition,
  { afterMs, countFromMs }: { readonly afterMs: number; readonly countFromMs: number },
  scan: GapScan,
  pauses: readonly PauseSpan[],
): SkipRange {
  return {
    jobId: job.id,
    afterMs,
    beforeMs: scan.rangeBeforeMs,
    windowStartMs: scan.windowStartMs,
    policyReason: POLICY_SKIP_REASON[job.catchup.policy],
    pauses: pauses.map((p) => ({ fromMs: p.fromMs, toMs: Math.min(p.toMs, scan.rangeBeforeMs) })),
    runs: scan.rangeRuns,
    pausedRuns: scan.rangePaused,
    countedFromMs: countFromMs,
    decidedAt: ctx.clock().toISOString(),
  };
}

/**
 * The sweep's orphans (runs at or before W with no item and in no gap's range: a dispatcher
 * moved W and died before its claim), oldest first: those still to deliver (inside the window,
 * not paused), and the others, skipped like any run of a gap, so none stays undecided.
 */
function sortOrphans(
  request: CatchupRequest,
  windowStartMs: number,
  pauses: readonly PauseSpan[],
): { live: Occurrence[]; skips: GapSkip[] } {
  const live: Occurrence[] = [];
  const skips: GapSkip[] = [];
  for (const occurrence of uniqueSorted(request.orphans ?? [])) {
    const ms = occurrence.at.getTime();
    if (inPause(pauses, ms)) skips.push({ occurrence, reason: 'paused' });
    else if (ms < windowStartMs) skips.push({ occurrence, reason: 'outside-window' });
    else live.push(occurrence);
  }
  return { live, skips };
}

/** The runs once each (by key instant), in run order: by instant, then key instant. */
function uniqueSorted(occurrences: readonly Occurrence[]): Occurrence[] {
  const byKey = new Map(occurrences.map((o) => [keyInstantOf(o).getTime(), o]));
  return [...byKey.values()].sort(runOrder);
}

/** Run order: by instant, then by key instant (the engine's order of runs sharing an instant). */
function runOrder(a: Occurrence, b: Occurrence): number {
  return a.at.getTime() - b.at.getTime() || keyInstantOf(a).getTime() - keyInstantOf(b).getTime();
}

/** A gap's missed runs, oldest first: those it delivers past their grace and those it skips. */
interface MissedRuns {
  readonly runs: readonly Occurrence[];
  /** How many of them it delivers. */
  readonly delivered: number;
}

function missedRunsOf(
  ctx: CoreContext,
  job: JobDefinition,
  plan: GapPlan,
  request: CatchupRequest,
): MissedRuns {
  const delivered = plan.deliver.filter((o) => isMissedRun(ctx, job, o, request, plan));
  const skipped = plan.skips.filter((s) => s.reason !== 'paused').map((s) => s.occurrence);
  const runs = [...delivered, ...skipped].sort(runOrder);
  return { runs, delivered: delivered.length };
}

/**
 * The one missed notification of a gap: carried by its newest missed run (delivered or
 * skipped), naming how many runs the gap held, the first and the last. A skip refused by an
 * item another wrote meanwhile (`notTheGaps`: an operator's backfill delivered the run) is not
 * one of them.
 *
 * @example
 * missedIncident(job, plan, { runs: [r17, r18], delivered: 0 }, new Set([keyOf(job, r17)]))
 * //=> { carrierKey: keyOf(job, r18), runs: 1, first: r18, last: r18, delivered: 0 }
 */
function missedIncident(
  job: JobDefinition,
  plan: GapPlan,
  all: MissedRuns,
  notTheGaps: ReadonlySet<string>,
): MissedIncident | undefined {
  const missed = all.runs.filter((o) => !notTheGaps.has(keyOf(job, o)));
  const carrier = missed.at(-1);
  if (!carrier) return undefined;
  const rangeMissed = plan.range ? plan.range.runs - plan.range.pausedRuns : 0;
  const ranged = rangeMissed > 0 && plan.firstMs !== undefined;
  // The range's runs come before the scan's others, but after any orphan it skips (before W).
  const oldestMs = (missed[0] as Occurrence).at.getTime();
  const first = new Date(ranged ? Math.min(oldestMs, plan.firstMs as number) : oldestMs);
  return {
    carrierKey: keyOf(job, carrier),
    runs: missed.length + rangeMissed,
    first: first.toISOString(),
    last: carrier.at.toISOString(),
    delivered: all.delivered,
  };
}

/**
 * Whether a run whose skip was refused is still the gap's: its item is a skip a catch-up wrote
 * (one of this gap that died before it moved W). Not one an operator or a tick decided.
 */
function skippedByACatchUp(existing: RunItem | undefined): boolean {
  return (
    existing === undefined ||
    (existing.status === 'skipped' &&
      (existing.origin === 'sweep' || existing.origin === 'catch-up'))
  );
}

function withIncident(run: PlannedRun, incident: MissedIncident | undefined): PlannedRun {
  if (!run.missed) return run;
  return incident?.carrierKey === run.key ? { ...run, incident } : { ...run, notify: false };
}

/**
 * Records the gap's skipped runs (each once, conditionally) and its range; counts and logs.
 * Returns the gap's missed incident: the skips go oldest first, so a run another decided
 * meanwhile is known to be none of the gap's before the newest, which carries it, is written.
 */
async function recordSkips(
  ctx: CoreContext,
  job: JobDefinition,
  request: CatchupRequest,
  plan: GapPlan,
): Promise<MissedIncident | undefined> {
  const all = missedRunsOf(ctx, job, plan, request);
  const notTheGaps = new Set<string>();
  let incident = missedIncident(job, plan, all, notTheGaps);
  const nowEpochMs = ctx.clock().getTime();
  const ttlEpochSec = Math.floor(nowEpochMs / 1000) + ctx.options.retentionDays * 86_400;
  if (plan.range) await recordRange(ctx, job, plan.range, ttlEpochSec);
  for (const { occurrence, reason } of plan.skips) {
    // A run the gap skips was not run: missed, unless a pause skipped it.
    const missed = reason !== 'paused';
    const run = withIncident(planned(job, occurrence, request, missed), incident);
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
      ...(run.notify === false ? { notify: false } : {}),
      ...(run.incident ? { incident: run.incident } : {}),
      nowEpochMs,
      outboxLeaseUntilEpochMs: nowEpochMs + ctx.options.outboxLeaseSeconds * 1000,
      ttlEpochSec,
    };
    const recorded = await ctx.ledger.recordSkipped(record);
    if (!recorded.recorded) {
      if (missed && !skippedByACatchUp(recorded.existing)) {
        notTheGaps.add(run.key);
        incident = missedIncident(job, plan, all, notTheGaps);
      }
      continue;
    }
    ctx.metrics.job(job.id, reason === 'paused' ? 'SkippedPaused' : 'CatchupDropped');
    // upTo: where the gap's window ends, for a reason that depends on when it was decided.
    const fields = { decision: `skipped-${reason}`, reason, upTo: request.upTo.toISOString() };
    ctx.logger.warn('skipped', logFields(run, fields));
    if (missed) reportMissed(ctx, run, `skipped (${reason})`);
    if (missed && run.incident) {
      await performNewOutbox(ctx, skippedItem(record), {}, ['notify:missed'], ['missed']);
    }
  }
  return incident;
}

/** Writes a gap's range item and counts and logs the runs it stands for. */
async function recordRange(
  ctx: CoreContext,
  job: JobDefinition,
  range: SkipRange,
  ttlEpochSec: number,
): Promise<void> {
  await ctx.ledger.recordSkipRange(range, ttlEpochSec);
  // Older than the runs recorded one by one, each past its grace: missed, unless paused.
  const missed = range.runs - range.pausedRuns;
  if (missed > 0) {
    ctx.metrics.job(job.id, 'CatchupDropped', missed);
    ctx.metrics.job(job.id, 'MissedRuns', missed);
  }
  if (range.pausedRuns > 0) ctx.metrics.job(job.id, 'SkippedPaused', range.pausedRuns);
  ctx.logger.warn('skipped', {
    decision: 'skipped-range',
    jobId: job.id,
    after: new Date(range.afterMs).toISOString(),
    before: new Date(range.beforeMs).toISOString(),
    count: range.runs,
    hint: `the gap's older runs, beyond the ${MAX_SKIPS_RECORDED} recorded one by one: one range item stands for them`,
  });
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
    ...(record.incident ? { incident: record.incident } : {}),
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
