import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunItem } from '#ledger/index.ts';

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
  query: { readonly since?: Date; readonly limit: number },
): Promise<RunItem[]> {
  const { QueryCommand } = await import('@aws-sdk/client-dynamodb');
  const { decodeRun, LEDGER_BY_JOB_INDEX, LEDGER_BY_JOB_PARTITION_KEY, LEDGER_BY_JOB_SORT_KEY } =
    await import('#ledger/index.ts');
  const since = query.since;
  const runs: RunItem[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const out = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: LEDGER_BY_JOB_INDEX,
        KeyConditionExpression: since ? '#job = :job AND #at >= :since' : '#job = :job',
        ExpressionAttributeNames: {
          '#job': LEDGER_BY_JOB_PARTITION_KEY,
          ...(since ? { '#at': LEDGER_BY_JOB_SORT_KEY } : {}),
        },
        ExpressionAttributeValues: {
          ':job': { S: jobId },
          ...(since ? { ':since': { S: since.toISOString() } } : {}),
        },
        ScanIndexForward: false,
        Limit: query.limit - runs.length,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of out.Items ?? []) runs.push(decodeRun(item));
    startKey = out.LastEvaluatedKey;
  } while (startKey && runs.length < query.limit);
  return runs;
}
