import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDynamoLedger, createLedgerStore, createZoneDriftLedger } from '#ledger/index.ts';
import { zoneDataVersion } from '#zone-drift/zone-fingerprint.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { bundleHandler } from '../../support/bundle-handler.ts';
import { freePort } from '../../support/dynamodb-local.ts';
import { type LocalSqs, startLocalSqs } from '../../support/fauxqs.ts';
import { HOSTILE_EVENTS, settled } from '../../support/hostile-events.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';
import { DRIFT_SYNTH_TIME, springMovedAWeek } from '../../support/zone-drift.ts';

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
    NOTIFY_TOPIC_ARN: 'arn:aws:sns:us-east-1:000000000000:on-call',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
    AWS_ENDPOINT_URL_SQS: local.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: `http://127.0.0.1:${await freePort()}`,
    AWS_ENDPOINT_URL_SNS: `http://127.0.0.1:${await freePort()}`,
    AWS_MAX_ATTEMPTS: '1',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
});

afterAll(async () => {
  client.destroy();
  await local.stop();
});

type Handler = (event: unknown) => Promise<unknown>;

/** The bundled handler reads the real clock: the start of the current minute, and hour. */
const thisMinute = () => new Date(Math.floor(Date.now() / 60_000) * 60_000);
const thisHour = () => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const schedulerTime = (at: Date) => at.toISOString().replace('.000Z', 'Z');

describe('handler.ts', () => {
  it('loads unbundled (no jobs.json beside it) and ignores what it cannot act on', async () => {
    const { handler } = (await import('../../../functions/dispatcher/handler.ts')) as {
      handler: Handler;
    };
    expect(await handler({ nonsense: true })).toEqual({ kind: 'ignored', reason: 'malformed' });
    expect(await handler({ jobId: 'x', scheduledTime: '2023-06-01T10:00:00Z' })).toMatchObject({
      reason: 'unknown-job',
    });
    expect(
      await handler({ sweep: true, scheduledTime: schedulerTime(thisMinute()) }),
    ).toMatchObject({ kind: 'sweep', jobsChecked: 0 });
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
    const handler = await bundleHandler('functions/dispatcher/handler.ts', [job], 'dispatcher');

    // EventBridge is unreachable here: the delivery fails and is recorded for the sweep to
    // retry; the handler itself succeeds (nothing for Lambda to retry).
    const at = thisHour();
    const result = await handler({
      jobId: 'bundled',
      scheduledTime: schedulerTime(at),
      attempt: '1',
    });
    expect(result).toMatchObject({ kind: 'tick', outcomes: [{ outcome: 'delivery-failed' }] });
    const ledger = createDynamoLedger(createLedgerStore({ client, tableName }));
    const item = await ledger.getRun(periodBucket('bundled', at));
    expect(item).toMatchObject({ status: 'delivery-failed', attempts: 1, jobId: 'bundled' });
    expect(item?.lastError).toMatch(/ECONNREFUSED|connect/);
    const inTtl = (item?.ttlEpochSec ?? 0) - Date.now() / 1000;
    expect(inTtl).toBeGreaterThan(6 * 86_400);
    expect(inTtl).toBeLessThan(8 * 86_400);
  });

  it("compares the jobs.json's zone data with its own at the first sweep, and claims the notice of a drifted job", async () => {
    const job = makeJob({
      id: 'bundled-berlin',
      schedule: '30 2 * * *',
      timezone: 'Europe/Berlin',
      target: {
        type: 'eventbridge',
        arn: 'arn:aws:events:us-east-1:000000000000:event-bus/default',
      },
    });
    const synthTime = DRIFT_SYNTH_TIME;
    // jobs.json as a machine would write it on which Berlin springs forward a week later.
    const handler = await bundleHandler('functions/dispatcher/handler.ts', [job], 'drift', {
      synthTime,
      zoneRules: springMovedAWeek,
    });
    expect(
      await handler({ sweep: true, scheduledTime: schedulerTime(thisMinute()) }),
    ).toMatchObject({ kind: 'sweep', jobsChecked: 1 });
    // SNS is unreachable here: the notice is claimed, its notification still owed.
    const notices = createZoneDriftLedger(createLedgerStore({ client, tableName }));
    const id = {
      synthesizedAt: synthTime.toISOString(),
      runtimeZoneData: zoneDataVersion(),
      jobId: 'bundled-berlin',
    };
    const found = [...(await notices.getNotices([id])).values()];
    expect(found).toEqual([
      expect.objectContaining({
        jobId: 'bundled-berlin',
        timezone: 'Europe/Berlin',
        synthZoneData: zoneDataVersion(),
        firstDisagreementAt: '2027-03-28T01:00:00.000Z',
      }),
    ]);
    expect(found[0]?.notifiedAt).toBeUndefined();
    expect(found[0]?.noticeLeaseUntilEpochMs).toBeGreaterThan(Date.now());
  });

  it('ignores events nobody legitimate sends, and ticks and sweeps from long ago, delivering nothing', async () => {
    const job = makeJob({
      id: 'hostile-minutely',
      schedule: '* * * * *',
      timezone: 'UTC',
      target: {
        type: 'eventbridge',
        arn: 'arn:aws:events:us-east-1:000000000000:event-bus/default',
      },
    });
    const handler = await bundleHandler('functions/dispatcher/handler.ts', [job], 'hostile');
    // A plain malformed event too: the bundle's minified class names must not make it throw.
    expect(await settled(handler({ nonsense: true }))).toEqual({
      kind: 'ignored',
      reason: 'malformed',
    });
    for (const [name, event] of HOSTILE_EVENTS) {
      expect(await settled(handler(event)), name).toEqual({ kind: 'ignored', reason: 'malformed' });
    }
    const ancient = { kind: 'ignored', reason: 'ancient', jobId: job.id };
    // The job's first event, from 1970; then a 2013 tick: neither becomes its first run.
    expect(await handler({ jobId: job.id, scheduledTime: '1970-01-01T00:00:00Z' })).toEqual(
      ancient,
    );
    expect(await handler({ jobId: job.id, scheduledTime: '2013-06-01T10:00:00Z' })).toEqual(
      ancient,
    );
    expect(await handler({ sweep: true, scheduledTime: '1970-01-01T00:00:00Z' })).toEqual({
      kind: 'ignored',
      reason: 'ancient',
    });
    const ledger = createDynamoLedger(createLedgerStore({ client, tableName }));
    expect(await ledger.getJobState(job.id)).toBeUndefined();
    expect(
      await ledger.getRun(periodBucket(job.id, new Date('2013-06-01T10:00:00Z'))),
    ).toBeUndefined();
  });
});
