import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catchupFrom, planCatchup } from '../../../functions/dispatcher/catchup.ts';
import type { Occurrence } from '../../../functions/schedule/index.ts';

const S = new Date('2023-06-04T00:00:00.000Z');
const occ = (iso: string): Occurrence => ({
  at: new Date(iso),
  nominal: iso.slice(0, 16),
  dst: 'none',
});
const hours = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    occ(new Date(S.getTime() - (n - 1 - i) * 3_600_000).toISOString()),
  );
const job = (policy: 'all' | 'latest' | 'none', maxRuns = 100) => ({
  catchup: { policy, maxRuns, windowSeconds: 86_400 },
});

describe('catchupFrom', () => {
  it.each([
    ['looks only at S on a first deploy', undefined, '2023-06-03T23:59:00.000Z'],
    ['looks only at S when the watermark is already there', S, '2023-06-03T23:59:00.000Z'],
    ['looks back to the watermark', new Date('2023-06-03T20:00:00Z'), '2023-06-03T20:00:00.000Z'],
    [
      'looks back no further than the window',
      new Date('2023-06-01T00:00:00Z'),
      '2023-06-03T00:00:00.000Z',
    ],
  ])('%s', (_name, watermark, expected) => {
    expect(catchupFrom(S, watermark, 86_400).toISOString()).toBe(expected);
  });
});

describe('planCatchup', () => {
  it('runs everything in order under all', () => {
    const due = hours(4);
    expect(planCatchup(job('all'), due, S)).toEqual({ run: due, dropped: [] });
  });

  it('keeps the newest maxRuns under all and drops the oldest', () => {
    const due = hours(5);
    expect(planCatchup(job('all', 2), due, S)).toEqual({
      run: due.slice(3),
      dropped: due.slice(0, 3),
    });
  });

  it('runs only the newest under latest, even when S is not a run', () => {
    const due = hours(3).slice(0, 2);
    expect(planCatchup(job('latest'), due, S)).toEqual({
      run: due.slice(1),
      dropped: due.slice(0, 1),
    });
  });

  it('runs only the run at S under none, and nothing when S is not a run', () => {
    const due = hours(3);
    expect(planCatchup(job('none'), due, S)).toEqual({
      run: due.slice(2),
      dropped: due.slice(0, 2),
    });
    expect(planCatchup(job('none'), due.slice(0, 2), S)).toEqual({
      run: [],
      dropped: due.slice(0, 2),
    });
  });

  it('partitions the due runs, in order, never running more than maxRuns', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('all' as const, 'latest' as const, 'none' as const),
        fc.integer({ min: 1, max: 30 }),
        (n, policy, maxRuns) => {
          const due = hours(n);
          const plan = planCatchup(job(policy, maxRuns), due, S);
          const merged = [...plan.dropped, ...plan.run].map((o) => o.at.getTime());
          expect(merged).toEqual(due.map((o) => o.at.getTime()));
          expect(plan.run.length).toBeLessThanOrEqual(policy === 'all' ? maxRuns : 1);
          if (n > 0 && policy !== 'none') expect(plan.run.at(-1)).toBe(due.at(-1));
        },
      ),
    );
  });
});
