import type { AttributeValue, DynamoDBClient, QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import type { RunItem } from '#ledger/index.ts';

/** Items of one `byJob` partition, newest first, and whether `limit` left older ones unread. */
export interface ByJobPage<T> {
  readonly items: T[];
  readonly truncated: boolean;
}

/**
 * One partition of the ledger's `byJob` index, newest first, page by page up to `limit`; with
 * `since`, only the items whose `at` is after it (or at it, when `sinceInclusive`).
 *
 * @example
 * await queryByJob(client, 'zonecron-ledger', 'nightly', { limit: 10 }, decodeRun)
 * //=> { items: [{ key: '9f5b…', … }, …], truncated: false }
 */
export async function queryByJob<T>(
  client: Pick<DynamoDBClient, 'send'>,
  table: string,
  partition: string,
  query: {
    readonly since?: Date;
    readonly sinceInclusive?: boolean;
    /** With `since`: only the items whose `at` is at or before it. */
    readonly until?: Date;
    readonly limit: number;
  },
  decode: (item: Record<string, AttributeValue>) => T,
): Promise<ByJobPage<T>> {
  const { QueryCommand } = await import('@aws-sdk/client-dynamodb');
  const { LEDGER_BY_JOB_INDEX, LEDGER_BY_JOB_PARTITION_KEY, LEDGER_BY_JOB_SORT_KEY } = await import(
    '#ledger/index.ts'
  );
  const since = query.since;
  const after = query.sinceInclusive ? '>=' : '>';
  const until = since ? query.until : undefined;
  const atCondition = until ? '#at BETWEEN :since AND :until' : `#at ${after} :since`;
  const items: T[] = [];
  let startKey: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const out = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: LEDGER_BY_JOB_INDEX,
        KeyConditionExpression: since ? `#job = :job AND ${atCondition}` : '#job = :job',
        ExpressionAttributeNames: {
          '#job': LEDGER_BY_JOB_PARTITION_KEY,
          ...(since ? { '#at': LEDGER_BY_JOB_SORT_KEY } : {}),
        },
        ExpressionAttributeValues: {
          ':job': { S: partition },
          ...(since ? { ':since': { S: since.toISOString() } } : {}),
          ...(until ? { ':until': { S: until.toISOString() } } : {}),
        },
        ScanIndexForward: false,
        Limit: query.limit - items.length,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of out.Items ?? []) items.push(decode(item));
    startKey = out.LastEvaluatedKey;
  } while (startKey && items.length < query.limit);
  return { items, truncated: startKey !== undefined };
}

/**
 * A job's runs from the ledger's `byJob` index, newest first, page by page up to `limit`;
 * with `since`, only the runs at or after it. What `history` and `describe` show.
 *
 * @example
 * await readJobRuns(client, 'zonecron-ledger', 'nightly', { limit: 10 })
 * //=> [{ key: '9f5b…', at: '2027-03-28T01:30:00.000Z', status: 'dispatched', … }, …]
 */
export async function readJobRuns(
  client: Pick<DynamoDBClient, 'send'>,
  table: string,
  jobId: string,
  query: { readonly since?: Date; readonly until?: Date; readonly limit: number },
): Promise<RunItem[]> {
  const { decodeRun } = await import('#ledger/index.ts');
  const page = await queryByJob(
    client,
    table,
    jobId,
    { ...query, sinceInclusive: true },
    decodeRun,
  );
  return page.items;
}
