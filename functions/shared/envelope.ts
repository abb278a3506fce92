import type { JobDefinition } from './job.ts';

/** The version of {@link RunEnvelope} this dispatcher writes. */
export const RUN_ENVELOPE_VERSION = 1;

/**
 * What every target receives for one run (architecture §6), as JSON.
 *
 * Versioned: fields are only ever added within a version; a removal or a change of meaning
 * bumps `version`, so a consumer can reject what it does not understand.
 */
export interface RunEnvelope {
  readonly version: typeof RUN_ENVELOPE_VERSION;
  readonly jobId: string;
  /** The run's idempotency key (`periodBucket`); consumers dedupe on it. */
  readonly key: string;
  /** The UTC instant the run stands for, ISO 8601 with milliseconds. */
  readonly scheduledAt: string;
  /** The local wall-clock slot, `YYYY-MM-DDTHH:mm`. */
  readonly nominal: string;
  readonly timezone: string;
  /** `none`, `gap` (the slot did not exist) or `overlap` (the slot happened twice). */
  readonly dst: string;
  /**
   * Numbers the delivery: 1 on the first attempt, 2 on the first retry, … and on after an
   * operator's redrive (never reused for the same run).
   */
  readonly attempt: number;
  /** The local date of the nominal slot, `YYYY-MM-DD` — the run's "business date". */
  readonly logicalDate: string;
  /** The job's static `payload` from `jobs.yaml`, or null. */
  readonly payload: unknown;
  /**
   * The zonecron stack that delivered it. The stack's completion rule matches on it, so two
   * stacks delivering to one function each hear only of their own runs.
   */
  readonly stack: string;
}

/** The run a target is asked to perform. */
export interface RunIdentity {
  readonly key: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
}

/**
 * Builds the run envelope v1 for one delivery attempt.
 *
 * @example
 * buildEnvelope(job, { key: '9f…', at: new Date('2023-03-26T01:30:00Z'),
 *   nominal: '2023-03-26T02:30', dst: 'gap' }, 1, 'Zonecron').logicalDate
 * //=> '2023-03-26'
 */
export function buildEnvelope(
  job: Pick<JobDefinition, 'id' | 'timezone' | 'payload'>,
  run: RunIdentity,
  attempt: number,
  stack: string,
): RunEnvelope {
  return {
    version: RUN_ENVELOPE_VERSION,
    jobId: job.id,
    key: run.key,
    scheduledAt: run.at.toISOString(),
    nominal: run.nominal,
    timezone: job.timezone,
    dst: run.dst,
    attempt,
    logicalDate: run.nominal.slice(0, 10),
    payload: job.payload ?? null,
    stack,
  };
}
