import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * Partition key of the ledger table: a run key (`periodBucket`), `job#<jobId>` (the job's state),
 * `sweep#cursor`, `ops#…` (operator events) or `zone-drift#…` (docs/architecture.md §5).
 */
export const LEDGER_PARTITION_KEY = 'pk';

/** Name of the sparse secondary index that serves a job's history, newest first. */
export const LEDGER_BY_JOB_INDEX = 'byJob';

/** Partition key of `byJob`. */
export const LEDGER_BY_JOB_PARTITION_KEY = 'jobId';

/** Sort key of `byJob`: the run's UTC instant, ISO 8601 with milliseconds. */
export const LEDGER_BY_JOB_SORT_KEY = 'at';

/** The table's TTL attribute (epoch seconds). */
export const LEDGER_TTL_ATTRIBUTE = 'ttlEpochSec';

/**
 * Name of the sparse secondary index of open runs: every run item that still needs someone
 * to act on it (a claim that may expire, a failed attempt to retry, a delivered run awaiting
 * completion, a notification to send) carries its key attributes; a finished run drops them.
 * The sweep queries it for what is due, whatever the run's age.
 */
export const LEDGER_OPEN_INDEX = 'byOpen';

/** Partition key of `byOpen`: `open#<n>`, one of {@link LEDGER_OPEN_SHARDS} values. */
export const LEDGER_OPEN_PARTITION_KEY = 'openShard';

/** Sort key of `byOpen`: when the run next needs attention, epoch milliseconds. */
export const LEDGER_OPEN_SORT_KEY = 'checkAtEpochMs';

/**
 * How many partition key values `byOpen` spreads open runs over.
 *
 * One partition takes at most 1,000 write units per second (DynamoDB developer guide,
 * "Partitions and data distribution"), and an index whose partition key has few values should
 * spread its writes ("Using write sharding to distribute workloads evenly"). A run writes the
 * index twice on its way through (claim, then dispatched); a top-of-the-hour burst of 5,000
 * runs in a minute is about 170 index writes a second, under 50 per shard with four. Each
 * shard costs the sweep one query a minute.
 */
export const LEDGER_OPEN_SHARDS = 4;

/**
 * The ledger table's key schema and indexes, minus the name.
 *
 * The tests and the CLI simulation create the table from this; the CDK stack mirrors the same
 * constants (`LEDGER_*`), so the three can never disagree. TTL is set separately
 * (`UpdateTimeToLive` on {@link LEDGER_TTL_ATTRIBUTE}); DynamoDB Local ignores it anyway.
 *
 * @example
 * await ddb.send(new CreateTableCommand(ledgerTableDefinition('zonecron-ledger')));
 */
export function ledgerTableDefinition(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: LEDGER_PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: LEDGER_BY_JOB_PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: LEDGER_BY_JOB_SORT_KEY, AttributeType: 'S' },
      { AttributeName: LEDGER_OPEN_PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: LEDGER_OPEN_SORT_KEY, AttributeType: 'N' },
    ],
    KeySchema: [{ AttributeName: LEDGER_PARTITION_KEY, KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [
      {
        IndexName: LEDGER_BY_JOB_INDEX,
        KeySchema: [
          { AttributeName: LEDGER_BY_JOB_PARTITION_KEY, KeyType: 'HASH' },
          { AttributeName: LEDGER_BY_JOB_SORT_KEY, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: LEDGER_OPEN_INDEX,
        KeySchema: [
          { AttributeName: LEDGER_OPEN_PARTITION_KEY, KeyType: 'HASH' },
          { AttributeName: LEDGER_OPEN_SORT_KEY, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}
