import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { RunNotification } from '#ledger/index.ts';

/**
 * A notification's command as it is typed in the sandbox's second shell: without `--stack`,
 * since the `export` lines the sandbox printed already point every command at it.
 *
 * @example
 * inSecondShell('zonecron history report --stack Zonecron --since 2026-12-02T09:00:00.000Z', 'Zonecron')
 * //=> 'zonecron history report --since 2026-12-02T09:00:00.000Z'
 */
export function inSecondShell(command: string, stack: string): string {
  return command.replace(` --stack ${stack}`, '');
}

/**
 * One line for an on-call notification, as the sandbox prints it when it is sent: the signal,
 * the job, the run, its summary and the commands to look at it and to act on it, as they are
 * typed in the second shell.
 *
 * @example
 * notificationLine(failed)
 * //=> "notification run-failed: job 'report' run 1a2b3c4 at 2026-12-02T09:00:00.000Z: … (in the second shell: zonecron history report --since …; zonecron dlq redrive --key …)"
 */
export function notificationLine(notification: RunNotification): string {
  const { signal, jobId, key, at, summary, commands, stack } = notification;
  const steps = [commands.history, ...(commands.act ? [commands.act] : [])];
  const typed = steps.map((command) => inSecondShell(command, stack)).join('; ');
  return `notification ${signal}: job '${jobId}' run ${key.slice(0, 7)} at ${at}: ${summary} (in the second shell: ${typed})`;
}

/**
 * One line for a run sent to the dead-letter queue, as the sandbox prints it when it is sent,
 * with the commands of the second shell that show it and deliver it again.
 *
 * @example
 * deadLetterLine(message)
 * //=> "dead letter: job 'report' run 1a2b3c4 at 2026-12-02T09:00:00.000Z, execution-failed after 3 attempt(s): … (in the second shell: zonecron dlq list; zonecron dlq redrive --key 1a2b3c4…)"
 */
export function deadLetterLine(message: DeadLetterMessage): string {
  const { jobId, key, envelope, reason, attempts, lastError } = message;
  return `dead letter: job '${jobId}' run ${key.slice(0, 7)} at ${envelope.scheduledAt}, ${reason} after ${attempts} attempt(s): ${lastError} (in the second shell: zonecron dlq list; zonecron dlq redrive --key ${key})`;
}
