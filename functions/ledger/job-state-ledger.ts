import {
  av,
  decodeJobState,
  type JobStateItem,
  jobStateKey,
  SWEEP_CURSOR_KEY,
} from './ledger-item.ts';
import type { LedgerStore } from './ledger-store.ts';
import { LEDGER_PARTITION_KEY } from './ledger-table.ts';
import { UpdateExpression } from './update-expression.ts';

/**
 * What the fast path's watermark swap did: applied, with the budget of a gap it kept open
 * (`gapCaughtUp`, for the tick to end once its own claim succeeds); or refused, with the state
 * that refused it.
 */
export type SwapOutcome =
  | { readonly swapped: true; readonly gapCaughtUp?: number }
  | { readonly swapped: false; readonly state: JobStateItem | undefined };

/** Where a run skipped for overlap stands in its job's incident (`countOverlapSkip`). */
export interface OverlapCount {
  /** Runs skipped in the incident so far; a later skip retried after a crash may count twice. */
  readonly skips: number;
  /** The incident's first skipped run, UTC ISO. */
  readonly since: string;
  /** The run is the incident's second: it raises the incident's one `overlap` notification. */
  readonly raises: boolean;
}

/** The job state's record of its overlap incident, cleared when a new run takes the slot. */
const OVERLAP_INCIDENT = [
  'overlapSince',
  'overlapSkips',
  'overlapFirstKey',
  'overlapSecondKey',
] as const;

/** A pause as an operator (or `enabled: false` in jobs.yaml) sets it. */
export interface PauseRequest {
  readonly at: Date;
  readonly by: string;
  readonly reason: string;
  readonly until?: Date;
}

/**
 * The job state items (`job#<jobId>`) and the sweep's cursor.
 *
 * ```
 *   watermark W: every run at or before W is decided (claimed, skipped, or being claimed)
 *
 *   tick at S, previous run P:   P <= W < S  → SET W = S, deliver S     (one write: the fast path)
 *                                W < P       → catch-up: lease, decide (W, S], SET W = S
 *                                W >= S      → a retried tick: deliver S only
 *   pause:   pausedAt…  — ticks record their run skipped(paused) and move W on
 *   running: runningKey until runningUntilEpochMs — concurrency: forbid's slot; the runs skipped
 *            while it stays held are one overlap incident (overlapSince, overlapSkips, …)
 * ```
 */
export interface JobStateLedger {
  getJobState(jobId: string): Promise<JobStateItem | undefined>;
  /** Consistent batched reads of several jobs' states. */
  getJobStates(jobIds: readonly string[]): Promise<Map<string, JobStateItem>>;
  /**
   * The fast path: moves W to `scheduledAt` when the job is live, not paused, `scheduledAt` is
   * not inside the last pause (a tick that arrived after the resume) and W is at or after
   * `previous` (or, without a previous run, before `scheduledAt`). Otherwise the state
   * that refused it comes back (undefined: no state yet). With `scheduleId`, only under that
   * schedule (or a state from before schedules were recorded, which then records it).
   */
  swapWatermark(
    jobId: string,
    runs: {
      readonly previous: Date | undefined;
      readonly scheduledAt: Date;
      readonly scheduleId?: string;
    },
  ): Promise<SwapOutcome>;
  /** The job's first decided run: W and `since` both at `at`. False when a state exists. */
  createJobState(jobId: string, at: Date, scheduleId?: string): Promise<boolean>;
  /**
   * A new schedule takes effect at `at`, or a job a deploy had removed is listed again: records
   * the schedule's id, moves W to `at` (if it is behind, or the job was removed) and `since`
   * just after it, so the runs up to `at` are not runs. Conditional on the state as it was read
   * (its schedule id and W); false when another dispatcher changed it first.
   */
  adoptSchedule(
    state: JobStateItem,
    change: { readonly scheduleId: string; readonly at: Date },
  ): Promise<boolean>;
  /** Moves W forward to `at` (never back); sets `since` if absent. */
  advanceWatermark(jobId: string, at: Date): Promise<boolean>;
  /**
   * Ends the gap W was behind: clears its budget spent (`gapCaughtUp`), while W still stands at
   * `at`, the run whose tick claimed it. False when W has moved on (a later catch-up recorded
   * a budget of its own) or there was none.
   */
  endGap(jobId: string, at: Date): Promise<boolean>;
  /**
   * Takes the job's catch-up lease; the state, or undefined when another holds it or the job
   * has never run.
   */
  acquireCatchup(
    jobId: string,
    nowEpochMs: number,
    leaseUntilEpochMs: number,
  ): Promise<JobStateItem | undefined>;
  /**
   * Gives the catch-up lease back; with `decided`, first moves W to its `upTo` (unless W is
   * past it) and records the gap's budget spent so far (`gapCaughtUp`).
   */
  finishCatchup(
    jobId: string,
    leaseUntilEpochMs: number,
    decided: { readonly upTo: Date; readonly gapCaughtUp: number } | undefined,
  ): Promise<void>;
  /**
   * Takes `concurrency: forbid`'s slot for run `key` until `untilEpochMs`; refused while another
   * run holds it and its time has not run out (its key comes back), unless that run is
   * `freeOf` (the caller found it can no longer be running). A run that did not hold it ends
   * the job's overlap incident; the same run taking it again (a retry) only renews it.
   */
  acquireSlot(
    jobId: string,
    key: string,
    nowEpochMs: number,
    untilEpochMs: number,
    freeOf?: string,
  ): Promise<{ readonly acquired: boolean; readonly runningKey?: string }>;
  /** Gives the slot back if run `key` holds it. */
  releaseSlot(jobId: string, key: string): Promise<boolean>;
  /**
   * Counts run `key`, skipped for overlap, in the job's overlap incident; where it stands comes
   * back. Once per run: the incident's first two runs are known by key, so a skip retried
   * after a crash finds its own place again.
   */
  countOverlapSkip(
    jobId: string,
    skip: { readonly key: string; readonly at: Date },
  ): Promise<OverlapCount>;
  /** Pauses the job (again, updating the reason and end); the state as written. */
  pause(jobId: string, request: PauseRequest): Promise<JobStateItem>;
  /**
   * Ends a pause and remembers it (`lastPauseFrom`/`lastPauseTo`), half-open: a run due at the
   * very instant of the resume is live. W stays: the next catch-up decides the runs after it,
   * those inside the pause as skipped(paused) and those due before the pause as if there had
   * been none. False when the job was not paused.
   */
  resume(jobId: string, request: { readonly at: Date }): Promise<boolean>;
  /** The sweep's cursor: every due window up to it has been checked. */
  getSweepCursor(): Promise<Date | undefined>;
  /** Moves the sweep's cursor forward to `at`. */
  advanceSweepCursor(at: Date): Promise<void>;
}

/**
 * Every attribute of a job state item that giving `concurrency: forbid`'s slot back touches
 * (`releaseSlot`), the key included: the recorder's IAM grant on job state items lists these
 * and no more (`dynamodb:Attributes`).
 */
export const SLOT_ATTRIBUTES = [LEDGER_PARTITION_KEY, 'runningKey', 'runningUntilEpochMs'] as const;

/** The job state ledger on the ledger table. */
export function createJobStateLedger(store: LedgerStore): JobStateLedger {
  return {
    getJobState: (jobId) => getJobState(store, jobId),
    getJobStates: (jobIds) => getJobStates(store, jobIds),
    swapWatermark: (jobId, runs) => swapWatermark(store, jobId, runs),
    createJobState: (jobId, at, scheduleId) => createJobState(store, jobId, at, scheduleId),
    adoptSchedule: (state, change) => adoptSchedule(store, state, change),
    advanceWatermark: (jobId, at) => advanceWatermark(store, jobId, at),
    endGap: (jobId, at) => endGap(store, jobId, at),
    acquireCatchup: (jobId, nowEpochMs, leaseUntilEpochMs) =>
      acquireCatchup(store, jobId, nowEpochMs, leaseUntilEpochMs),
    finishCatchup: (jobId, leaseUntilEpochMs, decided) =>
      finishCatchup(store, jobId, leaseUntilEpochMs, decided),
    acquireSlot: (jobId, key, nowEpochMs, untilEpochMs, freeOf) =>
      acquireSlot(store, jobId, key, nowEpochMs, untilEpochMs, freeOf),
    releaseSlot: (jobId, key) => releaseSlot(store, jobId, key),
    countOverlapSkip: (jobId, skip) => countOverlapSkip(store, jobId, skip),
    pause: (jobId, request) => pause(store, jobId, request),
    resume: (jobId, request) => resume(store, jobId, request),
    getSweepCursor: () => getSweepCursor(store),
    advanceSweepCursor: (at) => advanceSweepCursor(store, at),
  };
}

/** Writes `u` to item `key`, under `condition` when given; the store's result. */
async function write(
  store: LedgerStore,
  key: string,
  u: UpdateExpression,
  condition?: (u: UpdateExpression) => string,
  returnValues?: 'ALL_NEW' | 'ALL_OLD',
) {
  const cond = condition?.(u);
  return store.update({
    key,
    ...u.build(),
    ...(cond ? { condition: cond } : {}),
    ...(returnValues ? { returnValues } : {}),
  });
}

/** One job state, read consistently (`JobStateLedger.getJobState`). */
async function getJobState(store: LedgerStore, jobId: string): Promise<JobStateItem | undefined> {
  const item = await store.get(jobStateKey(jobId));
  return item ? decodeJobState(item) : undefined;
}

/** Job states by job id, in batches (`JobStateLedger.getJobStates`). */
async function getJobStates(
  store: LedgerStore,
  jobIds: readonly string[],
): Promise<Map<string, JobStateItem>> {
  const items = await store.batchGet(jobIds.map(jobStateKey), true);
  return new Map([...items.values()].map((item) => decodeJobState(item)).map((s) => [s.jobId, s]));
}

/** The fast path's one conditional move of W (`JobStateLedger.swapWatermark`). */
async function swapWatermark(
  store: LedgerStore,
  jobId: string,
  runs: Parameters<JobStateLedger['swapWatermark']>[1],
): Promise<SwapOutcome> {
  const at = runs.scheduledAt.toISOString();
  // The gap's budget stays: S may already be decided by a catch-up that has not moved W (one
  // that died, or is finishing), and then S's tick does not end the gap. It asks for the item
  // as it was (no extra request) to know whether there is a budget for its claim to end.
  // It names S its tick's (`swappedAt`): an orphan left there is the tick's own run.
  const u = new UpdateExpression()
    .set('watermarkAt', av.s(at))
    .set('swappedAt', av.s(at))
    .remove('removedAt');
  if (runs.scheduleId) u.set('scheduleId', av.s(runs.scheduleId));
  const condition = (c: UpdateExpression) => {
    const w = c.name('watermarkAt');
    const lower =
      runs.previous === undefined
        ? `attribute_exists(${w})`
        : `${w} >= ${c.value('previous', av.s(runs.previous.toISOString()))}`;
    const same = runs.scheduleId
      ? ` AND (attribute_not_exists(${c.name('scheduleId')}) OR ${c.name('scheduleId')} = ${c.value('sid', av.s(runs.scheduleId))})`
      : '';
    // Nor when S fell inside the last pause: its tick arrived after the resume, and the slow
    // path skips it (paused).
    const from = c.name('lastPauseFrom');
    const to = c.name('lastPauseTo');
    const s = c.value('scheduled', av.s(at));
    const outsideLastPause = `(attribute_not_exists(${to}) OR ${to} <= ${s} OR ${from} > ${s})`;
    return `${lower} AND ${w} < ${s} AND attribute_not_exists(${c.name('pausedAt')}) AND ${outsideLastPause}${same}`;
  };
  const result = await write(store, jobStateKey(jobId), u, condition, 'ALL_OLD');
  if (!result.applied) {
    return { swapped: false, state: result.current && decodeJobState(result.current) };
  }
  const spent = result.item && decodeJobState(result.item).gapCaughtUp;
  return spent ? { swapped: true, gapCaughtUp: spent } : { swapped: true };
}

/** A job's first state, unless it has one (`JobStateLedger.createJobState`). */
async function createJobState(
  store: LedgerStore,
  jobId: string,
  at: Date,
  scheduleId: string | undefined,
): Promise<boolean> {
  const u = new UpdateExpression()
    .set('watermarkAt', av.s(at.toISOString()))
    .set('sinceAt', av.s(at.toISOString()));
  if (scheduleId) u.set('scheduleId', av.s(scheduleId));
  const result = await write(
    store,
    jobStateKey(jobId),
    u,
    (c) => `attribute_not_exists(${c.name('sinceAt')})`,
  );
  return result.applied;
}

/** Records a new schedule and moves W up to its start (`JobStateLedger.adoptSchedule`). */
async function adoptSchedule(
  store: LedgerStore,
  state: JobStateItem,
  change: Parameters<JobStateLedger['adoptSchedule']>[1],
): Promise<boolean> {
  const at = change.at.toISOString();
  const behind = (state.watermarkAt ?? '') < at;
  // The new schedule's first live instant: `since` is inclusive, `at` is the last non-run.
  const since = new Date(change.at.getTime() + 1).toISOString();
  const u = new UpdateExpression()
    .set('scheduleId', av.s(change.scheduleId))
    .set('sinceAt', av.s(since))
    .remove('removedAt');
  if (behind || state.removedAt) u.set('watermarkAt', av.s(at)).remove('gapCaughtUp');
  const result = await write(store, jobStateKey(state.jobId), u, (c) => {
    const sid = c.name('scheduleId');
    const w = c.name('watermarkAt');
    const sameSchedule = state.scheduleId
      ? `${sid} = ${c.value('old', av.s(state.scheduleId))}`
      : `attribute_not_exists(${sid})`;
    const sameW = state.watermarkAt
      ? `${w} = ${c.value('w', av.s(state.watermarkAt))}`
      : `attribute_not_exists(${w})`;
    return `${sameSchedule} AND ${sameW}`;
  });
  return result.applied;
}

/** Moves W forward, never back (`JobStateLedger.advanceWatermark`). */
async function advanceWatermark(store: LedgerStore, jobId: string, at: Date): Promise<boolean> {
  const iso = av.s(at.toISOString());
  const u = new UpdateExpression().set('watermarkAt', iso).setIfAbsent('sinceAt', iso);
  const result = await write(store, jobStateKey(jobId), u, (c) => {
    const w = c.name('watermarkAt');
    return `attribute_not_exists(${w}) OR ${w} < ${c.value('at', iso)}`;
  });
  return result.applied;
}

/** Clears the gap's budget while W stands at `at` (`JobStateLedger.endGap`). */
async function endGap(store: LedgerStore, jobId: string, at: Date): Promise<boolean> {
  const u = new UpdateExpression().remove('gapCaughtUp');
  const result = await write(store, jobStateKey(jobId), u, (c) => {
    const w = c.name('watermarkAt');
    return `${w} = ${c.value('at', av.s(at.toISOString()))} AND attribute_exists(${c.name('gapCaughtUp')})`;
  });
  return result.applied;
}

/** Takes the catch-up lease if free or expired (`JobStateLedger.acquireCatchup`). */
async function acquireCatchup(
  store: LedgerStore,
  jobId: string,
  nowEpochMs: number,
  leaseUntilEpochMs: number,
): Promise<JobStateItem | undefined> {
  const u = new UpdateExpression().set('catchupLeaseUntilEpochMs', av.n(leaseUntilEpochMs));
  const result = await write(
    store,
    jobStateKey(jobId),
    u,
    (c) => {
      const lease = c.name('catchupLeaseUntilEpochMs');
      return `attribute_exists(${c.name('sinceAt')}) AND (attribute_not_exists(${lease}) OR ${lease} < ${c.value('now', av.n(nowEpochMs))})`;
    },
    'ALL_NEW',
  );
  return result.applied && result.item ? decodeJobState(result.item) : undefined;
}

/** Moves W and gives our catch-up lease back (`JobStateLedger.finishCatchup`). */
async function finishCatchup(
  store: LedgerStore,
  jobId: string,
  leaseUntilEpochMs: number,
  decided: Parameters<JobStateLedger['finishCatchup']>[2],
): Promise<void> {
  const ours = (c: UpdateExpression) =>
    `${c.name('catchupLeaseUntilEpochMs')} = ${c.value('lease', av.n(leaseUntilEpochMs))}`;
  const release = () =>
    write(
      store,
      jobStateKey(jobId),
      new UpdateExpression().remove('catchupLeaseUntilEpochMs'),
      ours,
    );
  if (!decided) {
    await release();
    return;
  }
  const iso = av.s(decided.upTo.toISOString());
  const moved = await write(
    store,
    jobStateKey(jobId),
    new UpdateExpression()
      .set('watermarkAt', iso)
      .set('gapCaughtUp', av.n(decided.gapCaughtUp))
      .remove('catchupLeaseUntilEpochMs'),
    // At upTo already: S's tick swapped W there while we decided, and S was ours to decide
    // (its tick's claim ends the gap, its refused one does not): our budget still counts.
    (c) => `${ours(c)} AND ${c.name('watermarkAt')} <= ${c.value('upTo', iso)}`,
  );
  if (moved.applied) return;
  await write(
    store,
    jobStateKey(jobId),
    new UpdateExpression().remove('catchupLeaseUntilEpochMs'),
    ours,
  );
}

/**
 * Takes `concurrency: forbid`'s slot for a run (`JobStateLedger.acquireSlot`): one write when
 * it is free or expired (which ends the overlap incident), a second one to renew the run's own
 * hold.
 */
async function acquireSlot(
  store: LedgerStore,
  jobId: string,
  key: string,
  nowEpochMs: number,
  untilEpochMs: number,
  freeOf: string | undefined,
): ReturnType<JobStateLedger['acquireSlot']> {
  const until = av.n(untilEpochMs);
  for (let round = 0; round < 3; round++) {
    const taken = await write(
      store,
      jobStateKey(jobId),
      new UpdateExpression()
        .set('runningKey', av.s(key))
        .set('runningUntilEpochMs', until)
        .remove(...OVERLAP_INCIDENT),
      (c) => {
        const running = c.name('runningKey');
        const free = `attribute_not_exists(${running}) OR ${c.name('runningUntilEpochMs')} < ${c.value('now', av.n(nowEpochMs))}`;
        return freeOf ? `${free} OR ${running} = ${c.value('freeOf', av.s(freeOf))}` : free;
      },
    );
    if (taken.applied) return { acquired: true };
    const runningKey = taken.current && decodeJobState(taken.current).runningKey;
    if (runningKey !== key) return { acquired: false, ...(runningKey ? { runningKey } : {}) };
    // The same run again (a retry, a takeover): its hold is renewed, the incident goes on.
    if (await holdSlotUntil(store, jobId, key, untilEpochMs)) return { acquired: true };
  }
  return { acquired: false };
}

/** Moves the end of a run's own hold on the slot, if it holds it. */
async function holdSlotUntil(
  store: LedgerStore,
  jobId: string,
  key: string,
  untilEpochMs: number,
): Promise<boolean> {
  const u = new UpdateExpression().set('runningUntilEpochMs', av.n(untilEpochMs));
  const result = await write(
    store,
    jobStateKey(jobId),
    u,
    (c) => `${c.name('runningKey')} = ${c.value('key', av.s(key))}`,
  );
  return result.applied;
}

/** Gives the slot back if the run holds it (`JobStateLedger.releaseSlot`). */
async function releaseSlot(store: LedgerStore, jobId: string, key: string): Promise<boolean> {
  const u = new UpdateExpression().remove('runningKey', 'runningUntilEpochMs');
  const condition = `${u.name('runningKey')} = ${u.value('key', av.s(key))}`;
  // Nothing is read back: the recorder's grant covers only the slot's attributes (SLOT_ATTRIBUTES).
  const result = await store.update({
    key: jobStateKey(jobId),
    ...u.build(),
    condition,
    onRefusal: 'nothing',
  });
  return result.applied;
}

/**
 * Counts a skip in the job's overlap incident (`JobStateLedger.countOverlapSkip`): the first
 * skip opens it, the second is recorded by key (it raises the notification), later ones only
 * add to the count. Each write is conditional on the incident it read, so a new run taking the
 * slot in between makes the skip count in the new incident.
 */
async function countOverlapSkip(
  store: LedgerStore,
  jobId: string,
  skip: { readonly key: string; readonly at: Date },
): Promise<OverlapCount> {
  const since = skip.at.toISOString();
  for (let round = 0; round < 3; round++) {
    const opened = await write(
      store,
      jobStateKey(jobId),
      new UpdateExpression()
        .set('overlapFirstKey', av.s(skip.key))
        .set('overlapSince', av.s(since))
        .set('overlapSkips', av.n(1))
        .remove('overlapSecondKey'),
      (c) => `attribute_not_exists(${c.name('overlapFirstKey')})`,
    );
    if (opened.applied) return { skips: 1, since, raises: false };
    const state = opened.current && decodeJobState(opened.current);
    if (!state?.overlapFirstKey) continue;
    const counted = await countInIncident(store, jobId, skip.key, state);
    if (counted) return counted;
  }
  return { skips: 0, since, raises: false };
}

/** A skip of an open incident: its own place if it has one, else the second or a later one. */
async function countInIncident(
  store: LedgerStore,
  jobId: string,
  key: string,
  state: JobStateItem,
): Promise<OverlapCount | undefined> {
  const since = state.overlapSince ?? '';
  const skips = state.overlapSkips ?? 0;
  if (state.overlapFirstKey === key) return { skips, since, raises: false };
  if (state.overlapSecondKey === key) return { skips, since, raises: true };
  const second = state.overlapSecondKey === undefined;
  const u = new UpdateExpression().add('overlapSkips', av.n(1));
  if (second) u.set('overlapSecondKey', av.s(key));
  const result = await write(
    store,
    jobStateKey(jobId),
    u,
    (c) => {
      const same = `${c.name('overlapFirstKey')} = ${c.value('first', av.s(state.overlapFirstKey ?? ''))}`;
      return second ? `${same} AND attribute_not_exists(${c.name('overlapSecondKey')})` : same;
    },
    'ALL_NEW',
  );
  if (!result.applied || !result.item) return undefined;
  const now = decodeJobState(result.item);
  return { skips: now.overlapSkips ?? skips + 1, since: now.overlapSince ?? since, raises: second };
}

/** Sets or updates a pause (`JobStateLedger.pause`). */
async function pause(
  store: LedgerStore,
  jobId: string,
  request: PauseRequest,
): Promise<JobStateItem> {
  const u = new UpdateExpression()
    .setIfAbsent('pausedAt', av.s(request.at.toISOString()))
    .set('pausedBy', av.s(request.by))
    .set('pauseReason', av.s(request.reason));
  if (request.until) u.set('pausedUntil', av.s(request.until.toISOString()));
  else u.remove('pausedUntil');
  const result = await write(store, jobStateKey(jobId), u, undefined, 'ALL_NEW');
  return decodeJobState(result.applied ? (result.item ?? {}) : {});
}

/** Ends a pause, remembering it (`JobStateLedger.resume`). */
async function resume(
  store: LedgerStore,
  jobId: string,
  request: Parameters<JobStateLedger['resume']>[1],
): Promise<boolean> {
  const at = av.s(request.at.toISOString());
  const u = new UpdateExpression()
    .remove('pausedAt', 'pausedBy', 'pauseReason', 'pausedUntil')
    // `lastPauseFrom` takes the value of `pausedAt` as it was before this write.
    .setFrom('lastPauseFrom', 'pausedAt')
    .set('lastPauseTo', at)
    .setIfAbsent('watermarkAt', av.s(new Date(request.at.getTime() - 1).toISOString()))
    .setIfAbsent('sinceAt', at);
  const condition = `attribute_exists(${u.name('pausedAt')})`;
  const result = await store.update({ key: jobStateKey(jobId), ...u.build(), condition });
  return result.applied;
}

/** The sweep's cursor, read consistently (`JobStateLedger.getSweepCursor`). */
async function getSweepCursor(store: LedgerStore): Promise<Date | undefined> {
  const item = await store.get(SWEEP_CURSOR_KEY);
  const v = item?.sweptThrough;
  return v && 'S' in v && v.S ? new Date(v.S) : undefined;
}

/** Moves the sweep's cursor forward, never back (`JobStateLedger.advanceSweepCursor`). */
async function advanceSweepCursor(store: LedgerStore, at: Date): Promise<void> {
  const iso = av.s(at.toISOString());
  await write(store, SWEEP_CURSOR_KEY, new UpdateExpression().set('sweptThrough', iso), (c) => {
    const through = c.name('sweptThrough');
    return `attribute_not_exists(${through}) OR ${through} < ${c.value('at', iso)}`;
  });
}
