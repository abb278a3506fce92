import { describe, expect, it } from 'vitest';
import type { RunItem } from '#ledger/index.ts';
import {
  BackfillRangeError,
  type BackfillRun,
  backfillRuns,
  pausedRunsToReplay,
  runsOfPause,
} from '../../../../cli/aws/backfill.ts';
import { periodBucket } from '../../../../functions/schedule/index.ts';
import { makeJob } from '../../../support/jobs.ts';

const NOW = new Date('2026-11-29T12:00:00Z');
const hourly = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });

function failure(fn: () => unknown): BackfillRangeError | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof BackfillRangeError) return error;
    throw error;
  }
  return undefined;
}

describe('backfillRuns: the range a backfill may deliver', () => {
  it('lists the runs of [from, to], both ends included', () => {
    const runs = backfillRuns(
      hourly,
      new Date('2026-11-29T08:00:00Z'),
      new Date('2026-11-29T10:00:00Z'),
      NOW,
      1000,
    );
    expect(runs.map((r) => r.at.toISOString())).toEqual([
      '2026-11-29T08:00:00.000Z',
      '2026-11-29T09:00:00.000Z',
      '2026-11-29T10:00:00.000Z',
    ]);
  });

  it('marks the Berlin spring-forward run as a gap run, as the engine decides it', () => {
    const berlin = makeJob({ id: 'berlin', schedule: '30 2 * * *', timezone: 'Europe/Berlin' });
    const runs = backfillRuns(
      berlin,
      new Date('2026-03-29T00:00:00Z'),
      new Date('2026-03-29T23:00:00Z'),
      NOW,
      1000,
    );
    expect(runs).toEqual([
      { at: new Date('2026-03-29T01:30:00Z'), nominal: '2026-03-29T02:30', dst: 'gap' },
    ]);
  });

  it('refuses a range that reaches into the future, with exit code 2 and why', () => {
    const error = failure(() =>
      backfillRuns(
        hourly,
        new Date('2026-11-29T10:00:00Z'),
        new Date('2026-11-29T13:00:00Z'),
        NOW,
        10,
      ),
    );
    expect(error).toMatchObject({ problem: 'in-the-future', exitCode: 2 });
    expect(error?.message).toContain('is in the future');
  });

  it('refuses --to before --from', () => {
    const error = failure(() =>
      backfillRuns(
        hourly,
        new Date('2026-11-29T10:00:00Z'),
        new Date('2026-11-29T09:00:00Z'),
        NOW,
        10,
      ),
    );
    expect(error?.problem).toBe('empty-range');
  });

  it('refuses a range over the run limit and names the flag that raises it, computing no more than limit + 1 runs', () => {
    const minutely = makeJob({ id: 'minutely', schedule: '* * * * *', timezone: 'UTC' });
    const error = failure(() =>
      backfillRuns(minutely, new Date('2016-01-01T00:00:00Z'), NOW, NOW, 1000),
    );
    expect(error).toMatchObject({ problem: 'too-many-runs', exitCode: 2 });
    expect(error?.message).toBe(
      "the range holds more than 1,000 runs of 'minutely'; narrow --from/--to, or raise the limit with --max-runs <n> if you mean it",
    );
  });
});

function run(at: string, before?: Partial<RunItem>): BackfillRun {
  const occurrence = { at: new Date(at), nominal: at.slice(0, 16), dst: 'none' as const };
  const key = periodBucket('hourly', occurrence.at);
  return {
    occurrence,
    key,
    before: before
      ? ({ key, jobId: 'hourly', at, status: 'skipped', attempts: 0, ...before } as RunItem)
      : undefined,
  };
}

describe("pausedRunsToReplay: resume --catch-up applies the job's catch-up policy", () => {
  const pause = { from: new Date('2026-11-29T08:30:00Z'), to: NOW };
  const paused = [
    run('2026-11-29T09:00:00.000Z', { skipReason: 'paused' }),
    run('2026-11-29T10:00:00.000Z'),
    run('2026-11-29T11:00:00.000Z', { skipReason: 'paused' }),
    run('2026-11-29T12:00:00.000Z', { status: 'dispatched' }),
  ];
  const replayed = (policy: 'all' | 'latest' | 'none', maxRuns = 100) =>
    pausedRunsToReplay(makeJob({ ...hourly, catchup: { policy, maxRuns } }), paused, pause).map(
      (r) => r.occurrence.at.toISOString().slice(11, 16),
    );

  it('all: every paused or undecided run, never one delivered already', () => {
    expect(replayed('all')).toEqual(['09:00', '10:00', '11:00']);
  });

  it('all with maxRuns: the newest ones', () => {
    expect(replayed('all', 2)).toEqual(['10:00', '11:00']);
  });

  it('latest: only the newest', () => {
    expect(replayed('latest')).toEqual(['11:00']);
  });

  it('none: nothing', () => {
    expect(replayed('none')).toEqual([]);
  });

  it('lists the runs of the pause within the catch-up window only', () => {
    const short = makeJob({ ...hourly, catchup: { windowSeconds: 2 * 3600 } });
    const runs = runsOfPause(short, pause);
    expect(runs.map((r) => r.at.toISOString().slice(11, 16))).toEqual(['10:00', '11:00', '12:00']);
  });
});
