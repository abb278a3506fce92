import { describe, expect, it } from 'vitest';
import {
  createDispatcher,
  type DispatcherDeps,
  RedriveRefusedError,
} from '../../../functions/dispatcher/dispatch.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import type { JobDefinition } from '../../../functions/shared/job.ts';
import { RecordingLogger } from '../../../functions/shared/logger.ts';
import { RecordingMetrics } from '../../../functions/shared/metrics.ts';
import { RecordingDeadLetters, RecordingTargets, TestClock } from '../../support/doubles.ts';
import { makeJob } from '../../support/jobs.ts';
import { createMemoryLedger } from '../../support/memory-ledger.ts';

function setup(jobs: readonly JobDefinition[], now = '2023-06-01T10:00:02Z') {
  const clock = new TestClock(now);
  const ledger = createMemoryLedger();
  const targets = new RecordingTargets();
  const deadLetters = new RecordingDeadLetters();
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const deps: DispatcherDeps = {
    clock: clock.now,
    jobs,
    ledger,
    targets,
    deadLetters,
    logger,
    metrics,
  };
  return {
    dispatcher: createDispatcher(deps),
    clock,
    ledger,
    targets,
    deadLetters,
    logger,
    metrics,
  };
}

const tick = (jobId: string, scheduledTime: string) => ({
  jobId,
  scheduledTime,
  executionId: 'e',
  attempt: 1,
});

describe('events that are not delivered', () => {
  it.each([
    ['a malformed event', { hello: 'world' }, 'MalformedEvents', 'malformed'],
    ['an unknown job', tick('nope', '2023-06-01T10:00:00Z'), 'UnknownJobEvents', 'unknown-job'],
    ['a disabled job', tick('off', '2023-06-01T10:00:00Z'), 'DisabledJobEvents', 'disabled-job'],
    [
      'a manual run of an unknown job',
      { manual: true, jobId: 'nope' },
      'UnknownJobEvents',
      'unknown-job',
    ],
  ])('logs and counts %s without throwing', async (_name, event, metric, reason) => {
    const t = setup([makeJob({ id: 'off', schedule: '0 * * * *', enabled: false })]);
    expect(await t.dispatcher.handle(event)).toMatchObject({ kind: 'ignored', reason });
    expect(t.metrics.count(metric)).toBe(1);
    expect(t.targets.attempts).toBe(0);
    expect(t.logger.entries).toHaveLength(1);
    expect(t.metrics.flushes).toBe(1);
  });
});

describe('a tick', () => {
  it('writes one decision line with everything on-call needs', async () => {
    const t = setup(
      [makeJob({ id: 'daily', schedule: '30 2 * * *', timezone: 'Europe/Berlin' })],
      '2023-03-26T01:30:04Z',
    );
    await t.dispatcher.handle(tick('daily', '2023-03-26T01:30:00Z'));
    expect(t.logger.entries).toHaveLength(1);
    expect(t.logger.entries[0]).toMatchObject({
      level: 'info',
      message: 'dispatched',
      fields: {
        decision: 'dispatched',
        jobId: 'daily',
        expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        nominal: '2023-03-26T02:30',
        dst: 'gap',
        at: '2023-03-26T01:30:00.000Z',
        key: periodBucket('daily', new Date('2023-03-26T01:30:00Z')),
        attempt: 1,
        lagMs: 4000,
        durationMs: 0,
      },
    });
    expect(t.metrics.values.get('daily/DispatchLagSeconds')).toEqual([4]);
  });

  it('is a no-op costing one read when S is not a run and nothing was missed', async () => {
    // covering '30 0,1 * * *': in summer 00:30Z is 02:30 CEST, 01:30Z is an extra tick
    const t = setup(
      [makeJob({ id: 'daily', schedule: '30 2 * * *', timezone: 'Europe/Berlin' })],
      '2023-06-01T00:30:01Z',
    );
    await t.dispatcher.handle(tick('daily', '2023-06-01T00:30:00Z'));
    const before = { ...t.ledger.calls };
    t.clock.set('2023-06-01T01:30:01Z');
    const result = await t.dispatcher.handle(tick('daily', '2023-06-01T01:30:00Z'));
    expect(result).toMatchObject({ outcomes: [], dropped: [] });
    expect(t.targets.attempts).toBe(1);
    expect(t.ledger.calls).toEqual({ ...before, getWatermark: (before.getWatermark ?? 0) + 1 });
  });

  it('retries its own run after another dispatcher moved the watermark past it', async () => {
    const job = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });
    const t = setup([job]);
    t.targets.failWith = new Error('throttled');
    await expect(t.dispatcher.handle(tick('hourly', '2023-06-01T10:00:00Z'))).rejects.toThrow(
      /delivery failed/,
    );
    await t.ledger.advanceWatermark('hourly', new Date('2023-06-01T11:00:00Z'));
    t.targets.failWith = undefined;
    await t.dispatcher.handle(tick('hourly', '2023-06-01T10:00:00Z'));
    expect(t.targets.received.map((r) => [r.envelope.scheduledAt, r.envelope.attempt])).toEqual([
      ['2023-06-01T10:00:00.000Z', 2],
    ]);
  });

  it('stops at a failed catch-up run, so later runs never overtake it, and resumes in order', async () => {
    const job = makeJob({ id: 'q', schedule: '0 * * * *', timezone: 'UTC' });
    const t = setup([job]);
    await t.dispatcher.handle(tick('q', '2023-06-01T07:00:00Z'));
    let failOnce = true;
    t.targets.beforeDeliver = (envelope) => {
      if (envelope.scheduledAt === '2023-06-01T08:00:00.000Z' && failOnce) {
        failOnce = false;
        throw new Error('boom');
      }
    };
    await expect(t.dispatcher.handle(tick('q', '2023-06-01T10:00:00Z'))).rejects.toThrow(/boom/);
    await t.dispatcher.handle(tick('q', '2023-06-01T10:00:00Z'));
    expect(t.targets.instants()).toEqual([
      '2023-06-01T07:00:00.000Z',
      '2023-06-01T08:00:00.000Z',
      '2023-06-01T09:00:00.000Z',
      '2023-06-01T10:00:00.000Z',
    ]);
  });

  it('dead-letters a run abandoned by a dispatcher that died on its last attempt', async () => {
    const job = makeJob({
      id: 'x',
      schedule: '0 * * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 1 },
    });
    const t = setup([job]);
    const at = new Date('2023-06-01T10:00:00Z');
    await t.ledger.claim({
      key: periodBucket('x', at),
      jobId: 'x',
      at,
      nominal: '2023-06-01T10:00',
      dst: 'none',
      manual: false,
      maxAttempts: 1,
      nowEpochMs: at.getTime(),
      leaseUntilEpochMs: at.getTime() + 300_000,
      ttlEpochSec: 0,
    });
    t.clock.set('2023-06-01T10:06:00Z');
    const result = await t.dispatcher.handle(tick('x', '2023-06-01T10:00:00Z'));
    await t.dispatcher.handle(tick('x', '2023-06-01T10:00:00Z'));
    expect(result).toMatchObject({ outcomes: [{ outcome: 'dead-lettered', attempt: 1 }] });
    expect(t.deadLetters.messages).toHaveLength(1);
    expect(t.deadLetters.messages[0]?.lastError).toMatch(/lease expired/);
    expect(t.targets.attempts).toBe(0);
    expect(t.ledger.items.get(periodBucket('x', at))).toMatchObject({
      status: 'failed',
      failure: 'delivery',
    });
  });
});

describe('manual runs and redrive', () => {
  it('runs a job by hand once per minute under the manual key', async () => {
    const t = setup(
      [makeJob({ id: 'daily', schedule: '30 2 * * *', timezone: 'Europe/Berlin' })],
      '2023-06-01T10:00:42Z',
    );
    const first = await t.dispatcher.runManually({ jobId: 'daily' });
    const second = await t.dispatcher.handle({ manual: true, jobId: 'daily' });
    const at = new Date('2023-06-01T10:00:00Z');
    expect(first).toMatchObject({ outcome: 'dispatched', key: periodBucket('manual:daily', at) });
    expect(second).toMatchObject({ kind: 'manual', outcome: { outcome: 'duplicate' } });
    expect(t.targets.received.map((r) => r.envelope)).toMatchObject([
      { nominal: '2023-06-01T12:00', logicalDate: '2023-06-01', scheduledAt: at.toISOString() },
    ]);
    expect(t.ledger.items.get(periodBucket('manual:daily', at))).toMatchObject({ manual: true });
  });

  it('redrives a dead-lettered run under its original key with fresh attempts', async () => {
    const job = makeJob({
      id: 'r',
      schedule: '0 * * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 1 },
    });
    const t = setup([job]);
    t.targets.failWith = new Error('down');
    await t.dispatcher.handle(tick('r', '2023-06-01T10:00:00Z'));
    t.targets.failWith = undefined;
    const at = new Date('2023-06-01T10:00:00Z');
    const outcome = await t.dispatcher.redrive({ jobId: 'r', at });
    expect(outcome).toMatchObject({
      outcome: 'dispatched',
      key: periodBucket('r', at),
      attempt: 1,
    });
    await expect(t.dispatcher.redrive({ jobId: 'r', at })).rejects.toBeInstanceOf(
      RedriveRefusedError,
    );
    expect(t.targets.received).toHaveLength(1);
  });
});

describe('the sweep', () => {
  it('reads nothing when no job has a run in its window, however many jobs there are', async () => {
    const jobs = Array.from({ length: 2000 }, (_, i) =>
      makeJob({ id: `daily-${i}`, schedule: '30 2 * * *', timezone: 'Europe/Berlin' }),
    );
    const t = setup(jobs, '2023-06-01T12:00:03Z');
    const result = await t.dispatcher.handle({
      sweep: true,
      scheduledTime: '2023-06-01T12:00:00Z',
    });
    expect(result).toMatchObject({ kind: 'sweep', jobsChecked: 2000, keysRead: 0 });
    expect(t.ledger.calls).toEqual({});
  });

  it('reads exactly the keys of the runs that became due, in one batch', async () => {
    const jobs = [
      makeJob({ id: 'due', schedule: '55 11 * * *', timezone: 'UTC' }),
      makeJob({ id: 'idle', schedule: '0 3 * * *', timezone: 'UTC' }),
    ];
    const t = setup(jobs, '2023-06-01T12:00:03Z');
    const result = await t.dispatcher.handle({
      sweep: true,
      scheduledTime: '2023-06-01T12:00:00Z',
    });
    expect(result).toMatchObject({ keysRead: 1, watermarksRead: 1, missed: [] }); // never ticked: not missed
    expect(t.ledger.calls).toEqual({ getRuns: 1, getWatermark: 1 });
  });

  it('re-drives a run whose failed delivery was never retried by its tick, without calling it missed', async () => {
    const job = makeJob({ id: 'stranded', schedule: '0 * * * *', timezone: 'UTC' });
    const t = setup([job], '2023-06-01T09:00:02Z');
    await t.dispatcher.handle(tick('stranded', '2023-06-01T09:00:00Z'));
    t.clock.set('2023-06-01T10:00:02Z');
    t.targets.failWith = new Error('throttled');
    await expect(t.dispatcher.handle(tick('stranded', '2023-06-01T10:00:00Z'))).rejects.toThrow();
    t.targets.failWith = undefined; // Scheduler's retries of the 10:00 tick are lost
    t.clock.set('2023-06-01T10:06:02Z');
    const sweep = await t.dispatcher.handle({ sweep: true, scheduledTime: '2023-06-01T10:06:00Z' });
    expect(sweep).toMatchObject({ missed: [], outcomes: [{ outcome: 'dispatched', attempt: 2 }] });
    expect(t.targets.instants()).toEqual(['2023-06-01T09:00:00.000Z', '2023-06-01T10:00:00.000Z']);
    expect(t.metrics.count('stranded', 'MissedRuns')).toBe(0);
  });

  it('delivers the newest missed run under latest when nothing newer is due yet', async () => {
    const job = makeJob({
      id: 'hourly-latest',
      schedule: '5 * * * *',
      timezone: 'UTC',
      catchup: { policy: 'latest' },
    });
    const t = setup([job], '2023-06-01T09:05:01Z');
    await t.dispatcher.handle(tick('hourly-latest', '2023-06-01T09:05:00Z'));
    t.clock.set('2023-06-01T10:11:02Z'); // the 10:05 tick never came
    const sweep = await t.dispatcher.handle({ sweep: true, scheduledTime: '2023-06-01T10:11:00Z' });
    expect(sweep).toMatchObject({
      missed: [{ at: '2023-06-01T10:05:00.000Z', action: 'dispatched' }],
    });
    expect(t.targets.instants()).toEqual(['2023-06-01T09:05:00.000Z', '2023-06-01T10:05:00.000Z']);
    expect(t.logger.withMessage('caught-up')[0]?.fields).toMatchObject({
      origin: 'sweep',
      late: true,
    });
  });
});
