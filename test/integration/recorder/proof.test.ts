import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildEnvelope, type RunEnvelope } from '#jobs/envelope.ts';
import { createLedgerStore, createRecorderLedger, RecordingNotifier } from '#ledger/index.ts';
import { RecordingLogger } from '#shared/logger.ts';
import { RecordingMetrics } from '#shared/metrics.ts';
import { createRecorder } from '../../../functions/recorder/record.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { updating } from '../../support/ddb-faults.ts';
import { RecordingDeadLetters, TestClock } from '../../support/doubles.ts';
import {
  type Lifecycle,
  lambdaResult,
  lifecycle,
  sweepMinutes,
  TEST_STACK,
  tickEvent,
} from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// A completion is recorded only with the proof of its delivery: the secret the run's claim
// put into the envelope, coming back from the target stored on the run. Each scenario runs
// the real dispatcher and recorder on DynamoDB Local.

const functionArn = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:${name}`;
const AT = '2023-06-01T10:00:00Z';
const billing = makeJob({
  id: 'billing',
  schedule: '0 * * * *',
  timezone: 'UTC',
  target: { type: 'lambda', arn: functionArn('billing') },
});
const reports = makeJob({
  id: 'reports',
  schedule: '0 * * * *',
  timezone: 'UTC',
  target: { type: 'lambda', arn: functionArn('reports') },
});

/** Dispatcher and recorder on a fresh table, both jobs deployed, the clock just after AT. */
async function stack(prefix: string, clockIso = '2023-06-01T10:00:05Z') {
  const { client, faults, tableName } = await faultableLedgerTable(prefix);
  const clock = new TestClock(clockIso);
  const life = lifecycle({ client, tableName, clock, jobs: [billing, reports] });
  return { client, faults, tableName, clock, life };
}

/** The run of `job` at AT, ticked and delivered: its envelope (secret included) and delivery id. */
async function delivered(life: Lifecycle, job: typeof billing) {
  await life.dispatch.dispatcher.handle(tickEvent(job.id, AT));
  const delivery = life.targets.deliveryOf(periodBucket(job.id, new Date(AT)));
  if (!delivery) throw new Error(`${job.id} was not delivered`);
  return delivery;
}

/** Everything a forger can know of a run: job, instant, key, attempt 1, the stack. */
function publicEnvelope(job: typeof billing): RunEnvelope {
  const at = new Date(AT);
  return buildEnvelope(
    job,
    { key: periodBucket(job.id, at), at, nominal: '2023-06-01T10:00', dst: 'none' },
    1,
    TEST_STACK,
  );
}

const finished = new Date('2023-06-01T10:00:30Z');

describe('delivery secrets', () => {
  it('gives each claim a fresh 128-bit secret, stores only its SHA-256, and logs or dead-letters none', async () => {
    const job = { ...billing, retry: { maxAttempts: 2 } };
    const { client, tableName } = await faultableLedgerTable('secrets');
    const clock = new TestClock('2023-06-01T10:00:05Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    const seen: RunEnvelope[] = [];
    life.targets.beforeDeliver = (envelope) => {
      seen.push(envelope);
    };
    // Both attempts reach the target and fail there; the second goes to the dead-letter queue.
    life.targets.failWith = new Error('throttled');
    await life.dispatch.dispatcher.handle(tickEvent(job.id, AT));
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:03:00Z');
    const secrets = seen.map((envelope) => String(envelope.deliverySecret));
    expect(seen.map((envelope) => envelope.attempt)).toEqual([1, 2]);
    expect(new Set(secrets).size).toBe(2);
    for (const secret of secrets) expect(secret).toMatch(/^[0-9a-f]{32}$/);
    const item = await life.dispatch.ledger.getRun(periodBucket(job.id, new Date(AT)));
    expect(item).toMatchObject({ status: 'failed', failure: 'delivery', attempts: 2 });
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(item?.secretHashes).toEqual(secrets.map(sha256).sort());
    expect(life.deadLetters.messages).toHaveLength(1);
    const kept = JSON.stringify([item, life.dispatch.logger.entries, life.deadLetters.messages]);
    for (const secret of secrets) expect(kept).not.toContain(secret);
  });
});

describe('forged completions', () => {
  it.each(['Success', 'RetriesExhausted'] as const)(
    'ignores and counts a %s report built from public facts for a run claimed but never delivered',
    async (outcome) => {
      const { life } = await stack(`forge-claimed-${outcome}`);
      const at = new Date(AT);
      const key = periodBucket(billing.id, at);
      // A dispatcher claimed the run and died before the delivery: nobody ever saw its secret,
      // whose hash the claim stored.
      await life.dispatch.ledger.claim({
        key,
        jobId: billing.id,
        at,
        nominal: '2023-06-01T10:00',
        dst: 'none',
        manual: false,
        origin: 'tick',
        target: billing.target.arn,
        secretHash: 'f'.repeat(64),
        mode: 'any',
        maxAttempts: 3,
        nowEpochMs: at.getTime(),
        leaseUntilEpochMs: at.getTime() + 90_000,
        ttlEpochSec: 2_000_000_000,
        missed: false,
      });
      const event = lambdaResult(
        billing.target.arn,
        'req-guessed',
        publicEnvelope(billing),
        finished,
        outcome,
      );
      expect(await life.recorder.handle(event)).toEqual({
        outcome: 'ignored',
        key,
        reason: 'forged:no-secret',
      });
      expect(await life.dispatch.ledger.getRun(key)).toMatchObject({ status: 'claimed' });
      expect(life.recorderMetrics.count('ForgedCompletions')).toBe(1);
      expect(life.recorderMetrics.count('MalformedEvents')).toBe(0);
      expect(life.deadLetters.messages).toEqual([]);
      expect(life.notifier.sent).toEqual([]);
      expect(life.recorderLogger.entries.map((e) => e.fields.decision)).toEqual([
        'completion-forged',
      ]);
    },
  );

  it('ignores a failure report of a dispatched run that has its delivery id but a wrong secret: no dead letter, no page', async () => {
    const { life } = await stack('forge-wrong-secret');
    const { envelope } = await delivered(life, billing);
    // The delivery id is in the dispatcher's `dispatched` line, for anyone who reads the logs.
    const line = life.dispatch.logger.entries.find((e) => e.fields.decision === 'dispatched');
    const deliveryId = String(line?.fields.deliveryId);
    const forged = { ...envelope, deliverySecret: '0'.repeat(32) };
    const event = lambdaResult(
      billing.target.arn,
      deliveryId,
      forged,
      finished,
      'RetriesExhausted',
    );
    expect(await life.recorder.handle(event)).toMatchObject({
      outcome: 'ignored',
      reason: 'forged:wrong-secret',
    });
    expect(await life.dispatch.ledger.getRun(envelope.key)).toMatchObject({
      status: 'dispatched',
    });
    expect(life.recorderMetrics.count('ForgedCompletions')).toBe(1);
    expect(life.deadLetters.messages).toEqual([]);
    expect(life.notifier.sent).toEqual([]);
  });

  it("ignores another job's function reporting the run, with its own run's secret or with the run's real one", async () => {
    const { life } = await stack('forge-other-target');
    const victim = await delivered(life, billing);
    const own = await delivered(life, reports);
    const withOwnSecret = {
      ...victim.envelope,
      deliverySecret: String(own.envelope.deliverySecret),
    };
    for (const envelope of [withOwnSecret, victim.envelope]) {
      const event = lambdaResult(reports.target.arn, victim.deliveryId, envelope, finished);
      expect(await life.recorder.handle(event)).toMatchObject({
        outcome: 'ignored',
        reason: 'forged:wrong-target',
      });
    }
    expect(await life.dispatch.ledger.getRun(victim.envelope.key)).toMatchObject({
      status: 'dispatched',
    });
    expect(life.recorderMetrics.count('ForgedCompletions')).toBe(2);
  });

  it('logs a forged report without the secret it carried, and records the real one after it', async () => {
    const { life } = await stack('forge-log');
    const { envelope, deliveryId } = await delivered(life, billing);
    const secret = String(envelope.deliverySecret);
    // The right secret from the wrong qualifier of the right function: not the stored target.
    const event = lambdaResult(`${billing.target.arn}:canary`, deliveryId, envelope, finished);
    expect(await life.recorder.handle(event)).toMatchObject({ reason: 'forged:wrong-target' });
    expect(await life.complete(envelope, finished)).toMatchObject({ outcome: 'recorded' });
    const logged = JSON.stringify([
      ...life.recorderLogger.entries,
      ...life.dispatch.logger.entries,
    ]);
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    expect(logged).not.toContain(secret);
    expect(await life.dispatch.ledger.getRun(envelope.key)).toMatchObject({
      status: 'succeeded',
      completionId: deliveryId,
    });
  });
});

describe('the target stored on the run', () => {
  it("records the real completion of a lambda run whose job's target changed while it was dispatched", async () => {
    const { client, tableName, life } = await stack('target-changed');
    const { envelope, deliveryId } = await delivered(life, billing);
    // The next deploy points the job at another function; the run still ran on the old one.
    const moved = {
      ...billing,
      target: { type: 'lambda' as const, arn: functionArn('billing-v2') },
    };
    const metrics = new RecordingMetrics();
    const recorder = createRecorder({
      clock: () => finished,
      jobs: [moved],
      ledger: createRecorderLedger(createLedgerStore({ client, tableName })),
      deadLetters: new RecordingDeadLetters(),
      notifier: new RecordingNotifier(),
      logger: new RecordingLogger(),
      metrics,
      stackName: TEST_STACK,
    });
    expect(
      await recorder.handle(lambdaResult(billing.target.arn, deliveryId, envelope, finished)),
    ).toMatchObject({ outcome: 'recorded', status: 'succeeded' });
    expect(await life.dispatch.ledger.getRun(envelope.key)).toMatchObject({
      status: 'succeeded',
      target: billing.target.arn,
    });
    expect(metrics.count(billing.id, 'RunSucceeded')).toBe(1);
  });
});

describe('a completion recorded before markDispatched', () => {
  /**
   * markDispatched is throttled twice; during the first backoff the target's report arrives
   * and the recorder ends the run, so the dispatcher's write finds it ended.
   */
  async function completedFirst(prefix: string, clockIso: string) {
    const { client, faults, tableName } = await faultableLedgerTable(prefix);
    const clock = new TestClock(clockIso);
    let early: unknown;
    const life: Lifecycle = lifecycle({
      client,
      tableName,
      clock,
      jobs: [billing],
      options: {
        sleep: async () => {
          const delivery = life.targets.received[0];
          if (early || !delivery) return;
          early = await life.complete(delivery.envelope, clock.now());
        },
      },
    });
    faults.fail(updating('dispatchedAt'), { times: 2 });
    const result = await life.dispatch.dispatcher.handle(tickEvent(billing.id, AT));
    expect(early).toMatchObject({ outcome: 'recorded', status: 'succeeded' });
    return { life, result, key: periodBucket(billing.id, new Date(AT)) };
  }

  it('raises late once, counts LateRuns and warns of no lost lease', async () => {
    // The tick comes 6 minutes late: past the job's 300 s grace.
    const { life, result, key } = await completedFirst('early-late', '2023-06-01T10:06:00Z');
    expect(result).toMatchObject({ outcomes: [{ outcome: 'dispatched', late: true }] });
    expect(await life.dispatch.ledger.getRun(key)).toMatchObject({
      status: 'succeeded',
      signals: ['late'],
      outbox: [],
    });
    expect(life.dispatch.metrics.count(billing.id, 'LateRuns')).toBe(1);
    expect(life.notifier.sent.map((n) => [n.key, n.signal])).toEqual([[key, 'late']]);
    expect(life.dispatch.logger.withMessage('lease-lost')).toEqual([]);
  });

  it('warns of no lost lease for an on-time run, and raises nothing', async () => {
    const { life, key } = await completedFirst('early-on-time', '2023-06-01T10:00:05Z');
    expect(await life.dispatch.ledger.getRun(key)).toMatchObject({
      status: 'succeeded',
      signals: [],
    });
    expect(life.dispatch.metrics.count(billing.id, 'LateRuns')).toBe(0);
    expect(life.notifier.sent).toEqual([]);
    expect(life.dispatch.logger.withMessage('lease-lost')).toEqual([]);
  });
});
