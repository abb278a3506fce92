import { LedgerError } from './errors.ts';
import { createJobStateLedger, type JobStateLedger } from './job-state-ledger.ts';
import {
  av,
  decodeRun,
  type MissedIncident,
  openShardOf,
  type RunItem,
  type RunOrigin,
  type SkipReason,
} from './ledger-item.ts';
import type { LedgerStore, UpdateResult } from './ledger-store.ts';
import { LEDGER_OPEN_INDEX, LEDGER_TTL_ATTRIBUTE } from './ledger-table.ts';
import {
  addOutbox,
  createOutboxLedger,
  leaveOpenIndex,
  notRaised,
  type OutboxLedger,
} from './outbox.ts';
import { createRosterLedger, type RosterLedger } from './roster.ts';
import { createSkipRangeLedger, type SkipRangeLedger } from './skip-range.ts';
import { UpdateExpression } from './update-expression.ts';

/** How a claim may take a run: only a new one, or also one that is due for another attempt. */
export type ClaimMode =
  /** A new run, or a retry of one whose attempt failed or whose claim expired. */
  | 'any'
  /** Only a run nobody has decided yet (catch-ups of missed runs, backfills of new runs). */
  | 'create'
  /** Only a retry: a failed attempt, or a claim whose holder died. */
  | 'reclaim'
  /** A new run, or one that was skipped and never delivered (an operator's backfill). */
  | 'backfill';

/** What a claim writes. All instants are computed by the caller from its injected clock. */
export interface ClaimRequest {
  readonly key: string;
  readonly jobId: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
  readonly manual: boolean;
  readonly origin: RunOrigin;
  readonly target: string;
  /**
   * The SHA-256 of this claim's delivery secret (`deliverySecretHash`), added to the run's
   * `secretHashes` by the claim itself: stored before the delivery, so a completion that
   * arrives before `markDispatched` can be checked.
   */
  readonly secretHash: string;
  readonly mode: ClaimMode;
  /**
   * Attempts a round may make (`retry.maxAttempts`); a redrive starts a new round, of one
   * attempt whatever this says.
   */
  readonly maxAttempts: number;
  readonly nowEpochMs: number;
  readonly leaseUntilEpochMs: number;
  readonly ttlEpochSec: number;
  /**
   * When the run must be done by (`RunItem.deadlineAtEpochMs`): given by the claims of runs the
   * dispatcher decided to deliver; a retry's claim leaves the stored one as it is, an
   * operator's (manual, backfill, redrive) clears it.
   */
  readonly deadlineAtEpochMs?: number;
  /** Raise `missed` (only with `mode: 'create'`: the run was due and nobody had decided it). */
  readonly missed: boolean;
  /**
   * Whether a raised `missed` owes its notification: false for the runs of a gap but the one
   * that carries the gap's single notification. @default true
   */
  readonly notify?: boolean;
  /** On the carrier of a gap's notification: what the gap held. */
  readonly incident?: MissedIncident;
}

/** The result of a claim: ours, or the stored item that refused it (a suppressed duplicate). */
export type ClaimOutcome =
  | { readonly claimed: true; readonly item: RunItem }
  | { readonly claimed: false; readonly existing: RunItem };

/** What `recordSkipped` did: recorded, or refused by the item the run has already, if read back. */
export type SkipOutcome =
  | { readonly recorded: true }
  | { readonly recorded: false; readonly existing: RunItem | undefined };

/** The `overlap` notification a skip owes: its incident's first run, and the outbox lease. */
export interface OverlapNotice {
  /** The incident's first skipped run, UTC ISO. */
  readonly since: string;
  readonly outboxLeaseUntilEpochMs: number;
}

/** A run decided without a delivery: skipped, with its reason. */
export interface SkipRecord {
  readonly key: string;
  readonly jobId: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
  readonly origin: RunOrigin;
  readonly reason: SkipReason;
  /** One line for the operator: why, with the facts (the running run, the policy). */
  readonly detail: string;
  /** Raise `missed`: the run was due and never delivered. */
  readonly missed: boolean;
  /** As {@link ClaimRequest.notify}. @default true */
  readonly notify?: boolean;
  /** As {@link ClaimRequest.incident}. */
  readonly incident?: MissedIncident;
  readonly nowEpochMs: number;
  readonly outboxLeaseUntilEpochMs: number;
  readonly ttlEpochSec: number;
}

/**
 * The run ledger: one item per run, one state item per job, one cursor for the sweep.
 *
 * Every state change is one conditional write on the run's own item, so concurrent
 * dispatchers, sweeps, retries and the recorder can race freely: exactly one wins each move.
 * A claim is identified by the `attempts` it wrote (never reset, so it also numbers the
 * delivery); the moves out of `claimed` are conditional on that attempt.
 *
 * ```
 *                  claim                       deliver ok
 *   (none) ───────────────────> claimed ──────────────────> dispatched ──(recorder)──> succeeded
 *     │                          │  ▲  │                         │  (lambda, stepfunctions)  failed(execution)
 *     │ record skipped           │  │  │ deliver threw           │  sqs/sns/eventbridge: done
 *     ▼                          │  │  ▼                         ▼
 *   skipped(reason)      overlap │  └─ delivery-failed ──> failed(delivery) + one DLQ message
 *                                ▼   (retry at checkAt)   (round's attempts used up)
 *                             skipped(overlap)
 *
 *   open index (byOpen): an item is in it while someone owes it something, keyed by when:
 *     claimed ─ lease end   delivery-failed ─ retry time   dispatched (tracked) ─ maxRuntime
 *     outbox (notifications, the DLQ message) ─ outbox lease end
 *     with a deadline not raised yet: the deadline, when it comes first (and `failed` until it)
 *   the sweep queries it every minute: no open run is forgotten, whatever its age
 * ```
 */
export interface RunLedger extends OutboxLedger {
  /**
   * One conditional write: the claim, per `mode`; refused → the stored item. The claimed item
   * says what it was taken over from (`previousStatus`).
   */
  claim(request: ClaimRequest): Promise<ClaimOutcome>;
  /**
   * `claimed` → `dispatched`. Open until `stuckCheckAtEpochMs` when the target reports
   * completion; raises `late` when asked. False when our claim was lost meanwhile.
   */
  markDispatched(
    key: string,
    attempts: number,
    delivery: {
      readonly dispatchedAt: Date;
      readonly deliveryId: string;
      readonly stuckCheckAtEpochMs: number | undefined;
      readonly late: boolean;
      readonly outboxLeaseUntilEpochMs: number;
    },
  ): Promise<boolean>;
  /**
   * After `markDispatched` was refused: did the recorder record the end of this very attempt
   * first (the target's report landed before the dispatcher's write)? Then the claim was not
   * lost, and with `late` the run gets its `late` signal here (once per run). `completed` is
   * the item as it is then; undefined when the claim was really lost.
   */
  settleCompletedFirst(
    key: string,
    attempts: number,
    late: { readonly raise: boolean; readonly outboxLeaseUntilEpochMs: number },
  ): Promise<{ readonly completed: RunItem | undefined; readonly lateRaised: boolean }>;
  /**
   * `claimed` → `delivery-failed`, to be retried at `retryAtEpochMs`; the sweep looks at it at
   * `checkAtEpochMs` (earlier when its deadline comes first). @default checkAt: the retry
   */
  releaseFailed(
    key: string,
    attempts: number,
    failure: {
      readonly lastError: string;
      readonly retryAtEpochMs: number;
      readonly checkAtEpochMs?: number;
    },
  ): Promise<boolean>;
  /**
   * `claimed` or `delivery-failed` → `failed` (`failure: delivery`), owing one dead-letter
   * message and a `dead-lettered` notification; with `raise: false` (a redrive's failed
   * attempt), owing nothing and out of the open index unless an earlier move left an effect.
   */
  failDelivery(
    key: string,
    attempts: number,
    failure: {
      readonly lastError: string;
      readonly failedAt: Date;
      readonly outboxLeaseUntilEpochMs: number;
      /** @default true */
      readonly raise?: boolean;
    },
  ): Promise<boolean>;
  /**
   * `claimed` → `skipped` (terminal), e.g. overlap; with `overlap`, the skip raises the job's
   * overlap notification and owes it in the same write.
   */
  markSkipped(
    key: string,
    attempts: number,
    reason: SkipReason,
    detail: string,
    overlap?: OverlapNotice,
  ): Promise<boolean>;
  /** Creates a `skipped` item; refused, with the item, when the run has one already. */
  recordSkipped(record: SkipRecord): Promise<SkipOutcome>;
  /** Raises `stuck` on a still-`dispatched` run, once. */
  markStuck(key: string, outboxLeaseUntilEpochMs: number): Promise<boolean>;
  /**
   * Raises `deadline-missed` once, owing its notification: only on a run whose stored deadline
   * is before `nowEpochMs`, neither skipped nor succeeded (a success recorded late raises it in
   * the recorder's own write). The sweep looks at the run again when the outbox lease ends, or
   * at `checkAtEpochMs` when the run needs it earlier (its retry, its stuck check).
   */
  markDeadlineMissed(
    key: string,
    nowEpochMs: number,
    outboxLeaseUntilEpochMs: number,
    checkAtEpochMs?: number,
  ): Promise<boolean>;
  /**
   * Takes a run out of the open index (or moves its next check to `nextCheckAtEpochMs`), if it
   * is still as the caller saw it: same status, same check time, nothing in its outbox.
   */
  closeOpen(
    key: string,
    seen: { readonly status: RunItem['status']; readonly checkAtEpochMs: number },
    nextCheckAtEpochMs?: number,
  ): Promise<boolean>;
  /**
   * `failed` | `delivery-failed` | `skipped` → `delivery-failed` with a redrive's round (one
   * attempt, `generation` + 1), due for the sweep at `dueAtEpochMs` (the redriver's lease end:
   * the sweep takes it up only if the redriver died before it claimed the run); the item, or the
   * stored one that refused it. The run keeps the signals it raised but `stuck` and
   * `run-failed`, which are the redriven delivery's to raise.
   */
  resetForRedrive(
    key: string,
    dueAtEpochMs: number,
  ): Promise<{ readonly reset: boolean; readonly item: RunItem | undefined }>;
  getRun(key: string): Promise<RunItem | undefined>;
  /** Batched reads; absent keys are absent from the map. */
  getRuns(keys: readonly string[], consistent?: boolean): Promise<Map<string, RunItem>>;
  /** Open runs of one `byOpen` partition due by `nowEpochMs`, oldest check first. */
  findDue(shard: string, nowEpochMs: number, limit: number): Promise<RunItem[]>;
}

/** The whole ledger the dispatcher core uses. */
export interface Ledger extends RunLedger, JobStateLedger, SkipRangeLedger, RosterLedger {}

/** A claim was refused but the refusing item could not be read back. */
export class LedgerConflictError extends LedgerError {
  readonly key: string;
  constructor(key: string) {
    super(`claim of run '${key}' was refused but no item exists (retry the tick)`);
    this.key = key;
  }
}

/** The condition a claim of each mode writes under, with its placeholders registered on `u`. */
function claimCondition(u: UpdateExpression, request: ClaimRequest): string {
  const isNew = () => `attribute_not_exists(${u.name('pk')})`;
  const status = u.name('status');
  const again = () => {
    const rounds = u.name('roundAttempts');
    const zero = u.value('zero', av.n(0));
    // A redrive's round is one attempt, whoever claims it (the dispatcher's isRedriveRound:
    // `generation` > 0, or a run a redrive claimed first).
    const generation = u.name('generation');
    const origin = u.name('origin');
    const notRedrive =
      `(attribute_not_exists(${generation}) OR ${generation} = ${zero}) AND ` +
      `(attribute_not_exists(${origin}) OR ${origin} <> ${u.value('redrive', av.s('redrive'))})`;
    const roundLeft = `${rounds} < ${u.value('max', av.n(request.maxAttempts))} AND (${rounds} = ${zero} OR (${notRedrive}))`;
    return (
      `(${status} = ${u.value('claimed', av.s('claimed'))} AND ${u.name('leaseUntilEpochMs')} < ${u.value('now', av.n(request.nowEpochMs))} AND ${roundLeft}) OR ` +
      `(${status} = ${u.value('deliveryFailed', av.s('delivery-failed'))} AND ${roundLeft})`
    );
  };
  switch (request.mode) {
    case 'create':
      return isNew();
    case 'any':
      return `${isNew()} OR ${again()}`;
    case 'reclaim':
      return again();
    case 'backfill':
      return `${isNew()} OR ${status} = ${u.value('skipped', av.s('skipped'))}`;
  }
}

/**
 * The ledger on a DynamoDB table shaped by `ledgerTableDefinition`.
 *
 * @example
 * const ledger = createDynamoLedger(createLedgerStore({ client, tableName: 'ledger' }));
 * await ledger.claim({ key, jobId: 'daily', at, nominal, dst: 'none', manual: false,
 *   origin: 'tick', target: arn, mode: 'any', maxAttempts: 3, nowEpochMs,
 *   leaseUntilEpochMs: nowEpochMs + 90_000, ttlEpochSec, missed: false });
 * //=> { claimed: true, item: { status: 'claimed', attempts: 1, ... } }
 */
export function createDynamoLedger(store: LedgerStore): Ledger {
  return {
    ...createJobStateLedger(store),
    ...createOutboxLedger(store),
    ...createSkipRangeLedger(store),
    ...createRosterLedger(store),
    claim: (request) => claimRun(store, request),
    markDispatched: (key, attempts, delivery) => markDispatched(store, key, attempts, delivery),
    settleCompletedFirst: (key, attempts, late) => settleCompletedFirst(store, key, attempts, late),
    releaseFailed: (key, attempts, failure) => releaseFailed(store, key, attempts, failure),
    failDelivery: (key, attempts, failure) => failDelivery(store, key, attempts, failure),
    markSkipped: (key, attempts, reason, detail, overlap) =>
      markSkipped(store, key, attempts, reason, detail, overlap),
    recordSkipped: (record) => recordSkipped(store, record),
    markStuck: (key, outboxLeaseUntilEpochMs) => markStuck(store, key, outboxLeaseUntilEpochMs),
    markDeadlineMissed: (key, nowEpochMs, outboxLeaseUntilEpochMs, checkAtEpochMs) =>
      markDeadlineMissed(store, key, nowEpochMs, outboxLeaseUntilEpochMs, checkAtEpochMs),
    closeOpen: (key, seen, nextCheckAtEpochMs) => closeOpen(store, key, seen, nextCheckAtEpochMs),
    resetForRedrive: (key, dueAtEpochMs) => resetForRedrive(store, key, dueAtEpochMs),
    getRun: (key) => getRun(store, key),
    getRuns: (keys, consistent) => getRuns(store, keys, consistent),
    findDue: (shard, nowEpochMs, limit) => findDue(store, shard, nowEpochMs, limit),
  };
}

/** Writes `u` to run `key` under `condition`; whether it applied. */
async function conditional(
  store: LedgerStore,
  key: string,
  u: UpdateExpression,
  condition: (u: UpdateExpression) => string,
): Promise<boolean> {
  const cond = condition(u);
  const result = await store.update({ key, ...u.build(), condition: cond });
  return result.applied;
}

/** The condition of the moves out of `claimed`: the run is still held by claim `attempts`. */
const ownClaim = (attempts: number) => (u: UpdateExpression) =>
  `${u.name('status')} = ${u.value('claimed', av.s('claimed'))} AND ${u.name('attempts')} = ${u.value('attempts', av.n(attempts))}`;

/** The origins of an operator's deliveries: their claims clear a deadline the run had. */
const OPERATORS_ORIGINS: ReadonlySet<RunOrigin> = new Set(['manual', 'backfill', 'redrive']);

/** The claim of a run, refused per its `mode` (`RunLedger.claim`). */
async function claimRun(store: LedgerStore, request: ClaimRequest): Promise<ClaimOutcome> {
  const u = new UpdateExpression()
    .setToPrevious('previousStatus', 'status', av.s('new'))
    .set('jobId', av.s(request.jobId))
    .set('at', av.s(request.at.toISOString()))
    .set('nominal', av.s(request.nominal))
    .set('dst', av.s(request.dst))
    .set('status', av.s('claimed'))
    .set('leaseUntilEpochMs', av.n(request.leaseUntilEpochMs))
    .set('manual', av.b(request.manual))
    // A run's origin is its first decision: a retry or a redrive does not rewrite it.
    .setIfAbsent('origin', av.s(request.origin))
    .set('target', av.s(request.target))
    .add('secretHashes', av.ss([request.secretHash]))
    .set('openShard', av.s(openShardOf(request.key)))
    .set('checkAtEpochMs', av.n(request.leaseUntilEpochMs))
    .set(LEDGER_TTL_ATTRIBUTE, av.n(request.ttlEpochSec))
    .add('attempts', av.n(1))
    .add('roundAttempts', av.n(1))
    .remove('skipReason', 'retryAtEpochMs');
  if (request.deadlineAtEpochMs !== undefined) {
    u.set('deadlineAtEpochMs', av.n(request.deadlineAtEpochMs));
  } else if (OPERATORS_ORIGINS.has(request.origin)) {
    // An operator's delivery (a backfill of a skipped run, say) is the operator's to watch.
    u.remove('deadlineAtEpochMs');
  }
  if (request.missed && request.mode === 'create') {
    // The outbox shares the claim's lease: the item is open until then anyway.
    raiseMissed(u, request, request.leaseUntilEpochMs);
  }
  const condition = claimCondition(u, request);
  const result = await store.update({
    key: request.key,
    ...u.build(),
    condition,
    returnValues: 'ALL_NEW',
  });
  if (result.applied) return { claimed: true, item: decodeRun(result.item ?? {}) };
  if (!result.current) throw new LedgerConflictError(request.key);
  return { claimed: false, existing: decodeRun(result.current) };
}

/** `claimed` → `dispatched`, for our claim only (`RunLedger.markDispatched`). */
function markDispatched(
  store: LedgerStore,
  key: string,
  attempts: number,
  delivery: Parameters<RunLedger['markDispatched']>[2],
): Promise<boolean> {
  const build = () =>
    new UpdateExpression()
      .set('status', av.s('dispatched'))
      .set('dispatchedAt', av.s(delivery.dispatchedAt.toISOString()))
      .set('deliveryId', av.s(delivery.deliveryId))
      .remove('leaseUntilEpochMs');
  if (delivery.late) {
    const u = addOutbox(build(), key, ['late'], ['notify:late'], delivery.outboxLeaseUntilEpochMs);
    return conditional(store, key, u, ownClaim(attempts));
  }
  if (delivery.stuckCheckAtEpochMs !== undefined) {
    const u = build().set('checkAtEpochMs', av.n(delivery.stuckCheckAtEpochMs));
    return conditional(store, key, u, ownClaim(attempts));
  }
  // Nothing more is owed on the run once dispatched, unless an earlier move left an effect.
  return applied(leaveOpenIndex(store, { key, build, condition: ownClaim(attempts) }));
}

/** True when the recorder recorded the end of attempt `attempts` (not a dead letter). */
function completedBy(item: RunItem | undefined, attempts: number): item is RunItem {
  return (
    item !== undefined &&
    (item.status === 'succeeded' || item.status === 'failed') &&
    item.failure !== 'delivery' &&
    item.completionId !== undefined &&
    item.attempts === attempts
  );
}

/** A refused `markDispatched`, explained (`RunLedger.settleCompletedFirst`). */
async function settleCompletedFirst(
  store: LedgerStore,
  key: string,
  attempts: number,
  late: Parameters<RunLedger['settleCompletedFirst']>[2],
): ReturnType<RunLedger['settleCompletedFirst']> {
  if (!late.raise) {
    const item = await getRun(store, key);
    return { completed: completedBy(item, attempts) ? item : undefined, lateRaised: false };
  }
  const u = addOutbox(
    new UpdateExpression(),
    key,
    ['late'],
    ['notify:late'],
    late.outboxLeaseUntilEpochMs,
  );
  const status = u.name('status');
  const condition =
    `${u.name('attempts')} = ${u.value('attempts', av.n(attempts))} AND attribute_exists(${u.name('completionId')}) AND ` +
    `(${status} = ${u.value('succeeded', av.s('succeeded'))} OR (${status} = ${u.value('failed', av.s('failed'))} AND ${u.name('failure')} = ${u.value('execution', av.s('execution'))})) AND ` +
    notRaised(u, 'late');
  const result = await store.update({ key, ...u.build(), condition, returnValues: 'ALL_NEW' });
  if (result.applied) return { completed: result.item && decodeRun(result.item), lateRaised: true };
  const current = result.current && decodeRun(result.current);
  return { completed: completedBy(current, attempts) ? current : undefined, lateRaised: false };
}

/** `claimed` → `delivery-failed`, for our claim only (`RunLedger.releaseFailed`). */
function releaseFailed(
  store: LedgerStore,
  key: string,
  attempts: number,
  failure: Parameters<RunLedger['releaseFailed']>[2],
): Promise<boolean> {
  const u = new UpdateExpression()
    .set('status', av.s('delivery-failed'))
    .set('lastError', av.s(failure.lastError))
    .set('retryAtEpochMs', av.n(failure.retryAtEpochMs))
    .set('checkAtEpochMs', av.n(failure.checkAtEpochMs ?? failure.retryAtEpochMs))
    .remove('leaseUntilEpochMs');
  return conditional(store, key, u, ownClaim(attempts));
}

/** `claimed` or `delivery-failed` → `failed(delivery)` (`RunLedger.failDelivery`). */
function failDelivery(
  store: LedgerStore,
  key: string,
  attempts: number,
  failure: Parameters<RunLedger['failDelivery']>[2],
): Promise<boolean> {
  const build = () =>
    new UpdateExpression()
      .set('status', av.s('failed'))
      .set('failure', av.s('delivery'))
      .set('lastError', av.s(failure.lastError))
      .set('completedAt', av.s(failure.failedAt.toISOString()))
      .remove('leaseUntilEpochMs');
  const condition = (c: UpdateExpression) =>
    `(${c.name('status')} = ${c.value('claimed', av.s('claimed'))} OR ${c.name('status')} = ${c.value('deliveryFailed', av.s('delivery-failed'))}) AND ${c.name('attempts')} = ${c.value('attempts', av.n(attempts))}`;
  if (failure.raise === false) return applied(leaveOpenIndex(store, { key, build, condition }));
  const u = addOutbox(
    build(),
    key,
    ['dead-lettered'],
    ['dead-letter', 'notify:dead-lettered'],
    failure.outboxLeaseUntilEpochMs,
  );
  return conditional(store, key, u, condition);
}

/** `claimed` → `skipped`, for our claim only (`RunLedger.markSkipped`). */
function markSkipped(
  store: LedgerStore,
  key: string,
  attempts: number,
  reason: SkipReason,
  detail: string,
  overlap: OverlapNotice | undefined,
): Promise<boolean> {
  const build = () =>
    new UpdateExpression()
      .set('status', av.s('skipped'))
      .set('skipReason', av.s(reason))
      .set('lastError', av.s(detail))
      .remove('leaseUntilEpochMs');
  if (overlap) {
    const u = build().set('overlapSince', av.s(overlap.since));
    addOutbox(u, key, ['overlap'], ['notify:overlap'], overlap.outboxLeaseUntilEpochMs);
    return conditional(store, key, u, ownClaim(attempts));
  }
  return applied(leaveOpenIndex(store, { key, build, condition: ownClaim(attempts) }));
}

/** The `missed` signal, with its notification owed unless the gap's carrier owes it. */
function raiseMissed(
  u: UpdateExpression,
  request: Pick<ClaimRequest, 'key' | 'notify' | 'incident'>,
  outboxLeaseUntilEpochMs: number,
): void {
  if (request.notify === false) {
    u.add('signals', av.ss(['missed']));
    return;
  }
  addOutbox(u, request.key, ['missed'], ['notify:missed'], outboxLeaseUntilEpochMs);
  if (request.incident) u.set('incident', av.s(JSON.stringify(request.incident)));
}

/** Whether a conditional update was made. */
async function applied(result: Promise<UpdateResult>): Promise<boolean> {
  return (await result).applied;
}

/** A new `skipped` item, unless the run has one (`RunLedger.recordSkipped`). */
async function recordSkipped(store: LedgerStore, record: SkipRecord): Promise<SkipOutcome> {
  const u = new UpdateExpression()
    .set('jobId', av.s(record.jobId))
    .set('at', av.s(record.at.toISOString()))
    .set('nominal', av.s(record.nominal))
    .set('dst', av.s(record.dst))
    .set('status', av.s('skipped'))
    .set('skipReason', av.s(record.reason))
    .set('lastError', av.s(record.detail))
    .set('attempts', av.n(0))
    .set('roundAttempts', av.n(0))
    .set('manual', av.b(false))
    .set('origin', av.s(record.origin))
    .set(LEDGER_TTL_ATTRIBUTE, av.n(record.ttlEpochSec));
  if (record.missed) raiseMissed(u, record, record.outboxLeaseUntilEpochMs);
  const condition = `attribute_not_exists(${u.name('pk')})`;
  const result = await store.update({ key: record.key, ...u.build(), condition });
  if (result.applied) return { recorded: true };
  return { recorded: false, existing: result.current ? decodeRun(result.current) : undefined };
}

/** Raises `stuck` once on a `dispatched` run (`RunLedger.markStuck`). */
function markStuck(
  store: LedgerStore,
  key: string,
  outboxLeaseUntilEpochMs: number,
): Promise<boolean> {
  const u = new UpdateExpression();
  addOutbox(u, key, ['stuck'], ['notify:stuck'], outboxLeaseUntilEpochMs);
  return conditional(
    store,
    key,
    u,
    (c) =>
      `${c.name('status')} = ${c.value('dispatched', av.s('dispatched'))} AND ${notRaised(c, 'stuck')}`,
  );
}

/**
 * Raises `deadline-missed` once (`RunLedger.markDeadlineMissed`).
 *
 * ```
 *  claimed | delivery-failed | dispatched | failed, deadline < now, not raised ──> + deadline-missed, outbox
 *  skipped, succeeded, no deadline (an operator's run, a redrive), raised already ──> refused
 * ```
 */
function markDeadlineMissed(
  store: LedgerStore,
  key: string,
  nowEpochMs: number,
  outboxLeaseUntilEpochMs: number,
  checkAtEpochMs: number | undefined,
): Promise<boolean> {
  const u = new UpdateExpression();
  addOutbox(u, key, ['deadline-missed'], ['notify:deadline-missed'], outboxLeaseUntilEpochMs);
  if (checkAtEpochMs !== undefined && checkAtEpochMs < outboxLeaseUntilEpochMs) {
    u.set('checkAtEpochMs', av.n(checkAtEpochMs));
  }
  return conditional(store, key, u, (c) => {
    const status = c.name('status');
    return (
      `${c.name('deadlineAtEpochMs')} < ${c.value('now', av.n(nowEpochMs))} AND ` +
      `${status} <> ${c.value('skipped', av.s('skipped'))} AND ${status} <> ${c.value('succeeded', av.s('succeeded'))} AND ` +
      notRaised(c, 'deadline-missed')
    );
  });
}

/** Closes or reschedules an open run still as seen (`RunLedger.closeOpen`). */
function closeOpen(
  store: LedgerStore,
  key: string,
  seen: Parameters<RunLedger['closeOpen']>[1],
  nextCheckAtEpochMs: number | undefined,
): Promise<boolean> {
  const u = new UpdateExpression();
  if (nextCheckAtEpochMs === undefined) {
    u.remove('openShard', 'checkAtEpochMs', 'outboxLeaseUntilEpochMs');
  } else {
    u.set('checkAtEpochMs', av.n(nextCheckAtEpochMs));
  }
  return conditional(
    store,
    key,
    u,
    (c) =>
      `attribute_not_exists(${c.name('outbox')}) AND ${c.name('status')} = ${c.value('seenStatus', av.s(seen.status))} AND ${c.name('checkAtEpochMs')} = ${c.value('seenCheck', av.n(seen.checkAtEpochMs))}`,
  );
}

/** A redrive's round for a finished run (`RunLedger.resetForRedrive`). */
async function resetForRedrive(
  store: LedgerStore,
  key: string,
  dueAtEpochMs: number,
): ReturnType<RunLedger['resetForRedrive']> {
  const u = new UpdateExpression()
    .set('status', av.s('delivery-failed'))
    .set('roundAttempts', av.n(0))
    .set('openShard', av.s(openShardOf(key)))
    .set('checkAtEpochMs', av.n(dueAtEpochMs))
    .add('generation', av.n(1))
    .delete('signals', av.ss(['stuck', 'run-failed']))
    .remove(
      'failure',
      'skipReason',
      'leaseUntilEpochMs',
      'completedAt',
      'completionId',
      'startedAt',
      'overlapSince',
      // A redrive is the operator's to watch: it raises no deadline-missed (§6, Deadlines).
      'deadlineAtEpochMs',
      'retryAtEpochMs',
    );
  const status = u.name('status');
  const condition =
    `attribute_not_exists(${u.name('outbox')}) AND ` +
    `${status} IN (${u.value('failed', av.s('failed'))}, ${u.value('deliveryFailed', av.s('delivery-failed'))}, ${u.value('skipped', av.s('skipped'))})`;
  const result = await store.update({ key, ...u.build(), condition, returnValues: 'ALL_NEW' });
  if (result.applied) return { reset: true, item: result.item && decodeRun(result.item) };
  return { reset: false, item: result.current && decodeRun(result.current) };
}

/** One run item, read consistently (`RunLedger.getRun`). */
async function getRun(store: LedgerStore, key: string): Promise<RunItem | undefined> {
  const item = await store.get(key);
  return item ? decodeRun(item) : undefined;
}

/** Run items by key, in batches (`RunLedger.getRuns`). */
async function getRuns(
  store: LedgerStore,
  keys: readonly string[],
  consistent = false,
): Promise<Map<string, RunItem>> {
  const items = await store.batchGet(keys, consistent);
  return new Map([...items].map(([key, item]) => [key, decodeRun(item)]));
}

/** One page of a `byOpen` partition due by `nowEpochMs` (`RunLedger.findDue`). */
async function findDue(
  store: LedgerStore,
  shard: string,
  nowEpochMs: number,
  limit: number,
): Promise<RunItem[]> {
  const items = await store.query({
    index: LEDGER_OPEN_INDEX,
    keyCondition: '#shard = :shard AND #check <= :now',
    names: { '#shard': 'openShard', '#check': 'checkAtEpochMs' },
    values: { ':shard': av.s(shard), ':now': av.n(nowEpochMs) },
    limit,
  });
  return items.map(decodeRun);
}

export type { RunItem };
