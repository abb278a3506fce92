import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoLedger } from '../../../functions/dispatcher/ledger.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { FUNCTION_BUNDLING } from '../../../infra/bundling.ts';
import { createJobsBundle, writeJobsBundle } from '../../../infra/jobs-bundle-file.ts';
import { freePort } from '../../support/dynamodb-local.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

let client: DynamoDBClient;
let tableName: string;
let local: LocalSqs;

beforeAll(async () => {
  client = localDynamoClient(inject('dynamoEndpoint'));
  tableName = await createLedgerTable(client, 'handler');
  local = await startLocalSqs();
  const { queueUrl } = local.createQueue('handler-dlq');
  // What the stack sets, plus endpoints that point the SDK at the emulators.
  Object.assign(process.env, {
    LEDGER_TABLE_NAME: tableName,
    DLQ_URL: queueUrl,
    RETENTION_DAYS: '7',
    STACK_NAME: 'HandlerTest',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
    AWS_ENDPOINT_URL_SQS: local.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: `http://127.0.0.1:${await freePort()}`,
    AWS_MAX_ATTEMPTS: '1',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
});

afterAll(async () => {
  client.destroy();
  await local.stop();
});

type Handler = (event: unknown) => Promise<unknown>;

describe('handler.ts', () => {
  it('loads unbundled (no __ZONECRON_JOBS__) and ignores what it cannot act on', async () => {
    const { handler } = (await import('../../../functions/dispatcher/handler.ts')) as {
      handler: Handler;
    };
    expect(await handler({ nonsense: true })).toEqual({ kind: 'ignored', reason: 'malformed' });
    expect(await handler({ jobId: 'x', scheduledTime: '2023-06-01T10:00:00Z' })).toMatchObject({
      reason: 'unknown-job',
    });
    expect(await handler({ sweep: true, scheduledTime: '2023-06-01T10:00:00Z' })).toMatchObject({
      kind: 'sweep',
      jobsChecked: 0,
    });
  });

  it('runs bundled with the jobs.json shipped beside it, against the real ledger', async () => {
    const job = makeJob({
      id: 'bundled',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: {
        type: 'eventbridge',
        arn: 'arn:aws:events:us-east-1:000000000000:event-bus/default',
      },
    });
    const outDir = join(process.cwd(), 'node_modules', '.cache', 'zonecron-test', `${process.pid}`);
    writeJobsBundle(outDir, createJobsBundle([job], { synthTime: new Date() }));
    const outfile = join(outDir, 'index.mjs');
    await build({
      entryPoints: ['functions/dispatcher/handler.ts'],
      bundle: true,
      platform: 'node',
      format: FUNCTION_BUNDLING.format,
      target: FUNCTION_BUNDLING.target,
      minify: FUNCTION_BUNDLING.minify,
      external: [...FUNCTION_BUNDLING.externalModules],
      banner: { js: FUNCTION_BUNDLING.banner },
      outfile,
      logLevel: 'silent',
    });
    const { handler } = (await import(pathToFileURL(outfile).href)) as { handler: Handler };

    // EventBridge is unreachable here: the delivery fails, is recorded, and the handler throws
    // so that Scheduler retries.
    await expect(
      handler({ jobId: 'bundled', scheduledTime: '2023-06-01T10:00:00Z', attempt: 1 }),
    ).rejects.toThrow(/delivery failed for 1 run/);
    const ledger = createDynamoLedger({ client, tableName });
    const item = await ledger.getRun(periodBucket('bundled', new Date('2023-06-01T10:00:00Z')));
    expect(item).toMatchObject({ status: 'delivery-failed', attempts: 1, jobId: 'bundled' });
    expect(item?.lastError).toMatch(/ECONNREFUSED|connect/);
    expect(item?.ttlEpochSec).toBeGreaterThan(Date.now() / 1000 + 6 * 86_400);
    expect(item?.ttlEpochSec).toBeLessThan(Date.now() / 1000 + 8 * 86_400);
  });
});
