// periodBucket is the SHA-256 of the documented key text, computed here independently.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, periodBucket } from '../../../functions/schedule/index.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('periodBucket', () => {
  it('hashes "<jobId>:YYYY-MM-DD-HH:mm-UTC"', () => {
    expect(periodBucket('daily_report', new Date('2023-03-26T01:30:00Z'))).toBe(
      sha256('daily_report:2023-03-26-01:30-UTC'),
    );
    expect(periodBucket('manual:x', new Date('1999-12-31T23:59:00Z'))).toBe(
      sha256('manual:x:1999-12-31-23:59-UTC'),
    );
  });

  it('takes the instant to its UTC minute, whatever the host zone', () => {
    const key = periodBucket('j', new Date('2023-10-29T00:30:00Z'));
    expect(periodBucket('j', new Date('2023-10-29T00:30:59.999Z'))).toBe(key);
    expect(periodBucket('j', new Date('2023-10-29T01:30:00Z'))).not.toBe(key);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('rejects an invalid Date and an empty job id', () => {
    expect(() => periodBucket('j', new Date('nope'))).toThrow(InvalidArgumentError);
    expect(() => periodBucket('', new Date(0))).toThrow(InvalidArgumentError);
  });
});
