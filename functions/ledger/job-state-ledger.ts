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

/** What the fast path's watermark swap found when it did not apply. */
export type SwapOutcome =
  | { readonly swapped: true }
  | { readonly swapped: false; readonly state: JobStateItem | undefined };

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
 *   running: runningKey until runningUntilEpochMs — concurrency: forbid's slot
 * ```
 */
export interface JobStateLedger {
  getJobState(jobId: string): Promise<JobStateItem | undefined>;
  /** Consistent batched reads of several jobs' states. */
  getJobStates(jobIds: readonly string[]): Promise<Map<string, JobStateItem>>;
  /**
   * The fast path: moves W to `scheduledAt` when the job is live, not paused and W is at or
   * after `previous` (or, without a previous run, before `scheduledAt`). Otherwise the state
   * that refused it comes back (undefined: no state yet).
   */
  swapWatermark(
    jobId: string,
    runs: { readonly previous: Date | undefined; readonly scheduledAt: Date },
  ): Promise<SwapOutcome>;
  /** The job's first decided run: W and `since` both at `at`. False when a state exists. */
  createJobState(jobId: string, at: Date): Promise<boolean>;
  /** Moves W forward to `at` (never back); sets `since` if absent. */
  advanceWatermark(jobId: string, at: Date): Promise<boolean>;
  /**
   * Takes the job's catch-up lease; the state, or undefined when another holds it or the job
   * has never run.
   */
  acquireCatchup(
    jobId: string,
    nowEpochMs: number,
    leaseUntilEpochMs: number,
  ): Promise<JobStateItem | undefined>;
  /** Moves W to `upTo` (if later; not at all when undefined) and gives the catch-up lease back. */
  finishCatchup(jobId: string, leaseUntilEpochMs: number, upTo: Date | undefined): Promise<void>;
  /**
   * Takes `concurrency: forbid`'s slot for run `key` until `untilEpochMs`; refused while another
   * run holds it (its key comes back).
   */
  acquireSlot(
    jobId: string,
    key: string,
    nowEpochMs: number,
    untilEpochMs: number,
  ): Promise<{ readonly acquired: boolean; readonly runningKey?: string }>;
  /** Gives the slot back if run `key` holds it. */
  releaseSlot(jobId: string, key: string): Promise<boolean>;
  /** Pauses the job (again, updating the reason and end); the state as written. */
  pause(jobId: string, request: PauseRequest): Promise<JobStateItem>;
  /**
   * Ends a pause. Without `catchUp`, W moves to just before `at` (1 ms) so nothing paused is
   * replayed while a run due at the very instant of the resume stays live, as the pause is
   * half-open; the pause is remembered (`lastPauseFrom`/`lastPauseTo`). False when the job was
   * not paused.
   */
  resume(
    jobId: string,
    request: { readonly at: Date; readonly catchUp: boolean },
  ): Promise<boolean>;
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
    createJobState: (jobId, at) => createJobState(store, jobId, at),
    advanceWatermark: (jobId, at) => advanceWatermark(store, jobId, at),
    acquireCatchup: (jobId, nowEpochMs, leaseUntilEpochMs) =>
      acquireCatchup(store, jobId, nowEpochMs, leaseUntilEpochMs),
    finishCatchup: (jobId, leaseUntilEpochMs, upTo) =>
      finishCatchup(store, jobId, leaseUntilEpochMs, upTo),
    acquireSlot: (jobId, key, nowEpochMs, untilEpochMs) =>
      acquireSlot(store, jobId, key, nowEpochMs, untilEpochMs),
    releaseSlot: (jobId, key) => releaseSlot(store, jobId, key),
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
  returnValues?: 'ALL_NEW',
) {
  const cond = condition?.(u);
  const { update, names, values } = u.build();
  return store.update({
    key,
    update,
    ...(cond ? { condition: cond } : {}),
    names,
    values,
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
  const u = new UpdateExpression().set('watermarkAt', av.s(at));
  const result = await write(store, jobStateKey(jobId), u, (c) => {
    const w = c.name('watermarkAt');
    const lower =
      runs.previous === undefined
        ? `attribute_exists(${w})`
        : `${w} >= ${c.value('previous', av.s(runs.previous.toISOString()))}`;
    return `${lower} AND ${w} < ${c.value('scheduled', av.s(at))} AND attribute_not_exists(${c.name('pausedAt')})`;
  });
  if (result.applied) return { swapped: true };
  return { swapped: false, state: result.current && decodeJobState(result.current) };
}

/** A job's first state, unless it has one (`JobStateLedger.createJobState`). */
async function createJobState(store: LedgerStore, jobId: string, at: Date): Promise<boolean> {
  const u = new UpdateExpression()
    .set('watermarkAt', av.s(at.toISOString()))
    .set('sinceAt', av.s(at.toISOString()));
  const result = await write(
    store,
    jobStateKey(jobId),
    u,
    (c) => `attribute_not_exists(${c.name('sinceAt')})`,
  );
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
  upTo: Date | undefined,
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
  if (!upTo) {
    await release();
    return;
  }
  const iso = av.s(upTo.toISOString());
  const moved = await write(
    store,
    jobStateKey(jobId),
    new UpdateExpression().set('watermarkAt', iso).remove('catchupLeaseUntilEpochMs'),
    (c) => `${ours(c)} AND ${c.name('watermarkAt')} < ${c.value('upTo', iso)}`,
  );
  if (moved.applied) return;
  await write(
    store,
    jobStateKey(jobId),
    new UpdateExpression().remove('catchupLeaseUntilEpochMs'),
    ours,
  );
}

/** Takes `concurrency: forbid`'s slot for a run (`JobStateLedger.acquireSlot`). */
async function acquireSlot(
  store: LedgerStore,
  jobId: string,
  key: string,
  nowEpochMs: number,
  untilEpochMs: number,
): ReturnType<JobStateLedger['acquireSlot']> {
  const u = new UpdateExpression()
    .set('runningKey', av.s(key))
    .set('runningUntilEpochMs', av.n(untilEpochMs));
  const result = await write(store, jobStateKey(jobId), u, (c) => {
    const running = c.name('runningKey');
    const until = c.name('runningUntilEpochMs');
    return `attribute_not_exists(${running}) OR ${running} = ${c.value('key', av.s(key))} OR ${until} < ${c.value('now', av.n(nowEpochMs))}`;
  });
  if (result.applied) return { acquired: true };
  const runningKey = result.current && decodeJobState(result.current).runningKey;
  return { acquired: false, ...(runningKey ? { runningKey } : {}) };
}

/** Gives the slot back if the run holds it (`JobStateLedger.releaseSlot`). */
async function releaseSlot(store: LedgerStore, jobId: string, key: string): Promise<boolean> {
  const u = new UpdateExpression().remove('runningKey', 'runningUntilEpochMs');
  const condition = `${u.name('runningKey')} = ${u.value('key', av.s(key))}`;
  const { update, names, values } = u.build();
  // Nothing is read back: the recorder's grant covers only the slot's attributes (SLOT_ATTRIBUTES).
  const result = await store.update({
    key: jobStateKey(jobId),
    update,
    condition,
    names,
    values,
    onRefusal: 'nothing',
  });
  return result.applied;
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
    .set('lastPauseTo', at);
  const lastFrom = u.name('lastPauseFrom');
  const pausedAt = u.name('pausedAt');
  if (!request.catchUp) {
    const justBefore = av.s(new Date(request.at.getTime() - 1).toISOString());
    u.set('watermarkAt', justBefore).setIfAbsent('sinceAt', at);
  }
  const { update, names, values } = u.build();
  const result = await store.update({
    key: jobStateKey(jobId),
    // `lastPauseFrom` takes the value of `pausedAt` as it was before this write.
    update: update.replace('SET ', `SET ${lastFrom} = ${pausedAt}, `),
    condition: `attribute_exists(${pausedAt})`,
    names,
    values,
  });
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
