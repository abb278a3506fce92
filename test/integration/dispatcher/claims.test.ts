import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { createDynamoLedger, createLedgerStore } from '#ledger/index.ts';
import { isStrictInstant } from '../../../functions/dispatcher/events.ts';
import { occurrencesBetween, periodBucket } from '../../../functions/schedule/index.ts';
import { coveringSchedule } from '../../../infra/covering/covering-cron.ts';
import { updating } from '../../support/ddb-faults.ts';
import {
  key,
  lambdaTarget,
  STACK_LEASE_SECONDS,
  sqsTargetsOf,
  tablePerCase,
} from '../../support/dispatcher-cases.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import type { LocalSqs } from '../../support/fauxqs.ts';
import {
  harness,
  lifecycle,
  sweepEvent,
  sweepMinutes,
  tickEvent as tick,
  tickEvent,
} from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Claims and duplicates: one delivery per run, whoever handles its tick and however often.
//
// The dispatcher core (and recorder) against DynamoDB Local, faults injected at the exact
// request where they bite; test/support/dispatcher-cases.ts says what "found by" means.

let client: DynamoDBClient;
let tableName: string;
let local: LocalSqs;

/** Real target delivery whose SQS client talks to fauxqs. */
const sqsTargets = () => sqsTargetsOf(local);

describe('one delivery per run, on a table per case', () => {
  tablePerCase('claims', { sqs: true }, (tables) => {
    ({ client, tableName } = tables);
    local = tables.local as LocalSqs;
  });

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

describe('one delivery per run, under faults', () => {
  // Found by a fault search against DynamoDB Local.
  it("delivers a late tick's run once after its dispatcher died right after claiming, whatever the run's age", async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f1');
    const job = makeJob({ id: 'late-crash', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:06:00Z'); // the 10:00 tick arrives 6 min late
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    // The claim reaches DynamoDB; the dispatcher dies before it hears back (out of memory).
    faults.fail(updating('leaseUntilEpochMs'), { when: 'after', error: () => new Error('OOM') });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      'OOM',
    );
    // Lambda retries the event a minute later: the live lease makes it a duplicate.
    clock.set('2023-06-01T10:07:00Z');
    const retry = await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(retry).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
    // The lease ends 300 s after the claim; the sweep finds the open run and delivers it.
    await sweepMinutes(h, clock, '2023-06-01T10:08:00Z', '2023-06-01T10:13:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z']);
    expect(await h.ledger.getRun(key(job, '2023-06-01T10:00:00Z'))).toMatchObject({
      status: 'dispatched',
      attempts: 2,
      // The run's origin is its first decision: its own (late) tick claimed it.
      origin: 'tick',
    });
    expect(h.metrics.count(job.id, 'Redelivered')).toBe(1);
  });

  // Found by a fault search against DynamoDB Local.
  it('records a delivery whose ledger write was throttled once, and nobody delivers it again', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f4');
    const job = makeJob({
      id: 'throttled',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: lambdaTarget('t'),
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    faults.fail(updating('dispatchedAt'), { times: 1 });
    const tick = await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(tick).toMatchObject({ outcomes: [{ outcome: 'dispatched' }] });
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:10:00Z');
    expect(life.targets.received).toHaveLength(1);
    const envelope = life.targets.received[0]?.envelope;
    if (!envelope) throw new Error('not delivered');
    expect(await life.complete(envelope, new Date('2023-06-01T10:10:30Z'))).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
    });
  });

  // Found by a fault search against DynamoDB Local.
  it('delivers again only after the lease when the write never lands, counts it Redelivered, same key', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('f4b');
    const job = makeJob({ id: 'lost-write', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    faults.fail(updating('dispatchedAt'), { times: 6 });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      /throughput/,
    );
    await sweepMinutes(h, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:06:00Z');
    expect(targets.received.map((r) => [r.envelope.key, r.envelope.attempt])).toEqual([
      [key(job, '2023-06-01T10:00:00Z'), 1],
      [key(job, '2023-06-01T10:00:00Z'), 2],
    ]);
    expect(h.metrics.count(job.id, 'Redelivered')).toBe(1);
    expect(h.logger.withMessage('possible-redelivery')).toHaveLength(1);
  });

  // Found by the seeded chaos simulation.
  it("counts a retried tick's takeover of an expired claim as a possible redelivery", async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c3');
    const job = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:00.200Z');
    const targets = new RecordingTargets();
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job],
      targets,
      options: { leaseSeconds: STACK_LEASE_SECONDS },
    });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    // The target takes the run; the dispatcher dies before it records the delivery.
    faults.fail(updating('dispatchedAt'), { error: () => new Error('Runtime.ExitError') });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      'Runtime.ExitError',
    );
    // Lambda's retries: a minute later the lease still holds; two minutes after that it ended.
    clock.set('2023-06-01T10:01:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    clock.set('2023-06-01T10:03:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(targets.received.map((r) => r.envelope.attempt)).toEqual([1, 2]);
    expect(h.metrics.count(job.id, 'Redelivered')).toBe(1);
    expect(h.logger.withMessage('possible-redelivery')).toHaveLength(1);
  });

  // Found by a fault search against DynamoDB Local.
  it('refuses a tick from the future and a date that does not exist, and counts them', async () => {
    const { client, tableName } = await faultableLedgerTable('f8b');
    const job = makeJob({ id: 'future', schedule: '*/15 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(await h.dispatcher.handle(tickEvent(job.id, '2023-06-02T10:00:00Z'))).toEqual({
      kind: 'ignored',
      reason: 'future',
    });
    expect(isStrictInstant('2023-02-30T10:00:00Z')).toBe(false);
    expect(await h.dispatcher.handle(tickEvent(job.id, '2023-02-30T10:00:00Z'))).toEqual({
      kind: 'ignored',
      reason: 'malformed',
    });
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z']);
    expect((await h.ledger.getJobState(job.id))?.watermarkAt).toBe('2023-06-01T10:00:00.000Z');
    expect(h.metrics.count('RejectedTicks')).toBe(1);
    expect(h.metrics.count('MalformedEvents')).toBe(1);
  });
});
