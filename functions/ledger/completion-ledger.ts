import { createJobStateLedger } from './job-state-ledger.ts';
import { av, decodeRun, type OutboxEffect, type RunItem, type Signal } from './ledger-item.ts';
import type { LedgerStore } from './ledger-store.ts';
import { LEDGER_PARTITION_KEY } from './ledger-table.ts';
import {
  addOutbox,
  createOutboxLedger,
  type LeavingMove,
  leaveOpenIndex,
  notRaised,
  type OutboxLedger,
} from './outbox.ts';
import { UpdateExpression } from './update-expression.ts';

/**
 * Every attribute of a run item the recorder reads, writes or tests (architecture §5), the
 * key and the index keys included: its reads project these, its writes name no others and ask
 * for no return values, so its IAM grant can be limited to them (`dynamodb:Attributes`).
 */
export const RECORDER_RUN_ATTRIBUTES = [
  LEDGER_PARTITION_KEY,
  'jobId',
  'at',
  'nominal',
  'dst',
  'status',
  'attempts',
  'roundAttempts',
  'generation',
  'manual',
  'origin',
  'target',
  'secretHashes',
  'leaseUntilEpochMs',
  'deadlineAtEpochMs',
  'dispatchedAt',
  'deliveryId',
  'lastError',
  'failure',
  'skipReason',
  'completedAt',
  'startedAt',
  'completionId',
  'deadLetteredAt',
  'signals',
  'outbox',
  'outboxLeaseUntilEpochMs',
  'openShard',
  'checkAtEpochMs',
] as const;

/** The terminal write the recorder makes for one completion. */
export interface CompletionWrite {
  readonly key: string;
  readonly jobId: string;
  /** The envelope's `attempt`: which delivery this completion belongs to. */
  readonly attempt: number;
  /** The target's id of that delivery: Lambda's request id, or the execution ARN. */
  readonly completionId: string;
  /**
   * The SHA-256 of the delivery secret the report brought back: the write requires it among
   * the run's `secretHashes`.
   */
  readonly secretHash: string;
  /** The run's stored `target` the report was matched against: the write requires it unchanged. */
  readonly target: string;
  readonly status: 'succeeded' | 'failed';
  readonly completedAt: Date;
  /** When the target started it (Step Functions); Lambda says only when it ended. */
  readonly startedAt: Date | undefined;
  readonly lastError: string | undefined;
  /** What a failure owes: the dead-letter message (Lambda) and the `run-failed` notification. */
  readonly effects: readonly OutboxEffect[];
  readonly signals: readonly Signal[];
  readonly outboxLeaseUntilEpochMs: number;
  /**
   * The run's end is recorded after its deadline: the write raises `deadline-missed` too (its
   * notification owed with the rest), unless someone raised it already.
   */
  readonly deadlineMissed?: boolean;
}

/** What {@link RecorderLedger.recordCompletion} did. */
export type CompletionResult =
  /** Recorded; with `deadlineRaised`, this write raised `deadline-missed`. */
  | { readonly recorded: true; readonly deadlineRaised: boolean }
  /** Refused: the item as it is (undefined when there is none). */
  | { readonly recorded: false; readonly item: RunItem | undefined };

/** The recorder's view of the ledger. */
export interface RecorderLedger extends OutboxLedger {
  /** One run item, read consistently, only {@link RECORDER_RUN_ATTRIBUTES} of it. */
  getRun(key: string): Promise<RunItem | undefined>;
  /**
   * `dispatched` by this delivery (same delivery id) or still `claimed` by it (same attempt:
   * its dispatcher has not recorded the delivery yet) → `succeeded` | `failed(execution)`;
   * only while the run's target is `write.target` and the report's secret hash is one of the
   * run's.
   */
  recordCompletion(write: CompletionWrite): Promise<CompletionResult>;
  /** Gives `concurrency: forbid`'s slot back when this run holds it. */
  releaseSlot(jobId: string, key: string): Promise<boolean>;
}

/** What a refused recorder write reads back: its own attributes only. */
const ON_REFUSAL = { attributes: RECORDER_RUN_ATTRIBUTES };

/**
 * The recorder's ledger on the ledger table: one read and one conditional write per
 * completion (two writes when an effect an earlier move owed is still unsent,
 * `leaveOpenIndex`), each limited to {@link RECORDER_RUN_ATTRIBUTES}.
 *
 * @example
 * const ledger = createRecorderLedger(createLedgerStore({ client, tableName: 'zonecron-ledger' }));
 */
export function createRecorderLedger(store: LedgerStore): RecorderLedger {
  const { releaseSlot } = createJobStateLedger(store);
  return {
    ...createOutboxLedger(store),
    releaseSlot,
    getRun: async (key) => {
      const item = await store.get(key, RECORDER_RUN_ATTRIBUTES);
      return item ? decodeRun(item) : undefined;
    },
    recordCompletion: (write) => recordCompletion(store, write),
  };
}

/**
 * The run's end as the target reported it (`RecorderLedger.recordCompletion`): out of the open
 * index unless an effect is owed, the new one or one an earlier move left. Past the run's
 * deadline it raises `deadline-missed` in the same write, on condition that nobody did: refused
 * for that alone (the sweep raised it meanwhile), the end is recorded without it.
 */
async function recordCompletion(
  store: LedgerStore,
  write: CompletionWrite,
): Promise<CompletionResult> {
  if (write.deadlineMissed) {
    const raising = {
      ...write,
      signals: [...write.signals, 'deadline-missed' as const],
      effects: [...write.effects, 'notify:deadline-missed' as const],
    };
    const result = await recordEnd(store, raising, (u) => notRaised(u, 'deadline-missed'));
    if (result.recorded || result.item?.signals.includes('deadline-missed') !== true) {
      return result.recorded ? { recorded: true, deadlineRaised: true } : result;
    }
  }
  return recordEnd(store, write, undefined);
}

/** The terminal write of {@link recordCompletion}, under one more condition when given. */
async function recordEnd(
  store: LedgerStore,
  write: CompletionWrite,
  also: ((u: UpdateExpression) => string) | undefined,
): Promise<CompletionResult> {
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
    condition: (u: UpdateExpression) =>
      also ? `(${completionCondition(write)(u)}) AND ${also(u)}` : completionCondition(write)(u),
    onRefusal: ON_REFUSAL,
  };
  const result =
    write.effects.length > 0
      ? await store.update(withOutbox(move, write))
      : await leaveOpenIndex(store, move);
  if (result.applied) return { recorded: true, deadlineRaised: false };
  return { recorded: false, item: result.current && decodeRun(result.current) };
}

/**
 * Whose completion it is: the run's own (same job, the target stored on the run, a secret one
 * of its claims handed out), and of which delivery. A recorded delivery is identified by its
 * id alone (a Step Functions execution is named once per round, so a retry that found it
 * already started records the same ARN under a later attempt); a delivery not recorded yet is
 * known by its attempt only.
 */
function completionCondition(write: CompletionWrite) {
  return (u: UpdateExpression) => {
    const status = u.name('status');
    return (
      `${u.name('jobId')} = ${u.value('jobId', av.s(write.jobId))} AND ` +
      `${u.name('target')} = ${u.value('target', av.s(write.target))} AND ` +
      `contains(${u.name('secretHashes')}, ${u.value('secretHash', av.s(write.secretHash))}) AND (` +
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
  return { key: move.key, ...u.build(), condition, onRefusal: ON_REFUSAL };
}
