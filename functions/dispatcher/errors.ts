import type { RunItem } from '#ledger/index.ts';

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

/** A redrive of a run that was delivered, is being delivered, or still owes its outbox. */
export class RedriveRefusedError extends Error {
  readonly existing: RunItem;
  constructor(existing: RunItem) {
    const pending = existing.outbox.length > 0 ? ` with ${existing.outbox.join(', ')} pending` : '';
    super(
      `refusing to redrive run '${existing.key}' of job '${existing.jobId}' at ${existing.at}: status is '${existing.status}'${pending} (allowed: failed, delivery-failed, skipped, with nothing pending)`,
    );
    this.name = new.target.name;
    this.existing = existing;
  }
}
