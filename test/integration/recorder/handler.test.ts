import { createHash } from 'node:crypto';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, inject, it, vi } from 'vitest';
import { createDynamoLedger } from '../../../functions/dispatcher/ledger.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';
import { createLedgerTable, LOCAL_CREDENTIALS, localDynamoClient } from '../../support/ledger.ts';

// The real handler module, wired only through its environment, as in Lambda.
const endpoint = inject('dynamoEndpoint');
const ddb = localDynamoClient(endpoint);
let localSqs: LocalSqs;
let tableName: string;
let dlqUrl: string;
let handler: (event: unknown) => Promise<unknown>;

beforeAll(async () => {
  tableName = await createLedgerTable(ddb, 'recorder-handler');
  localSqs = await startLocalSqs();
  // fauxqs names queues `http://sqs.<region>.127.0.0.1:<port>/…`, which the SQS client's
  // queue-URL middleware cannot parse; it warns and keeps AWS_ENDPOINT_URL_SQS, as wanted.
  dlqUrl = localSqs.createQueue('zonecron-dlq').queueUrl;
  vi.stubEnv('LEDGER_TABLE_NAME', tableName);
  vi.stubEnv('DLQ_URL', dlqUrl);
  vi.stubEnv('STACK_NAME', 'RecorderTest');
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', LOCAL_CREDENTIALS.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', LOCAL_CREDENTIALS.secretAccessKey);
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_SQS', localSqs.endpoint);
  ({ handler } = await import('../../../functions/recorder/handler.ts'));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await localSqs.stop();
});

it('records a failed destination record, dead-letters it and emits the stack-wide EMF metrics', async () => {
  const at = new Date('2023-10-29T00:30:00.000Z');
  const key = createHash('sha256').update('nightly:2023-10-29-00:30-UTC').digest('hex');
  const ledger = createDynamoLedger({ client: ddb, tableName });
  await ledger.claim({
    key,
    jobId: 'nightly',
    at,
    nominal: '2023-10-29T02:30',
    dst: 'overlap',
    manual: false,
    maxAttempts: 3,
    nowEpochMs: at.getTime(),
    leaseUntilEpochMs: at.getTime() + 300_000,
    ttlEpochSec: 2_000_000_000,
  });
  await ledger.markDispatched(key, 1, { dispatchedAt: at, deliveryId: 'req-1' });
  const envelope = {
    version: 1,
    jobId: 'nightly',
    key,
    scheduledAt: at.toISOString(),
    nominal: '2023-10-29T02:30',
    timezone: 'Europe/Berlin',
    dst: 'overlap',
    attempt: 1,
    logicalDate: '2023-10-29',
    payload: null,
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
    await handler({
      version: '1.0',
      timestamp: '2023-10-29T00:32:00.000Z',
      requestContext: {
        requestId: 'req-1',
        functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:nightly:$LATEST',
        condition: 'RetriesExhausted',
        approximateInvokeCount: 3,
      },
      requestPayload: envelope,
      responseContext: { statusCode: 200, functionError: 'Unhandled' },
      responsePayload: { errorType: 'Error', errorMessage: 'boom' },
    });
  } finally {
    for (const spy of spies) spy.mockRestore();
  }

  const item = await ddb.send(
    new GetItemCommand({ TableName: tableName, Key: { pk: { S: key } }, ConsistentRead: true }),
  );
  expect(item.Item?.status?.S).toBe('failed');
  expect(item.Item?.durationMs?.N).toBe('120000');

  const received = await localSqs.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10 }),
  );
  expect(received.Messages?.map((m) => JSON.parse(m.Body ?? '{}').reason)).toEqual([
    'execution-failed',
  ]);

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
  expect(decisions).toEqual(['failed', 'dead-lettered']);
});
