import { createHash, randomBytes } from 'node:crypto';
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
  /**
   * A fresh secret of this delivery (128 random bits, hex): the proof a completion report
   * carries back (the Lambda destination record's request payload, the Step Functions execution
   * input). The ledger keeps only its SHA-256 (`deliverySecretHash`), and no log line or
   * dead-letter message carries it. Absent from envelopes rebuilt for a dead-letter message.
   */
  readonly deliverySecret?: string;
}

/** The bytes of randomness in a {@link RunEnvelope.deliverySecret}: 128 bits. */
export const DELIVERY_SECRET_BYTES = 16;

/**
 * A fresh delivery secret: 16 random bytes from the platform's CSPRNG, as 32 hex digits.
 *
 * Each claim of a run makes its own, so every attempt's envelope carries a different one.
 *
 * @example
 * newDeliverySecret() //=> '9b1f0c…' (32 hex digits)
 */
export function newDeliverySecret(): string {
  return randomBytes(DELIVERY_SECRET_BYTES).toString('hex');
}

/**
 * What the ledger stores of a delivery secret: its SHA-256, hex. A completion is recorded only
 * when the hash of the secret it brings back is one the run's claims stored.
 *
 * @example
 * deliverySecretHash('00'.repeat(16)).length //=> 64
 */
export function deliverySecretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The run a target is asked to perform. */
export interface RunIdentity {
  readonly key: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: string;
}

/**
 * Builds the run envelope v1 for one delivery attempt, with the attempt's delivery secret when
 * it is for a target (a dead-letter message's copy has none).
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
  deliverySecret?: string,
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
    ...(deliverySecret === undefined ? {} : { deliverySecret }),
  };
}

/**
 * The envelope without its delivery secret: what may be logged, stored or dead-lettered.
 *
 * @example
 * withoutSecret({ ...envelope, deliverySecret: 'ab…' }).deliverySecret //=> undefined
 */
export function withoutSecret(envelope: RunEnvelope): RunEnvelope {
  const { deliverySecret: _secret, ...rest } = envelope;
  return rest;
}
