import { createHash } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createDynamoLedger, type Ledger } from '../../../functions/dispatcher/ledger.ts';
import { createDynamoCompletionLedger } from '../../../functions/recorder/ledger.ts';
import {
  CompletionBeforeDispatchError,
  createRecorder,
  DeadLetterPendingError,
} from '../../../functions/recorder/record.ts';
import { createSqsDeadLetters, type DeadLetters } from '../../../functions/shared/dead-letters.ts';
import { RecordingLogger } from '../../../functions/shared/logger.ts';
import { RecordingMetrics } from '../../../functions/shared/metrics.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

const ddb = localDynamoClient(inject('dynamoEndpoint'));
let tableName: string;
let dispatcherLedger: Ledger;
let localSqs: LocalSqs;
let dlqUrl: string;

beforeAll(async () => {
  tableName = await createLedgerTable(ddb, 'recorder');
  dispatcherLedger = createDynamoLedger({ client: ddb, tableName });
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
  now: Date;
  metrics: RecordingMetrics;
  logs: RecordingLogger;
  recorder: ReturnType<typeof createRecorder>;
}

/** Every metric value emitted, in order, as `jobId/name=value` (or `name=value`). */
function emitted(metrics: RecordingMetrics): string[] {
  return [...metrics.values].flatMap(([name, values]) => values.map((v) => `${name}=${v}`));
}

function harness(deadLetters?: DeadLetters): Harness {
  const h: Partial<Harness> & Pick<Harness, 'metrics' | 'logs'> = {
    now: new Date('2026-03-29T01:10:00.000Z'),
    metrics: new RecordingMetrics(),
    logs: new RecordingLogger(),
  };
  h.recorder = createRecorder({
    clock: () => h.now as Date,
    ledger: createDynamoCompletionLedger({
      client: DynamoDBDocumentClient.from(ddb),
      tableName,
    }),
    deadLetters: deadLetters ?? createSqsDeadLetters(localSqs.sqs, dlqUrl),
    logger: h.logs,
    metrics: h.metrics,
    deadLetterLeaseSeconds: 120,
  });
  return h as Harness;
}

let runCounter = 0;

/** A run the dispatcher really claimed and delivered, through its own ledger. */
async function dispatchedRun(jobId: string, dispatchedAt: string) {
  runCounter += 1;
  const at = new Date(Date.parse('2026-03-29T01:00:00.000Z') + runCounter * 60_000);
  const key = createHash('sha256')
    .update(`${jobId}:${at.toISOString().slice(0, 16).replace('T', '-')}-UTC`)
    .digest('hex');
  const claim = await dispatcherLedger.claim({
    key,
    jobId,
    at,
    nominal: '2026-03-29T03:00',
    dst: 'none',
    manual: false,
    maxAttempts: 3,
    nowEpochMs: at.getTime(),
    leaseUntilEpochMs: at.getTime() + 300_000,
    ttlEpochSec: Math.floor(at.getTime() / 1000) + 35 * 86_400,
  });
  if (!claim.claimed) throw new Error('seed claim refused');
  await dispatcherLedger.markDispatched(key, 1, {
    dispatchedAt: new Date(dispatchedAt),
    deliveryId: `req-${runCounter}`,
  });
  const envelope = {
    version: 1,
    jobId,
    key,
    scheduledAt: at.toISOString(),
    nominal: '2026-03-29T03:00',
    timezone: 'Europe/Berlin',
    dst: 'none',
    attempt: 1,
    logicalDate: '2026-03-29',
    payload: { n: runCounter },
  };
  return { key, envelope };
}

function destinationRecord(
  envelope: object,
  outcome: 'success' | 'failure',
  timestamp: string,
  requestId = `req-${runCounter}`,
) {
  return {
    version: '1.0',
    timestamp,
    requestContext: {
      requestId,
      functionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:target:$LATEST',
      condition: outcome === 'success' ? 'Success' : 'RetriesExhausted',
      approximateInvokeCount: outcome === 'success' ? 1 : 3,
    },
    requestPayload: envelope,
    responseContext: {
      statusCode: 200,
      executedVersion: '$LATEST',
      ...(outcome === 'failure' ? { functionError: 'Unhandled' } : {}),
    },
    responsePayload:
      outcome === 'success'
        ? { rows: 10 }
        : { errorType: 'TypeError', errorMessage: 'x is undefined' },
  };
}

function sfnEvent(envelope: object, status: string, start: string, stop: string) {
  return {
    version: '0',
    id: 'evt',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: '123456789012',
    time: stop,
    region: 'eu-central-1',
    resources: [],
    detail: {
      executionArn: `arn:aws:states:eu-central-1:123456789012:execution:etl:${runCounter}`,
      stateMachineArn: 'arn:aws:states:eu-central-1:123456789012:stateMachine:etl',
      name: `run-${runCounter}`,
      status,
      startDate: Date.parse(start),
      stopDate: Date.parse(stop),
      input: JSON.stringify(envelope),
      error: status === 'FAILED' ? 'States.TaskFailed' : null,
      cause: status === 'FAILED' ? 'upstream 503' : null,
    },
  };
}

async function stored(key: string) {
  const out = await ddb.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: key } }, ConsistentRead: true }),
  );
  return out.Item;
}

/** The DLQ's messages, parsed; nothing is consumed. */
async function drainDlq(): Promise<Record<string, unknown>[]> {
  return localSqs.messages<Record<string, unknown>>('zonecron-dlq');
}

describe('lambda destination records', () => {
  it('marks a dispatched run succeeded with its duration since dispatch and counts it', async () => {
    const h = harness();
    const { key, envelope } = await dispatchedRun('report', '2026-03-29T01:00:01.500Z');
    const outcome = await h.recorder.handle(
      destinationRecord(envelope, 'success', '2026-03-29T01:00:13.750Z'),
    );
    expect(outcome).toEqual({
      outcome: 'recorded',
      key,
      status: 'succeeded',
      durationMs: 12_250,
      deadLettered: false,
    });
    const item = await stored(key);
    expect(item?.status?.S).toBe('succeeded');
    expect(item?.completedAt?.S).toBe('2026-03-29T01:00:13.750Z');
    expect(item?.durationMs?.N).toBe('12250');
    expect(item?.failure).toBeUndefined();
    expect(emitted(h.metrics)).toEqual([
      'report/RunSucceeded=1',
      'report/RunDurationSeconds=12.25',
    ]);
    expect(h.logs.entries).toHaveLength(1);
    expect(h.logs.entries[0]?.fields).toMatchObject({
      decision: 'succeeded',
      jobId: 'report',
      key,
      nominal: '2026-03-29T03:00',
      durationMs: 12_250,
    });
    expect(await drainDlq()).toEqual([]);
  });

  it('marks a failed invocation failed (execution) and sends exactly one dead-letter message', async () => {
    const h = harness();
    const { key, envelope } = await dispatchedRun('billing', '2026-03-29T01:00:02.000Z');
    const record = destinationRecord(envelope, 'failure', '2026-03-29T01:03:02.000Z');
    const outcome = await h.recorder.handle(record);
    expect(outcome).toMatchObject({ outcome: 'recorded', status: 'failed', deadLettered: true });

    const item = await stored(key);
    expect(item?.status?.S).toBe('failed');
    expect(item?.failure?.S).toBe('execution');
    expect(item?.durationMs?.N).toBe('180000');
    expect(item?.lastError?.S).toBe(
      'lambda RetriesExhausted after 3 attempt(s) (Unhandled error): TypeError: x is undefined',
    );
    expect(item?.deadLetteredAt?.S).toBe('2026-03-29T01:10:00.000Z');
    expect(emitted(h.metrics)).toEqual(['billing/RunFailed=1', 'billing/RunDurationSeconds=180']);

    // Lambda delivers destination records at least once: the duplicate changes nothing.
    const again = await h.recorder.handle(record);
    expect(again).toEqual({ outcome: 'ignored', key, reason: 'already-failed' });
    expect(h.metrics.count('billing', 'DuplicatesSuppressed')).toBe(1);
    expect(h.metrics.count('billing', 'RunFailed')).toBe(1);

    const messages = await drainDlq();
    expect(messages).toEqual([
      {
        version: 1,
        reason: 'execution-failed',
        key,
        jobId: 'billing',
        envelope,
        target: {
          type: 'lambda',
          arn: 'arn:aws:lambda:eu-central-1:123456789012:function:target:$LATEST',
        },
        lastError:
          'lambda RetriesExhausted after 3 attempt(s) (Unhandled error): TypeError: x is undefined',
        attempts: 3,
        failedAt: '2026-03-29T01:03:02.000Z',
      },
    ]);
  });

  it('records one outcome and one dead-letter message when the same failure arrives 10 times at once', async () => {
    const h = harness();
    const { key, envelope } = await dispatchedRun('fanout', '2026-03-29T01:00:02.000Z');
    const record = destinationRecord(envelope, 'failure', '2026-03-29T01:01:00.000Z');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => h.recorder.handle(record)),
    );
    const recorded = results.filter(
      (r) => r.status === 'fulfilled' && r.value.outcome === 'recorded',
    );
    expect(recorded).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DeadLetterPendingError);
      else expect(['recorded', 'ignored']).toContain(r.value.outcome);
    }
    expect(h.metrics.count('fanout', 'RunFailed')).toBe(1);
    expect((await stored(key))?.status?.S).toBe('failed');
    expect(await drainDlq()).toHaveLength(1);
  });

  it('sends the dead-letter message on a retry when the first send failed, and only once', async () => {
    let failNext = true;
    const real = createSqsDeadLetters(localSqs.sqs, dlqUrl);
    const flaky: DeadLetters = {
      async send(message) {
        if (failNext) {
          failNext = false;
          throw new Error('sqs unavailable');
        }
        await real.send(message);
      },
    };
    const h = harness(flaky);
    const { key, envelope } = await dispatchedRun('flaky', '2026-03-29T01:00:02.000Z');
    const record = destinationRecord(envelope, 'failure', '2026-03-29T01:01:00.000Z');

    await expect(h.recorder.handle(record)).rejects.toThrow('sqs unavailable');
    expect((await stored(key))?.status?.S).toBe('failed');
    expect((await stored(key))?.deadLetteredAt).toBeUndefined();

    // A duplicate while the first invocation's lease still holds: retry later, send nothing.
    h.now = new Date(h.now.getTime() + 60_000);
    await expect(h.recorder.handle(record)).rejects.toBeInstanceOf(DeadLetterPendingError);
    expect(await drainDlq()).toEqual([]);

    // Lambda's retry after the lease ran out sends it.
    h.now = new Date(h.now.getTime() + 120_000);
    expect(await h.recorder.handle(record)).toEqual({ outcome: 'dead-lettered', key });
    expect((await stored(key))?.deadLetteredAt?.S).toBe('2026-03-29T01:13:00.000Z');

    // And a further retry does nothing.
    expect(await h.recorder.handle(record)).toMatchObject({ outcome: 'ignored' });
    expect(await drainDlq()).toHaveLength(1);
    expect(h.metrics.count('flaky', 'RunFailed')).toBe(1);
  });

  it('asks to be retried when the completion beats the dispatcher marking the run dispatched', async () => {
    const h = harness();
    runCounter += 1;
    const at = new Date('2026-03-29T05:00:00.000Z');
    const key = createHash('sha256').update(`early:${runCounter}`).digest('hex');
    await dispatcherLedger.claim({
      key,
      jobId: 'early',
      at,
      nominal: '2026-03-29T07:00',
      dst: 'none',
      manual: false,
      maxAttempts: 3,
      nowEpochMs: at.getTime(),
      leaseUntilEpochMs: at.getTime() + 300_000,
      ttlEpochSec: 2_000_000_000,
    });
    const envelope = {
      version: 1,
      jobId: 'early',
      key,
      scheduledAt: at.toISOString(),
      nominal: '2026-03-29T07:00',
      timezone: 'Europe/Berlin',
      dst: 'none',
      attempt: 1,
      logicalDate: '2026-03-29',
      payload: null,
    };
    const error = await h.recorder
      .handle(destinationRecord(envelope, 'success', '2026-03-29T05:00:01.000Z'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompletionBeforeDispatchError);
    expect((await stored(key))?.status?.S).toBe('claimed');
    expect(emitted(h.metrics)).toEqual([]);
  });

  it.each([
    ['no ledger item', 'no-ledger-item'],
    ['an item of another job', 'job-mismatch:owner'],
  ])('ignores and counts a completion for %s without writing', async (_name, reason) => {
    const h = harness();
    const { key, envelope } = await dispatchedRun('owner', '2026-03-29T01:00:02.000Z');
    const foreign =
      reason === 'no-ledger-item'
        ? { ...envelope, key: createHash('sha256').update('nobody').digest('hex') }
        : { ...envelope, jobId: 'intruder' };
    const outcome = await h.recorder.handle(
      destinationRecord(foreign, 'success', '2026-03-29T01:00:09.000Z'),
    );
    expect(outcome).toMatchObject({ outcome: 'ignored', reason });
    expect((await stored(key))?.status?.S).toBe('dispatched');
    if (reason === 'no-ledger-item') expect(await stored(foreign.key)).toBeUndefined();
    expect(emitted(h.metrics)).toEqual([`${foreign.jobId}/DuplicatesSuppressed=1`]);
  });
});

describe('step functions status changes', () => {
  it('marks SUCCEEDED with the execution’s own duration', async () => {
    const h = harness();
    const { key, envelope } = await dispatchedRun('etl', '2026-03-29T01:00:01.000Z');
    await h.recorder.handle(
      sfnEvent(envelope, 'SUCCEEDED', '2026-03-29T01:00:01.200Z', '2026-03-29T01:20:01.200Z'),
    );
    const item = await stored(key);
    expect(item?.status?.S).toBe('succeeded');
    expect(item?.durationMs?.N).toBe('1200000');
    expect(emitted(h.metrics)).toEqual(['etl/RunSucceeded=1', 'etl/RunDurationSeconds=1200']);
  });

  it('marks FAILED as failed (execution) without a dead-letter message', async () => {
    const h = harness();
    const { key, envelope } = await dispatchedRun('etl-fail', '2026-03-29T01:00:01.000Z');
    const outcome = await h.recorder.handle(
      sfnEvent(envelope, 'FAILED', '2026-03-29T01:00:01.000Z', '2026-03-29T01:00:31.000Z'),
    );
    expect(outcome).toMatchObject({ outcome: 'recorded', status: 'failed', deadLettered: false });
    const item = await stored(key);
    expect(item?.failure?.S).toBe('execution');
    expect(item?.lastError?.S).toBe('execution FAILED: States.TaskFailed: upstream 503');
    expect(emitted(h.metrics)).toEqual(['etl-fail/RunFailed=1', 'etl-fail/RunDurationSeconds=30']);
    expect(await drainDlq()).toEqual([]);
  });
});

describe('events that are not completions', () => {
  it('logs and counts an unrecognised event without throwing or writing', async () => {
    const h = harness();
    const outcome = await h.recorder.handle({ Records: [{ eventSource: 'aws:s3' }] });
    expect(outcome.outcome).toBe('unrecognised');
    expect(emitted(h.metrics)).toEqual(['MalformedEvents=1']);
    expect(h.logs.entries[0]).toMatchObject({
      level: 'warn',
      fields: { decision: 'unrecognised' },
    });
  });
});
