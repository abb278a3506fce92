import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { RunNotification } from '#ledger/index.ts';

/**
 * One line for an on-call notification, as the sandbox prints it when it is sent: the signal,
 * the job, the run, its summary and the command to look at it.
 *
 * @example
 * notificationLine(failed)
 * //=> "notification run-failed: job 'report' run 1a2b3c4 at 2026-12-02T09:00:00.000Z: … (zonecron history report)"
 */
export function notificationLine(notification: RunNotification): string {
  const { signal, jobId, key, at, summary, commands } = notification;
  return `notification ${signal}: job '${jobId}' run ${key.slice(0, 7)} at ${at}: ${summary} (${commands.history})`;
}

/**
 * One line for a run sent to the dead-letter queue, as the sandbox prints it when it is sent.
 *
 * @example
 * deadLetterLine(message)
 * //=> "dead letter: job 'report' run 1a2b3c4 at 2026-12-02T09:00:00.000Z, execution-failed after 3 attempt(s): …"
 */
export function deadLetterLine(message: DeadLetterMessage): string {
  const { jobId, key, envelope, reason, attempts, lastError } = message;
  return `dead letter: job '${jobId}' run ${key.slice(0, 7)} at ${envelope.scheduledAt}, ${reason} after ${attempts} attempt(s): ${lastError} (zonecron dlq list)`;
}
