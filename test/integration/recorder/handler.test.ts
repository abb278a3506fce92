import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { deliverySecretHash, newDeliverySecret } from '#jobs/envelope.ts';
import { createDynamoLedger, createLedgerStore } from '#ledger/index.ts';
import { type BundledHandler, bundleHandler } from '../../support/bundle-handler.ts';
import { type FakeSns, startFakeSns } from '../../support/fake-sns.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';
import { lambdaResult } from '../../support/harness.ts';
import { HOSTILE_EVENTS, MAX_HOSTILE_LOG_CHARS, settled } from '../../support/hostile-events.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, LOCAL_CREDENTIALS, localDynamoClient } from '../../support/ledger.ts';

// The real handler module, bundled as the stack ships it and wired only through its
// environment, as in Lambda; SNS is a local endpoint that records what it is sent.
const FUNCTION = 'arn:aws:lambda:us-east-1:123456789012:function:nightly';
const job = makeJob({ id: 'nightly', target: { type: 'lambda', arn: FUNCTION } });
const endpoint = inject('dynamoEndpoint');
const ddb = localDynamoClient(endpoint);
let sns: FakeSns;
let localSqs: LocalSqs;
let tableName: string;
let dlqUrl: string;
let handler: BundledHandler;

beforeAll(async () => {
  tableName = await createLedgerTable(ddb, 'recorder-handler');
  localSqs = await startLocalSqs();
  sns = await startFakeSns();
  // fauxqs names queues `http://sqs.<region>.127.0.0.1:<port>/…`, which the SQS client's
  // queue-URL middleware cannot parse; it warns and keeps AWS_ENDPOINT_URL_SQS, as wanted.
  dlqUrl = localSqs.createQueue('zonecron-dlq').queueUrl;
  vi.stubEnv('LEDGER_TABLE_NAME', tableName);
  vi.stubEnv('DLQ_URL', dlqUrl);
  vi.stubEnv('STACK_NAME', 'RecorderTest');
  vi.stubEnv('NOTIFY_TOPIC_ARN', 'arn:aws:sns:us-east-1:123456789012:on-call');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', LOCAL_CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', LOCAL_CREDENTIALS.secretAccessKey);
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_SQS', localSqs.endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_SNS', sns.endpoint);
  handler = await bundleHandler('functions/recorder/handler.ts', [job], 'recorder');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await sns.stop();
  await localSqs.stop();
});

it('records a failed invocation result, dead-letters it, notifies on-call and emits the stack-wide EMF metrics', async () => {
  const at = new Date('2023-10-29T00:30:00.000Z');
  const key = createHash('sha256').update('nightly:2023-10-29-00:30-UTC').digest('hex');
  const ledger = createDynamoLedger(createLedgerStore({ client: ddb, tableName }));
  const secret = newDeliverySecret();
  await ledger.claim({
    key,
    jobId: 'nightly',
    at,
    nominal: '2023-10-29T02:30',
    dst: 'overlap',
    manual: false,
    origin: 'tick',
    target: FUNCTION,
    secretHash: deliverySecretHash(secret),
    mode: 'any',
    maxAttempts: 3,
    nowEpochMs: at.getTime(),
    leaseUntilEpochMs: at.getTime() + 300_000,
    ttlEpochSec: 2_000_000_000,
    missed: false,
  });
  await ledger.markDispatched(key, 1, {
    dispatchedAt: at,
    deliveryId: 'req-1',
    stuckCheckAtEpochMs: at.getTime() + 3_600_000,
    late: false,
    outboxLeaseUntilEpochMs: 0,
  });
  const envelope = {
    version: 1 as const,
    jobId: 'nightly',
    key,
    scheduledAt: at.toISOString(),
    nominal: '2023-10-29T02:30',
    timezone: 'Europe/Berlin',
    dst: 'overlap',
    attempt: 1,
    logicalDate: '2023-10-29',
    payload: null,
    stack: 'RecorderTest',
    deliverySecret: secret,
  };
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  // Powertools writes INFO to stdout and WARN to stderr, one JSON document per line.
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    await handler(
      lambdaResult(
        FUNCTION,
        'req-1',
        envelope,
        new Date('2023-10-29T00:32:00.000Z'),
        'RetriesExhausted',
      ),
    );
  } finally {
    for (const spy of spies) spy.mockRestore();
  }

  expect(await ledger.getRun(key)).toMatchObject({
    status: 'failed',
    failure: 'execution',
    completedAt: '2023-10-29T00:32:00.000Z',
    outbox: [],
  });
  expect(localSqs.messages<{ reason: string }>('zonecron-dlq').map((m) => m.reason)).toEqual([
    'execution-failed',
  ]);
  expect(sns.published).toHaveLength(1);
  expect(sns.published[0]?.subject).toBe(
    '[RecorderTest] run-failed: nightly at 2023-10-29 02:30 +02:00 CEST',
  );
  expect(JSON.parse(sns.published[0]?.message ?? '{}')).toMatchObject({
    signal: 'run-failed',
    jobId: 'nightly',
    key,
    at: at.toISOString(),
    local: '2023-10-29 02:30 +02:00 CEST (Europe/Berlin)',
    commands: { act: `zonecron dlq redrive --key ${key} --stack RecorderTest` },
  });

  const emf = lines
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line));
  expect(emf).toHaveLength(1);
  expect(emf[0]).toMatchObject({ Stack: 'RecorderTest', RunFailed: 1, RunDurationSeconds: 120 });
  expect(emf[0]._aws.CloudWatchMetrics[0].Dimensions).toEqual([['Stack']]);
  const decisions = lines
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"decision"'))
    .map((line) => JSON.parse(line).decision);
  expect(decisions).toEqual(['failed']);
  // The delivery secret is the run's proof of delivery: no log line and no dead letter has it.
  expect(lines.some((line) => line.includes(secret))).toBe(false);
  expect(JSON.stringify(localSqs.messages('zonecron-dlq'))).not.toContain(secret);
});

it('ignores events nobody legitimate sends, counting each and logging one short line for each', async () => {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  const outcomes: unknown[] = [];
  try {
    for (const [, event] of HOSTILE_EVENTS) outcomes.push(await settled(handler(event)));
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  expect(outcomes).toEqual(
    HOSTILE_EVENTS.map(() => expect.objectContaining({ outcome: 'unrecognised' })),
  );
  const documents = lines.flatMap((chunk) => chunk.split('\n')).filter((line) => line !== '');
  for (const line of documents) expect(line.length).toBeLessThan(MAX_HOSTILE_LOG_CHARS);
  const parsed = documents.map((line) => JSON.parse(line));
  expect(parsed.filter((d) => d.decision === 'unrecognised')).toHaveLength(HOSTILE_EVENTS.length);
  expect(parsed.filter((d) => d.MalformedEvents === 1)).toHaveLength(HOSTILE_EVENTS.length);
});
