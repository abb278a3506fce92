import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** Partition key of the ledger table: a run key (`periodBucket`) or `watermark#<jobId>`. */
export const LEDGER_PARTITION_KEY = 'pk';

/** Name of the sparse secondary index that serves a job's history, newest first. */
export const LEDGER_BY_JOB_INDEX = 'byJob';

/** Partition key of `byJob`. */
export const LEDGER_BY_JOB_PARTITION_KEY = 'jobId';

/** Sort key of `byJob`: the run's UTC instant, ISO 8601 with milliseconds. */
export const LEDGER_BY_JOB_SORT_KEY = 'at';

/** The table's TTL attribute (epoch seconds). */
export const LEDGER_TTL_ATTRIBUTE = 'ttlEpochSec';

/** Prefix of the per-job watermark item's partition key. */
export const WATERMARK_KEY_PREFIX = 'watermark#';

/**
 * The ledger table's key schema and index, minus the name.
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
    ],
  };
}
