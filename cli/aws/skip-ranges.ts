import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SkipRangesRead } from '../deployed/run-reads.ts';

/**
 * A job's skip ranges (the items that stand for the older skipped runs of a long gap,
 * docs/architecture.md §5) that end after `since`, so overlap `[since, now]`: one query of
 * the `byJob` index under `skips#<jobId>`, newest first, page by page up to `limit`. What
 * `history` and `describe` show beside the runs that have items of their own.
 *
 * @example
 * await readSkipRanges(client, 'zonecron-ledger', 'minutely', { since, limit: 100 })
 * //=> { ranges: [{ jobId: 'minutely', afterMs: …, beforeMs: …, runs: 11423, … }], truncated: false }
 */
export async function readSkipRanges(
  client: Pick<DynamoDBClient, 'send'>,
  table: string,
  jobId: string,
  query: { readonly since: Date; readonly limit: number },
): Promise<SkipRangesRead> {
  const { decodeSkipRange, SKIP_RANGE_PREFIX } = await import('#ledger/index.ts');
  const { queryByJob } = await import('./job-runs.ts');
  const page = await queryByJob(client, table, `${SKIP_RANGE_PREFIX}${jobId}`, query, (item) =>
    decodeSkipRange(jobId, item),
  );
  return { ranges: page.items, truncated: page.truncated };
}
