import { afterEach, describe, expect, inject, it } from 'vitest';
import type { JobDefinition } from '#shared/job.ts';
import { RedriveRefusedError } from '../../../functions/dispatcher/dispatch.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { instrument } from '../../support/ddb-faults.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepEvent, tickEvent as tick } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

// The dispatcher core's own decisions and costs, against DynamoDB Local with every request
// counted: what it logs, what it skips, and how many requests the common paths make.

const clients: ReturnType<typeof localDynamoClient>[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.destroy();
});

async function setup(jobs: readonly JobDefinition[], now = '2023-06-01T10:00:02Z') {
  const client = localDynamoClient(inject('dynamoEndpoint'), 1);
  clients.push(client);
  const faults = instrument(client);
  const tableName = await createLedgerTable(client, 'core');
  const clock = new TestClock(now);
  const targets = new RecordingTargets();
  const h = harness({ client, tableName, clock, jobs, targets });
  faults.resetCounts();
  return { ...h, clock, targets, faults };
}

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
    ['a tick from tomorrow', tick('off', '2023-06-02T10:00:00Z'), 'RejectedTicks', 'future'],
  ])(
    'logs and counts %s without throwing, reading nothing',
    async (_name, event, metric, reason) => {
      const t = await setup([makeJob({ id: 'off', schedule: '0 * * * *', enabled: false })]);
      expect(await t.dispatcher.handle(event)).toMatchObject({ kind: 'ignored', reason });
      expect(t.metrics.count(metric)).toBe(1);
      expect(t.targets.attempts).toBe(0);
      expect(t.logger.entries).toHaveLength(1);
      expect(t.metrics.flushes).toBe(1);
      expect(t.faults.total()).toBe(0);
    },
  );
});

describe('a tick', () => {
  it('writes one decision line with everything on-call needs', async () => {
    const t = await setup(
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
        origin: 'tick',
        attempt: 1,
        lagMs: 4000,
      },
    });
    expect(t.metrics.values.get('daily/DispatchLagSeconds')).toEqual([4]);
  });

  it('makes three requests for an on-time run and none for a covering tick that is no run', async () => {
    // covering '30 0,1 * * *': in summer 00:30Z is 02:30 CEST, 01:30Z is the other tick
    const t = await setup(
      [makeJob({ id: 'daily', schedule: '30 2 * * *', timezone: 'Europe/Berlin' })],
      '2023-06-01T00:30:01Z',
    );
    await t.ledger.createJobState('daily', new Date('2023-05-31T00:30:00Z'));
    t.faults.resetCounts();
    await t.dispatcher.handle(tick('daily', '2023-06-01T00:30:00Z'));
    expect(Object.fromEntries(t.faults.counts)).toEqual({ UpdateItemCommand: 3 });
    t.faults.resetCounts();
    t.clock.set('2023-06-01T01:30:01Z');
    const extra = await t.dispatcher.handle(tick('daily', '2023-06-01T01:30:00Z'));
    expect(extra).toMatchObject({ outcomes: [] });
    expect(t.faults.total()).toBe(0);
    expect(t.targets.attempts).toBe(1);
  });

  it('delivers its own run on the first tick a job ever gets, recording when its runs began', async () => {
    const t = await setup([makeJob({ id: 'fresh', schedule: '0 * * * *', timezone: 'UTC' })]);
    await t.dispatcher.handle(tick('fresh', '2023-06-01T10:00:00Z'));
    expect(t.targets.instants()).toEqual(['2023-06-01T10:00:00.000Z']);
    expect(await t.ledger.getJobState('fresh')).toEqual({
      jobId: 'fresh',
      watermarkAt: '2023-06-01T10:00:00.000Z',
      sinceAt: '2023-06-01T10:00:00.000Z',
    });
  });

  it('retries its own run on a retried tick after the watermark moved past it', async () => {
    const job = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });
    const t = await setup([job]);
    t.targets.failWith = new Error('throttled');
    await t.dispatcher.handle(tick('hourly', '2023-06-01T10:00:00Z'));
    await t.ledger.advanceWatermark('hourly', new Date('2023-06-01T11:00:00Z'));
    t.targets.failWith = undefined;
    await t.dispatcher.handle(tick('hourly', '2023-06-01T10:00:00Z', 2));
    expect(t.targets.received.map((r) => [r.envelope.scheduledAt, r.envelope.attempt])).toEqual([
      ['2023-06-01T10:00:00.000Z', 2],
    ]);
  });

  it('records its run skipped while the job is paused, and delivers again once the pause ended', async () => {
    const job = makeJob({ id: 'paused', schedule: '0 * * * *', timezone: 'UTC' });
    const t = await setup([job]);
    await t.dispatcher.handle(tick('paused', '2023-06-01T10:00:00Z'));
    await t.ledger.pause('paused', {
      at: new Date('2023-06-01T10:30:00Z'),
      by: 'ops',
      reason: 'migration',
      until: new Date('2023-06-01T11:30:00Z'),
    });
    t.clock.set('2023-06-01T11:00:02Z');
    const skipped = await t.dispatcher.handle(tick('paused', '2023-06-01T11:00:00Z'));
    expect(skipped).toMatchObject({
      outcomes: [{ outcome: 'skipped', reason: 'paused', detail: 'paused by ops: migration' }],
    });
    t.clock.set('2023-06-01T12:00:02Z');
    await t.dispatcher.handle(tick('paused', '2023-06-01T12:00:00Z'));
    expect(t.targets.instants()).toEqual(['2023-06-01T10:00:00.000Z', '2023-06-01T12:00:00.000Z']);
    expect(t.metrics.count('paused', 'SkippedPaused')).toBe(1);
    expect(t.notifier.sent).toEqual([]);
  });
});

describe('manual runs and redrive', () => {
  it('runs a job by hand once per minute under the manual key', async () => {
    const t = await setup([makeJob({ id: 'daily', schedule: '0 3 * * *', timezone: 'UTC' })]);
    const first = await t.dispatcher.runManually({ jobId: 'daily' });
    const second = await t.dispatcher.runManually({ jobId: 'daily' });
    expect(first).toMatchObject({ outcome: 'dispatched' });
    expect(second).toMatchObject({ outcome: 'duplicate' });
    expect(first.key).toBe(periodBucket('manual:daily', new Date('2023-06-01T10:00:00Z')));
  });

  it('redrives a dead-lettered run under its original key with a fresh round of attempts', async () => {
    const job = makeJob({
      id: 'once',
      schedule: '0 * * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 1 },
    });
    const t = await setup([job]);
    t.targets.failWith = new Error('down');
    const failed = await t.dispatcher.handle(tick('once', '2023-06-01T10:00:00Z'));
    expect(failed).toMatchObject({ outcomes: [{ outcome: 'dead-lettered', attempt: 1 }] });
    t.targets.failWith = undefined;
    const again = await t.dispatcher.redrive({
      jobId: 'once',
      at: new Date('2023-06-01T10:00:00Z'),
    });
    expect(again).toMatchObject({ outcome: 'dispatched', attempt: 2 });
    await expect(
      t.dispatcher.redrive({ jobId: 'once', at: new Date('2023-06-01T10:00:00Z') }),
    ).rejects.toBeInstanceOf(RedriveRefusedError);
    expect(t.targets.received.map((r) => r.envelope.key)).toEqual([
      periodBucket('once', new Date('2023-06-01T10:00:00Z')),
    ]);
  });
});

describe('the sweep', () => {
  it('reads no run keys when no job has a run in its window, however many jobs there are', async () => {
    const jobs = Array.from({ length: 300 }, (_, i) =>
      makeJob({ id: `daily-${i}`, schedule: '0 3 * * *', timezone: 'UTC' }),
    );
    const t = await setup(jobs, '2023-06-01T10:00:20Z');
    const first = await t.dispatcher.handle(sweepEvent('2023-06-01T10:00:00Z'));
    expect(first).toMatchObject({ keysRead: 0, jobsChecked: 300 });
    t.faults.resetCounts();
    t.clock.set('2023-06-01T10:01:20Z');
    await t.dispatcher.handle(sweepEvent('2023-06-01T10:01:00Z'));
    // A warm container: one query per open-run partition, nothing else.
    expect(Object.fromEntries(t.faults.counts)).toEqual({ QueryCommand: 4 });
  });

  it('reads the due run keys in one batch, and the states of the jobs missing one in another', async () => {
    const jobs = ['a', 'b', 'c'].map((id) =>
      makeJob({ id, schedule: '0 * * * *', timezone: 'UTC' }),
    );
    const t = await setup(jobs, '2023-06-01T10:05:20Z');
    const result = await t.dispatcher.handle(sweepEvent('2023-06-01T10:05:00Z'));
    expect(result).toMatchObject({ keysRead: 3, undecided: { length: 3 } });
    expect(t.faults.counts.get('BatchGetItemCommand')).toBe(2);
    // No job ever ran: nothing was expected yet, nothing is caught up.
    expect(t.targets.attempts).toBe(0);
  });
});
