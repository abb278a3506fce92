import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  av,
  type ConditionalUpdate,
  createLedgerStore,
  LEDGER_OPEN_INDEX,
  LEDGER_PARTITION_KEY,
  type LedgerStore,
  ledgerTableDefinition,
  UpdateExpression,
} from '#ledger/index.ts';
import { startEmbeddedDynamo } from '../../../../cli/simulation/dynalite.ts';
import { createQueryMemo, type QueryMemo } from '../../../../cli/simulation/query-memo.ts';

const db = startEmbeddedDynamo();
const client = new DynamoDBClient({
  endpoint: db.endpoint,
  requestHandler: db.requestHandler,
  signer: db.signer,
  region: 'local',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
afterAll(async () => {
  client.destroy();
  await db.stop();
});

/** A fresh ledger table on the in-process dynalite, and its store. */
async function freshStore(): Promise<LedgerStore> {
  const tableName = `memo-${randomUUID().slice(0, 8)}`;
  await client.send(new CreateTableCommand(ledgerTableDefinition(tableName)));
  const describe = new DescribeTableCommand({ TableName: tableName });
  // dynalite turns a new table ACTIVE a moment after CreateTable answers.
  while ((await client.send(describe)).Table?.TableStatus !== 'ACTIVE') {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return createLedgerStore({ client, tableName });
}

/** The store with every query it sends to the table counted. */
function counted(store: LedgerStore): LedgerStore & { queries: number } {
  const counting = {
    ...store,
    queries: 0,
    query: (request: Parameters<LedgerStore['query']>[0]) => {
      counting.queries++;
      return store.query(request);
    },
  };
  return counting;
}

/** The sweep's query (the ledger's `findDue`): the keys of a shard's runs due by `nowEpochMs`. */
async function due(store: LedgerStore, shard: string, nowEpochMs: number): Promise<string[]> {
  const items = await store.query({
    index: LEDGER_OPEN_INDEX,
    keyCondition: '#shard = :shard AND #check <= :now',
    names: { '#shard': 'openShard', '#check': 'checkAtEpochMs' },
    values: { ':shard': av.s(shard), ':now': av.n(nowEpochMs) },
    limit: 50,
  });
  return items.map((item) => item[LEDGER_PARTITION_KEY]?.S ?? '?');
}

/** The write of `u` to item `key`, as the ledger sends it (its actions built with it). */
const write = (key: string, u: UpdateExpression) =>
  ({ key, ...u.build() }) satisfies ConditionalUpdate;

/** The shard and check time of a run, as a claim sets them. */
const placing = (shard: string, checkAtEpochMs: number) =>
  new UpdateExpression().set('openShard', av.s(shard)).set('checkAtEpochMs', av.n(checkAtEpochMs));

const place = (key: string, shard: string, checkAtEpochMs: number) =>
  write(key, placing(shard, checkAtEpochMs));

/** `place`, only when the run has no shard yet. */
function placeIfNew(key: string, shard: string, checkAtEpochMs: number): ConditionalUpdate {
  const u = placing(shard, checkAtEpochMs);
  return { ...write(key, u), condition: `attribute_not_exists(${u.name('openShard')})` };
}

async function memoOnFreshTable(): Promise<{
  memo: QueryMemo;
  table: LedgerStore & { queries: number };
  store: LedgerStore;
}> {
  const memo = createQueryMemo();
  const table = counted(await freshStore());
  return { memo, table, store: memo.wrap(table) };
}

describe('createQueryMemo', () => {
  it('answers the sweep again without a request after writes that name neither key attribute', async () => {
    const { memo, table, store } = await memoOnFreshTable();
    expect(await due(store, 'open#0', 1_000)).toEqual([]);
    expect(table.queries).toBe(1);
    await store.update(
      write('job#a', new UpdateExpression().set('watermarkAt', av.s('2027-01-01'))),
    );
    expect(await due(store, 'open#0', 2_000)).toEqual([]);
    expect(table.queries).toBe(1);
    expect(memo.stats).toEqual({ answered: 2, probed: 1, passed: 0 });
  });

  it('places a claimed run from its write: empty before its check time, the run from then on', async () => {
    const { table, store } = await memoOnFreshTable();
    await due(store, 'open#1', 1_000);
    await store.update(place('run-1', 'open#1', 5_000));
    expect(await due(store, 'open#1', 4_999)).toEqual([]);
    expect(table.queries).toBe(1);
    expect(await due(store, 'open#1', 5_000)).toEqual(['run-1']);
    expect(table.queries).toBe(2);
  });

  it('moves a floor down when a write sets an earlier check time and leaves the shard as it was', async () => {
    const { store } = await memoOnFreshTable();
    await store.update(place('run-1', 'open#3', 5_000));
    expect(await due(store, 'open#3', 3_000)).toEqual([]);
    await store.update(write('run-1', new UpdateExpression().set('checkAtEpochMs', av.n(1_000))));
    expect(await due(store, 'open#3', 2_000)).toEqual(['run-1']);
  });

  it('asks for the floor again once a run left the index and its old check time came', async () => {
    const { memo, store } = await memoOnFreshTable();
    await store.update(place('run-1', 'open#2', 5_000));
    await due(store, 'open#2', 1_000);
    await store.update(
      write('run-1', new UpdateExpression().remove('openShard', 'checkAtEpochMs')),
    );
    expect(await due(store, 'open#2', 6_000)).toEqual([]);
    expect(memo.stats).toEqual({ answered: 2, probed: 2, passed: 0 });
  });
});

/** One step of a random history: a write to the open index, or the sweep's query. */
type Step =
  | { readonly kind: 'write'; readonly update: ConditionalUpdate }
  | { readonly kind: 'query'; readonly shard: string; readonly bound: number };

const keys = fc.constantFrom('run-a', 'run-b');
const shards = fc.constantFrom('open#0', 'open#1');
const times = fc.integer({ min: 0, max: 5 });

const steps: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ key: keys, shard: shards, at: times }).map(({ key, shard, at }) => ({
    kind: 'write' as const,
    update: place(key, shard, at),
  })),
  fc.record({ key: keys, at: times }).map(({ key, at }) => ({
    kind: 'write' as const,
    update: write(key, new UpdateExpression().set('checkAtEpochMs', av.n(at))),
  })),
  fc.record({ key: keys, shard: shards }).map(({ key, shard }) => ({
    kind: 'write' as const,
    update: write(key, new UpdateExpression().set('openShard', av.s(shard))),
  })),
  fc.record({ key: keys, at: times }).map(({ key, at }) => ({
    kind: 'write' as const,
    update: write(key, new UpdateExpression().setIfAbsent('checkAtEpochMs', av.n(at))),
  })),
  keys.map((key) => ({
    kind: 'write' as const,
    update: write(key, new UpdateExpression().remove('openShard', 'checkAtEpochMs')),
  })),
  keys.map((key) => ({
    kind: 'write' as const,
    update: write(key, new UpdateExpression().set('status', av.s('x'))),
  })),
  fc.record({ key: keys, shard: shards, at: times }).map(({ key, shard, at }) => ({
    kind: 'write' as const,
    update: placeIfNew(key, shard, at),
  })),
  fc.record({ key: keys, at: times }).map(({ key, at }) => ({
    kind: 'write' as const,
    // Written by hand, without actions: the memo cannot know what it did.
    update: {
      key,
      update: 'SET #check = :check',
      names: { '#check': 'checkAtEpochMs' },
      values: { ':check': av.n(at) },
    },
  })),
  {
    // Queries as often as all the writes together: most histories query between writes.
    weight: 7,
    arbitrary: fc.record({ shard: shards, bound: fc.integer({ min: -1, max: 6 }) }).map((q) => ({
      kind: 'query' as const,
      ...q,
    })),
  },
);

/**
 * A history that a memo answers wrongly if it keeps a partition's floor through a write that
 * lowers a run's check time without naming its shard (the run stays in its partition, so the
 * floor drops with it). Random histories found that slip, injected, only after about 1,200 runs
 * (some 30 s); given as an example, it is checked first, in milliseconds.
 */
const FLOOR_LOWERED_WITHOUT_SHARD: Step[] = [
  {
    kind: 'write',
    update: write('run-a', new UpdateExpression().set('openShard', av.s('open#0'))),
  },
  { kind: 'query', shard: 'open#0', bound: 0 },
  {
    kind: 'write',
    update: write('run-a', new UpdateExpression().set('checkAtEpochMs', av.n(0))),
  },
  { kind: 'query', shard: 'open#0', bound: 0 },
];

describe('createQueryMemo against the table itself', () => {
  it('answers every sweep query as the unwrapped table does, whatever the writes before it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(steps, { maxLength: 40 }), async (history) => {
        const plain = await freshStore();
        const memoized = createQueryMemo().wrap(await freshStore());
        for (const step of history) {
          if (step.kind === 'write') {
            expect((await memoized.update(step.update)).applied).toBe(
              (await plain.update(step.update)).applied,
            );
            continue;
          }
          const expected = await due(plain, step.shard, step.bound);
          expect(await due(memoized, step.shard, step.bound)).toEqual(expected);
        }
      }),
      // Each run costs two fresh tables (about 20 ms, the steps little beside them): 150 runs
      // take about 3 s, what the memo saves npm start. More runs would find more rare slips
      // (the example above needed 1,200), fewer would miss more; the known one is an example.
      { numRuns: 150, examples: [[FLOOR_LOWERED_WITHOUT_SHARD]] },
    );
  });
});
