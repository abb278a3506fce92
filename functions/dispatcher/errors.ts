/**
 * The error family of the dispatcher: events and requests it refuses, and failures of its
 * parts.
 *
 * Every error the dispatcher core throws of its own is a `DispatcherError`, except the sweep's
 * `SweepFailedError`, which stays an `AggregateError` (its parts' errors in `errors`) and
 * carries the family's brand instead. The guard relies on a `Symbol.for` brand, as the
 * engine's does, so that it also recognises errors made by another loaded copy of the
 * dispatcher (bundled in a Lambda, from source in the CLI's local world).
 */
import type { RunItem } from '#ledger/index.ts';

const DISPATCHER_ERROR_BRAND = Symbol.for('zonecron.dispatcher.DispatcherError');

/**
 * Marks `error` as one of the dispatcher's family; for the one member that cannot extend
 * {@link DispatcherError} (`SweepFailedError` extends `AggregateError`).
 */
export function brandDispatcherError(error: Error): void {
  Object.defineProperty(error, DISPATCHER_ERROR_BRAND, { value: true });
}

/**
 * The base class of the dispatcher's errors: `UnknownJobError`, `NotARunError`,
 * `RedriveRefusedError` (this file), `MalformedEventError` (events.ts) and
 * `TargetDeliveryError` (targets/errors.ts).
 *
 * @example
 * try { await dispatcher.runManually({ jobId: 'nope' }) } catch (e) { e instanceof DispatcherError }
 * //=> true (an UnknownJobError)
 */
export class DispatcherError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    brandDispatcherError(this);
  }
}

/**
 * Tells whether `value` is one of the dispatcher's errors (a `DispatcherError` or a
 * `SweepFailedError`), from any loaded copy of the dispatcher.
 *
 * @example
 * isDispatcherError(new UnknownJobError('nope', ['daily'])) //=> true
 * isDispatcherError(new SweepFailedError([new Error('x')])) //=> true
 * isDispatcherError(new Error('x'))                         //=> false
 */
export function isDispatcherError(value: unknown): value is DispatcherError | AggregateError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[DISPATCHER_ERROR_BRAND] === true
  );
}

/** A job id the deployed configuration does not know. */
export class UnknownJobError extends DispatcherError {
  readonly jobId: string;
  constructor(jobId: string, known: readonly string[]) {
    super(`unknown job '${jobId}' (known: ${known.slice(0, 20).join(', ') || 'none'})`);
    this.jobId = jobId;
  }
}

/** `at` is not one of the job's runs, so no scheduled key exists for it. */
export class NotARunError extends DispatcherError {
  readonly jobId: string;
  readonly at: string;
  constructor(jobId: string, at: Date) {
    super(
      `'${at.toISOString()}' is not a run of job '${jobId}' (redrive a manual run with manual: true)`,
    );
    this.jobId = jobId;
    this.at = at.toISOString();
  }
}

/** A redrive of a run that was delivered, is being delivered, or still owes its outbox. */
export class RedriveRefusedError extends DispatcherError {
  readonly existing: RunItem;
  constructor(existing: RunItem) {
    const pending = existing.outbox.length > 0 ? ` with ${existing.outbox.join(', ')} pending` : '';
    super(
      `refusing to redrive run '${existing.key}' of job '${existing.jobId}' at ${existing.at}: status is '${existing.status}'${pending} (allowed: failed, delivery-failed, skipped, with nothing pending)`,
    );
    this.existing = existing;
  }
}
