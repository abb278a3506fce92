import { createHash } from 'node:crypto';
import { formatLocalMinute } from './civil-calendar.ts';
import { InvalidArgumentError } from './errors.ts';
import { minuteOf } from './time-zone.ts';

/**
 * The idempotency key of the run `(jobId, at)`: lowercase hex SHA-256 of
 * `<jobId>:<YYYY-MM-DD-HH:mm>-UTC`.
 *
 * Every dispatcher, retry, catch-up and simulation of the same run computes the same key, and
 * the ledger admits a key once. `at` is taken to the whole UTC minute.
 *
 * @example
 * periodBucket('daily_report', new Date('2023-03-26T01:30:00Z'))
 * //=> '116940f0a4b96ac39a014deab89733298cfc8cc1e89e2ef11e400ed8cae5249a'
 * //   (sha256 of 'daily_report:2023-03-26-01:30-UTC')
 */
export function periodBucket(jobId: string, at: Date): string {
  if (typeof jobId !== 'string' || jobId === '') {
    throw new InvalidArgumentError(
      `invalid job id ${typeof jobId === 'string' ? "''" : `of type ${typeof jobId}`} (allowed a non-empty string)`,
      'jobId',
      jobId,
    );
  }
  const minute = minuteOf(at, 'at');
  const stamp = formatLocalMinute(minute).replace('T', '-');
  return createHash('sha256').update(`${jobId}:${stamp}-UTC`).digest('hex');
}
