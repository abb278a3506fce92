import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LEDGER_PARTITION_KEY } from '../shared/ledger-table.ts';
import type { CompletionLedger, CompletionWrite, LedgerRun } from './record.ts';

/** Where the ledger lives and how to reach it. */
export interface DynamoCompletionLedgerProps {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

function toRun(item: Record<string, unknown> | undefined): LedgerRun | undefined {
  if (!item) return undefined;
  const str = (name: string) =>
    typeof item[name] === 'string' ? (item[name] as string) : undefined;
  const lease = item.deadLetterLeaseUntilEpochMs;
  const optional = {
    dispatchedAt: str('dispatchedAt'),
    failure: str('failure'),
    completionId: str('completionId'),
    deadLetteredAt: str('deadLetteredAt'),
    deadLetterLeaseUntilEpochMs: typeof lease === 'number' ? lease : undefined,
  };
  return {
    key: String(item[LEDGER_PARTITION_KEY]),
    jobId: str('jobId') ?? '',
    status: str('status') ?? '',
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
  };
}

/**
 * The recorder's view of the run ledger (architecture §5) on DynamoDB.
 *
 * Every write is conditional, so the ledger itself decides which of several concurrent
 * reports of the same completion wins; the loser reads the stored item back.
 *
 * @example
 * const ledger = createDynamoCompletionLedger({ client: documentClient, tableName: 'zonecron-ledger' });
 * await ledger.getRun('9f86d0…');
 * //=> { key: '9f86d0…', jobId: 'nightly', status: 'dispatched', dispatchedAt: '2026-03-29T01:00:02.113Z', … }
 */
export function createDynamoCompletionLedger(props: DynamoCompletionLedgerProps): CompletionLedger {
  const { client, tableName } = props;
  return {
    async getRun(key) {
      const out = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: { [LEDGER_PARTITION_KEY]: key },
          ConsistentRead: true,
        }),
      );
      return toRun(out.Item);
    },

    async recordCompletion(write: CompletionWrite) {
      const set = [
        '#status = :status',
        'completedAt = :completedAt',
        'durationMs = :durationMs',
        'completionId = :completionId',
      ];
      const values: Record<string, unknown> = {
        ':status': write.status,
        ':completedAt': write.completedAt,
        ':durationMs': write.durationMs,
        ':completionId': write.completionId,
        ':dispatched': 'dispatched',
        ':jobId': write.jobId,
      };
      if (write.status === 'failed') {
        set.push('failure = :failure');
        values[':failure'] = 'execution';
      }
      if (write.lastError !== undefined) {
        set.push('lastError = :lastError');
        values[':lastError'] = write.lastError;
      }
      if (write.deadLetterLeaseUntilEpochMs !== undefined) {
        set.push('deadLetterLeaseUntilEpochMs = :lease');
        values[':lease'] = write.deadLetterLeaseUntilEpochMs;
      }
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { [LEDGER_PARTITION_KEY]: write.key },
            UpdateExpression: `SET ${set.join(', ')}`,
            ConditionExpression:
              'attribute_exists(#pk) AND #status = :dispatched AND jobId = :jobId',
            ExpressionAttributeNames: { '#pk': LEDGER_PARTITION_KEY, '#status': 'status' },
            ExpressionAttributeValues: values,
          }),
        );
        return { recorded: true as const };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) {
          // lib-dynamodb leaves the returned item marshalled; a consistent read is simpler,
          // and a run's state only moves forward, so what it reads is at least as new.
          const current = await this.getRun(write.key);
          return { recorded: false as const, current };
        }
        throw error;
      }
    },

    async acquireDeadLetterLease(key, completionId, nowEpochMs, leaseUntilEpochMs) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { [LEDGER_PARTITION_KEY]: key },
            UpdateExpression: 'SET deadLetterLeaseUntilEpochMs = :until',
            ConditionExpression:
              'completionId = :completionId AND attribute_not_exists(deadLetteredAt) AND ' +
              '(attribute_not_exists(deadLetterLeaseUntilEpochMs) OR deadLetterLeaseUntilEpochMs < :now)',
            ExpressionAttributeValues: {
              ':completionId': completionId,
              ':now': nowEpochMs,
              ':until': leaseUntilEpochMs,
            },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },

    async markDeadLettered(key, completionId, deadLetteredAt) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { [LEDGER_PARTITION_KEY]: key },
          UpdateExpression: 'SET deadLetteredAt = :at REMOVE deadLetterLeaseUntilEpochMs',
          ConditionExpression: 'completionId = :completionId',
          ExpressionAttributeValues: { ':at': deadLetteredAt, ':completionId': completionId },
        }),
      );
    },
  };
}
