import type { RunOutcome } from '../../functions/dispatcher/planned-run.ts';

/** One sentence for what happened to a run the CLI asked the dispatcher to deliver. */
export function describeOutcome(outcome: RunOutcome): string {
  const run = `run ${outcome.key.slice(0, 7)} of '${outcome.jobId}' at ${outcome.at}`;
  switch (outcome.outcome) {
    case 'dispatched':
      return `dispatched ${run} (attempt ${outcome.attempt}, delivery id ${outcome.deliveryId})`;
    case 'duplicate':
      return (
        `refused ${run}: the ledger already has it (status ${outcome.existing.status},` +
        ` ${outcome.existing.attempts} attempt${outcome.existing.attempts === 1 ? '' : 's'})`
      );
    case 'skipped':
      return `skipped ${run} (${outcome.reason}): ${outcome.detail}`;
    case 'delivery-failed':
      return `delivery of ${run} failed (attempt ${outcome.attempt}; retried at ${outcome.retryAt}): ${outcome.lastError}`;
    case 'dead-lettered':
      return `delivery of ${run} failed for the last time (attempt ${outcome.attempt}); sent to the dead-letter queue: ${outcome.lastError}`;
  }
}
