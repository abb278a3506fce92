import type { DeadLetters } from '../shared/dead-letters.ts';
import type { AppLogger } from '../shared/logger.ts';
import type { AppMetrics } from '../shared/metrics.ts';
import type { Completion } from './completion.ts';
import { parseCompletionEvent } from './completion.ts';

/** What the recorder needs to know about a run's ledger item (architecture §5). */
export interface LedgerRun {
  readonly key: string;
  readonly jobId: string;
  readonly status: string;
  readonly dispatchedAt?: string;
  /** `delivery` or `execution` when `status` is `failed`. */
  readonly failure?: string;
  /** The completion that made the run terminal (Lambda request id or execution ARN). */
  readonly completionId?: string;
  /** When the recorder's dead-letter message for an execution failure was sent. */
  readonly deadLetteredAt?: string;
  /** Who may send that dead-letter message, until when. */
  readonly deadLetterLeaseUntilEpochMs?: number;
}

/** The terminal write the recorder makes on a `dispatched` run. */
export interface CompletionWrite {
  readonly key: string;
  readonly jobId: string;
  readonly status: 'succeeded' | 'failed';
  readonly completedAt: string;
  readonly durationMs: number;
  readonly lastError: string | undefined;
  readonly completionId: string;
  /** Set on failures that must be dead-lettered: the writer holds the send until then. */
  readonly deadLetterLeaseUntilEpochMs: number | undefined;
}

/** The ledger operations of the recorder; `./ledger.ts` implements them on DynamoDB. */
export interface CompletionLedger {
  /** Strongly consistent read of one run; undefined when there is no such item. */
  getRun(key: string): Promise<LedgerRun | undefined>;
  /**
   * `dispatched` → `succeeded`/`failed`, conditional on the item existing, belonging to
   * `jobId` and still being `dispatched`. When the condition fails, the stored item (if any)
   * comes back instead.
   */
  recordCompletion(
    write: CompletionWrite,
  ): Promise<{ recorded: true } | { recorded: false; current: LedgerRun | undefined }>;
  /** Takes the right to send the dead-letter message if nobody holds it; false otherwise. */
  acquireDeadLetterLease(
    key: string,
    completionId: string,
    nowEpochMs: number,
    leaseUntilEpochMs: number,
  ): Promise<boolean>;
  /** Records that the dead-letter message went out, so no retry sends it again. */
  markDeadLettered(key: string, completionId: string, deadLetteredAt: string): Promise<void>;
}

/** Everything the recorder core depends on, injected. */
export interface RecorderDeps {
  readonly clock: () => Date;
  readonly ledger: CompletionLedger;
  /** The dispatcher's DLQ sender; the recorder sends `reason: 'execution-failed'`. */
  readonly deadLetters: DeadLetters;
  readonly logger: AppLogger;
  /**
   * `RunSucceeded`/`RunFailed`, `RunDurationSeconds`; a completion that changes nothing counts
   * as `DuplicatesSuppressed`, an event that is no completion as `MalformedEvents`.
   */
  readonly metrics: AppMetrics;
  /**
   * How long the writer of a failure holds the right to send its dead-letter message.
   * Longer than the recorder's timeout (30 s in the stack), shorter than Lambda's second
   * asynchronous retry (about 3 min after the first attempt). @default 120
   */
  readonly deadLetterLeaseSeconds?: number;
}

/** What one event led to. */
export type RecordOutcome =
  | {
      readonly outcome: 'recorded';
      readonly key: string;
      readonly status: 'succeeded' | 'failed';
      readonly durationMs: number;
      readonly deadLettered: boolean;
    }
  | { readonly outcome: 'dead-lettered'; readonly key: string }
  | { readonly outcome: 'ignored'; readonly key: string; readonly reason: string }
  | { readonly outcome: 'not-terminal'; readonly status: string }
  | { readonly outcome: 'unrecognised'; readonly reason: string };

/**
 * A completion arrived for a run the dispatcher has not yet marked `dispatched`.
 *
 * Thrown on purpose: the recorder is invoked asynchronously, so Lambda retries it (about a
 * minute later, twice), by which time the dispatcher has recorded the delivery.
 */
export class CompletionBeforeDispatchError extends Error {
  constructor(
    readonly key: string,
    readonly status: string,
  ) {
    super(`completion for run '${key}' arrived while it is '${status}' (expected 'dispatched')`);
    this.name = new.target.name;
  }
}

/**
 * Another recorder invocation holds the right to dead-letter this failure and has not
 * confirmed it yet. Thrown so that Lambda retries this event after the lease ran out.
 */
export class DeadLetterPendingError extends Error {
  constructor(
    readonly key: string,
    readonly leaseUntilEpochMs: number,
  ) {
    super(
      `dead-letter message for run '${key}' is held by another invocation until ${new Date(leaseUntilEpochMs).toISOString()}`,
    );
    this.name = new.target.name;
  }
}

/**
 * The duration of a run as the recorder stores it.
 *
 * Step Functions: the execution's own start to stop. Asynchronous Lambda: the run's
 * `dispatchedAt` to the destination record's timestamp, i.e. Lambda's queueing, the function's
 * run and its retries (a destination record says when the outcome was known, not when the
 * function started).
 *
 * @example
 * runDurationMs(lambdaCompletionAt('2026-03-29T01:00:09.250Z'),
 *   { key, jobId: 'nightly', status: 'dispatched', dispatchedAt: '2026-03-29T01:00:02.000Z' })
 * //=> 7250
 */
export function runDurationMs(completion: Completion, run: LedgerRun): number {
  const fromMs =
    completion.startedAt?.getTime() ??
    Date.parse(run.dispatchedAt ?? completion.envelope.scheduledAt);
  return Math.max(0, completion.finishedAt.getTime() - fromMs);
}

/**
 * Creates the recorder: it turns a target's report that a run finished into the run's
 * terminal ledger state, metrics, one log line and, for a failed asynchronous Lambda
 * invocation, one dead-letter message.
 *
 * A run is completed once. Lambda destinations and EventBridge both deliver at least once,
 * so a second report for the same run finds it terminal and is ignored (logged and counted
 * as `DuplicatesSuppressed`, like a duplicate tick). The dead-letter message is sent at least
 * once and, barring a recorder that outlives its lease, exactly once:
 *
 * ```
 * dispatched ──(recordCompletion: failed, lease=now+L)──> failed ──send──> markDeadLettered
 *                                                          │ crash before mark: retry after L
 *                                                          └─> acquireDeadLetterLease → send
 * ```
 *
 * @example
 * const recorder = createRecorder({ clock: () => new Date(), ledger, deadLetters, logger, metrics });
 * await recorder.handle(destinationRecord);
 * //=> { outcome: 'recorded', key: '9f…', status: 'succeeded', durationMs: 5400, deadLettered: false }
 */
export function createRecorder(deps: RecorderDeps): {
  handle(event: unknown): Promise<RecordOutcome>;
} {
  const leaseMs = (deps.deadLetterLeaseSeconds ?? 120) * 1000;

  async function deadLetter(completion: Completion, sendNow: boolean): Promise<boolean> {
    const { envelope } = completion;
    if (!sendNow) {
      const nowMs = deps.clock().getTime();
      const acquired = await deps.ledger.acquireDeadLetterLease(
        envelope.key,
        completion.completionId,
        nowMs,
        nowMs + leaseMs,
      );
      if (!acquired) return false;
    }
    await deps.deadLetters.send({
      version: 1,
      reason: 'execution-failed',
      key: envelope.key,
      jobId: envelope.jobId,
      envelope,
      target: completion.target,
      lastError: completion.lastError ?? 'execution failed',
      attempts: completion.attempts,
      failedAt: completion.finishedAt.toISOString(),
    });
    await deps.ledger.markDeadLettered(
      envelope.key,
      completion.completionId,
      deps.clock().toISOString(),
    );
    return true;
  }

  function logFields(completion: Completion) {
    const { envelope } = completion;
    return {
      jobId: envelope.jobId,
      key: envelope.key,
      scheduledAt: envelope.scheduledAt,
      nominal: envelope.nominal,
      timezone: envelope.timezone,
      attempt: envelope.attempt,
      source: completion.source,
      completionId: completion.completionId,
    };
  }

  async function settleExisting(
    completion: Completion,
    run: LedgerRun | undefined,
  ): Promise<RecordOutcome> {
    const { envelope } = completion;
    const needsDeadLetter =
      run !== undefined &&
      run.jobId === envelope.jobId &&
      completion.source === 'lambda-destination' &&
      completion.status === 'failed' &&
      run.status === 'failed' &&
      run.failure === 'execution' &&
      run.completionId === completion.completionId &&
      run.deadLetteredAt === undefined;
    if (run && needsDeadLetter) {
      // A retry of an invocation that recorded the failure but did not confirm the DLQ send.
      if (await deadLetter(completion, false)) {
        deps.logger.info('run dead-lettered', {
          decision: 'dead-lettered',
          ...logFields(completion),
          reason: 'execution-failed',
        });
        return { outcome: 'dead-lettered', key: envelope.key };
      }
      throw new DeadLetterPendingError(envelope.key, run.deadLetterLeaseUntilEpochMs ?? 0);
    }
    const jobMismatch = run !== undefined && run.jobId !== envelope.jobId;
    if (run && !jobMismatch && (run.status === 'claimed' || run.status === 'delivery-failed')) {
      throw new CompletionBeforeDispatchError(envelope.key, run.status);
    }
    const reason =
      run === undefined
        ? 'no-ledger-item'
        : jobMismatch
          ? `job-mismatch:${run.jobId}`
          : `already-${run.status}`;
    deps.logger.warn('completion ignored', {
      decision: 'completion-ignored',
      ...logFields(completion),
      reason,
      status: completion.status,
    });
    deps.metrics.job(envelope.jobId, 'DuplicatesSuppressed');
    return { outcome: 'ignored', key: envelope.key, reason };
  }

  async function record(completion: Completion): Promise<RecordOutcome> {
    const { envelope } = completion;
    const run = await deps.ledger.getRun(envelope.key);
    if (run?.status !== 'dispatched' || run.jobId !== envelope.jobId) {
      return settleExisting(completion, run);
    }
    const durationMs = runDurationMs(completion, run);
    const mustDeadLetter =
      completion.source === 'lambda-destination' && completion.status === 'failed';
    const result = await deps.ledger.recordCompletion({
      key: envelope.key,
      jobId: envelope.jobId,
      status: completion.status,
      completedAt: completion.finishedAt.toISOString(),
      durationMs,
      lastError: completion.lastError,
      completionId: completion.completionId,
      deadLetterLeaseUntilEpochMs: mustDeadLetter ? deps.clock().getTime() + leaseMs : undefined,
    });
    if (!result.recorded) return settleExisting(completion, result.current);

    const succeeded = completion.status === 'succeeded';
    deps.metrics.job(envelope.jobId, succeeded ? 'RunSucceeded' : 'RunFailed');
    deps.metrics.job(envelope.jobId, 'RunDurationSeconds', durationMs / 1000);
    const line = {
      decision: succeeded ? 'succeeded' : 'failed',
      ...logFields(completion),
      dispatchedAt: run.dispatchedAt,
      completedAt: completion.finishedAt.toISOString(),
      durationMs,
      lastError: completion.lastError,
    };
    if (succeeded) deps.logger.info('run succeeded', line);
    else deps.logger.warn('run failed', line);
    if (mustDeadLetter) {
      await deadLetter(completion, true);
      deps.logger.info('run dead-lettered', {
        decision: 'dead-lettered',
        ...logFields(completion),
        reason: 'execution-failed',
      });
    }
    return {
      outcome: 'recorded',
      key: envelope.key,
      status: completion.status,
      durationMs,
      deadLettered: mustDeadLetter,
    };
  }

  return {
    async handle(event: unknown): Promise<RecordOutcome> {
      const parsed = parseCompletionEvent(event);
      if (parsed.kind === 'unrecognised') {
        deps.logger.warn('unrecognised event', {
          decision: 'unrecognised',
          reason: parsed.reason,
        });
        deps.metrics.global('MalformedEvents');
        return { outcome: 'unrecognised', reason: parsed.reason };
      }
      if (parsed.kind === 'not-terminal') {
        deps.logger.info('execution not terminal', {
          decision: 'not-terminal',
          status: parsed.status,
          executionArn: parsed.executionArn,
        });
        return { outcome: 'not-terminal', status: parsed.status };
      }
      return record(parsed.completion);
    },
  };
}
