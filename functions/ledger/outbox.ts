import type { DeadLetterMessage, DeadLetters } from '#jobs/dead-letters.ts';
import { buildEnvelope } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import type { JobCatalog } from '#jobs/jobs-bundle.ts';
import type { AppLogger } from '#shared/logger.ts';
import type { AppMetrics } from '#shared/metrics.ts';
import { withRetries } from '#shared/retry.ts';
import {
  av,
  decodeRun,
  type OutboxEffect,
  openShardOf,
  type RunItem,
  type Signal,
} from './ledger-item.ts';
import type { ConditionalUpdate, LedgerStore, UpdateResult } from './ledger-store.ts';
import { buildNotification, type Notifier } from './notifications.ts';
import { UpdateExpression } from './update-expression.ts';

/**
 * The ledger side of a run's outbox: what a transition owes the world (a dead-letter message,
 * notifications) stays on the item until done.
 *
 * ```
 *  transition ── ADD outbox {…}, lease L, open until L ──> perform ──> confirm (DELETE outbox …)
 *                                  └ writer died: the sweep finds it at L ──> takeOutbox ──> perform ──> confirm
 * ```
 */
export interface OutboxLedger {
  /** Takes the right to perform the outbox until `leaseUntilEpochMs`; the item, or undefined. */
  takeOutbox(
    key: string,
    nowEpochMs: number,
    leaseUntilEpochMs: number,
  ): Promise<RunItem | undefined>;
  /** Removes the effects done (and records when the dead letter went out). */
  confirmOutbox(key: string, done: readonly OutboxEffect[], deadLetteredAt?: Date): Promise<void>;
}

/**
 * Adds side effects to a transition's update: the signals raised (each once per run), the
 * effects owed, and the lease that keeps the item in the open index until they are done.
 */
export function addOutbox(
  u: UpdateExpression,
  key: string,
  signals: readonly Signal[],
  effects: readonly OutboxEffect[],
  leaseUntilEpochMs: number,
): UpdateExpression {
  if (signals.length > 0) u.add('signals', av.ss(signals));
  return u
    .add('outbox', av.ss(effects))
    .set('outboxLeaseUntilEpochMs', av.n(leaseUntilEpochMs))
    .set('openShard', av.s(openShardOf(key)))
    .set('checkAtEpochMs', av.n(leaseUntilEpochMs));
}

/**
 * The condition that the run has not raised `signal`: what makes a move that raises it (with
 * {@link addOutbox}) raise it once, whoever tries.
 */
export function notRaised(c: UpdateExpression, signal: Signal): string {
  const signals = c.name('signals');
  return `(attribute_not_exists(${signals}) OR NOT contains(${signals}, ${c.value(signal, av.s(signal))}))`;
}

/** A move that may take a run out of the open index (`leaveOpenIndex`). */
export interface LeavingMove {
  readonly key: string;
  /** The update of the move, built afresh for each try. */
  readonly build: () => UpdateExpression;
  /** The move's own condition (whose claim, which status). */
  readonly condition: (u: UpdateExpression) => string;
  readonly returnValues?: 'ALL_NEW' | 'ALL_OLD';
  /** What a refusal reads back (`ConditionalUpdate.onRefusal`); it must include `outbox`. */
  readonly onRefusal?: ConditionalUpdate['onRefusal'];
}

/**
 * Makes a move after which the run needs no one any more, and takes it out of the open index
 * (`byOpen`) only if nothing is owed on it: an effect an earlier move added (a missed or late
 * notification not yet confirmed) keeps it there, so the sweep still finds and performs it.
 * One write in the common case: the move, with the index keys removed, on condition that the
 * outbox is empty. When that is refused and the refusal shows an owed effect, the move is made
 * again keeping the index keys.
 *
 * @example
 * await leaveOpenIndex(store, { key, build: () => new UpdateExpression().set('status', av.s('skipped')),
 *   condition: (u) => `${u.name('status')} = ${u.value('claimed', av.s('claimed'))}` });
 * //=> { applied: true, … }; the item is in byOpen still if its outbox owes an effect
 */
export async function leaveOpenIndex(store: LedgerStore, move: LeavingMove): Promise<UpdateResult> {
  const attempt = (dropIndexKeys: boolean) => {
    const u = move.build();
    if (dropIndexKeys) u.remove('openShard', 'checkAtEpochMs');
    const owed = `${dropIndexKeys ? 'attribute_not_exists' : 'attribute_exists'}(${u.name('outbox')})`;
    const condition = `(${move.condition(u)}) AND ${owed}`;
    const returnValues = move.returnValues ? { returnValues: move.returnValues } : {};
    const onRefusal = move.onRefusal ? { onRefusal: move.onRefusal } : {};
    return store.update({
      key: move.key,
      ...u.build(),
      condition,
      ...returnValues,
      ...onRefusal,
    });
  };
  const closed = await attempt(true);
  if (closed.applied || closed.current?.outbox === undefined) return closed;
  const kept = await attempt(false);
  // The effect was confirmed between the two writes: the index keys can go after all.
  if (!kept.applied && kept.current && kept.current.outbox === undefined) return attempt(true);
  return kept;
}

/** The outbox operations on the ledger table. */
export function createOutboxLedger(store: LedgerStore): OutboxLedger {
  return {
    async takeOutbox(key, nowEpochMs, leaseUntilEpochMs) {
      const u = new UpdateExpression()
        .set('outboxLeaseUntilEpochMs', av.n(leaseUntilEpochMs))
        .set('checkAtEpochMs', av.n(leaseUntilEpochMs));
      const lease = u.name('outboxLeaseUntilEpochMs');
      const condition = `attribute_exists(${u.name('outbox')}) AND (attribute_not_exists(${lease}) OR ${lease} < ${u.value('now', av.n(nowEpochMs))})`;
      const result = await store.update({
        key,
        ...u.build(),
        condition,
        returnValues: 'ALL_NEW',
      });
      return result.applied && result.item ? decodeRun(result.item) : undefined;
    },

    async confirmOutbox(key, done, deadLetteredAt) {
      if (done.length === 0) return;
      const u = new UpdateExpression().delete('outbox', av.ss(done));
      if (deadLetteredAt) u.set('deadLetteredAt', av.s(deadLetteredAt.toISOString()));
      await store.update({ key, ...u.build() });
    },
  };
}

/** What performing an outbox needs. */
export interface OutboxDeps {
  readonly ledger: Pick<OutboxLedger, 'confirmOutbox'>;
  readonly deadLetters: DeadLetters;
  readonly notifier: Notifier;
  readonly logger: AppLogger;
  readonly metrics: AppMetrics;
  readonly clock: () => Date;
  readonly stackName: string;
  readonly jobs: JobCatalog;
  /** Waits of the in-invocation retries of the confirming write (tests: none). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The dead-letter message of a failed run, rebuilt from its item and its job.
 *
 * @example
 * deadLetterMessage(failedItem, job, 'Zonecron').reason //=> 'delivery-failed'
 */
export function deadLetterMessage(
  item: RunItem,
  job: JobDefinition | undefined,
  stackName: string,
): DeadLetterMessage {
  const envelope = buildEnvelope(
    job ?? { id: item.jobId, timezone: '', payload: null },
    { key: item.key, at: new Date(item.at), nominal: item.nominal, dst: item.dst },
    item.attempts,
    stackName,
  );
  return {
    version: 1,
    reason: item.failure === 'execution' ? 'execution-failed' : 'delivery-failed',
    key: item.key,
    jobId: item.jobId,
    envelope,
    target: job?.target ?? { type: 'lambda', arn: item.target ?? '' },
    lastError: item.lastError ?? 'failed',
    attempts: item.attempts,
    failedAt: item.completedAt ?? item.at,
  };
}

/**
 * Performs what a run's outbox holds — the dead-letter message first, then each notification
 * — and confirms what went out.
 *
 * A failed effect stays in the outbox: the sweep performs it again once the lease the caller
 * took runs out (logged and counted here; never swallowed). The confirmation is retried on
 * transient errors, so an effect goes out twice only if the process dies in between. A notification that depends on the
 * dead-letter message waits for it.
 */
export async function performOutbox(deps: OutboxDeps, item: RunItem): Promise<OutboxEffect[]> {
  const job = deps.jobs.get(item.jobId);
  const done: OutboxEffect[] = [];
  let deadLetteredAt: Date | undefined;
  const pending = new Set(item.outbox);
  if (pending.has('dead-letter')) {
    try {
      await deps.deadLetters.send(deadLetterMessage(item, job, deps.stackName));
      deadLetteredAt = deps.clock();
      done.push('dead-letter');
      deps.metrics.job(item.jobId, 'DeadLettered');
    } catch (error) {
      deps.logger.error('dead-letter-failed', outboxFields(item, 'dead-letter', error));
    }
  }
  for (const effect of pending) {
    if (!effect.startsWith('notify:')) continue;
    const signal = effect.slice('notify:'.length) as Signal;
    if (signal === 'dead-lettered' && pending.has('dead-letter') && !deadLetteredAt) continue;
    try {
      await deps.notifier.notify(buildNotification(signal, item, job?.timezone, deps.stackName));
      done.push(effect);
      deps.metrics.global('NotificationsSent');
    } catch (error) {
      deps.metrics.global('NotificationFailures');
      deps.logger.error('notification-failed', outboxFields(item, effect, error));
    }
  }
  // What went out is confirmed before anything else happens: a transient error here would
  // leave the effects owed, and the sweep would send them again.
  await withRetries(
    () => deps.ledger.confirmOutbox(item.key, done, deadLetteredAt),
    deps.sleep ? { sleep: deps.sleep } : {},
  );
  return done;
}

function outboxFields(item: RunItem, effect: OutboxEffect, error: unknown) {
  return {
    decision: 'outbox-failed',
    effect,
    jobId: item.jobId,
    key: item.key,
    at: item.at,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    hint: 'kept in the run outbox; the sweep retries it when the lease ends',
  };
}
