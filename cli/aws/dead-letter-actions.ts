import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { RunLedger } from '#ledger/index.ts';
import type { Dispatcher } from '../../functions/dispatcher/dispatch.ts';
import { describeError } from '../errors.ts';
import type { QueuedDeadLetter } from './dead-letter-queue.ts';
import type { OperatorLog } from './operator-log.ts';

/** What became of one dead-lettered run (`zonecron dlq redrive`). */
export interface RedriveReport {
  key: string;
  jobId: string;
  scheduledAt: string;
  /**
   * `redriven`: delivered now, message deleted. `already-delivered`: the run was delivered
   * meanwhile, message deleted as handled. `refused`: in flight, message kept. `failed`: the
   * attempt failed, the run is failed again and its one message kept.
   */
  result: 'redriven' | 'already-delivered' | 'refused' | 'failed';
  detail: string;
}

/**
 * Redrives one run (all the messages of one key): one attempt through the dispatcher.
 *
 * ```
 *   dispatched now                           → redriven: its messages deleted
 *   refused: dispatched/succeeded meanwhile  → already-delivered: its messages deleted
 *   refused: claimed, or a side effect owed  → refused: kept, try again in a minute
 *   the attempt failed                       → failed: the run is failed again, the message
 *                                              kept, and no second message sent
 * ```
 *
 * @example
 * await redriveOne(dispatcher, messagesOfOneKey, () => deleteThem())
 * //=> { key: '9f86…', jobId: 'nightly', scheduledAt: '…', result: 'redriven', detail: '…' }
 */
export async function redriveOne(
  dispatcher: Dispatcher,
  messages: readonly QueuedDeadLetter[],
  deleteMessages: () => Promise<void>,
): Promise<RedriveReport> {
  const { manualRunKey } = await import('../../functions/dispatcher/dispatch.ts');
  const { describeOutcome } = await import('../format/outcome.ts');
  const body = messages[0]?.body;
  if (!body) throw new Error('redriveOne needs a readable message');
  const at = new Date(body.envelope.scheduledAt);
  const manual = body.key === manualRunKey(body.jobId, at);
  const base = { key: body.key, jobId: body.jobId, scheduledAt: body.envelope.scheduledAt };
  try {
    const outcome = await dispatcher.redrive({ jobId: body.jobId, at, manual });
    if (outcome.key !== body.key) {
      const detail = `the dispatcher computed key ${outcome.key}, not the message's ${body.key}; message kept`;
      return { ...base, result: 'refused', detail };
    }
    if (outcome.outcome === 'duplicate') {
      const detail = `${describeOutcome(outcome)}; try again in a minute`;
      return { ...base, result: 'refused', detail };
    }
    if (outcome.outcome === 'dead-lettered' || outcome.outcome === 'delivery-failed') {
      const detail =
        `delivery failed again (attempt ${outcome.attempt}): ${outcome.lastError}; the run is` +
        ' failed again and its message stays in the queue (no second one was sent)';
      return { ...base, result: 'failed', detail };
    }
    if (outcome.outcome !== 'dispatched') {
      const detail = `${describeOutcome(outcome)}; the message stays in the queue`;
      return { ...base, result: 'failed', detail };
    }
    await deleteMessages();
    return { ...base, result: 'redriven', detail: describeOutcome(outcome) };
  } catch (error) {
    const existing = (error as { existing?: { status?: string } }).existing;
    if ((error as Error).name !== 'RedriveRefusedError' || !existing) {
      return { ...base, result: 'failed', detail: describeError(error) };
    }
    if (existing.status === 'dispatched' || existing.status === 'succeeded') {
      await deleteMessages();
      const detail = `the run was delivered meanwhile (status ${existing.status}); message deleted as handled`;
      return { ...base, result: 'already-delivered', detail };
    }
    return { ...base, result: 'refused', detail: `${describeError(error)}; try again in a minute` };
  }
}

/** What a discard needs: the run's ledger, the operator log and a clock. */
export interface DiscardDeps {
  readonly ledger: Pick<RunLedger, 'getRun'>;
  readonly log: OperatorLog;
  readonly clock: () => Date;
}

/**
 * Discards one run's dead letter on purpose (`zonecron dlq discard`): its messages are deleted
 * and who did it and why is logged in the ledger; the run itself is left as it is. Returns the
 * run's status (undefined when the ledger no longer has it).
 *
 * @example
 * await discardDeadLetter(deps, { body, by: 'alice@laptop', reason: 'ran by hand',
 *   deleteMessages: () => deleteThem() })
 * //=> { status: 'failed' }
 */
export async function discardDeadLetter(
  deps: DiscardDeps,
  input: {
    readonly body: DeadLetterMessage;
    readonly by: string;
    readonly reason: string;
    readonly deleteMessages: () => Promise<void>;
  },
): Promise<{ readonly status: string | undefined }> {
  const { body } = input;
  const run = await deps.ledger.getRun(body.key);
  await input.deleteMessages();
  await deps.log.record({
    jobId: body.jobId,
    action: 'discarded',
    at: deps.clock().toISOString(),
    by: input.by,
    reason: input.reason,
    runKey: body.key,
    detail: `dead letter of the run at ${body.envelope.scheduledAt} (${body.reason}); run left ${run?.status ?? 'absent from the ledger'}`,
  });
  return { status: run?.status };
}
