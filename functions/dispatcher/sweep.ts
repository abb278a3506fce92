import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { type JobStateItem, openShards, type RunItem, type SkipRange } from '#ledger/index.ts';
import { nextOccurrences, type Occurrence, occurrencesBetween } from '../schedule/index.ts';
import { catchUpUnderLease } from './catch-up.ts';
import type { CoreContext } from './context.ts';
import { brandDispatcherError } from './errors.ts';
import { type RunOutcome, recordedKeyInstant, runKeyOf } from './planned-run.ts';
import { reconcileRun, type Settled } from './reconcile.ts';
import { adoptedSchedule, CONFIG_PAUSED_BY, pauseEndAt, pauseEnded } from './tick.ts';

/** What one sweep found and did. */
export interface SweepResult {
  readonly kind: 'sweep';
  readonly scheduledAt: string;
  /** The range of sweep instants checked: each job's due window is this minus its grace. */
  readonly checked: { readonly from: string; readonly to: string };
  /** Enabled jobs looked at (engine only; no reads for jobs with nothing due). */
  readonly jobsChecked: number;
  /** Run keys read from the ledger (BatchGetItem, ≤ 100 per request). */
  readonly keysRead: number;
  /** Due runs no tick had decided: caught up or skipped by their job's policy. */
  readonly undecided: readonly { readonly jobId: string; readonly at: string }[];
  /** Runs the catch-ups delivered, in order. */
  readonly outcomes: readonly RunOutcome[];
  /**
   * Jobs with undecided runs whose catch-up lease another dispatcher held: the cursor stays,
   * so the next sweep checks the same minutes again.
   */
  readonly deferred: readonly string[];
  /** Open runs settled from the `byOpen` index. */
  readonly settled: readonly Settled[];
}

/**
 * Errors of a sweep's independent parts, all awaited: the sweep fails once, with all of them.
 *
 * An `AggregateError` (its parts in `errors`), branded as one of the dispatcher's errors
 * (`isDispatcherError`).
 */
export class SweepFailedError extends AggregateError {
  constructor(errors: readonly unknown[]) {
    super(errors, `sweep failed in ${errors.length} part(s): ${describe(errors[0])}`);
    this.name = new.target.name;
    brandDispatcherError(this);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The runs of a job in a window `(from, to]`, skipping the engine when a remembered "next run"
 * shows the window is empty.
 *
 * Sweep windows only move forward, so per job one fact is kept: the first run after instant A
 * is N. For a window with `A <= from < N` and `to < N` nothing is due and the engine is not
 * called: a daily job costs one engine call a day, not one per sweep. The cache lives as long
 * as the dispatcher (a warm Lambda container).
 */
export interface RunWindows {
  runsIn(job: JobDefinition, from: Date, to: Date): Occurrence[];
}

/**
 * Builds the sweep's window cache; see {@link RunWindows}.
 *
 * @example
 * const windows = createRunWindows();
 * windows.runsIn(dailyJob, new Date('2023-06-01T11:53Z'), new Date('2023-06-01T11:55Z'))
 * //=> [] (and the next sweeps of the day do not call the engine for this job)
 */
export function createRunWindows(): RunWindows {
  const next = new Map<string, { job: JobDefinition; afterMs: number; nextMs: number }>();
  return {
    runsIn(job, from, to) {
      const fromMs = from.getTime();
      const known = next.get(job.id);
      if (known?.job === job && known.afterMs <= fromMs && fromMs < known.nextMs) {
        if (to.getTime() < known.nextMs) return [];
      } else {
        const first = nextOccurrences(scheduleSpecOf(job), from, 1)[0];
        const nextMs = first ? first.at.getTime() : Number.POSITIVE_INFINITY;
        next.set(job.id, { job, afterMs: fromMs, nextMs });
        if (to.getTime() < nextMs) return [];
      }
      return occurrencesBetween(scheduleSpecOf(job), from, to);
    },
  };
}

/** What a sweep keeps between invocations of one container. */
export interface SweepMemory {
  readonly windows: RunWindows;
  /** The same, for the newest minute a sweep behind its backlog checks too. */
  readonly newest: RunWindows;
  /** Whether this container already took the roll call: disabled jobs paused, removed ones ended. */
  rollCalled: boolean;
  /** How far this container's sweeps have checked; read from the ledger at a cold start. */
  cursor: Date | undefined;
  /** The cursor last written to the ledger. */
  persisted: Date | undefined;
}

/** A fresh container's sweep memory. */
export function createSweepMemory(): SweepMemory {
  return {
    windows: createRunWindows(),
    newest: createRunWindows(),
    rollCalled: false,
    cursor: undefined,
    persisted: undefined,
  };
}

/**
 * How often a warm container writes its cursor to the ledger. A container that dies loses at
 * most this much progress: the next one checks those minutes again, which changes nothing.
 */
const CURSOR_PERSIST_MS = 10 * 60_000;

interface Due {
  readonly job: JobDefinition;
  readonly occurrence: Occurrence;
  readonly key: string;
}

/**
 * The one-minute safety net: every run that was due and undecided, and every open run.
 *
 * ```
 *            cursor C (the last sweep's S)                    S
 *   ─────────(──────────────────────────────────────────────]──> sweep instants
 *   job j's due window:  (C - grace_j, S - grace_j]   (after an outage, up to 30 min of it
 *                                                       per sweep, oldest first, and the
 *                                                       newest minute)
 * ```
 *
 * 1. **Undecided runs**: the engine lists each enabled job's runs in its due window; their keys
 *    are deterministic, so one batched read tells which exist. A job with a missing run is
 *    caught up under its own policy (`catchUpUnderLease`), the same code a late tick uses; runs
 *    before its first run or inside its last pause are not called missed. While another
 *    dispatcher holds the job's catch-up lease the cursor stays, so the next sweep looks at
 *    the same minutes again (the holder may die before it decided them).
 * 2. **Open runs**: every run in the `byOpen` index whose check time passed is settled
 *    (`reconcileRun`): retried, dead-lettered, reported stuck, or its outbox performed.
 * 3. Once per container, jobs that jobs.yaml disables are recorded as paused, so enabling them
 *    again never replays the disabled period, and the schedules it changed are adopted at its
 *    deploy instant.
 * 4. Last, the zone-data check (`ctx.zoneDrift`): the first sweep of a container compares
 *    synth's zone data with the runtime's; every sweep counts the drifted jobs and sends the
 *    notices still owed.
 *
 * Every part runs to the end even when another fails; the cursor moves only when all
 * succeeded, and otherwise the sweep throws one `SweepFailedError` with every error.
 */
export async function runSweep(
  ctx: CoreContext,
  scheduledAt: Date,
  memory: SweepMemory = createSweepMemory(),
): Promise<SweepResult> {
  const errors: unknown[] = [];
  // A cold container starts from the ledger's cursor (or a short lookback on a first run); a
  // failed sweep leaves the cursor where it was, so the next one checks the same minutes again.
  memory.cursor ??=
    (await ctx.ledger.getSweepCursor()) ??
    new Date(scheduledAt.getTime() - ctx.options.sweepLookbackSeconds * 1000);
  const range = sweepRange(ctx, scheduledAt, memory.cursor);
  const due = [
    ...dueRuns(ctx, range, memory.windows),
    ...newestDue(ctx, range, scheduledAt, memory),
  ];
  const records = due.length > 0 ? await ctx.ledger.getRuns(due.map((d) => d.key)) : new Map();
  const undecided = due.filter((d) => !records.has(d.key));
  const { outcomes, deferred } = await catchUpUndecided(ctx, undecided, scheduledAt, errors);
  const settled = await settleOpen(ctx, errors);
  if (!memory.rollCalled) {
    memory.rollCalled = await settle(errors, () => rollCall(ctx, scheduledAt), false);
  }
  // Never throws: a diagnosis does not hold the cursor back.
  await ctx.zoneDrift?.check();
  if (errors.length > 0) throw new SweepFailedError(errors);
  if (deferred.length > 0) logDeferred(ctx, deferred, range);
  else if (range.to > range.from) await moveCursor(ctx, memory, range.to, scheduledAt);
  return {
    kind: 'sweep',
    scheduledAt: scheduledAt.toISOString(),
    checked: { from: range.from.toISOString(), to: range.to.toISOString() },
    jobsChecked: ctx.jobs.all().filter((job) => job.enabled).length,
    keysRead: new Set(due.map((d) => d.key)).size,
    undecided: undecided.map((d) => ({ jobId: d.job.id, at: d.occurrence.at.toISOString() })),
    outcomes,
    deferred,
    settled,
  };
}

/** Runs `fn`, collecting its error instead of throwing; `fallback` then. */
async function settle<T>(errors: unknown[], fn: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    errors.push(error);
    return fallback;
  }
}

/** Runs `fn` over `items`, at most `limit` at a time, every one to its end. */
async function settleAll<T, R>(
  items: readonly T[],
  limit: number,
  errors: unknown[],
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        results.push(await fn(item));
      } catch (error) {
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Moves the cursor: in memory every time, in the ledger every ten minutes or while behind. */
async function moveCursor(ctx: CoreContext, memory: SweepMemory, to: Date, scheduledAt: Date) {
  memory.cursor = to;
  const behind = to < scheduledAt;
  if (
    behind ||
    !memory.persisted ||
    to.getTime() - memory.persisted.getTime() >= CURSOR_PERSIST_MS
  ) {
    await ctx.ledger.advanceSweepCursor(to);
    memory.persisted = to;
  }
}

/** The sweep instants this sweep checks: from the cursor, at most a chunk, never beyond S. */
function sweepRange(ctx: CoreContext, scheduledAt: Date, cursor: Date): { from: Date; to: Date } {
  const { options } = ctx;
  const sMs = scheduledAt.getTime();
  const earliest = sMs - options.sweepMaxBacklogSeconds * 1000;
  const fromMs = Math.min(sMs, Math.max(cursor.getTime(), earliest));
  const toMs = Math.min(sMs, fromMs + options.sweepChunkSeconds * 1000);
  return { from: new Date(fromMs), to: new Date(toMs) };
}

/**
 * A sweep behind its backlog (a cold container from an old cursor, the end of an outage) also
 * checks the newest minute, so a backlog never delays the decision of a run due now.
 */
function newestDue(
  ctx: CoreContext,
  range: { from: Date; to: Date },
  scheduledAt: Date,
  memory: SweepMemory,
): Due[] {
  const fromMs = Math.max(range.to.getTime(), scheduledAt.getTime() - 60_000);
  if (fromMs >= scheduledAt.getTime()) return [];
  return dueRuns(ctx, { from: new Date(fromMs), to: scheduledAt }, memory.newest);
}

function dueRuns(ctx: CoreContext, range: { from: Date; to: Date }, windows: RunWindows): Due[] {
  const due: Due[] = [];
  if (range.to <= range.from) return due;
  for (const job of ctx.jobs.all()) {
    if (!job.enabled) continue;
    const graceMs = job.alarm.graceSeconds * 1000;
    const from = new Date(range.from.getTime() - graceMs);
    const to = new Date(range.to.getTime() - graceMs);
    for (const occurrence of windows.runsIn(job, from, to)) {
      due.push({ job, occurrence, key: runKeyOf(job.id, occurrence) });
    }
  }
  return due;
}

/** Catches up each job that has undecided runs, under its own policy and lease. */
async function catchUpUndecided(
  ctx: CoreContext,
  undecided: readonly Due[],
  scheduledAt: Date,
  errors: unknown[],
): Promise<{ outcomes: RunOutcome[]; deferred: string[] }> {
  if (undecided.length === 0) return { outcomes: [], deferred: [] };
  const byJob = new Map<string, Due[]>();
  for (const d of undecided) byJob.set(d.job.id, [...(byJob.get(d.job.id) ?? []), d]);
  const states = await ctx.ledger.getJobStates([...byJob.keys()]);
  const deferred: string[] = [];
  const results = await settleAll(
    [...byJob.values()],
    ctx.options.sweepConcurrency,
    errors,
    async (list) => {
      const state = states.get(list[0]?.job.id ?? '');
      const outcomes = await catchUpJobRuns(ctx, list, state, scheduledAt);
      if (outcomes === undefined) deferred.push(list[0]?.job.id ?? '');
      return outcomes ?? [];
    },
  );
  return { outcomes: results.flat(), deferred };
}

/**
 * The job's undecided runs decided; undefined when another dispatcher holds its catch-up.
 *
 * The whole gap at once: up to the newest run past its grace at the sweep's instant, not only
 * the chunk of minutes this sweep checks, so the policy holds per gap (later chunks find its runs
 * decided). A pause is the catch-up's to apply: runs due before it are decided as if there were
 * none.
 */
async function catchUpJobRuns(
  ctx: CoreContext,
  list: readonly Due[],
  read: JobStateItem | undefined,
  scheduledAt: Date,
): Promise<RunOutcome[] | undefined> {
  const job = list[0]?.job;
  // A job that never ran (a fresh deploy), or runs before its first: nothing was expected.
  if (!job || !read?.sinceAt) return [];
  const upTo = new Date(scheduledAt.getTime() - job.alarm.graceSeconds * 1000);
  // Under a schedule deployed since W was decided, runs up to its deploy instant are not runs.
  const state = await adoptedSchedule(ctx, job, read, justBefore(scheduledAt));
  if (!state.sinceAt) return [];
  const since = Date.parse(state.sinceAt);
  const live = list.filter((d) => d.occurrence.at.getTime() >= since).map((d) => d.occurrence);
  if (live.length === 0) return [];
  if (state.pausedAt && pauseEnded(job, state, ctx.clock())) {
    await ctx.ledger.resume(job.id, { at: pauseEndAt(state, ctx.clock()) });
  }
  const watermarkMs = Date.parse(state.watermarkAt ?? state.sinceAt);
  const orphans = await unranged(
    ctx,
    job,
    live.filter((o) => o.at.getTime() <= watermarkMs),
  );
  // Every run found is one a gap's range decided: nothing is undecided.
  if (orphans.length === 0 && live.every((o) => o.at.getTime() <= watermarkMs)) return [];
  return catchUpUnderLease(ctx, job, {
    upTo,
    orphans,
    newerDue: newerRunDue(job, upTo, ctx.clock()),
    origin: 'sweep',
  });
}

/**
 * The runs at or before W that no gap's range stands for (oldest first): one range lookup per
 * range, not per run.
 */
async function unranged(
  ctx: CoreContext,
  job: JobDefinition,
  runs: readonly Occurrence[],
): Promise<Occurrence[]> {
  const left: Occurrence[] = [];
  let range: SkipRange | undefined;
  for (const o of [...runs].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    const ms = o.at.getTime();
    if (range && ms > range.afterMs && ms < range.beforeMs) continue;
    range = await ctx.ledger.findSkipRange(job.id, o.at);
    if (!range) left.push(o);
  }
  return left;
}

/** The instant an event at `at` makes a deploy take effect: just before it, so `at` is live. */
function justBefore(at: Date): Date {
  return new Date(at.getTime() - 1);
}

/** Another dispatcher is catching these jobs up: this sweep's minutes are checked again. */
function logDeferred(ctx: CoreContext, jobIds: readonly string[], range: { from: Date; to: Date }) {
  ctx.logger.info('catch-up-deferred', {
    decision: 'catch-up-deferred',
    jobIds,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    hint: 'another dispatcher holds the catch-up lease; the next sweep checks these minutes again',
  });
}

/** Whether a run of the job after `upTo` is due by `now`. */
function newerRunDue(job: JobDefinition, upTo: Date, now: Date): boolean {
  return now > upTo && occurrencesBetween(scheduleSpecOf(job), upTo, now).length > 0;
}

/** Settles every open run whose check time passed, shard by shard. */
async function settleOpen(ctx: CoreContext, errors: unknown[]): Promise<Settled[]> {
  const nowEpochMs = ctx.clock().getTime();
  const perShard = await settleAll(openShards(), ctx.options.sweepConcurrency, errors, (shard) =>
    ctx.ledger.findDue(shard, nowEpochMs, ctx.options.openRunsPerShard),
  );
  const items = perShard.flat().sort((a, b) => (a.checkAtEpochMs ?? 0) - (b.checkAtEpochMs ?? 0));
  const settled = await settleAll(
    slotLanes(ctx, items),
    ctx.options.sweepConcurrency,
    errors,
    (lane) => settleAll(lane, 1, errors, (item) => reconcileRun(ctx, item)),
  );
  return settled.flat();
}

/**
 * The open runs (in check order) as lanes the sweep settles side by side. The runs of one
 * `concurrency: forbid` job share a lane and are settled one after another (§6 Overlap), those
 * due at the same moment newest first, as a tick delivers an instant's runs: a retry that fails
 * gives the slot back before the next run asks for it, instead of the runs racing for it and
 * all but one skipped. Every other run is a lane of its own.
 */
function slotLanes(ctx: CoreContext, items: readonly RunItem[]): RunItem[][] {
  const lanes: RunItem[][] = [];
  const forbid = new Map<string, RunItem[]>();
  for (const item of items) {
    const job = ctx.jobs.get(item.jobId);
    if (job?.concurrency !== 'forbid') {
      lanes.push([item]);
      continue;
    }
    let lane = forbid.get(job.id);
    if (!lane) {
      lane = [];
      forbid.set(job.id, lane);
      lanes.push(lane);
    }
    lane.push(item);
  }
  for (const [jobId, lane] of forbid) {
    const job = ctx.jobs.get(jobId);
    if (!job || lane.length < 2) continue;
    const keyMs = new Map(lane.map((item) => [item, recordedKeyInstant(job, item).getTime()]));
    const checkAt = (item: RunItem) => item.checkAtEpochMs ?? 0;
    lane.sort((a, b) => checkAt(a) - checkAt(b) || (keyMs.get(b) ?? 0) - (keyMs.get(a) ?? 0));
  }
  return lanes;
}

/**
 * Once per container, what the deploy it runs says of every job: those it disables are paused
 * (by `jobs.yaml`), those it no longer lists are ended (`retire`), the others are on the roster.
 * A job enabled or listed again later starts from then on instead of replaying its absence.
 */
async function rollCall(ctx: CoreContext, scheduledAt: Date): Promise<boolean> {
  // The first sweep of a bundle is its deploy instant, unless a tick of a job it changed was.
  await ctx.deployInstant(justBefore(scheduledAt));
  const listed = new Set(ctx.jobs.all().map((job) => job.id));
  const roster = await ctx.ledger.readRoster();
  const unlisted = [...listed].filter((id) => !roster.has(id));
  if (unlisted.length > 0) await ctx.ledger.enrol(unlisted);
  const now = ctx.clock();
  for (const jobId of roster) {
    if (listed.has(jobId)) continue;
    if (await ctx.ledger.retire(jobId, now)) {
      ctx.logger.info('removed', {
        decision: 'removed',
        jobId,
        hint: 'this deploy no longer lists the job: listed again, it starts afresh',
      });
    }
  }
  await adoptSchedules(ctx, scheduledAt);
  return stampDisabledJobs(ctx);
}

/**
 * Records this bundle's schedule changes (and the jobs it lists again) on their states at its
 * deploy instant, not only when each job is next handled: a later deploy records an instant
 * of its own, and a job first handled then would take the change from there, leaving the
 * new schedule's runs in between undecided for good. One batched read of the enabled jobs'
 * states, and a write only for those that changed.
 *
 * @example
 * // deploy A recuts j at 05:30 (its first sweep adopts it); deploy B at 06:45 changes only k:
 * // j's runs after 05:30 that no tick decided are a gap, caught up or skipped and missed
 */
async function adoptSchedules(ctx: CoreContext, scheduledAt: Date): Promise<void> {
  const jobs = ctx.jobs.all().filter((job) => job.enabled);
  const states = await ctx.ledger.getJobStates(jobs.map((job) => job.id));
  for (const job of jobs) {
    const state = states.get(job.id);
    if (state?.sinceAt) await adoptedSchedule(ctx, job, state, justBefore(scheduledAt));
  }
}

/** Records the jobs jobs.yaml disables as paused (by `jobs.yaml`). */
async function stampDisabledJobs(ctx: CoreContext): Promise<boolean> {
  const disabled = ctx.jobs
    .all()
    .filter((job) => !job.enabled)
    .map((job) => job.id);
  if (disabled.length === 0) return true;
  const states = await ctx.ledger.getJobStates(disabled);
  const now = ctx.clock();
  for (const [jobId, state] of states) {
    if (!state.sinceAt || state.pausedAt) continue;
    await ctx.ledger.pause(jobId, {
      at: now,
      by: CONFIG_PAUSED_BY,
      reason: 'enabled: false in jobs.yaml',
    });
    ctx.logger.info('paused', { decision: 'paused', jobId, by: CONFIG_PAUSED_BY });
  }
  return true;
}
