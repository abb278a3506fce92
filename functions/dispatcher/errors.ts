import type { RunOutcome } from './deliver-run.ts';
import type { RunRecord } from './ledger.ts';

/** One or more runs failed delivery and will be retried: the tick must be retried. */
export class DeliveryFailedError extends Error {
  readonly failures: readonly RunOutcome[];
  constructor(failures: readonly RunOutcome[]) {
    const first = failures[0];
    const detail =
      first && 'lastError' in first
        ? ` (${first.key} attempt ${first.attempt}: ${first.lastError})`
        : '';
    super(`delivery failed for ${failures.length} run(s), will be retried${detail}`);
    this.name = new.target.name;
    this.failures = failures;
  }
}

/** A job id the deployed configuration does not know. */
export class UnknownJobError extends Error {
  readonly jobId: string;
  constructor(jobId: string, known: readonly string[]) {
    super(`unknown job '${jobId}' (known: ${known.slice(0, 20).join(', ') || 'none'})`);
    this.name = new.target.name;
    this.jobId = jobId;
  }
}

/** `at` is not one of the job's runs, so no scheduled key exists for it. */
export class NotARunError extends Error {
  readonly jobId: string;
  readonly at: string;
  constructor(jobId: string, at: Date) {
    super(
      `'${at.toISOString()}' is not a run of job '${jobId}' (redrive a manual run with manual: true)`,
    );
    this.name = new.target.name;
    this.jobId = jobId;
    this.at = at.toISOString();
  }
}

/** A redrive of a run that was delivered or is being delivered. */
export class RedriveRefusedError extends Error {
  readonly existing: RunRecord;
  constructor(existing: RunRecord) {
    super(
      `refusing to redrive run '${existing.key}' of job '${existing.jobId}' at ${existing.at}: status is '${existing.status}' (allowed: failed, delivery-failed, missed, skipped-overlap)`,
    );
    this.name = new.target.name;
    this.existing = existing;
  }
}
