import { afterEach, describe, expect, inject, it } from 'vitest';
import { type JobDefinition, scheduleIdOf } from '#jobs/job.ts';
import type { DispatcherOptions } from '../../../functions/dispatcher/context.ts';
import { RedriveRefusedError } from '../../../functions/dispatcher/dispatch.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { instrument, updating } from '../../support/ddb-faults.ts';
import { RecordingDeadLetters, RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepEvent, sweepMinutes, tickEvent as tick } from '../../support/harness.ts';
import { HOSTILE_EVENTS, MAX_HOSTILE_LOG_CHARS, settled } from '../../support/hostile-events.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

// The dispatcher core's own decisions and costs, against DynamoDB Local with every request
// counted: what it logs, what it skips, and how many requests the common paths make.

const clients: ReturnType<typeof localDynamoClient>[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.destroy();
});

async function setup(
  jobs: readonly JobDefinition[],
  now = '2023-06-01T10:00:02Z',
  options: Partial<DispatcherOptions> = {},
) {
  const client = localDynamoClient(inject('dynamoEndpoint'), 1);
  clients.push(client);
  const faults = instrument(client);
  const tableName = await createLedgerTable(client, 'core');
  const clock = new TestClock(now);
  const targets = new RecordingTargets();
  const deadLetters = new RecordingDeadLetters();
  const h = harness({ client, tableName, clock, jobs, targets, deadLetters, options });
  faults.resetCounts();
  return { ...h, clock, targets, deadLetters, faults };
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

describe('events nobody legitimate sends', () => {
  it('ignores and counts each one as malformed, in one short log line, reading nothing', async () => {
    const t = await setup([makeJob({ id: 'daily', schedule: '0 * * * *' })]);
    for (const [name, event] of HOSTILE_EVENTS) {
      expect(await settled(t.dispatcher.handle(event)), name).toEqual({
        kind: 'ignored',
        reason: 'malformed',
      });
    }
    expect(t.metrics.count('MalformedEvents')).toBe(HOSTILE_EVENTS.length);
    expect(t.logger.withMessage('malformed-event')).toHaveLength(HOSTILE_EVENTS.length);
    for (const entry of t.logger.entries) {
      expect(entry.fields).toMatchObject({ decision: 'ignored', type: expect.any(String) });
      expect(JSON.stringify(entry).length).toBeLessThan(MAX_HOSTILE_LOG_CHARS);
    }
    expect(t.targets.attempts).toBe(0);
    expect(t.faults.total()).toBe(0);
  });
});

describe('instants that are not runs', () => {
  const minutely = makeJob({ id: 'minutely', schedule: '* * * * *', timezone: 'UTC' });

  it("refuses a tick from 1970 as a job's first event: no run, no job state, RejectedTicks counted", async () => {
    const t = await setup([minutely]);
    expect(await t.dispatcher.handle(tick('minutely', '1970-01-01T00:00:00Z'))).toEqual({
      kind: 'ignored',
      reason: 'ancient',
      jobId: 'minutely',
    });
    expect(t.faults.total()).toBe(0);
    expect(t.metrics.count('RejectedTicks')).toBe(1);
    expect(t.logger.entries).toMatchObject([
      {
        message: 'ancient-event',
        fields: { decision: 'ignored', jobId: 'minutely', maxAgeSeconds: 86_400 },
      },
    ]);
    expect(t.targets.attempts).toBe(0);
    expect(await t.ledger.getJobState('minutely')).toBeUndefined();
  });

  it('refuses a 2013 tick of an every-minute job, so the next real tick delivers only its own run', async () => {
    const t = await setup([minutely]);
    expect(await t.dispatcher.handle(tick('minutely', '2013-06-01T10:00:00Z'))).toMatchObject({
      kind: 'ignored',
      reason: 'ancient',
    });
    const next = await t.dispatcher.handle(tick('minutely', '2023-06-01T10:00:00Z'));
    expect(next).toMatchObject({
      kind: 'tick',
      outcomes: [{ outcome: 'dispatched', at: '2023-06-01T10:00:00.000Z' }],
    });
    t.clock.set('2023-06-01T10:01:20Z');
    expect(await t.dispatcher.handle(sweepEvent('2023-06-01T10:01:00Z'))).toMatchObject({
      kind: 'sweep',
      outcomes: [],
    });
    expect(t.targets.instants()).toEqual(['2023-06-01T10:00:00.000Z']);
    expect(await t.ledger.getJobState('minutely')).toMatchObject({
      sinceAt: '2023-06-01T10:00:00.000Z',
    });
  });

  it('refuses a sweep event from 1970, reading nothing', async () => {
    const t = await setup([minutely]);
    expect(await t.dispatcher.handle(sweepEvent('1970-01-01T00:00:00Z'))).toEqual({
      kind: 'ignored',
      reason: 'ancient',
    });
    expect(t.faults.total()).toBe(0);
    expect(t.metrics.count('RejectedTicks')).toBe(1);
    expect(t.logger.entries).toMatchObject([
      { message: 'ancient-event', fields: { decision: 'ignored', maxAgeSeconds: 86_400 } },
    ]);
  });

  it('accepts a tick exactly its catch-up window old and refuses one a minute older', async () => {
    const job = makeJob({
      id: 'short-window',
      schedule: '* * * * *',
      timezone: 'UTC',
      catchup: { windowSeconds: 3_600 },
    });
    const t = await setup([job], '2023-06-01T11:00:00Z');
    expect(await t.dispatcher.handle(tick(job.id, '2023-06-01T09:59:00Z'))).toMatchObject({
      reason: 'ancient',
    });
    expect(await t.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'))).toMatchObject({
      kind: 'tick',
      outcomes: [{ outcome: 'dispatched' }],
    });
  });

  it('refuses a tick older than the retention when the retention is shorter than the window', async () => {
    const job = makeJob({
      id: 'long-window',
      schedule: '0 * * * *',
      timezone: 'UTC',
      catchup: { windowSeconds: 30 * 86_400 },
    });
    const t = await setup([job], '2023-06-09T10:00:02Z', { retentionDays: 7 });
    expect(await t.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z'))).toMatchObject({
      reason: 'ancient',
    });
    expect(t.logger.entries[0]?.fields).toMatchObject({ maxAgeSeconds: 7 * 86_400 });
  });
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
    const job = makeJob({ id: 'fresh', schedule: '0 * * * *', timezone: 'UTC' });
    const t = await setup([job]);
    await t.dispatcher.handle(tick('fresh', '2023-06-01T10:00:00Z'));
    expect(t.targets.instants()).toEqual(['2023-06-01T10:00:00.000Z']);
    expect(await t.ledger.getJobState('fresh')).toEqual({
      jobId: 'fresh',
      watermarkAt: '2023-06-01T10:00:00.000Z',
      sinceAt: '2023-06-01T10:00:00.000Z',
      scheduleId: scheduleIdOf(job),
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

  it('redrives a dead-lettered run under its original key, and refuses to redrive it once delivered', async () => {
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

  /** A daily job with two attempts a round, its 10:00 run dead-lettered after both failed. */
  async function deadLetteredTwice() {
    const job = makeJob({ id: 'daily', schedule: '0 10 * * *', timezone: 'UTC' });
    const t = await setup([{ ...job, retry: { maxAttempts: 2 } }]);
    t.targets.failWith = new Error('down');
    await t.dispatcher.handle(tick('daily', '2023-06-01T10:00:00Z'));
    await sweepMinutes(t, t.clock, '2023-06-01T10:01:00Z', '2023-06-01T10:02:00Z');
    const key = periodBucket('daily', new Date('2023-06-01T10:00:00Z'));
    expect(await t.ledger.getRun(key)).toMatchObject({ status: 'failed', attempts: 2 });
    expect(t.deadLetters.messages).toHaveLength(1);
    expect(t.notifier.sent.map((n) => n.signal)).toEqual(['dead-lettered']);
    return { t, key };
  }

  it('makes one attempt when it redrives a run whose target still fails, leaving it failed with its one dead letter and one notification', async () => {
    const { t, key } = await deadLetteredTwice();
    t.clock.set('2023-06-01T10:30:00Z');
    const again = await t.dispatcher.redrive({
      jobId: 'daily',
      at: new Date('2023-06-01T10:00:00Z'),
    });
    expect(again).toMatchObject({ outcome: 'dead-lettered', attempt: 3, lastError: 'Error: down' });
    expect(await t.ledger.getRun(key)).toMatchObject({
      status: 'failed',
      failure: 'delivery',
      attempts: 3,
      signals: ['dead-lettered'],
      outbox: [],
    });
    expect(t.logger.withMessage('redrive-failed')).toHaveLength(1);
    // Nobody retries it later: the sweep leaves it alone, and no second message or page goes out.
    await sweepMinutes(t, t.clock, '2023-06-01T10:31:00Z', '2023-06-01T10:50:00Z');
    expect(t.targets.attempts).toBe(3);
    expect(t.deadLetters.messages).toHaveLength(1);
    expect(t.notifier.sent.map((n) => n.signal)).toEqual(['dead-lettered']);
    t.targets.failWith = undefined;
    const fixed = await t.dispatcher.redrive({
      jobId: 'daily',
      at: new Date('2023-06-01T10:00:00Z'),
    });
    expect(fixed).toMatchObject({ outcome: 'dispatched', attempt: 4 });
  });

  it('gives a redrive whose redriver died before its claim the one attempt, through the sweep, raising nothing when it fails', async () => {
    const { t, key } = await deadLetteredTwice();
    // The redriver's reset landed, then it died: the sweep takes the run up at the lease's end.
    await t.ledger.resetForRedrive(key, Date.parse('2023-06-01T10:35:00Z'));
    await sweepMinutes(t, t.clock, '2023-06-01T10:34:00Z', '2023-06-01T10:55:00Z');
    expect(t.targets.attempts).toBe(3);
    expect(await t.ledger.getRun(key)).toMatchObject({ status: 'failed', attempts: 3, outbox: [] });
    expect(t.deadLetters.messages).toHaveLength(1);
    expect(t.notifier.sent.map((n) => n.signal)).toEqual(['dead-lettered']);
  });

  it('refuses a duplicate tick a second attempt when the redriver died after claiming the redrive’s one attempt', async () => {
    const { t, key } = await deadLetteredTwice();
    t.clock.set('2023-06-01T10:30:00Z');
    // The redriver's reset and claim land, then it dies before it reaches the target.
    t.faults.fail(updating('secretHashes'), {
      when: 'after',
      error: () => new Error('redriver died'),
    });
    await expect(
      t.dispatcher.redrive({ jobId: 'daily', at: new Date('2023-06-01T10:00:00Z') }),
    ).rejects.toThrow('redriver died');
    expect(await t.ledger.getRun(key)).toMatchObject({ status: 'claimed', roundAttempts: 1 });
    // A copy of the run's tick comes after the claim's lease: the redrive's attempt was taken.
    t.clock.set('2023-06-01T10:35:01Z');
    const copy = await t.dispatcher.handle(tick('daily', '2023-06-01T10:00:00Z'));
    expect(copy).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
    expect(t.targets.attempts).toBe(2);
    // The sweep ends the redrive's round: failed again, with its one dead letter and page.
    await sweepMinutes(t, t.clock, '2023-06-01T10:36:00Z', '2023-06-01T10:37:00Z');
    expect(await t.ledger.getRun(key)).toMatchObject({ status: 'failed', attempts: 3, outbox: [] });
    expect(t.targets.attempts).toBe(2);
    expect(t.deadLetters.messages).toHaveLength(1);
    expect(t.notifier.sent.map((n) => n.signal)).toEqual(['dead-lettered']);
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

  it("reads the due run keys in one batch, the states of the jobs missing one in another, and the roster and the listed jobs' states once per container", async () => {
    const jobs = ['a', 'b', 'c'].map((id) =>
      makeJob({ id, schedule: '0 * * * *', timezone: 'UTC' }),
    );
    const t = await setup(jobs, '2023-06-01T10:05:20Z');
    const result = await t.dispatcher.handle(sweepEvent('2023-06-01T10:05:00Z'));
    expect(result).toMatchObject({ keysRead: 3, undecided: { length: 3 } });
    // The roll call reads the roster, and the listed jobs' states for the schedules it adopts.
    expect(t.faults.counts.get('BatchGetItemCommand')).toBe(4);
    // The next minute has no run due, and the roll call is not taken again.
    await t.dispatcher.handle(sweepEvent('2023-06-01T10:06:00Z'));
    expect(t.faults.counts.get('BatchGetItemCommand')).toBe(4);
    // No job ever ran: nothing was expected yet, nothing is caught up.
    expect(t.targets.attempts).toBe(0);
  });
});
