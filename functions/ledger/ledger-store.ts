import {
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { LedgerError } from './errors.ts';
import { av, type Item } from './ledger-item.ts';
import { LEDGER_PARTITION_KEY } from './ledger-table.ts';
import type { UpdateAction } from './update-expression.ts';

/** One conditional update: what to set and under which condition. */
export interface ConditionalUpdate {
  /** The item's partition key. */
  readonly key: string;
  /** `SET …`, `REMOVE …`, `ADD …`, `DELETE …` clauses. */
  readonly update: string;
  /** The condition; omitted means unconditional. */
  readonly condition?: string;
  readonly names?: Record<string, string>;
  readonly values?: Item;
  /** Return the item as written (`ALL_NEW`) or as it was (`ALL_OLD`). @default nothing */
  readonly returnValues?: 'ALL_NEW' | 'ALL_OLD';
  /**
   * What a refusal reads back: the whole item (the default: `ReturnValuesOnConditionCheckFailure`,
   * or one consistent read), only these attributes (one consistent read that projects them and
   * asks DynamoDB for nothing more: what a grant limited by `dynamodb:Attributes` allows), or
   * nothing at all.
   * @default 'item'
   */
  readonly onRefusal?: 'item' | 'nothing' | { readonly attributes: readonly string[] };
  /**
   * What `update` does, attribute by attribute, as its builder knows (`UpdateExpression.build`),
   * for whoever wraps a store and would otherwise parse the expression (the simulation's query
   * memo). Never sent to DynamoDB; absent, nothing is known of the update's effect.
   * @default undefined
   */
  readonly actions?: readonly UpdateAction[];
}

/** What a conditional update did: applied (with the item when asked), or refused. */
export type UpdateResult =
  | { readonly applied: true; readonly item: Item | undefined }
  | { readonly applied: false; readonly current: Item | undefined };

/** The ledger table, reached through a handful of calls every ledger operation is made of. */
export interface LedgerStore {
  /**
   * A conditional `UpdateItem`. When the condition fails, the item that refused it comes back
   * (`ReturnValuesOnConditionCheckFailure`, or one consistent read where the store ignores
   * that parameter, as dynalite does).
   */
  update(request: ConditionalUpdate): Promise<UpdateResult>;
  /**
   * A strongly consistent read of one item: all of it, or only `attributes` (a projection, for
   * a grant limited by `dynamodb:Attributes`).
   */
  get(key: string, attributes?: readonly string[]): Promise<Item | undefined>;
  /** Batched reads (`BatchGetItem`, ≤ 100 keys a request), absent keys absent. */
  batchGet(keys: readonly string[], consistent: boolean): Promise<Map<string, Item>>;
  /** One page of a query on an index, up to `limit` items. */
  query(request: {
    readonly index: string;
    readonly keyCondition: string;
    readonly names: Record<string, string>;
    readonly values: Item;
    readonly limit: number;
    readonly filter?: string;
    readonly newestFirst?: boolean;
  }): Promise<Item[]>;
}

/** How to reach the table. */
export interface LedgerStoreOptions {
  readonly client: Pick<DynamoDBClient, 'send'>;
  readonly tableName: string;
  /**
   * Whether the store returns the refusing item with a failed condition. DynamoDB and DynamoDB
   * Local do; dynalite ignores the parameter and then one consistent read fetches the item.
   * @default true (falls back per call when the item does not come back)
   */
  readonly returnValuesOnConditionCheckFailure?: boolean;
}

/** `BatchGetItem`'s limit on keys per request (DynamoDB API reference, BatchGetItem). */
const BATCH_GET_LIMIT = 100;
/** Rounds of `UnprocessedKeys` retried before the read is given up as throttled. */
const MAX_UNPROCESSED_ROUNDS = 8;

/** BatchGetItem kept returning UnprocessedKeys. */
export class LedgerThrottledError extends LedgerError {
  readonly unprocessedKeys: number;
  constructor(unprocessedKeys: number) {
    super(`ledger batch read left ${unprocessedKeys} key(s) unprocessed after retries`);
    this.unprocessedKeys = unprocessedKeys;
  }
}

function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException'
  );
}

/**
 * The DynamoDB ledger store.
 *
 * @example
 * const store = createLedgerStore({ client: new DynamoDBClient({}), tableName: 'ledger' });
 * await store.update({ key: 'job#daily', update: 'SET watermarkAt = :at',
 *   values: { ':at': { S: '2023-03-26T01:30:00.000Z' } } });
 * //=> { applied: true, item: undefined }
 */
export function createLedgerStore(options: LedgerStoreOptions): LedgerStore {
  return {
    update: (request) => updateItem(options, request),
    get: (key, attributes) => getItem(options, key, attributes),
    batchGet: (keys, consistent) => batchGetItems(options, keys, consistent),
    query: (request) => queryIndex(options, request),
  };
}

/** The table's key of the item with partition key `key`. */
function keyOf(key: string): Item {
  return { [LEDGER_PARTITION_KEY]: av.s(key) };
}

/**
 * One `UpdateItem`; a refusal brings back the refusing item (`LedgerStore.update`). The command
 * is made field by field, so what is the store's alone (`actions`, `onRefusal`) never reaches
 * DynamoDB.
 */
async function updateItem(
  options: LedgerStoreOptions,
  request: ConditionalUpdate,
): Promise<UpdateResult> {
  const names = request.names ?? {};
  const values = request.values ?? {};
  const onRefusal = request.onRefusal ?? 'item';
  const askForOld = onRefusal === 'item' && (options.returnValuesOnConditionCheckFailure ?? true);
  try {
    const out = await options.client.send(
      new UpdateItemCommand({
        TableName: options.tableName,
        Key: keyOf(request.key),
        UpdateExpression: request.update,
        ...(request.condition ? { ConditionExpression: request.condition } : {}),
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        ...(request.returnValues ? { ReturnValues: request.returnValues } : {}),
        ...(askForOld && request.condition
          ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }
          : {}),
      }),
    );
    return { applied: true, item: out.Attributes };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (onRefusal === 'nothing') return { applied: false, current: undefined };
    const attributes = onRefusal === 'item' ? undefined : onRefusal.attributes;
    return {
      applied: false,
      current: error.Item ?? (await getItem(options, request.key, attributes)),
    };
  }
}

/** One strongly consistent `GetItem`, of the attributes asked for (`LedgerStore.get`). */
async function getItem(
  options: LedgerStoreOptions,
  key: string,
  attributes?: readonly string[],
): Promise<Item | undefined> {
  const projection = attributes ? projectionOf(attributes) : {};
  const out = await options.client.send(
    new GetItemCommand({
      TableName: options.tableName,
      Key: keyOf(key),
      ConsistentRead: true,
      ...projection,
    }),
  );
  return out.Item;
}

/** A `ProjectionExpression` of these attributes, each through a name placeholder. */
function projectionOf(attributes: readonly string[]) {
  const names = Object.fromEntries(attributes.map((a, i) => [`#p${i}`, a]));
  return {
    ProjectionExpression: Object.keys(names).join(', '),
    ExpressionAttributeNames: names,
  };
}

/** `BatchGetItem` in chunks of 100 distinct keys (`LedgerStore.batchGet`). */
async function batchGetItems(
  options: LedgerStoreOptions,
  keys: readonly string[],
  consistent: boolean,
): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += BATCH_GET_LIMIT) {
    await batchGetChunk(options, unique.slice(i, i + BATCH_GET_LIMIT), consistent, found);
  }
  return found;
}

/** One `BatchGetItem` of ≤ 100 keys into `found`, its unprocessed keys retried with backoff. */
async function batchGetChunk(
  options: LedgerStoreOptions,
  keys: string[],
  consistent: boolean,
  found: Map<string, Item>,
) {
  const { client, tableName } = options;
  let pending: Item[] = keys.map(keyOf);
  for (let round = 0; pending.length > 0; round++) {
    if (round >= MAX_UNPROCESSED_ROUNDS) throw new LedgerThrottledError(pending.length);
    if (round > 0) await new Promise((r) => setTimeout(r, 20 * 2 ** round));
    const out: BatchGetItemCommandOutput = await client.send(
      new BatchGetItemCommand({
        RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistent } },
      }),
    );
    for (const item of out.Responses?.[tableName] ?? []) {
      const pk = item[LEDGER_PARTITION_KEY];
      if (pk && 'S' in pk && pk.S) found.set(pk.S, item);
    }
    pending = out.UnprocessedKeys?.[tableName]?.Keys ?? [];
  }
}

/** One page of a `Query` on an index (`LedgerStore.query`). */
async function queryIndex(
  options: LedgerStoreOptions,
  request: Parameters<LedgerStore['query']>[0],
): Promise<Item[]> {
  const out = await options.client.send(
    new QueryCommand({
      TableName: options.tableName,
      IndexName: request.index,
      KeyConditionExpression: request.keyCondition,
      ...(request.filter ? { FilterExpression: request.filter } : {}),
      ExpressionAttributeNames: request.names,
      ExpressionAttributeValues: request.values,
      Limit: request.limit,
      ScanIndexForward: !request.newestFirst,
    }),
  );
  return out.Items ?? [];
}
