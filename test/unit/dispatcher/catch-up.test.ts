import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planCatchup } from '../../../functions/dispatcher/catch-up.ts';
import type { Occurrence } from '../../../functions/schedule/index.ts';

const S = new Date('2023-06-04T00:00:00.000Z');
const occ = (iso: string): Occurrence => ({
  at: new Date(iso),
  nominal: iso.slice(0, 16),
  dst: 'none',
});
/** `n` hourly runs ending at S. */
const hours = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    occ(new Date(S.getTime() - (n - 1 - i) * 3_600_000).toISOString()),
  );
const job = (policy: 'all' | 'latest' | 'none', maxRuns = 100) => ({
  catchup: { policy, maxRuns, windowSeconds: 86_400 },
});
const skips = (runs: Occurrence[], reason: string) =>
  runs.map((occurrence) => ({ occurrence, reason }));

describe('planCatchup', () => {
  it('delivers every undecided run in order under all', () => {
    const due = hours(4);
    expect(planCatchup(job('all'), due, S, false)).toEqual({ deliver: due, skip: [] });
  });

  it('keeps the newest maxRuns under all and skips the oldest as max-runs', () => {
    const due = hours(5);
    expect(planCatchup(job('all', 2), due, S, false)).toEqual({
      deliver: due.slice(3),
      skip: skips(due.slice(0, 3), 'max-runs'),
    });
  });

  it('delivers only the newest under latest, also when no tick of its own asks', () => {
    const due = hours(3).slice(0, 2);
    expect(planCatchup(job('latest'), due, undefined, false)).toEqual({
      deliver: due.slice(1),
      skip: skips(due.slice(0, 1), 'catch-up-latest'),
    });
  });

  it('delivers nothing under latest when a newer run is due or decided, unless it is the tick’s own', () => {
    const due = hours(3);
    expect(planCatchup(job('latest'), due.slice(0, 2), undefined, true)).toEqual({
      deliver: [],
      skip: skips(due.slice(0, 2), 'catch-up-latest'),
    });
    expect(planCatchup(job('latest'), due, S, true).deliver).toEqual(due.slice(2));
  });

  it('delivers only the tick’s own run under none, and nothing when there is no tick', () => {
    const due = hours(3);
    expect(planCatchup(job('none'), due, S, false)).toEqual({
      deliver: due.slice(2),
      skip: skips(due.slice(0, 2), 'catch-up-none'),
    });
    expect(planCatchup(job('none'), due.slice(0, 2), undefined, false)).toEqual({
      deliver: [],
      skip: skips(due.slice(0, 2), 'catch-up-none'),
    });
  });

  it('partitions the undecided runs, in order, never delivering more than maxRuns', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('all' as const, 'latest' as const, 'none' as const),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        (n, policy, maxRuns, newer) => {
          const due = hours(n);
          const plan = planCatchup(job(policy, maxRuns), due, S, newer);
          const merged = [...plan.skip.map((s) => s.occurrence), ...plan.deliver];
          expect(merged.map((o) => o.at.getTime()).sort((a, b) => a - b)).toEqual(
            due.map((o) => o.at.getTime()),
          );
          expect(plan.deliver.length).toBeLessThanOrEqual(policy === 'all' ? maxRuns : 1);
          if (n > 0) expect(plan.deliver.at(-1)).toBe(due.at(-1));
        },
      ),
    );
  });
});
