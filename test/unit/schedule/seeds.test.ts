// The seed examples of the schedule contract (docs/semantics.md), plus the contract's day-matching
// rules (names, ?, macros, L, LW, nW, dL, d#k, Vixie) on hand-checked calendar facts. Expected
// instants come from the contract and from tz facts: Europe/Berlin 2023-03-26 02:00 CET → 03:00
// CEST at 01:00Z, and 2023-10-29 03:00 CEST → 02:00 CET at 01:00Z.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  nextOccurrences,
  occurrencesBetween,
  periodBucket,
} from '../../../functions/schedule/index.ts';
import { calendarCases } from '../../fixtures/dst-cases.ts';

const berlinDaily = { cron: '30 2 * * *', timezone: 'Europe/Berlin' };
const utc = (cron: string) => ({ cron, timezone: 'UTC' });
const iso = (d: Date) => d.toISOString();

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

describe('Europe/Berlin 2023, daily 30 2 * * *', () => {
  it('runs at 03:30 CEST (01:30Z) on 2023-03-26, when 02:30 does not exist', () => {
    const [run] = nextOccurrences(berlinDaily, new Date('2023-03-26T00:59:59Z'), 1);
    expect(run && iso(run.at)).toBe('2023-03-26T01:30:00.000Z');
    expect(run?.nominal).toBe('2023-03-26T02:30');
    expect(run?.dst).toBe('gap');
  });

  it('runs once on 2023-10-29, at the first 02:30 (00:30Z), then on 2023-10-30 at 01:30Z', () => {
    const runs = nextOccurrences(berlinDaily, new Date('2023-10-28T23:00:00Z'), 2);
    expect(runs.map((r) => iso(r.at))).toEqual([
      '2023-10-29T00:30:00.000Z',
      '2023-10-30T01:30:00.000Z',
    ]);
    expect(runs.map((r) => iso(r.at))).not.toContain('2023-10-29T01:30:00.000Z');
    expect(runs.map((r) => [r.nominal, r.dst])).toEqual([
      ['2023-10-29T02:30', 'overlap'],
      ['2023-10-30T02:30', 'none'],
    ]);
  });

  it('gives the two fall-back runs different idempotency keys', () => {
    const runs = nextOccurrences(berlinDaily, new Date('2023-10-28T23:00:00Z'), 2);
    const [a, b] = runs.map((r) => periodBucket('daily_report', r.at));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(a).toBe(sha256Hex('daily_report:2023-10-29-00:30-UTC'));
    expect(b).toBe(sha256Hex('daily_report:2023-10-30-01:30-UTC'));
  });

  it('gives the two instants of a repeated 02:30 (overlap both) different keys', () => {
    const runs = nextOccurrences(
      { ...berlinDaily, dst: { overlap: 'both' } },
      new Date('2023-10-28T23:00:00Z'),
      2,
    );
    expect(runs.map((r) => iso(r.at))).toEqual([
      '2023-10-29T00:30:00.000Z',
      '2023-10-29T01:30:00.000Z',
    ]);
    const keys = runs.map((r) => periodBucket('daily_report', r.at));
    expect(new Set(keys).size).toBe(2);
  });
});

describe('periodBucket', () => {
  it('is the lowercase hex SHA-256 of daily_report:2023-03-26-01:30-UTC', () => {
    expect(periodBucket('daily_report', new Date('2023-03-26T01:30:00Z'))).toBe(
      sha256Hex('daily_report:2023-03-26-01:30-UTC'),
    );
  });

  it('is the same for every Date object of the same instant', () => {
    const a = periodBucket('daily_report', new Date('2023-03-26T01:30:00.000Z'));
    const b = periodBucket('daily_report', new Date(Date.UTC(2023, 2, 26, 1, 30)));
    expect(a).toBe(b);
  });

  it.each([
    ['job-a', '2026-01-01T00:00:00.000Z', 'job-a:2026-01-01-00:00-UTC'],
    ['nightly.backup', '1999-12-31T23:59:00.000Z', 'nightly.backup:1999-12-31-23:59-UTC'],
    ['manual:daily_report', '2023-10-29T00:30:00.000Z', 'manual:daily_report:2023-10-29-00:30-UTC'],
  ])('hashes %s at %s as %s', (jobId, at, text) => {
    expect(periodBucket(jobId, new Date(at))).toBe(sha256Hex(text));
  });

  it('differs between job ids at the same instant', () => {
    const at = new Date('2023-03-26T01:30:00Z');
    expect(periodBucket('a', at)).not.toBe(periodBucket('b', at));
  });
});

describe('UTC', () => {
  it('runs 30 2 * * * at 02:30 the same day when after 00:10', () => {
    const [run] = nextOccurrences(utc('30 2 * * *'), new Date('2026-11-05T00:10:00Z'), 1);
    expect(run && iso(run.at)).toBe('2026-11-05T02:30:00.000Z');
    expect(run?.nominal).toBe('2026-11-05T02:30');
    expect(run?.dst).toBe('none');
  });

  it('runs 30 2 * * * the next day when after exactly 02:30 ("after" is strict)', () => {
    const [run] = nextOccurrences(utc('30 2 * * *'), new Date('2026-11-05T02:30:00Z'), 1);
    expect(run && iso(run.at)).toBe('2026-11-06T02:30:00.000Z');
  });

  it('runs 0 0 1 * 0 on the first Sunday, 2026-11-08 (the 1st or any Sunday)', () => {
    // 2026-11-08 is a Sunday; 2026-12-01 is a Tuesday (the 1st).
    const runs = nextOccurrences(utc('0 0 1 * 0'), new Date('2026-11-05T12:00:00Z'), 5);
    expect(runs.map((r) => iso(r.at))).toEqual([
      '2026-11-08T00:00:00.000Z',
      '2026-11-15T00:00:00.000Z',
      '2026-11-22T00:00:00.000Z',
      '2026-11-29T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
    ]);
  });
});

describe('day matching against hand-checked calendar facts (UTC)', () => {
  it.each(calendarCases)(
    '%s runs in %i-%i (days up to %i) on exactly %j',
    (cron, y, m, upTo, days) => {
      const from = new Date(Date.UTC(y, m - 1, 1) - 60_000);
      const to = new Date(Date.UTC(y, m - 1, upTo));
      const runs = occurrencesBetween({ cron, timezone: 'UTC' }, from, to).filter(
        (r) => r.at.getUTCMonth() === m - 1,
      );
      expect(runs.map((r) => r.at.toISOString())).toEqual(
        days.map((d) => new Date(Date.UTC(y, m - 1, d)).toISOString()),
      );
    },
  );
});
