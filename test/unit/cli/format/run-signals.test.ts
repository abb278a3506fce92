import { describe, expect, it } from 'vitest';
import type { RunItem } from '#ledger/index.ts';
import { runSignals } from '../../../../cli/format/run-signals.ts';
import { makeJob } from '../../../support/jobs.ts';

const NOW = new Date('2026-11-29T12:20:00.000Z');
const lambdaJob = makeJob({
  id: 'nightly',
  schedule: '0 * * * *',
  timezone: 'UTC',
  maxRuntimeSeconds: 1800,
  target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:nightly' },
});
const sqsJob = makeJob({ id: 'queued', schedule: '0 * * * *', timezone: 'UTC' });

/** A run of 11:00 UTC as the ledger decodes it, overridden where given. */
function run(overrides: Partial<RunItem>): RunItem {
  return {
    key: 'abcdef0123456789',
    jobId: 'nightly',
    at: '2026-11-29T11:00:00.000Z',
    nominal: '2026-11-29T11:00',
    dst: 'none',
    status: 'dispatched',
    attempts: 1,
    roundAttempts: 1,
    generation: 0,
    manual: false,
    signals: [],
    outbox: [],
    ...overrides,
  };
}

describe('runSignals', () => {
  it.each([
    {
      name: 'a claim whose lease still runs is open: being delivered',
      item: run({ status: 'claimed', leaseUntilEpochMs: NOW.getTime() + 60_000 }),
      kind: 'claimed',
      open: true,
      text: 'being delivered (attempt 1, lease until 2026-11-29T12:21:00.000Z)',
    },
    {
      name: 'a claim whose lease ran out is open: the sweep retries it',
      item: run({ status: 'claimed', leaseUntilEpochMs: Date.parse('2026-11-29T11:01:00Z') }),
      kind: 'claimed',
      open: true,
      text: 'claimed, but its dispatcher stopped (lease over at 2026-11-29T11:01:00.000Z): the sweep retries it',
    },
    {
      name: 'a failed delivery awaiting its retry is open, with the attempt and the error',
      item: run({ status: 'delivery-failed', roundAttempts: 2, lastError: 'Throttled' }),
      kind: 'delivery-failed',
      open: true,
      text: 'delivery failed (attempt 2 of 3): the sweep retries it; Throttled',
    },
    {
      name: 'a tracked run dispatched longer ago than maxRuntime is stuck, before the sweep flags it',
      item: run({ dispatchedAt: '2026-11-29T09:00:05.000Z' }),
      kind: 'stuck',
      open: true,
      text: 'dispatched at 2026-11-29T09:00:05.000Z and not finished after maxRuntime (30m)',
    },
    {
      name: 'a tracked run the sweep flagged stuck stays stuck',
      item: run({ dispatchedAt: '2026-11-29T12:00:05.000Z', signals: ['stuck'] }),
      kind: 'stuck',
      open: true,
      text: 'dispatched at 2026-11-29T12:00:05.000Z and not finished after maxRuntime (30m)',
    },
    {
      name: 'a run whose attempts ran out is dead-lettered, with its error',
      item: run({ status: 'failed', failure: 'delivery', attempts: 3, lastError: 'AccessDenied' }),
      kind: 'dead-lettered',
      open: false,
      text: 'dead-lettered after 3 attempts: AccessDenied (zonecron dlq list shows whether it is still queued)',
    },
    {
      name: 'a run the target reported failed is failed',
      item: run({ status: 'failed', failure: 'execution', lastError: 'boom' }),
      kind: 'failed',
      open: false,
      text: 'the target reported failure: boom',
    },
    {
      name: 'a run that missed its deadline says by when, what it was not, and what it is now',
      item: run({
        status: 'succeeded',
        deadlineAtEpochMs: Date.parse('2026-11-29T11:10:00Z'),
        signals: ['deadline-missed', 'late'],
      }),
      kind: 'deadline-missed',
      open: false,
      text: 'deadline missed: not succeeded by 2026-11-29T11:10:00.000Z; now succeeded',
    },
    {
      name: 'a missed run a catch-up skipped is missed, with the skip reason',
      item: run({ status: 'skipped', skipReason: 'catch-up-latest', signals: ['missed'] }),
      kind: 'missed',
      open: false,
      text: 'missed: no tick of its own came; skipped (catch-up-latest)',
    },
    {
      name: 'a run delivered after its grace is late, with its lag',
      item: run({
        status: 'succeeded',
        dispatchedAt: '2026-11-29T11:12:00.000Z',
        completedAt: '2026-11-29T11:13:00.000Z',
        signals: ['late'],
      }),
      kind: 'late',
      open: false,
      text: 'late: delivered 12m after its time (grace 5m)',
    },
  ])('$name', ({ item, kind, open, text }) => {
    expect(runSignals(lambdaJob, [item], NOW)).toEqual([
      { kind, open, key: item.key, at: item.at, text },
    ]);
  });

  it.each([
    [
      'a tracked run dispatched within maxRuntime',
      lambdaJob,
      run({ dispatchedAt: '2026-11-29T12:00:05.000Z' }),
    ],
    [
      'a run delivered to a target that reports no completion, long ago',
      sqsJob,
      run({ jobId: 'queued', dispatchedAt: '2026-11-29T09:00:05.000Z' }),
    ],
    [
      'a succeeded run',
      lambdaJob,
      run({ status: 'succeeded', completedAt: '2026-11-29T11:05:00.000Z' }),
    ],
    ['a run skipped while paused', lambdaJob, run({ status: 'skipped', skipReason: 'paused' })],
  ])('raises nothing for %s', (_name, job, item) => {
    expect(runSignals(job, [item], NOW)).toEqual([]);
  });

  it('keeps the order of the runs it is given, newest first, one signal per run', () => {
    const runs = [
      run({ key: 'k3', at: '2026-11-29T12:00:00.000Z', status: 'delivery-failed' }),
      run({ key: 'k2', at: '2026-11-29T11:00:00.000Z', status: 'succeeded' }),
      run({ key: 'k1', at: '2026-11-29T10:00:00.000Z', status: 'failed', failure: 'delivery' }),
    ];
    expect(runSignals(lambdaJob, runs, NOW).map((s) => [s.key, s.kind])).toEqual([
      ['k3', 'delivery-failed'],
      ['k1', 'dead-lettered'],
    ]);
  });
});
