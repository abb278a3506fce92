import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createSqsDeadLetters, type DeadLetters } from '#jobs/dead-letters.ts';
import { deliverySecretHash, newDeliverySecret } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import {
  createDynamoLedger,
  createLedgerStore,
  createRecorderLedger,
  type Ledger,
  openShardOf,
  RECORDER_RUN_ATTRIBUTES,
  RecordingNotifier,
  SLOT_ATTRIBUTES,
} from '#ledger/index.ts';
import { RecordingLogger } from '#shared/logger.ts';
import { RecordingMetrics } from '#shared/metrics.ts';
import { createRecorder } from '../../../functions/recorder/record.ts';
import { type DynamoRequest, instrument, updating } from '../../support/ddb-faults.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';
import { lambdaResult } from '../../support/harness.ts';
import { HOSTILE_EVENTS, MAX_HOSTILE_LOG_CHARS, settled } from '../../support/hostile-events.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

const ddb = localDynamoClient(inject('dynamoEndpoint'));
let tableName: string;
let dispatcherLedger: Ledger;
let localSqs: LocalSqs;
let dlqUrl: string;

const FUNCTION = 'arn:aws:lambda:eu-central-1:123456789012:function:target';
const MACHINE = 'arn:aws:states:eu-central-1:123456789012:stateMachine:etl';
const lambdaJob = makeJob({ id: 'nightly', target: { type: 'lambda', arn: FUNCTION } });
const sfnJob = makeJob({ id: 'etl', target: { type: 'stepfunctions', arn: MACHINE } });
const lambdaForbidJob = makeJob({
  id: 'report',
  target: { type: 'lambda', arn: FUNCTION },
  concurrency: 'forbid',
});
const forbidJob = makeJob({
  id: 'backup',
  target: { type: 'stepfunctions', arn: MACHINE },
  concurrency: 'forbid',
});

beforeAll(async () => {
  tableName = await createLedgerTable(ddb, 'recorder');
  dispatcherLedger = createDynamoLedger(createLedgerStore({ client: ddb, tableName }));
  localSqs = await startLocalSqs();
  dlqUrl = localSqs.createQueue('zonecron-dlq').queueUrl;
});
afterAll(async () => {
  await localSqs.stop();
});

beforeEach(() => {
  localSqs.server.reset();
});

interface Harness {
  readonly metrics: RecordingMetrics;
  readonly logs: RecordingLogger;
  readonly notifier: RecordingNotifier;
  readonly recorder: ReturnType<typeof createRecorder>;
}

function harness(deadLetters?: DeadLetters, client = ddb): Harness {
  const metrics = new RecordingMetrics();
  const logs = new RecordingLogger();
  const notifier = new RecordingNotifier();
  const recorder = createRecorder({
    clock: () => new Date('2026-03-29T01:10:00.000Z'),
    jobs: [lambdaJob, sfnJob, forbidJob, lambdaForbidJob],
    ledger: createRecorderLedger(createLedgerStore({ client, tableName })),
    deadLetters: deadLetters ?? createSqsDeadLetters(localSqs.sqs, dlqUrl),
    notifier,
    logger: logs,
    metrics,
    stackName: 'Test',
    sleep: async () => {},
  });
  return { metrics, logs, notifier, recorder };
}

let runCounter = 0;

/** A run the dispatcher really claimed and (unless `claimedOnly`) recorded as delivered. */
async function deliveredRun(
  job: JobDefinition,
  deliveryId: string,
  options: { claimedOnly?: boolean; late?: boolean } = {},
) {
  runCounter += 1;
  const at = new Date(Date.parse('2026-03-29T01:00:00.000Z') + runCounter * 60_000);
  const key = createHash('sha256')
    .update(`${job.id}:${at.toISOString().slice(0, 16).replace('T', '-')}-UTC`)
    .digest('hex');
  const secret = newDeliverySecret();
  const claim = await dispatcherLedger.claim({
    key,
    jobId: job.id,
    at,
    nominal: '2026-03-29T03:00',
    dst: 'none',
    manual: false,
    origin: 'tick',
    target: job.target.arn,
    secretHash: deliverySecretHash(secret),
    mode: 'any',
    maxAttempts: 3,
    nowEpochMs: at.getTime(),
    leaseUntilEpochMs: at.getTime() + 300_000,
    ttlEpochSec: Math.floor(at.getTime() / 1000) + 35 * 86_400,
    missed: false,
  });
  if (!claim.claimed) throw new Error('seed claim refused');
  if (!options.claimedOnly) {
    await dispatcherLedger.markDispatched(key, 1, {
      dispatchedAt: new Date(at.getTime() + 2_000),
      deliveryId,
      stuckCheckAtEpochMs: at.getTime() + 3_600_000,
      late: options.late ?? false,
      outboxLeaseUntilEpochMs: at.getTime() + 120_000,
    });
  }
  const envelope = {
    version: 1 as const,
    jobId: job.id,
    key,
    scheduledAt: at.toISOString(),
    nominal: '2026-03-29T03:00',
    timezone: 'Europe/Berlin',
    dst: 'none',
    attempt: 1,
    logicalDate: '2026-03-29',
    payload: { n: runCounter },
    stack: 'Test',
    deliverySecret: secret,
  };
  return { key, at, envelope };
}

function sfnEvent(
  envelope: object,
  executionArn: string,
  status: string,
  start: string,
  stop: string,
) {
  return {
    version: '0',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    time: stop,
    detail: {
      executionArn,
      stateMachineArn: MACHINE,
      name: executionArn.split(':').at(-1),
      status,
      startDate: Date.parse(start),
      stopDate: Date.parse(stop),
      input: JSON.stringify(envelope),
      error: status === 'FAILED' ? 'States.TaskFailed' : null,
      cause: status === 'FAILED' ? 'upstream 503' : null,
    },
  };
}

describe('results of lambda targets', () => {
  it('marks a dispatched run succeeded, measures it from dispatch and takes it out of the open index', async () => {
    const h = harness();
    const { key, at, envelope } = await deliveredRun(lambdaJob, 'req-ok');
    const finished = new Date(at.getTime() + 9_250);
    expect(await h.recorder.handle(lambdaResult(FUNCTION, 'req-ok', envelope, finished))).toEqual({
      outcome: 'recorded',
      key,
      status: 'succeeded',
      durationMs: 7_250,
      effects: [],
    });
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'succeeded',
      completionId: 'req-ok',
      completedAt: finished.toISOString(),
    });
    expect((await dispatcherLedger.getRun(key))?.openShard).toBeUndefined();
    expect(h.metrics.count('nightly', 'RunSucceeded')).toBe(1);
    expect(h.metrics.count('nightly', 'RunDurationSeconds')).toBe(7.25);
  });

  it('keeps a succeeded run in the open index while the late notification its delivery owes is unsent', async () => {
    const h = harness();
    const { key, envelope, at } = await deliveredRun(lambdaJob, 'req-late', { late: true });
    const finished = new Date(at.getTime() + 9_000);
    await h.recorder.handle(lambdaResult(FUNCTION, 'req-late', envelope, finished));
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'succeeded',
      outbox: ['notify:late'],
      openShard: openShardOf(key),
      checkAtEpochMs: at.getTime() + 120_000,
    });
  });

  it('marks a failed invocation failed (execution), sends one dead letter and one run-failed notification', async () => {
    const h = harness();
    const { key, at, envelope } = await deliveredRun(lambdaJob, 'req-fail');
    const event = lambdaResult(
      FUNCTION,
      'req-fail',
      envelope,
      new Date(at.getTime() + 60_000),
      'RetriesExhausted',
    );
    expect(await h.recorder.handle(event)).toMatchObject({
      outcome: 'recorded',
      status: 'failed',
      effects: ['dead-letter', 'notify:run-failed'],
    });
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'failed',
      failure: 'execution',
      lastError: 'lambda RetriesExhausted after 3 attempt(s) (Unhandled error): Error: boom',
      signals: ['run-failed'],
      outbox: [],
    });
    const dlq = localSqs.messages<Record<string, unknown>>('zonecron-dlq');
    expect(dlq).toEqual([
      expect.objectContaining({ reason: 'execution-failed', key, jobId: 'nightly', attempts: 1 }),
    ]);
    expect(h.notifier.sent.map((n) => [n.key, n.signal])).toEqual([[key, 'run-failed']]);
  });

  it('records a completion that arrives before the dispatcher recorded its delivery', async () => {
    const h = harness();
    const { key, at, envelope } = await deliveredRun(lambdaJob, 'unused', { claimedOnly: true });
    const outcome = await h.recorder.handle(
      lambdaResult(FUNCTION, 'req-early', envelope, new Date(at.getTime() + 5_000)),
    );
    expect(outcome).toMatchObject({ outcome: 'recorded', status: 'succeeded' });
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'succeeded',
      completionId: 'req-early',
    });
    // The dispatcher's own write comes after: it finds the run ended and changes nothing.
    expect(
      await dispatcherLedger.markDispatched(key, 1, {
        dispatchedAt: at,
        deliveryId: 'req-early',
        stuckCheckAtEpochMs: undefined,
        late: false,
        outboxLeaseUntilEpochMs: 0,
      }),
    ).toBe(false);
  });

  it('sends the dead letter later, once, when its first send failed', async () => {
    const failing: DeadLetters = {
      async send() {
        throw new Error('sqs down');
      },
    };
    const h = harness(failing);
    const { key, at, envelope } = await deliveredRun(lambdaJob, 'req-retry');
    const event = lambdaResult(
      FUNCTION,
      'req-retry',
      envelope,
      new Date(at.getTime() + 1_000),
      'RetriesExhausted',
    );
    await h.recorder.handle(event);
    // The notification went out; the dead letter waits in the run's outbox for the sweep.
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'failed',
      outbox: ['dead-letter'],
    });
    expect(h.notifier.sent.map((n) => n.signal)).toEqual(['run-failed']);
    expect(h.logs.withMessage('dead-letter-failed')).toHaveLength(1);
    // Lambda delivers the same record again: a duplicate, the outbox stays for the sweep.
    expect(await harness().recorder.handle(event)).toMatchObject({
      outcome: 'ignored',
      reason: 'already-failed',
    });
    expect(localSqs.messages('zonecron-dlq')).toHaveLength(0);
  });

  it.each([
    ['no-ledger-item', (e: Record<string, unknown>) => ({ ...e, key: 'f'.repeat(64) })],
    ['unknown-job', (e: Record<string, unknown>) => ({ ...e, jobId: 'nobody' })],
  ])('ignores a completion with %s, and writes nothing', async (reason, mangle) => {
    const h = harness();
    const { key, at, envelope } = await deliveredRun(lambdaJob, 'req-x');
    const outcome = await h.recorder.handle(
      lambdaResult(
        FUNCTION,
        'req-x',
        mangle(envelope) as typeof envelope,
        new Date(at.getTime() + 1_000),
      ),
    );
    expect(outcome).toMatchObject({ outcome: 'ignored', reason });
    expect((await dispatcherLedger.getRun(key))?.status).toBe('dispatched');
  });
});

describe('step functions status changes', () => {
  it('marks SUCCEEDED with the execution’s own duration', async () => {
    const h = harness();
    const arn = `${MACHINE.replace(':stateMachine:', ':execution:')}:zc-ok`;
    const { key, envelope } = await deliveredRun(sfnJob, arn);
    const outcome = await h.recorder.handle(
      sfnEvent(envelope, arn, 'SUCCEEDED', '2026-03-29T01:00:05.000Z', '2026-03-29T01:04:05.000Z'),
    );
    expect(outcome).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
      durationMs: 240_000,
    });
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'succeeded',
      startedAt: '2026-03-29T01:00:05.000Z',
    });
  });

  it('marks FAILED failed (execution), notifies once, and sends no dead letter', async () => {
    const h = harness();
    const arn = `${MACHINE.replace(':stateMachine:', ':execution:')}:zc-fail`;
    const { key, envelope } = await deliveredRun(sfnJob, arn);
    await h.recorder.handle(
      sfnEvent(envelope, arn, 'FAILED', '2026-03-29T01:00:05.000Z', '2026-03-29T01:01:00.000Z'),
    );
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'failed',
      failure: 'execution',
      lastError: 'execution FAILED: States.TaskFailed: upstream 503',
    });
    expect(localSqs.messages('zonecron-dlq')).toHaveLength(0);
    expect(h.notifier.sent.map((n) => n.signal)).toEqual(['run-failed']);
  });

  it('ignores an execution of another state machine for the same run', async () => {
    const h = harness();
    const arn = `${MACHINE.replace(':stateMachine:', ':execution:')}:zc-own`;
    const { key, envelope } = await deliveredRun(sfnJob, arn);
    const foreign = sfnEvent(
      envelope,
      arn,
      'SUCCEEDED',
      '2026-03-29T01:00:05.000Z',
      '2026-03-29T01:01:00.000Z',
    );
    foreign.detail.stateMachineArn = MACHINE.replace(':etl', ':other');
    expect(await h.recorder.handle(foreign)).toMatchObject({ outcome: 'ignored' });
    expect((await dispatcherLedger.getRun(key))?.status).toBe('dispatched');
  });
});

describe('events that are not completions', () => {
  it('logs and counts an unrecognised event without throwing or writing', async () => {
    const h = harness();
    expect(await h.recorder.handle({ hello: 'world' })).toMatchObject({ outcome: 'unrecognised' });
    expect(h.metrics.count('MalformedEvents')).toBe(1);
    expect(h.logs.withMessage('unrecognised event')).toHaveLength(1);
  });

  it('ignores and counts each event nobody legitimate sends, in one short log line, writing nothing', async () => {
    const client = localDynamoClient(inject('dynamoEndpoint'), 1);
    const faults = instrument(client);
    const h = harness(undefined, client);
    const { at, envelope } = await deliveredRun(sfnJob, 'unused');
    // Fields longer than any real one, though the event stays within its 256 KiB.
    const long = 'x'.repeat(100_000);
    const finished = new Date(at.getTime() + 3_000);
    const events = [
      ...HOSTILE_EVENTS.map(([, event]) => event),
      lambdaResult(FUNCTION, 'req-long', { ...envelope, jobId: long }, finished),
      lambdaResult(
        FUNCTION,
        'req-long',
        { ...envelope, jobId: 'nightly', nominal: long },
        finished,
      ),
      sfnEvent(envelope, `${MACHINE}:run`, long, at.toISOString(), finished.toISOString()),
    ];
    faults.resetCounts();
    for (const event of events) {
      expect(await settled(h.recorder.handle(event))).toMatchObject({ outcome: 'unrecognised' });
    }
    expect(faults.total()).toBe(0);
    expect(h.metrics.count('MalformedEvents')).toBe(events.length);
    expect(h.logs.entries).toHaveLength(events.length);
    for (const entry of h.logs.entries) {
      expect(entry.fields).toMatchObject({ decision: 'unrecognised', type: expect.any(String) });
      expect(JSON.stringify(entry).length).toBeLessThan(MAX_HOSTILE_LOG_CHARS);
    }
    client.destroy();
  });
});

describe('found by the chaos simulation', () => {
  const executionArn = (name: string) =>
    `${MACHINE.replace(':stateMachine:', ':execution:')}:${name}`;

  /** A later attempt of the same round takes the run over and finds the execution started. */
  async function takenOverBy(job: JobDefinition, key: string, at: Date, deliveryId: string) {
    const again = await dispatcherLedger.claim({
      key,
      jobId: job.id,
      at,
      nominal: '2026-03-29T03:00',
      dst: 'none',
      manual: false,
      origin: 'retry',
      target: job.target.arn,
      secretHash: deliverySecretHash(newDeliverySecret()),
      mode: 'reclaim',
      maxAttempts: 3,
      nowEpochMs: at.getTime() + 301_000,
      leaseUntilEpochMs: at.getTime() + 391_000,
      ttlEpochSec: Math.floor(at.getTime() / 1000) + 35 * 86_400,
      missed: false,
    });
    expect(again).toMatchObject({ claimed: true, item: { attempts: 2 } });
    await dispatcherLedger.markDispatched(key, 2, {
      dispatchedAt: new Date(at.getTime() + 301_000),
      deliveryId,
      stuckCheckAtEpochMs: at.getTime() + 3_600_000,
      late: false,
      outboxLeaseUntilEpochMs: at.getTime(),
    });
  }

  it('records the end of an execution that an earlier attempt of the same round started', async () => {
    const h = harness();
    const arn = executionArn('zc-round-0');
    // Attempt 1 started the execution and died; attempt 2 found it running (same name).
    const { key, at, envelope } = await deliveredRun(sfnJob, arn, { claimedOnly: true });
    await takenOverBy(sfnJob, key, at, arn);
    const outcome = await h.recorder.handle(
      sfnEvent(envelope, arn, 'SUCCEEDED', at.toISOString(), '2026-03-29T01:30:00.000Z'),
    );
    expect(outcome).toMatchObject({ outcome: 'recorded', status: 'succeeded' });
    expect(await dispatcherLedger.getRun(key)).toMatchObject({
      status: 'succeeded',
      completionId: arn,
      attempts: 2,
    });
  });

  it("gives the forbid slot back when a run's end is reported after a dispatcher dead-lettered it", async () => {
    const h = harness();
    const arn = executionArn('zc-dead-lettered');
    const { key, at, envelope } = await deliveredRun(forbidJob, arn, { claimedOnly: true });
    await dispatcherLedger.createJobState(forbidJob.id, at);
    await dispatcherLedger.acquireSlot(forbidJob.id, key, at.getTime(), at.getTime() + 3_600_000);
    // The dispatcher died after starting the execution; the sweep gave up on the run.
    await dispatcherLedger.failDelivery(key, 1, {
      lastError: 'dispatcher stopped during delivery attempt 1',
      failedAt: new Date(at.getTime() + 400_000),
      outboxLeaseUntilEpochMs: at.getTime() + 520_000,
    });
    const outcome = await h.recorder.handle(
      sfnEvent(envelope, arn, 'SUCCEEDED', at.toISOString(), '2026-03-29T01:30:00.000Z'),
    );
    expect(outcome).toMatchObject({ outcome: 'ignored', reason: 'status-failed' });
    expect((await dispatcherLedger.getJobState(forbidJob.id))?.runningKey).toBeUndefined();
  });

  it('keeps the forbid slot of a dead-lettered run while a later attempt of it may still run', async () => {
    const h = harness();
    const { key, at, envelope } = await deliveredRun(lambdaForbidJob, 'unused', {
      claimedOnly: true,
    });
    await dispatcherLedger.createJobState(lambdaForbidJob.id, at);
    await dispatcherLedger.acquireSlot(
      lambdaForbidJob.id,
      key,
      at.getTime(),
      at.getTime() + 3_600_000,
    );
    // Attempts 1 and 2 each invoked the function, and each dispatcher died before recording it.
    const secondSecret = newDeliverySecret();
    const second = await dispatcherLedger.claim({
      key,
      jobId: lambdaForbidJob.id,
      at,
      nominal: '2026-03-29T03:00',
      dst: 'none',
      manual: false,
      origin: 'retry',
      target: FUNCTION,
      secretHash: deliverySecretHash(secondSecret),
      mode: 'reclaim',
      maxAttempts: 2,
      nowEpochMs: at.getTime() + 301_000,
      leaseUntilEpochMs: at.getTime() + 391_000,
      ttlEpochSec: Math.floor(at.getTime() / 1000) + 35 * 86_400,
      missed: false,
    });
    expect(second).toMatchObject({ claimed: true, item: { attempts: 2 } });
    await dispatcherLedger.failDelivery(key, 2, {
      lastError: 'dispatcher stopped during delivery attempt 2',
      failedAt: new Date(at.getTime() + 400_000),
      outboxLeaseUntilEpochMs: at.getTime() + 520_000,
    });
    await h.recorder.handle(
      lambdaResult(FUNCTION, 'req-a1', envelope, new Date(at.getTime() + 600_000)),
    );
    expect((await dispatcherLedger.getJobState(lambdaForbidJob.id))?.runningKey).toBe(key);
    await h.recorder.handle(
      lambdaResult(
        FUNCTION,
        'req-a2',
        { ...envelope, attempt: 2, deliverySecret: secondSecret },
        new Date(at.getTime() + 900_000),
      ),
    );
    expect((await dispatcherLedger.getJobState(lambdaForbidJob.id))?.runningKey).toBeUndefined();
  });

  it('records a completion whose ledger write is throttled, retrying within the invocation', async () => {
    const client = localDynamoClient(inject('dynamoEndpoint'), 1);
    const faults = instrument(client);
    const h = harness(undefined, client);
    const { key, at, envelope } = await deliveredRun(lambdaJob, 'req-throttled');
    faults.fail(updating('completedAt'), { times: 2 });
    const outcome = await h.recorder.handle(
      lambdaResult(FUNCTION, 'req-throttled', envelope, new Date(at.getTime() + 3_000)),
    );
    expect(outcome).toMatchObject({ outcome: 'recorded', status: 'succeeded' });
    expect((await dispatcherLedger.getRun(key))?.status).toBe('succeeded');
    client.destroy();
  });
});

describe('the calls the recorder makes', () => {
  /** Every attribute name a request touches: its placeholders' names and its key. */
  function attributesOf(request: DynamoRequest): string[] {
    const names = Object.values((request.input.ExpressionAttributeNames ?? {}) as object);
    return [...new Set(['pk', ...names.map(String)])].sort();
  }

  it('stay within its IAM grant: run items and job slots only, their own attributes, nothing returned whole', async () => {
    const client = localDynamoClient(inject('dynamoEndpoint'), 1);
    const faults = instrument(client);
    const h = harness(undefined, client);
    const late = await deliveredRun(lambdaForbidJob, 'req-late', { late: true });
    await dispatcherLedger.createJobState(lambdaForbidJob.id, late.at);
    await dispatcherLedger.acquireSlot(lambdaForbidJob.id, late.key, 0, late.at.getTime() + 1e9);
    const failed = await deliveredRun(lambdaJob, 'req-failed');
    const finished = new Date(late.at.getTime() + 5_000);
    const events = [
      lambdaResult(FUNCTION, 'req-late', late.envelope, finished),
      lambdaResult(FUNCTION, 'req-late', late.envelope, finished),
      lambdaResult(FUNCTION, 'req-failed', failed.envelope, finished, 'RetriesExhausted'),
      lambdaResult(
        FUNCTION,
        'req-x',
        { ...failed.envelope, deliverySecret: '0'.repeat(32) },
        finished,
      ),
      lambdaResult(FUNCTION, 'req-x', { ...failed.envelope, attempt: 2 }, finished),
    ];
    const outcomes = [];
    for (const event of events) outcomes.push(await h.recorder.handle(event));
    expect(outcomes.map((o) => ('reason' in o ? o.reason : o.outcome))).toEqual([
      'recorded',
      'already-succeeded',
      'recorded',
      'forged:wrong-secret',
      'stale-attempt:2-of-1',
    ]);
    const runAttributes = [...RECORDER_RUN_ATTRIBUTES].sort();
    for (const request of faults.requests) {
      const key = String((request.input.Key as { pk: { S: string } }).pk.S);
      const allowed = key.startsWith('job#') ? [...SLOT_ATTRIBUTES] : runAttributes;
      if (!key.startsWith('job#')) expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(['GetItemCommand', 'UpdateItemCommand']).toContain(request.command);
      expect(allowed).toEqual(expect.arrayContaining(attributesOf(request)));
      expect(request.input.ReturnValues ?? 'NONE').toBe('NONE');
      expect(request.input.ReturnValuesOnConditionCheckFailure).toBeUndefined();
      if (request.command === 'GetItemCommand')
        expect(request.input.ProjectionExpression).toBeTruthy();
    }
    expect(
      faults.requests.some((r) => String(r.input.UpdateExpression).includes('runningKey')),
    ).toBe(true);
    client.destroy();
  });
});
