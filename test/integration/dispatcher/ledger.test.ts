import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type ClaimRequest,
  createDynamoLedger,
  type Ledger,
} from '../../../functions/dispatcher/ledger.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';
import { createMemoryLedger } from '../../support/memory-ledger.ts';

// One contract, three stores: DynamoDB Local (what the tests trust), dynalite (the CLI
// simulation's store) and the in-memory ledger (unit tests, the CPU benchmark).
let dynamoLocal: DynamoDBClient;
let dynalite: Server;
let dynaliteClient: DynamoDBClient;

beforeAll(async () => {
  dynamoLocal = localDynamoClient(inject('dynamoEndpoint'));
  const factory = createRequire(import.meta.url)('dynalite') as (o: object) => Server;
  dynalite = factory({ createTableMs: 0 });
  await new Promise<void>((resolve) => dynalite.listen(0, '127.0.0.1', resolve));
  const { port } = dynalite.address() as AddressInfo;
  dynaliteClient = localDynamoClient(`http://127.0.0.1:${port}`);
});

afterAll(async () => {
  dynamoLocal.destroy();
  dynaliteClient.destroy();
  dynalite.closeAllConnections();
  await new Promise((resolve) => dynalite.close(resolve));
});

const stores: [string, () => Promise<Ledger>][] = [
  [
    'DynamoDB Local',
    async () =>
      createDynamoLedger({
        client: dynamoLocal,
        tableName: await createLedgerTable(dynamoLocal, 'contract'),
      }),
  ],
  [
    'dynalite',
    async () =>
      createDynamoLedger({
        client: dynaliteClient,
        tableName: await createLedgerTable(dynaliteClient, 'contract'),
      }),
  ],
  ['the memory ledger', async () => createMemoryLedger()],
];

const AT = new Date('2023-10-29T00:30:00.000Z');
const T = 1_700_000_000_000;
const claim = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
  key: 'run-1',
  jobId: 'job',
  at: AT,
  nominal: '2023-10-29T02:30',
  dst: 'overlap',
  manual: false,
  maxAttempts: 3,
  nowEpochMs: T,
  leaseUntilEpochMs: T + 300_000,
  ttlEpochSec: 1_800_000_000,
  ...over,
});

describe.each(stores)('the ledger on %s', (_name, open) => {
  it('admits a key once, and returns the stored item to the refused claim', async () => {
    const ledger = await open();
    const first = await ledger.claim(claim());
    const second = await ledger.claim(claim({ nowEpochMs: T + 1 }));
    expect(first).toMatchObject({
      claimed: true,
      record: {
        status: 'claimed',
        attempts: 1,
        at: AT.toISOString(),
        leaseUntilEpochMs: T + 300_000,
        dst: 'overlap',
        manual: false,
      },
    });
    expect(second).toEqual({ claimed: false, existing: (first as { record: unknown }).record });
  });

  it('lets a claim take over an expired lease, and fences the old holder out', async () => {
    const ledger = await open();
    await ledger.claim(claim());
    const takeover = await ledger.claim(
      claim({ nowEpochMs: T + 300_001, leaseUntilEpochMs: T + 600_001 }),
    );
    expect(takeover).toMatchObject({ claimed: true, record: { attempts: 2 } });
    expect(
      await ledger.markDispatched('run-1', 1, { dispatchedAt: new Date(T), deliveryId: 'old' }),
    ).toBe(false);
    expect(
      await ledger.markDispatched('run-1', 2, { dispatchedAt: new Date(T), deliveryId: 'new' }),
    ).toBe(true);
    expect(await ledger.getRun('run-1')).toMatchObject({
      status: 'dispatched',
      deliveryId: 'new',
      attempts: 2,
    });
    expect(await ledger.claim(claim({ nowEpochMs: T + 10_000_000 }))).toMatchObject({
      claimed: false,
    });
  });

  it('re-admits a failed attempt until maxAttempts, then only a redrive reopens it', async () => {
    const ledger = await open();
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await ledger.claim(claim())).toMatchObject({
        claimed: true,
        record: { attempts: attempt },
      });
      const terminal = attempt === 3;
      expect(
        await ledger.releaseFailed('run-1', attempt, {
          lastError: `e${attempt}`,
          terminal,
          failedAt: new Date(T),
        }),
      ).toBe(true);
    }
    expect(await ledger.getRun('run-1')).toMatchObject({
      status: 'failed',
      failure: 'delivery',
      attempts: 3,
      lastError: 'e3',
    });
    expect(await ledger.claim(claim())).toMatchObject({
      claimed: false,
      existing: { status: 'failed' },
    });
    expect(await ledger.resetForRedrive('run-1')).toBe(true);
    expect(await ledger.claim(claim())).toMatchObject({ claimed: true, record: { attempts: 1 } });
    expect(await ledger.resetForRedrive('run-1')).toBe(false); // claimed: not redrivable
  });

  it('takes over an abandoned last attempt only after its lease expired, once', async () => {
    const ledger = await open();
    await ledger.claim(claim({ maxAttempts: 1 }));
    expect(await ledger.claim(claim({ maxAttempts: 1, nowEpochMs: T + 400_000 }))).toMatchObject({
      claimed: false,
    });
    expect(await ledger.takeOverAbandoned('run-1', 1, T + 1, T + 2)).toBe(false);
    expect(await ledger.takeOverAbandoned('run-1', 1, T + 400_000, T + 700_000)).toBe(true);
    expect(await ledger.takeOverAbandoned('run-1', 1, T + 400_000, T + 700_000)).toBe(false);
    // The taker holds a fresh lease on the same attempt: claims stay refused, and it alone
    // releases the run as failed.
    expect(await ledger.claim(claim({ maxAttempts: 1, nowEpochMs: T + 500_000 }))).toMatchObject({
      claimed: false,
      existing: { status: 'claimed', attempts: 1, leaseUntilEpochMs: T + 700_000 },
    });
    const failure = { lastError: 'stopped', terminal: true, failedAt: new Date(T + 400_000) };
    expect(await ledger.releaseFailed('run-1', 1, failure)).toBe(true);
    expect(await ledger.takeOverAbandoned('run-1', 1, T + 800_000, T + 900_000)).toBe(false);
    expect(await ledger.getRun('run-1')).toMatchObject({
      status: 'failed',
      failure: 'delivery',
      attempts: 1,
      lastError: 'stopped',
    });
  });

  it('records missed, skipped-overlap and stuck once each', async () => {
    const ledger = await open();
    const missed = {
      key: 'run-2',
      jobId: 'job',
      at: AT,
      nominal: 'n',
      dst: 'none',
      detectedAt: new Date(T),
      ttlEpochSec: 1,
    };
    expect(await ledger.recordMissed(missed)).toBe(true);
    expect(await ledger.recordMissed(missed)).toBe(false);
    expect(await ledger.getRun('run-2')).toMatchObject({ status: 'missed', attempts: 0 });
    await ledger.claim(claim({ key: 'run-3' }));
    expect(await ledger.markSkippedOverlap('run-3', 1, 'busy')).toBe(true);
    expect(await ledger.getRun('run-3')).toMatchObject({
      status: 'skipped-overlap',
      lastError: 'busy',
    });
    await ledger.claim(claim({ key: 'run-4' }));
    expect(await ledger.markStuck('run-4', new Date(T))).toBe(false); // not dispatched yet
    await ledger.markDispatched('run-4', 1, { dispatchedAt: new Date(T), deliveryId: 'd' });
    expect(await ledger.markStuck('run-4', new Date(T))).toBe(true);
    expect(await ledger.markStuck('run-4', new Date(T))).toBe(false);
  });

  it('moves the watermark forward only, remembering the first one', async () => {
    const ledger = await open();
    expect(await ledger.getWatermark('job')).toBeUndefined();
    expect(await ledger.advanceWatermark('job', new Date('2023-10-29T00:30:00Z'))).toBe(true);
    expect(await ledger.advanceWatermark('job', new Date('2023-10-29T00:15:00Z'))).toBe(false);
    expect(await ledger.advanceWatermark('job', new Date('2023-10-29T00:30:00Z'))).toBe(false);
    expect(await ledger.advanceWatermark('job', new Date('2023-10-29T01:30:00Z'))).toBe(true);
    expect(await ledger.getWatermark('job')).toEqual({
      at: new Date('2023-10-29T01:30:00Z'),
      since: new Date('2023-10-29T00:30:00Z'),
    });
  });

  it('reads many keys in batches of 100 and finds the newest running run by index', async () => {
    const ledger = await open();
    const keys = Array.from({ length: 130 }, (_, i) => `k${i}`);
    await Promise.all(
      [0, 99, 100, 101, 102, 103, 104].map(async (i) => {
        const key = `k${i}`;
        const at = new Date(AT.getTime() + i * 60_000);
        await ledger.claim(claim({ key, at }));
        if (i % 2 === 0) {
          await ledger.markDispatched(key, 1, { dispatchedAt: at, deliveryId: key });
        }
      }),
    );
    const found = await ledger.getRuns(keys);
    expect([...found.keys()].sort()).toEqual(['k0', 'k100', 'k101', 'k102', 'k103', 'k104', 'k99']);
    expect(found.get('k104')).toMatchObject({ key: 'k104', status: 'dispatched' });
    const running = await ledger.findRunning('job', AT, new Date(AT.getTime() + 104 * 60_000));
    expect(running?.key).toBe('k102'); // k103 is only claimed, k104 is not before
    expect(
      await ledger.findRunning(
        'job',
        new Date(AT.getTime() + 200 * 60_000),
        new Date(AT.getTime() + 300 * 60_000),
      ),
    ).toBeUndefined();
  });
});
