// A whole year of `* * * * *`: exact counts and first/last instants, in UTC and
// across both Berlin transitions, and the lazy iterator over the same year. Wall time is the
// benchmark's business, not a test's.
//
// Europe/Berlin 2025: 2025-03-30 02:00 CET → 03:00 CEST at 01:00Z (60 local minutes missing),
// 2025-10-26 03:00 CEST → 02:00 CET at 01:00Z (60 local minutes twice). 2025 has 365 days.
import { describe, expect, it } from 'vitest';
import {
  iterateOccurrences,
  nextOccurrences,
  type Occurrence,
  occurrencesBetween,
  type ScheduleSpec,
} from '../../../functions/schedule/index.ts';

const MINUTES_2025 = 365 * 24 * 60; // 525,600

/** True when every run is exactly one minute after the previous one. */
function everyMinute(runs: Occurrence[]): boolean {
  for (let i = 1; i < runs.length; i++) {
    if ((runs[i]?.at.getTime() ?? 0) - (runs[i - 1]?.at.getTime() ?? 0) !== 60_000) return false;
  }
  return true;
}

function countBy(runs: Occurrence[]): Record<string, number> {
  const counts: Record<string, number> = { none: 0, gap: 0, overlap: 0 };
  for (const r of runs) counts[r.dst] = (counts[r.dst] ?? 0) + 1;
  return counts;
}

function find(runs: Occurrence[], iso: string): Occurrence | undefined {
  const ms = Date.parse(iso);
  return runs.find((r) => r.at.getTime() === ms);
}

describe('a year of * * * * *', () => {
  it('has 525,600 runs in UTC 2025, from 00:00 on Jan 1 to 23:59 on Dec 31', () => {
    const runs = occurrencesBetween(
      { cron: '* * * * *', timezone: 'UTC' },
      new Date('2024-12-31T23:59:00Z'),
      new Date('2025-12-31T23:59:00Z'),
    );
    expect(runs).toHaveLength(MINUTES_2025);
    expect(runs[0]?.at.toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect(runs[0]?.nominal).toBe('2025-01-01T00:00');
    expect(runs.at(-1)?.at.toISOString()).toBe('2025-12-31T23:59:00.000Z');
    expect(runs.at(-1)?.nominal).toBe('2025-12-31T23:59');
    expect(everyMinute(runs)).toBe(true);
    expect(countBy(runs)).toEqual({ none: MINUTES_2025, gap: 0, overlap: 0 });
  });

  it('has one run per elapsed minute in Berlin with cadence defaults (skip drops 60, both adds 60)', () => {
    const runs = occurrencesBetween(
      { cron: '* * * * *', timezone: 'Europe/Berlin' },
      new Date('2024-12-31T22:59:00Z'), // 2024-12-31 23:59 CET
      new Date('2025-12-31T22:59:00Z'), // 2025-12-31 23:59 CET
    );
    expect(runs).toHaveLength(MINUTES_2025);
    expect(runs[0]?.at.toISOString()).toBe('2024-12-31T23:00:00.000Z');
    expect(runs[0]?.nominal).toBe('2025-01-01T00:00');
    expect(runs.at(-1)?.at.toISOString()).toBe('2025-12-31T22:59:00.000Z');
    expect(runs.at(-1)?.nominal).toBe('2025-12-31T23:59');
    expect(everyMinute(runs)).toBe(true);
    expect(countBy(runs)).toEqual({ none: MINUTES_2025 - 120, gap: 0, overlap: 120 });

    // 01:59 CET is followed by 03:00 CEST; 02:30 happens at 00:30Z and at 01:30Z in October.
    expect(find(runs, '2025-03-30T00:59:00Z')?.nominal).toBe('2025-03-30T01:59');
    expect(find(runs, '2025-03-30T01:00:00Z')?.nominal).toBe('2025-03-30T03:00');
    expect(find(runs, '2025-10-26T00:30:00Z')?.nominal).toBe('2025-10-26T02:30');
    expect(find(runs, '2025-10-26T01:30:00Z')?.nominal).toBe('2025-10-26T02:30');
    expect(find(runs, '2025-10-26T01:30:00Z')?.dst).toBe('overlap');
  });

  it('has 525,540 runs in Berlin with gap shift and overlap first (shifted slots merge)', () => {
    // shift moves 02:00-02:59 onto the real 03:00-03:59 CEST (de-duplicated); first drops the
    // 60 second instances of 02:00-02:59 in October.
    const runs = occurrencesBetween(
      { cron: '* * * * *', timezone: 'Europe/Berlin', dst: { gap: 'shift', overlap: 'first' } },
      new Date('2024-12-31T22:59:00Z'),
      new Date('2025-12-31T22:59:00Z'),
    );
    expect(runs).toHaveLength(MINUTES_2025 - 60);
    expect(runs[0]?.at.toISOString()).toBe('2024-12-31T23:00:00.000Z');
    expect(runs.at(-1)?.at.toISOString()).toBe('2025-12-31T22:59:00.000Z');
    expect(find(runs, '2025-10-26T00:59:00Z')).toBeDefined();
    expect(find(runs, '2025-10-26T01:00:00Z')).toBeUndefined();
    expect(find(runs, '2025-10-26T01:59:00Z')).toBeUndefined();
    expect(find(runs, '2025-10-26T02:00:00Z')?.nominal).toBe('2025-10-26T03:00');
  });

  it('streams the same year lazily: 525,600 runs in UTC without collecting them', () => {
    let count = 0;
    let last = 0;
    let steady = true;
    const end = Date.parse('2025-12-31T23:59:00Z');
    for (const run of iterateOccurrences(
      { cron: '* * * * *', timezone: 'UTC' },
      new Date('2024-12-31T23:59:00Z'),
    )) {
      const ms = run.at.getTime();
      if (ms > end) break;
      if (count > 0 && ms - last !== 60_000) steady = false;
      last = ms;
      count++;
    }
    expect(count).toBe(MINUTES_2025);
    expect(steady).toBe(true);
    expect(new Date(last).toISOString()).toBe('2025-12-31T23:59:00.000Z');
  });
});

describe('the lazy iterator', () => {
  it.each([
    ['*/7 * * * *', 'Europe/Berlin', '2025-03-29T00:00:00Z'],
    ['*/7 * * * *', 'Europe/Berlin', '2025-10-25T00:00:00Z'],
    ['30 2 * * *', 'Europe/Berlin', '2025-03-01T00:00:00Z'],
    ['0 9 * * MON-FRI', 'America/New_York', '2025-03-01T00:00:00Z'],
    ['15 10 L * *', 'Australia/Lord_Howe', '2025-01-01T00:00:00Z'],
  ])(
    'yields the same first 2,000 runs as nextOccurrences for %s in %s after %s',
    (cron, timezone, after) => {
      const spec: ScheduleSpec = { cron, timezone };
      const eager = nextOccurrences(spec, new Date(after), 2000);
      const lazy: Occurrence[] = [];
      for (const run of iterateOccurrences(spec, new Date(after))) {
        lazy.push(run);
        if (lazy.length === 2000) break;
      }
      expect(lazy.map((r) => [r.at.toISOString(), r.nominal, r.dst])).toEqual(
        eager.map((r) => [r.at.toISOString(), r.nominal, r.dst]),
      );
    },
  );

  it('starts strictly after "after" and yields one run per next()', () => {
    const it = iterateOccurrences(
      { cron: '* * * * *', timezone: 'UTC' },
      new Date('2025-01-01T00:00:00Z'),
    );
    const first = it.next();
    expect(first.done).toBe(false);
    expect(first.done ? undefined : first.value.at.toISOString()).toBe('2025-01-01T00:01:00.000Z');
  });
});
