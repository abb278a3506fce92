import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createSqsDeadLetters, type DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { createDynamoLedger, createLedgerStore } from '#ledger/index.ts';
import type { RunMetricName } from '#shared/metrics.ts';
import {
  createTargetDelivery,
  type TargetClients,
} from '../../../functions/dispatcher/targets/index.ts';
import { queueUrlViaGetQueueUrl } from '../../../functions/dispatcher/targets/sqs.ts';
import { occurrencesBetween, periodBucket } from '../../../functions/schedule/index.ts';
import { coveringSchedule } from '../../../infra/covering/covering-cron.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import { freePort } from '../../support/dynamodb-local.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';
import { harness, sweepEvent, tickEvent as tick } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

let client: DynamoDBClient;
let tableName: string;
let local: LocalSqs;

beforeAll(async () => {
  client = localDynamoClient(inject('dynamoEndpoint'));
  local = await startLocalSqs();
});

// The sweep looks at every open run of its table: each scenario gets a table of its own.
beforeEach(async () => {
  tableName = await createLedgerTable(client, 'scenarios');
});

afterAll(async () => {
  client.destroy();
  await local.stop();
});

/** Real target delivery whose SQS client talks to fauxqs (other clients unused here). */
function sqsTargets() {
  return createTargetDelivery({ sqs: local.sqs } as unknown as TargetClients, {
    resolveQueueUrl: queueUrlViaGetQueueUrl(local.sqs),
  });
}

describe('dispatcher scenarios against DynamoDB Local and fauxqs', () => {
  it('delivers exactly once when 20 dispatchers handle the same tick concurrently', async () => {
    const { queueArn } = local.createQueue('concurrent-target');
    const job = makeJob({
      id: 'concurrent',
      schedule: '0 9 * * *',
      timezone: 'Europe/Berlin',
      target: { type: 'sqs', arn: queueArn },
    });
    const clock = new TestClock('2023-06-01T07:00:02.000Z');
    const targets = sqsTargets();
    const containers = Array.from({ length: 20 }, () =>
      harness({ client, tableName, clock, jobs: [job], targets }),
    );
    const results = await Promise.all(
      containers.map((c) => c.dispatcher.handle(tick('concurrent', '2023-06-01T07:00:00Z'))),
    );

    const received = local.messages<RunEnvelope>('concurrent-target');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      version: 1,
      jobId: 'concurrent',
      scheduledAt: '2023-06-01T07:00:00.000Z',
      nominal: '2023-06-01T09:00',
      timezone: 'Europe/Berlin',
      logicalDate: '2023-06-01',
      attempt: 1,
    });
    const outcomes = results.flatMap((r) => ('outcomes' in r ? r.outcomes : []));
    expect(outcomes.filter((o) => o.outcome === 'dispatched')).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === 'duplicate')).toHaveLength(19);
    const suppressed = containers.reduce(
      (sum, c) => sum + c.metrics.count('concurrent', 'DuplicatesSuppressed'),
      0,
    );
    expect(suppressed).toBe(19);
    const key = periodBucket('concurrent', new Date('2023-06-01T07:00:00Z'));
    const item = await containers[0]?.ledger.getRun(key);
    expect(item).toMatchObject({ status: 'dispatched', attempts: 1, jobId: 'concurrent' });
    expect(item?.deliveryId).toBeTruthy();
  });

  it('delivers exactly once after the lease of a dispatcher that died between claim and delivery', async () => {
    const { queueArn } = local.createQueue('crash-target');
    const job = makeJob({
      id: 'crash',
      schedule: '*/10 * * * *',
      timezone: 'UTC',
      target: { type: 'sqs', arn: queueArn },
    });
    const clock = new TestClock('2023-06-01T10:00:01.000Z');
    const at = new Date('2023-06-01T10:00:00Z');
    const key = periodBucket('crash', at);
    // The dead dispatcher's claim, exactly as it wrote it before dying: lease 5 minutes.
    const ledger = createDynamoLedger(createLedgerStore({ client, tableName }));
    await ledger.createJobState('crash', new Date('2023-06-01T09:50:00Z'));
    const dead = await ledger.claim({
      key,
      jobId: 'crash',
      at,
      nominal: '2023-06-01T10:00',
      dst: 'none',
      manual: false,
      origin: 'tick',
      target: queueArn,
      secretHash: 'a'.repeat(64),
      mode: 'any',
      maxAttempts: 3,
      nowEpochMs: clock.now().getTime(),
      leaseUntilEpochMs: clock.now().getTime() + 300_000,
      ttlEpochSec: 0,
      missed: false,
    });
    expect(dead.claimed).toBe(true);

    const h = harness({ client, tableName, clock, jobs: [job], targets: sqsTargets() });
    clock.advance(60_000); // Lambda's retry, one minute later: lease still held
    const early = await h.dispatcher.handle(tick('crash', '2023-06-01T10:00:00Z', 2));
    expect(early).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
    expect(local.messages('crash-target')).toHaveLength(0);

    clock.set('2023-06-01T10:05:20.000Z'); // past the lease: the sweep settles the open run
    const sweep = await h.dispatcher.handle(sweepEvent('2023-06-01T10:05:00Z'));
    expect(sweep).toMatchObject({
      settled: [{ key, action: 'redelivered', outcome: { outcome: 'dispatched', attempt: 2 } }],
    });
    const again = await h.dispatcher.handle(tick('crash', '2023-06-01T10:00:00Z', 3));
    expect(again).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });

    const received = local.messages<RunEnvelope>('crash-target');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ key, attempt: 2, stack: 'Test' });
    expect(await ledger.getRun(key)).toMatchObject({ status: 'dispatched', attempts: 2 });
  });

  it('dead-letters a run once after maxAttempts failed deliveries and never retries it again', async () => {
    const { queueUrl: dlqUrl } = local.createQueue('dispatcher-dlq');
    const job = makeJob({
      id: 'failing',
      schedule: '0 * * * *',
      timezone: 'America/New_York',
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:broken' },
      payload: { report: 'daily' },
      retry: { maxAttempts: 3 },
    });
    const clock = new TestClock('2023-06-01T12:00:03.000Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('ResourceNotFoundException: Function not found');
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job],
      targets,
      deadLetters: createSqsDeadLetters(local.sqs, dlqUrl),
    });
    await h.ledger.createJobState('failing', new Date('2023-06-01T11:00:00Z'));
    const first = await h.dispatcher.handle(tick('failing', '2023-06-01T12:00:00Z'));
    expect(first).toMatchObject({
      outcomes: [{ outcome: 'delivery-failed', attempt: 1, retryAt: '2023-06-01T12:01:03.000Z' }],
    });
    // The sweep retries it at its backoff: 12:01, then 12:03 (two minutes later).
    for (const minute of ['12:01', '12:02', '12:03', '12:04', '12:05']) {
      clock.set(`2023-06-01T${minute}:05.000Z`);
      await h.dispatcher.handle(sweepEvent(`2023-06-01T${minute}:00Z`));
    }
    const again = await h.dispatcher.handle(tick('failing', '2023-06-01T12:00:00Z', 2));
    expect(again).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });

    expect(targets.attempts).toBe(3);
    expect(targets.received).toHaveLength(0);
    const key = periodBucket('failing', new Date('2023-06-01T12:00:00Z'));
    const dlq = local.messages<DeadLetterMessage>('dispatcher-dlq');
    expect(dlq).toEqual([
      {
        version: 1,
        reason: 'delivery-failed',
        key,
        jobId: 'failing',
        envelope: {
          version: 1,
          jobId: 'failing',
          key,
          scheduledAt: '2023-06-01T12:00:00.000Z',
          nominal: '2023-06-01T08:00',
          timezone: 'America/New_York',
          dst: 'none',
          attempt: 3,
          logicalDate: '2023-06-01',
          payload: { report: 'daily' },
          stack: 'Test',
        },
        target: job.target,
        lastError: 'Error: ResourceNotFoundException: Function not found',
        attempts: 3,
        failedAt: '2023-06-01T12:03:05.000Z',
      },
    ]);
    expect(await h.ledger.getRun(key)).toMatchObject({
      status: 'failed',
      failure: 'delivery',
      attempts: 3,
      lastError: 'Error: ResourceNotFoundException: Function not found',
    });
    expect(h.metrics.count('failing', 'DeliveryFailures')).toBe(3);
    expect(h.metrics.count('failing', 'DeadLettered')).toBe(1);
    expect(h.logger.withMessage('dead-lettered')).toHaveLength(1);
    expect(h.notifier.count(key, 'dead-lettered')).toBe(1);
  });

  describe('a dispatcher that died on the last attempt, between claim and delivery', () => {
    const at = new Date('2023-06-01T10:00:00Z');

    /** Two failed attempts, then the third claim of a dispatcher that never came back. */
    async function abandonedRun(jobId: string) {
      const { queueArn } = local.createQueue(`${jobId}-target`);
      const { queueUrl: dlqUrl } = local.createQueue(`${jobId}-dlq`);
      const job = makeJob({
        id: jobId,
        schedule: '*/10 * * * *',
        timezone: 'Europe/Berlin',
        target: { type: 'sqs', arn: queueArn },
        payload: { report: 'ten-minutely' },
        retry: { maxAttempts: 3 },
      });
      const key = periodBucket(jobId, at);
      const ledger = createDynamoLedger(createLedgerStore({ client, tableName }));
      await ledger.createJobState(jobId, new Date('2023-06-01T09:50:00Z'));
      const request = (nowIso: string, mode: 'any' | 'reclaim') => ({
        key,
        jobId,
        at,
        nominal: '2023-06-01T12:00',
        dst: 'none',
        manual: false,
        origin: 'tick' as const,
        target: queueArn,
        secretHash: 'a'.repeat(64),
        mode,
        maxAttempts: 3,
        nowEpochMs: Date.parse(nowIso),
        leaseUntilEpochMs: Date.parse(nowIso) + 300_000,
        ttlEpochSec: 0,
        missed: false,
      });
      for (const [attempt, nowIso] of [
        [1, '2023-06-01T09:58:00.000Z'],
        [2, '2023-06-01T09:59:00.000Z'],
      ] as const) {
        const mode = attempt === 1 ? 'any' : 'reclaim';
        expect(await ledger.claim(request(nowIso, mode))).toMatchObject({ claimed: true });
        const failure = { lastError: 'e', retryAtEpochMs: Date.parse(nowIso) };
        expect(await ledger.releaseFailed(key, attempt, failure)).toBe(true);
      }
      const dead = await ledger.claim(request('2023-06-01T10:00:01.000Z', 'reclaim'));
      expect(dead).toMatchObject({
        claimed: true,
        item: {
          status: 'claimed',
          attempts: 3,
          leaseUntilEpochMs: Date.parse('2023-06-01T10:05:01.000Z'),
        },
      });
      const clock = new TestClock('2023-06-01T10:00:01.000Z');
      const setup = {
        client,
        tableName,
        clock,
        jobs: [job],
        targets: sqsTargets(),
      };
      const deadLetters = createSqsDeadLetters(local.sqs, dlqUrl);
      return { job, key, ledger, clock, setup, deadLetters };
    }

    /** The one DLQ message such a run must produce, taken over at `failedAt`. */
    function expectedDeadLetter(job: JobDefinition, key: string, failedAt: string) {
      return {
        version: 1,
        reason: 'delivery-failed',
        key,
        jobId: job.id,
        envelope: {
          version: 1,
          jobId: job.id,
          key,
          scheduledAt: '2023-06-01T10:00:00.000Z',
          nominal: '2023-06-01T12:00',
          timezone: 'Europe/Berlin',
          dst: 'none',
          attempt: 3,
          logicalDate: '2023-06-01',
          payload: { report: 'ten-minutely' },
          stack: 'Test',
        },
        target: job.target,
        lastError:
          'dispatcher stopped during delivery attempt 3 (lease expired at 2023-06-01T10:05:01.000Z)',
        attempts: 3,
        failedAt,
      };
    }

    it('is dead-lettered once by the sweep after its lease expired, not before; a retried tick is refused', async () => {
      const { job, key, ledger, clock, setup, deadLetters } = await abandonedRun('abandoned');
      const h = harness({ ...setup, deadLetters });
      clock.set('2023-06-01T10:05:00.000Z'); // Lambda's retry while the lease still holds
      const early = await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z', 2));
      expect(early).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
      expect(await h.dispatcher.handle(sweepEvent('2023-06-01T10:05:00Z'))).toMatchObject({
        settled: [],
      });
      expect(local.messages(`${job.id}-dlq`)).toHaveLength(0);

      clock.set('2023-06-01T10:06:02.000Z');
      const late = await h.dispatcher.handle(tick(job.id, '2023-06-01T10:00:00Z', 3));
      expect(late).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
      expect(await h.dispatcher.handle(sweepEvent('2023-06-01T10:06:00Z'))).toMatchObject({
        settled: [{ key, action: 'dead-lettered' }],
      });
      clock.set('2023-06-01T10:07:02.000Z');
      await h.dispatcher.handle(sweepEvent('2023-06-01T10:07:00Z'));

      expect(local.messages<DeadLetterMessage>(`${job.id}-dlq`)).toEqual([
        expectedDeadLetter(job, key, '2023-06-01T10:06:02.000Z'),
      ]);
      expect(local.messages(`${job.id}-target`)).toHaveLength(0);
      expect(await ledger.getRun(key)).toMatchObject({
        status: 'failed',
        failure: 'delivery',
        attempts: 3,
        lastError: expectedDeadLetter(job, key, '').lastError,
        completedAt: '2023-06-01T10:06:02.000Z',
        outbox: [],
      });
      expect(h.metrics.count(job.id, 'DeadLettered')).toBe(1);
      expect(h.logger.withMessage('dead-lettered')).toHaveLength(1);
      expect(h.notifier.count(key, 'dead-lettered')).toBe(1);
    });

    it('is dead-lettered once when 10 sweeps settle it concurrently', async () => {
      const { job, key, ledger, clock, setup, deadLetters } = await abandonedRun('abandoned-race');
      const containers = Array.from({ length: 10 }, () => harness({ ...setup, deadLetters }));
      clock.set('2023-06-01T10:05:02.000Z');
      await Promise.all(
        containers.map((c) => c.dispatcher.handle(sweepEvent('2023-06-01T10:05:00Z'))),
      );
      expect(local.messages<DeadLetterMessage>(`${job.id}-dlq`)).toEqual([
        expectedDeadLetter(job, key, '2023-06-01T10:05:02.000Z'),
      ]);
      const sum = (name: RunMetricName) =>
        containers.reduce((total, c) => total + c.metrics.count(job.id, name), 0);
      expect(sum('DeadLettered')).toBe(1);
      const logged = (message: string) =>
        containers.reduce((total, c) => total + c.logger.withMessage(message).length, 0);
      expect(logged('dead-lettered')).toBe(1);
      expect(await ledger.getRun(key)).toMatchObject({ status: 'failed', attempts: 3 });
    });
  });

  it('throws and delivers nothing when DynamoDB is unreachable', async () => {
    const port = await freePort();
    const unreachable = localDynamoClient(`http://127.0.0.1:${port}`, 2);
    const targets = new RecordingTargets();
    const h = harness({
      client: unreachable,
      tableName,
      clock: new TestClock('2023-06-01T12:00:01Z'),
      jobs: [makeJob({ id: 'offline', schedule: '0 * * * *', timezone: 'UTC' })],
      targets,
    });
    await expect(h.dispatcher.handle(tick('offline', '2023-06-01T12:00:00Z'))).rejects.toThrow(
      /ECONNREFUSED|connect/,
    );
    expect(targets.attempts).toBe(0);
    unreachable.destroy();
  });

  describe('after three days without ticks, the next tick catches up per policy', () => {
    const start = '2023-06-01T00:00:00Z';
    const resume = '2023-06-04T00:00:00Z';
    const hourly = (from: string, to: string) =>
      occurrencesBetween({ cron: '0 * * * *', timezone: 'UTC' }, new Date(from), new Date(to)).map(
        (o) => o.at.toISOString(),
      );

    it.each([
      // policy, maxRuns, delivered, dropped (the window is closed: a run 24 h old counts); the
      // tick's own run is on time, not part of the gap: maxRuns counts the gap's runs only
      ['all', 100, hourly('2023-06-02T23:59:00Z', resume), 0],
      ['all', 5, hourly('2023-06-03T18:00:00Z', resume), 19],
      ['latest', 100, [new Date(resume).toISOString()], 24],
      ['none', 100, [new Date(resume).toISOString()], 24],
    ] as const)('policy %s with maxRuns %i', async (policy, maxRuns, delivered, dropped) => {
      const id = `outage-${policy}-${maxRuns}`;
      const job = makeJob({
        id,
        schedule: '0 * * * *',
        timezone: 'UTC',
        catchup: { policy, maxRuns, windowSeconds: 86_400 },
      });
      const clock = new TestClock('2023-06-01T00:00:02Z');
      const targets = new RecordingTargets();
      const h = harness({ client, tableName, clock, jobs: [job], targets });
      await h.dispatcher.handle(tick(id, start));
      clock.set('2023-06-04T00:00:02Z');
      const result = await h.dispatcher.handle(tick(id, resume));

      expect(targets.instants()).toEqual([new Date(start).toISOString(), ...delivered]);
      expect(result).toMatchObject({ outcomes: { length: delivered.length } });
      expect(h.metrics.count(id, 'CatchupDropped')).toBe(dropped + 47);
      expect(h.metrics.count(id, 'CaughtUp')).toBe(delivered.length - 1);
      // Every run of the three days ended: delivered, or skipped with its reason.
      const keys = hourly(start, resume).map((at) => periodBucket(id, new Date(at)));
      const items = await h.ledger.getRuns(keys);
      expect(items.size).toBe(keys.length);
      const dispatched = [...items.values()].filter((r) => r.status === 'dispatched');
      expect(dispatched.map((r) => r.at).sort()).toEqual(delivered.slice());
      const skipped = [...items.values()].filter((r) => r.status === 'skipped');
      expect(skipped.filter((r) => r.skipReason === 'outside-window')).toHaveLength(47);
      expect(skipped).toHaveLength(dropped + 47);
      expect((await h.ledger.getJobState(id))?.watermarkAt).toBe(new Date(resume).toISOString());
    });
  });

  describe('Berlin 2023 DST weekends, every covering tick delivered three times', () => {
    // The covering expression enumerates two years of runs (seconds for */15): once per schedule.
    const coveringBySchedule = new Map<string, { cron: string }>();
    const coveringCron = (job: JobDefinition) => {
      let covering = coveringBySchedule.get(job.schedule);
      if (!covering) {
        covering = coveringSchedule(job, new Date('2023-01-01T00:00:00Z'));
        coveringBySchedule.set(job.schedule, covering);
      }
      return covering;
    };

    // The daily job over the whole weekend; the */15 job over the four hours around the change
    // (DynamoDB Local answers in milliseconds, and every tick is handled three times).
    it.each([
      [
        'spring forward',
        '2023-03-25T00:00:00Z',
        '2023-03-27T00:00:00Z',
        '2023-03-25T23:00:00Z',
        '2023-03-26T03:00:00Z',
        '2023-03-26T01:30:00.000Z',
      ],
      [
        'fall back',
        '2023-10-28T00:00:00Z',
        '2023-10-30T00:00:00Z',
        '2023-10-28T23:00:00Z',
        '2023-10-29T03:00:00Z',
        '2023-10-29T00:30:00.000Z',
      ],
    ])(
      '%s: the 02:30 job runs once at its instant, the */15 job every 15 real minutes',
      async (name, weekendFrom, weekendTo, from, to, dailyAt) => {
        const suffix = name.replace(' ', '-');
        const daily = makeJob({
          id: `daily-${suffix}`,
          schedule: '30 2 * * *',
          timezone: 'Europe/Berlin',
        });
        const cadence = makeJob({
          id: `every15-${suffix}`,
          schedule: '*/15 * * * *',
          timezone: 'Europe/Berlin',
        });
        const clock = new TestClock(from);
        const targets = new RecordingTargets();
        const containers = Array.from({ length: 3 }, () =>
          harness({ client, tableName, clock, jobs: [daily, cadence], targets }),
        );
        for (const [job, tickFrom, tickTo] of [
          [daily, weekendFrom, weekendTo],
          [cadence, from, to],
        ] as const) {
          const covering = coveringCron(job);
          const ticks = occurrencesBetween(
            { cron: covering.cron, timezone: 'UTC' },
            new Date(Date.parse(tickFrom) - 60_000),
            new Date(tickTo),
          );
          for (const t of ticks) {
            clock.set(new Date(t.at.getTime() + 2_000).toISOString());
            await Promise.all(
              containers.map((c, i) =>
                c.dispatcher.handle(tick(job.id, t.at.toISOString(), i + 1)),
              ),
            );
          }
        }

        // Saturday's 02:30 (a normal day, CET/CEST), then Sunday's DST instant.
        const saturday = dailyAt.startsWith('2023-03')
          ? '2023-03-25T01:30:00.000Z'
          : '2023-10-28T00:30:00.000Z';
        expect(targets.instants(daily.id)).toEqual([saturday, dailyAt]);
        const every15 = [];
        for (let ms = Date.parse(from); ms <= Date.parse(to); ms += 15 * 60_000) {
          every15.push(new Date(ms).toISOString());
        }
        expect(targets.instants(cadence.id)).toEqual(every15);
        const dailyItem = await containers[0]?.ledger.getRun(
          periodBucket(daily.id, new Date(dailyAt)),
        );
        expect(dailyItem).toMatchObject({
          status: 'dispatched',
          attempts: 1,
          nominal: dailyAt.startsWith('2023-03') ? '2023-03-26T02:30' : '2023-10-29T02:30',
        });
        const cadenceItems = await containers[0]?.ledger.getRuns(
          every15.map((at) => periodBucket(cadence.id, new Date(at))),
        );
        expect(
          [...(cadenceItems?.values() ?? [])].filter((r) => r.status === 'dispatched'),
        ).toHaveLength(every15.length);
        const late = containers.reduce((n, c) => n + c.metrics.total('LateRuns'), 0);
        expect(late).toBe(0);
      },
    );
  });
});
