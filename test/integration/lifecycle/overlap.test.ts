import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { RunNotification } from '#ledger/index.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { type DynamoRequest, updating } from '../../support/ddb-faults.ts';
import { TestClock } from '../../support/doubles.ts';
import { lifecycle, sweepEvent, sweepMinutes, tickEvent } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import {
  createLedgerTable,
  faultableLedgerTable,
  localDynamoClient,
} from '../../support/ledger.ts';

// A job whose target "finishes late": its run stays `dispatched` until the recorder hears
// back from Lambda. Every five minutes, UTC, so each tick stands for exactly one run.
const client = localDynamoClient(inject('dynamoEndpoint'));
let tableName: string;

// The sweep looks at every open run of its table: each test gets a table of its own.
beforeEach(async () => {
  tableName = await createLedgerTable(client, 'overlap');
});

const T0 = Date.parse('2026-06-01T10:00:00.000Z');
const minute = 60_000;
const at = (minutes: number) => new Date(T0 + minutes * minute);
const iso = (minutes: number) => at(minutes).toISOString();
/** Ticks arrive two seconds after their scheduled time. */
const LAG_MS = 2_000;

function setup(id: string, overrides: Omit<Parameters<typeof makeJob>[0], 'id'>) {
  const clock = new TestClock(iso(0));
  const job = makeJob({
    schedule: '*/5 * * * *',
    timezone: 'UTC',
    target: { type: 'lambda', arn: `arn:aws:lambda:us-east-1:000000000000:function:${id}` },
    ...overrides,
    id,
  });
  const life = lifecycle({ client, tableName, clock, jobs: [job] });
  async function tickAt(minutes: number) {
    clock.set(new Date(at(minutes).getTime() + LAG_MS).toISOString());
    return life.dispatch.dispatcher.handle(tickEvent(id, at(minutes)));
  }
  async function status(minutes: number) {
    return (await life.dispatch.ledger.getRun(periodBucket(id, at(minutes))))?.status;
  }
  return { clock, job, life, tickAt, status };
}

describe('concurrency: forbid', () => {
  it('skips the next run while the previous one has not finished, then runs again once it has', async () => {
    const { clock, life, tickAt, status } = setup('forbid-late', { concurrency: 'forbid' });

    await tickAt(0);
    expect(await status(0)).toBe('dispatched');

    const second = await tickAt(5);
    expect(second).toMatchObject({
      kind: 'tick',
      outcomes: [
        {
          outcome: 'skipped',
          reason: 'overlap',
          at: iso(5),
          detail: `previous run ${periodBucket('forbid-late', at(0))} is still running`,
        },
      ],
    });
    expect(await status(5)).toBe('skipped');
    expect(life.dispatch.metrics.count('forbid-late', 'SkippedOverlap')).toBe(1);
    const skipped = life.dispatch.logger.entries.filter(
      (e) => e.fields.decision === 'skipped-overlap',
    );
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.fields).toMatchObject({
      jobId: 'forbid-late',
      at: iso(5),
      runningKey: periodBucket('forbid-late', at(0)),
    });

    // Lambda reports the first run finished at 10:07 (its invocation result, through the bus).
    const first = life.targets.received[0]?.envelope;
    if (!first) throw new Error('first run was not delivered');
    clock.set(iso(7));
    expect(await life.complete(first, at(7))).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
    });
    expect(await status(0)).toBe('succeeded');

    await tickAt(10);
    expect(await status(10)).toBe('dispatched');
    expect(life.targets.instants('forbid-late')).toEqual([iso(0), iso(10)]);
    expect(life.dispatch.metrics.count('forbid-late', 'SkippedOverlap')).toBe(1);
  });

  it('does not call a skipped run missed', async () => {
    const { clock, life, tickAt } = setup('forbid-swept', { concurrency: 'forbid' });
    await tickAt(0);
    await tickAt(5);
    // Sweeps every minute until the skipped 10:05 run is well past grace (5 min) + lookback.
    for (let m = 1; m <= 13; m++) {
      clock.set(new Date(at(m).getTime() + LAG_MS).toISOString());
      if (m === 10) await tickAt(10);
      await life.dispatch.dispatcher.handle(sweepEvent(at(m)));
    }
    expect(life.dispatch.metrics.count('forbid-swept', 'MissedRuns')).toBe(0);
    expect(life.dispatch.metrics.count('forbid-swept', 'SkippedOverlap')).toBe(2);
    expect(life.targets.instants('forbid-swept')).toEqual([iso(0)]);
  });

  it('runs again once the unfinished previous run is older than maxRuntime', async () => {
    const { life, tickAt, status } = setup('forbid-timeout', {
      concurrency: 'forbid',
      maxRuntimeSeconds: 420,
    });
    await tickAt(0);
    await tickAt(5); // 10:00 run dispatched 5 min ago, maxRuntime 7 min: still "running"
    await tickAt(10); // 10 min ago: past maxRuntime, no longer blocks
    expect(await status(0)).toBe('dispatched');
    expect(await status(5)).toBe('skipped');
    expect(await status(10)).toBe('dispatched');
    expect(life.targets.instants('forbid-timeout')).toEqual([iso(0), iso(10)]);
  });
});

describe('concurrency: allow (the default)', () => {
  it('runs the next run while the previous one is still running', async () => {
    const { life, tickAt, status } = setup('allow-late', {});
    await tickAt(0);
    await tickAt(5);
    await tickAt(10);
    expect(await status(0)).toBe('dispatched');
    expect(await status(5)).toBe('dispatched');
    expect(life.targets.instants('allow-late')).toEqual([iso(0), iso(5), iso(10)]);
    expect(life.dispatch.metrics.count('allow-late', 'SkippedOverlap')).toBe(0);
  });
});

describe('concurrency: forbid, the slot of a run that can no longer be running', () => {
  const HOUR = '0 * * * *';

  it("frees the slot of a run whose last attempt died before the Invoke, so the next hour's run is delivered, not skipped", async () => {
    const { client, faults, tableName } = await faultableLedgerTable('forbid-dead');
    const clock = new TestClock('2026-06-01T10:00:02.000Z');
    const job = makeJob({
      id: 'hourly-forbid',
      schedule: HOUR,
      timezone: 'UTC',
      concurrency: 'forbid',
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:hourly' },
    });
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    const h = life.dispatch;
    await h.ledger.createJobState(job.id, new Date('2026-06-01T09:00:00Z'));
    // Attempts 1 (10:00) and 2 (10:01) fail at the target; attempt 3 is due at 10:03.
    life.targets.failWith = new Error('target down');
    await h.dispatcher.handle(tickEvent(job.id, '2026-06-01T10:00:00Z'));
    await sweepMinutes(h, clock, '2026-06-01T10:01:00Z', '2026-06-01T10:02:00Z');
    life.targets.failWith = undefined;
    // Attempt 3 takes the slot; the reply is lost and its dispatcher dies before the Invoke.
    faults.fail(updating('runningKey'), {
      when: 'after',
      error: () => new Error('socket hang up'),
    });
    clock.set('2026-06-01T10:03:20.000Z');
    await expect(h.dispatcher.handle(sweepEvent('2026-06-01T10:03:00Z'))).rejects.toThrow();
    // Its lease ends at 10:08:20; the sweep dead-letters the run, the round being used up.
    await sweepMinutes(h, clock, '2026-06-01T10:04:00Z', '2026-06-01T10:10:00Z');
    const ten = periodBucket(job.id, new Date('2026-06-01T10:00:00Z'));
    expect(await h.ledger.getRun(ten)).toMatchObject({ status: 'failed', failure: 'delivery' });
    expect(life.targets.received).toHaveLength(0);

    clock.set('2026-06-01T11:00:02.000Z');
    const next = await h.dispatcher.handle(tickEvent(job.id, '2026-06-01T11:00:00Z'));
    expect(next).toMatchObject({ outcomes: [{ outcome: 'dispatched' }] });
    expect(life.targets.instants()).toEqual(['2026-06-01T11:00:00.000Z']);
    expect(h.metrics.count(job.id, 'SkippedOverlap')).toBe(0);
  });

  it('keeps the slot of a run whose dispatcher died after the Invoke until its lease ended and maxRuntime passed, though the sweep dead-lettered it', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('forbid-orphan');
    const clock = new TestClock(iso(0));
    const job = makeJob({
      id: 'forbid-orphan',
      schedule: '*/5 * * * *',
      timezone: 'UTC',
      concurrency: 'forbid',
      maxRuntimeSeconds: 420,
      retry: { maxAttempts: 1 },
      target: { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:orphan' },
    });
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    const h = life.dispatch;
    await h.ledger.createJobState(job.id, at(-5));
    // 10:00: the function is invoked; the write recording it never lands, and its dispatcher
    // gives up. The run may be running from 10:00 until its lease (10:05:02) + 7 min.
    faults.fail(updating('dispatchedAt'), { times: 6 });
    clock.set(new Date(at(0).getTime() + LAG_MS).toISOString());
    await expect(h.dispatcher.handle(tickEvent(job.id, at(0)))).rejects.toThrow(/throughput/);
    for (let m = 1; m <= 15; m++) {
      if (m % 5 === 0) {
        clock.set(new Date(at(m).getTime() + LAG_MS).toISOString());
        await h.dispatcher.handle(tickEvent(job.id, at(m)));
      }
      clock.set(new Date(at(m).getTime() + 20_000).toISOString());
      await h.dispatcher.handle(sweepEvent(at(m)));
    }
    const statusOf = async (m: number) =>
      (await h.ledger.getRun(periodBucket(job.id, at(m))))?.status;
    expect(await statusOf(0)).toBe('failed');
    expect(life.deadLetters.messages).toHaveLength(1);
    expect(await statusOf(5)).toBe('skipped');
    // 10:10:02 is past 10:00 + maxRuntime, but not past the lease's end + maxRuntime (10:12:02).
    expect(await statusOf(10)).toBe('skipped');
    expect(await statusOf(15)).toBe('dispatched');
    expect(life.targets.instants()).toEqual([iso(0), iso(15)]);
  });
});

describe('concurrency: forbid, overlap notifications', () => {
  const lambda = (name: string) => ({
    type: 'lambda' as const,
    arn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
  });
  const overlapNotices = (life: { notifier: { sent: readonly RunNotification[] } }) =>
    life.notifier.sent.filter((n) => n.signal === 'overlap');

  it('raises one overlap notification for three overlap skips in a row, and one more for the next incident after a delivered run', async () => {
    const { clock, life, tickAt } = setup('forbid-notify', {
      concurrency: 'forbid',
      target: lambda('notify'),
    });
    await tickAt(0);
    await tickAt(5);
    expect(overlapNotices(life)).toHaveLength(0);
    await tickAt(10);
    await tickAt(15);
    const first = overlapNotices(life);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      signal: 'overlap',
      jobId: 'forbid-notify',
      key: periodBucket('forbid-notify', at(10)),
      at: iso(10),
      status: 'skipped',
      skipReason: 'overlap',
      overlapSince: iso(5),
    });
    expect(first[0]?.summary).toContain('forbid-notify');
    expect(life.dispatch.metrics.count('forbid-notify', 'SkippedOverlap')).toBe(3);

    // The 10:00 run ends at 10:17; 10:20 is delivered: the incident is over.
    const envelope = life.targets.received[0]?.envelope;
    if (!envelope) throw new Error('the 10:00 run was not delivered');
    clock.set(iso(17));
    await life.complete(envelope, at(17));
    await tickAt(20);
    await tickAt(25);
    expect(overlapNotices(life)).toHaveLength(1);
    await tickAt(30);
    await tickAt(35);
    expect(overlapNotices(life).map((n) => [n.at, n.overlapSince])).toEqual([
      [iso(10), iso(5)],
      [iso(30), iso(25)],
    ]);
    expect(life.targets.instants('forbid-notify')).toEqual([iso(0), iso(20)]);
  });

  it('sends the overlap notification whose first send failed once, from the sweep', async () => {
    const { clock, life, tickAt } = setup('forbid-resend', {
      concurrency: 'forbid',
      target: lambda('resend'),
    });
    await tickAt(0);
    await tickAt(5);
    life.notifier.failWith = new Error('SNS unavailable');
    await tickAt(10);
    life.notifier.failWith = undefined;
    expect(overlapNotices(life)).toHaveLength(0);
    for (let m = 11; m <= 14; m++) {
      clock.set(new Date(at(m).getTime() + 20_000).toISOString());
      await life.dispatch.dispatcher.handle(sweepEvent(at(m)));
    }
    expect(overlapNotices(life).map((n) => n.at)).toEqual([iso(10)]);
    const item = await life.dispatch.ledger.getRun(periodBucket('forbid-resend', at(10)));
    expect(item).toMatchObject({ status: 'skipped', signals: ['overlap'], outbox: [] });
    expect(life.dispatch.metrics.count('NotificationFailures')).toBe(1);
    expect(life.dispatch.metrics.count('NotificationsSent')).toBe(1);
  });

  it('raises the overlap notification once when the dispatcher died between counting a skip and recording it', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('forbid-recount');
    const clock = new TestClock(iso(0));
    const job = makeJob({
      id: 'forbid-recount',
      schedule: '*/5 * * * *',
      timezone: 'UTC',
      concurrency: 'forbid',
      target: lambda('recount'),
    });
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    const h = life.dispatch;
    await h.ledger.createJobState(job.id, at(-5));
    const tick = async (m: number) => {
      clock.set(new Date(at(m).getTime() + LAG_MS).toISOString());
      return h.dispatcher.handle(tickEvent(job.id, at(m)));
    };
    await tick(0);
    await tick(5);
    // 10:10, the second skip: counted, then its dispatcher dies before it records the skip.
    const recordsOverlapSkip = (r: DynamoRequest) =>
      r.command === 'UpdateItemCommand' &&
      JSON.stringify(r.input.ExpressionAttributeValues).includes('{"S":"overlap"}');
    faults.fail(recordsOverlapSkip, { error: () => new Error('OOM') });
    await expect(tick(10)).rejects.toThrow('OOM');
    for (let m = 11; m <= 17; m++) {
      if (m === 15) await tick(15);
      clock.set(new Date(at(m).getTime() + 20_000).toISOString());
      await h.dispatcher.handle(sweepEvent(at(m)));
    }
    // The sweep took the 10:10 run over at its lease end and skipped it again.
    expect((await h.ledger.getRun(periodBucket(job.id, at(10))))?.status).toBe('skipped');
    expect(overlapNotices(life).map((n) => n.at)).toEqual([iso(10)]);
  });
});
