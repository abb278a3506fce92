import type { DeadLetters } from '#jobs/dead-letters.ts';
import { deliverySecretHash } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { catalogOf, type JobCatalog } from '#jobs/jobs-bundle.ts';
import { completionFromTarget } from '#jobs/target-arn.ts';
import {
  isTerminal,
  type Notifier,
  type OutboxEffect,
  pendingDeadline,
  performOutbox,
  type RecorderLedger,
  type RunItem,
} from '#ledger/index.ts';
import type { AppLogger } from '#shared/logger.ts';
import type { AppMetrics } from '#shared/metrics.ts';
import { withRetries } from '#shared/retry.ts';
import type { Completion } from './completion.ts';
import { parseCompletionEvent } from './completion.ts';

/** Everything the recorder core depends on, injected. */
export interface RecorderDeps {
  readonly clock: () => Date;
  /** The configured jobs: a completion's job must be one (its slot, its notifications). */
  readonly jobs: readonly JobDefinition[] | JobCatalog;
  readonly ledger: RecorderLedger;
  /** Where failed asynchronous Lambda runs go (`reason: 'execution-failed'`). */
  readonly deadLetters: DeadLetters;
  readonly notifier: Notifier;
  readonly logger: AppLogger;
  /**
   * `RunSucceeded`/`RunFailed`, `RunDurationSeconds`; a completion that changes nothing counts
   * as `DuplicatesSuppressed`, an event that is no completion of this stack's as
   * `MalformedEvents`, a report without the run's proof of delivery as `ForgedCompletions`.
   */
  readonly metrics: AppMetrics;
  readonly stackName: string;
  /**
   * How long the writer of a failure holds the right to send its dead-letter message and
   * notification before the sweep may. @default 120
   */
  readonly outboxLeaseSeconds?: number;
  /** Waits of the in-invocation retries of ledger writes (tests: none). @default real time */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** What one event led to. */
export type RecordOutcome =
  | {
      readonly outcome: 'recorded';
      readonly key: string;
      readonly status: 'succeeded' | 'failed';
      readonly durationMs: number;
      readonly effects: readonly OutboxEffect[];
    }
  | { readonly outcome: 'ignored'; readonly key: string; readonly reason: string }
  | { readonly outcome: 'not-terminal'; readonly status: string }
  | { readonly outcome: 'unrecognised'; readonly reason: string };

/**
 * The duration of a run: Step Functions, the execution's own start to stop; asynchronous
 * Lambda, the run's `dispatchedAt` to the destination record's timestamp (Lambda's queueing,
 * the function's run and its retries: a destination record says when the outcome was known).
 *
 * @example
 * runDurationMs(lambdaCompletionAt('2026-03-29T01:00:09.250Z'),
 *   { dispatchedAt: '2026-03-29T01:00:02.000Z', … })
 * //=> 7250
 */
export function runDurationMs(
  completion: Completion,
  item: Pick<RunItem, 'dispatchedAt'> | undefined,
): number {
  const fromMs =
    completion.startedAt?.getTime() ??
    Date.parse(item?.dispatchedAt ?? completion.envelope.scheduledAt);
  return Math.max(0, completion.finishedAt.getTime() - fromMs);
}

/**
 * Creates the recorder: it turns a target's report that a run finished into the run's
 * terminal ledger state, metrics, one log line and, for a failure, one notification (and for a
 * failed asynchronous Lambda invocation, one dead-letter message).
 *
 * A completion counts only for the delivery it belongs to — same job, same attempt, same
 * delivery id, from the target stored on the run, with a delivery secret one of the run's
 * claims handed out — so a late report of an earlier delivery (before a redrive) changes
 * nothing, and a forged one (no secret, a wrong one, another target) is ignored and counted
 * (`ForgedCompletions`) without its secret ever being logged. Reports arrive at least once; a
 * second one finds the run terminal and is counted as a duplicate. No race makes it throw:
 * what a failure owes (the DLQ message, the notification) waits in the run's outbox, which the
 * sweep performs if this invocation dies first.
 *
 * ```
 * dispatched|claimed (this attempt) ──> succeeded
 *                                  └──> failed(execution) + outbox {dead-letter (lambda), notify:run-failed}
 * ```
 *
 * @example
 * const recorder = createRecorder({ clock: () => new Date(), jobs, ledger, deadLetters,
 *   notifier, logger, metrics, stackName: 'Zonecron' });
 * await recorder.handle(lambdaResultEvent);
 * //=> { outcome: 'recorded', key: '9f…', status: 'succeeded', durationMs: 5400, effects: [] }
 */
export function createRecorder(deps: RecorderDeps): {
  handle(event: unknown): Promise<RecordOutcome>;
} {
  const jobs = catalogOf(deps.jobs);
  return {
    handle: (event: unknown): Promise<RecordOutcome> => handle(deps, jobs, event),
  };
}

/** The recorder's entry: parses the event, records a completion, logs anything else. */
async function handle(
  deps: RecorderDeps,
  jobs: JobCatalog,
  event: unknown,
): Promise<RecordOutcome> {
  const parsed = parseCompletionEvent(event);
  if (parsed.kind === 'unrecognised') {
    // Its type, size and why: never the event itself, which may be of any size.
    deps.logger.warn('unrecognised event', {
      decision: 'unrecognised',
      reason: parsed.reason,
      type: parsed.event.type,
      sizeEstimate: parsed.event.sizeEstimate,
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
  return record(deps, jobs, parsed.completion);
}

/** One completion of a known job's run: checked, the terminal write, then what it owes. */
async function record(
  deps: RecorderDeps,
  jobs: JobCatalog,
  completion: Completion,
): Promise<RecordOutcome> {
  const { envelope } = completion;
  const job = jobs.get(envelope.jobId);
  if (!job) return ignored(deps, completion, 'unknown-job', false);
  if (completion.secret === undefined) return forged(deps, completion, 'no-secret');
  const item = await withRetries(() => deps.ledger.getRun(envelope.key), retryOptions(deps));
  if (!item) return ignored(deps, completion, 'no-ledger-item', false);
  const proof = proofOf(completion, item);
  if (typeof proof === 'string') return forged(deps, completion, proof);
  const owed = effectsOf(completion);
  const late = pastDeadline(item, deps.clock());
  const result = await writeCompletion(deps, completion, proof, owed, late);
  if (!result.recorded) return notRecorded(deps, completion, result.item, job);
  const effects: OutboxEffect[] = result.deadlineRaised
    ? [...owed, 'notify:deadline-missed']
    : owed;
  const durationMs = runDurationMs(completion, item);
  await releaseSlot(deps, job, envelope.key);
  report(deps, completion, durationMs, item);
  if (result.deadlineRaised) reportDeadlineMissed(deps, completion, item);
  if (effects.length > 0) {
    await performOutbox(
      { ...deps, jobs },
      {
        ...item,
        status: completion.status,
        completedAt: completion.finishedAt.toISOString(),
        ...(completion.status === 'failed' ? { failure: 'execution' as const } : {}),
        ...(completion.lastError ? { lastError: completion.lastError } : {}),
        ...(result.deadlineRaised
          ? { signals: [...item.signals, 'deadline-missed' as const] }
          : {}),
        outbox: effects,
      },
    );
  }
  return {
    outcome: 'recorded',
    key: envelope.key,
    status: completion.status,
    durationMs,
    effects,
  };
}

/**
 * Whether the run's end, recorded now, comes after its deadline with `deadline-missed` not
 * raised yet (§6, Deadlines: a run is done by its deadline when its success is recorded by
 * then; the sweep raises it on a run still running at its deadline).
 */
function pastDeadline(item: RunItem, now: Date): boolean {
  const deadline = pendingDeadline(item);
  return deadline !== undefined && now.getTime() > deadline;
}

/** The metric and the log line of a `deadline-missed` the recorder raised. */
function reportDeadlineMissed(deps: RecorderDeps, completion: Completion, item: RunItem): void {
  deps.metrics.job(completion.envelope.jobId, 'DeadlineMissedRuns');
  deps.logger.error('deadline-missed', {
    decision: 'deadline-missed',
    ...logFields(completion),
    status: completion.status,
    deadlineAt: new Date(item.deadlineAtEpochMs ?? 0).toISOString(),
    pastDeadlineMs: deps.clock().getTime() - (item.deadlineAtEpochMs ?? 0),
  });
}

/** What a genuine report proves against its run: the secret's hash and the run's target. */
interface Proof {
  readonly secretHash: string;
  readonly target: string;
}

/**
 * The report's proof of delivery checked against the run it names, or why it is a forgery:
 * the run is another job's, the target stored on the run did not send it (matched as the
 * job's target is: same function and qualifier, or the same state machine), or no claim of
 * the run handed out its secret.
 */
function proofOf(completion: Completion, item: RunItem): Proof | string {
  if (item.jobId !== completion.envelope.jobId) return 'wrong-job';
  const stored = item.target;
  const target = stored && { type: completion.target.type, arn: stored };
  if (!target || !completionFromTarget(target, completion.target.arn)) return 'wrong-target';
  const secretHash = deliverySecretHash(completion.secret ?? '');
  if (!item.secretHashes?.includes(secretHash)) return 'wrong-secret';
  return { secretHash, target: target.arn };
}

/**
 * Logs and counts a report that proves no delivery of this stack: it changes nothing. The line
 * names the run and the reporter, never the secret.
 */
function forged(deps: RecorderDeps, completion: Completion, reason: string): RecordOutcome {
  deps.logger.warn('completion forged', {
    decision: 'completion-forged',
    ...logFields(completion),
    reason,
    reportedTarget: completion.target.arn,
    status: completion.status,
  });
  deps.metrics.global('ForgedCompletions');
  return { outcome: 'ignored', key: completion.envelope.key, reason: `forged:${reason}` };
}

/** The options of the in-invocation retries of ledger writes. */
function retryOptions(deps: RecorderDeps) {
  return deps.sleep ? { sleep: deps.sleep } : {};
}

/** Logs and counts a completion that changed nothing (a duplicate, or a malformed event). */
function ignored(
  deps: RecorderDeps,
  completion: Completion,
  reason: string,
  duplicate: boolean,
): RecordOutcome {
  const { envelope } = completion;
  deps.logger.warn('completion ignored', {
    decision: 'completion-ignored',
    ...logFields(completion),
    reason,
    status: completion.status,
  });
  if (duplicate) deps.metrics.job(envelope.jobId, 'DuplicatesSuppressed');
  else deps.metrics.global('MalformedEvents');
  return { outcome: 'ignored', key: envelope.key, reason };
}

/**
 * The run's terminal write, retried on transient errors before anything else: a report lost
 * to throttling would leave the run to be called stuck.
 */
function writeCompletion(
  deps: RecorderDeps,
  completion: Completion,
  proof: Proof,
  effects: readonly OutboxEffect[],
  deadlineMissed: boolean,
) {
  const { envelope } = completion;
  const leaseMs = (deps.outboxLeaseSeconds ?? 120) * 1000;
  const write = {
    key: envelope.key,
    jobId: envelope.jobId,
    attempt: envelope.attempt,
    completionId: completion.completionId,
    secretHash: proof.secretHash,
    target: proof.target,
    status: completion.status,
    completedAt: completion.finishedAt,
    startedAt: completion.startedAt,
    lastError: completion.lastError,
    effects,
    signals: completion.status === 'failed' ? (['run-failed'] as const) : [],
    outboxLeaseUntilEpochMs: deps.clock().getTime() + leaseMs,
    deadlineMissed,
  };
  return withRetries(() => deps.ledger.recordCompletion(write), retryOptions(deps));
}

/**
 * `concurrency: forbid`: the finished run gives the job's slot back, if it holds it
 * (retried on transient errors; a repeat of the report gives it back again if this one died
 * first).
 */
async function releaseSlot(deps: RecorderDeps, job: JobDefinition, key: string): Promise<void> {
  if (job.concurrency !== 'forbid') return;
  await withRetries(() => deps.ledger.releaseSlot(job.id, key), retryOptions(deps));
}

/** Why a completion changed nothing: a repeat, an earlier delivery's, or no such run. */
async function notRecorded(
  deps: RecorderDeps,
  completion: Completion,
  item: RunItem | undefined,
  job: JobDefinition,
): Promise<RecordOutcome> {
  if (!item) return ignored(deps, completion, 'no-ledger-item', false);
  if (item.completionId === completion.completionId) {
    await releaseSlot(deps, job, item.key);
    return ignored(deps, completion, `already-${item.status}`, true);
  }
  // A run the ledger closed without this report (dead-lettered by a dispatcher that lost
  // track of a delivery that did start) waits for nothing more once its last attempt ended.
  if (isTerminal(item.status) && item.attempts === completion.envelope.attempt) {
    await releaseSlot(deps, job, item.key);
  }
  if (item.attempts !== completion.envelope.attempt) {
    return ignored(
      deps,
      completion,
      `stale-attempt:${completion.envelope.attempt}-of-${item.attempts}`,
      true,
    );
  }
  return ignored(deps, completion, `status-${item.status}`, true);
}

/** The metrics and the log line of a recorded completion. */
function report(
  deps: RecorderDeps,
  completion: Completion,
  durationMs: number,
  before: RunItem | undefined,
): void {
  const succeeded = completion.status === 'succeeded';
  const { jobId } = completion.envelope;
  deps.metrics.job(jobId, succeeded ? 'RunSucceeded' : 'RunFailed');
  deps.metrics.job(jobId, 'RunDurationSeconds', durationMs / 1000);
  const line = {
    decision: succeeded ? 'succeeded' : 'failed',
    ...logFields(completion),
    dispatchedAt: before?.dispatchedAt,
    completedAt: completion.finishedAt.toISOString(),
    durationMs,
    lastError: completion.lastError,
  };
  if (succeeded) deps.logger.info('run succeeded', line);
  else deps.logger.warn('run failed', line);
}

/** What a failure owes: the dead-letter message (Lambda) and the `run-failed` notification. */
function effectsOf(completion: Completion): OutboxEffect[] {
  if (completion.status !== 'failed') return [];
  return completion.source === 'lambda-destination'
    ? ['dead-letter', 'notify:run-failed']
    : ['notify:run-failed'];
}

/** The fields every log line about a completion carries. */
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
