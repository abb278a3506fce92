import { createJobStateLedger } from './job-state-ledger.ts';
import { av, decodeRun, type OutboxEffect, type RunItem, type Signal } from './ledger-item.ts';
import type { LedgerStore } from './ledger-store.ts';
import {
  addOutbox,
  createOutboxLedger,
  type LeavingMove,
  leaveOpenIndex,
  type OutboxLedger,
} from './outbox.ts';
import { UpdateExpression } from './update-expression.ts';

/** The terminal write the recorder makes for one completion. */
export interface CompletionWrite {
  readonly key: string;
  readonly jobId: string;
  /** The envelope's `attempt`: which delivery this completion belongs to. */
  readonly attempt: number;
  /** The target's id of that delivery: Lambda's request id, or the execution ARN. */
  readonly completionId: string;
  readonly status: 'succeeded' | 'failed';
  readonly completedAt: Date;
  /** When the target started it (Step Functions); Lambda says only when it ended. */
  readonly startedAt: Date | undefined;
  readonly lastError: string | undefined;
  /** What a failure owes: the dead-letter message (Lambda) and the `run-failed` notification. */
  readonly effects: readonly OutboxEffect[];
  readonly signals: readonly Signal[];
  readonly outboxLeaseUntilEpochMs: number;
}

/** The recorder's view of the ledger. */
export interface RecorderLedger extends OutboxLedger {
  /**
   * `dispatched` by this delivery (same delivery id) or still `claimed` by it (same attempt:
   * its dispatcher has not recorded the delivery yet) → `succeeded` | `failed(execution)`.
   * Applied: the item as it was before; refused: the item as it is (undefined when there is
   * none).
   */
  recordCompletion(
    write: CompletionWrite,
  ): Promise<{ readonly recorded: boolean; readonly item: RunItem | undefined }>;
  /** Gives `concurrency: forbid`'s slot back when this run holds it. */
  releaseSlot(jobId: string, key: string): Promise<boolean>;
}

/**
 * The recorder's ledger on the ledger table: one conditional write per completion (two when
 * an effect an earlier move owed is still unsent, `leaveOpenIndex`).
 *
 * @example
 * const ledger = createRecorderLedger(createLedgerStore({ client, tableName: 'zonecron-ledger' }));
 */
export function createRecorderLedger(store: LedgerStore): RecorderLedger {
  const { releaseSlot } = createJobStateLedger(store);
  return {
    ...createOutboxLedger(store),
    releaseSlot,
    recordCompletion: (write) => recordCompletion(store, write),
  };
}

/**
 * The run's end as the target reported it (`RecorderLedger.recordCompletion`): out of the open
 * index unless an effect is owed, the new one or one an earlier move left.
 */
async function recordCompletion(store: LedgerStore, write: CompletionWrite) {
  const build = () => {
    const u = new UpdateExpression()
      .set('status', av.s(write.status))
      .set('completedAt', av.s(write.completedAt.toISOString()))
      .set('completionId', av.s(write.completionId))
      .remove('leaseUntilEpochMs');
    if (write.startedAt) u.set('startedAt', av.s(write.startedAt.toISOString()));
    if (write.lastError !== undefined) u.set('lastError', av.s(write.lastError));
    if (write.status === 'failed') u.set('failure', av.s('execution'));
    return u;
  };
  const move = {
    key: write.key,
    build,
    condition: completionCondition(write),
    returnValues: 'ALL_OLD' as const,
  };
  const result =
    write.effects.length > 0
      ? await store.update(withOutbox(move, write))
      : await leaveOpenIndex(store, move);
  const decoded = result.applied ? result.item : result.current;
  return { recorded: result.applied, item: decoded && decodeRun(decoded) };
}

/**
 * Whose completion it is: a recorded delivery is identified by its id alone (a Step Functions
 * execution is named once per round, so a retry that found it already started records the
 * same ARN under a later attempt); a delivery not recorded yet is known by its attempt only.
 */
function completionCondition(write: CompletionWrite) {
  return (u: UpdateExpression) => {
    const status = u.name('status');
    return (
      `${u.name('jobId')} = ${u.value('jobId', av.s(write.jobId))} AND (` +
      `(${status} = ${u.value('claimed', av.s('claimed'))} AND ${u.name('attempts')} = ${u.value('attempt', av.n(write.attempt))}) OR ` +
      `(${status} = ${u.value('dispatched', av.s('dispatched'))} AND ${u.name('deliveryId')} = ${u.value('completionId', av.s(write.completionId))}))`
    );
  };
}

/** The completion's update with the effects it owes added, as one conditional write. */
function withOutbox(move: LeavingMove, write: CompletionWrite) {
  const u = addOutbox(
    move.build(),
    write.key,
    write.signals,
    write.effects,
    write.outboxLeaseUntilEpochMs,
  );
  const condition = move.condition(u);
  return { key: move.key, ...u.build(), condition, returnValues: 'ALL_OLD' as const };
}
