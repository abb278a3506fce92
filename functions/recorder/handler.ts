import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createAwsClients } from '../shared/aws-clients.ts';
import { createSqsDeadLetters } from '../shared/dead-letters.ts';
import { requiredEnv } from '../shared/env.ts';
import { dedicatedJobIds } from '../shared/job.ts';
import { JOBS_BUNDLE_FILE, loadJobsBundle } from '../shared/jobs-bundle.ts';
import { createLogger } from '../shared/logger.ts';
import { createMetrics } from '../shared/metrics.ts';
import { createDynamoCompletionLedger } from './ledger.ts';
import { createRecorder, type RecordOutcome } from './record.ts';

const clients = createAwsClients();
const { jobs } = loadJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));
const metrics = createMetrics({
  stackName: requiredEnv('STACK_NAME'),
  dedicatedJobIds: dedicatedJobIds(jobs),
});

const recorder = createRecorder({
  clock: () => new Date(),
  ledger: createDynamoCompletionLedger({
    client: DynamoDBDocumentClient.from(clients.dynamodb),
    tableName: requiredEnv('LEDGER_TABLE_NAME'),
  }),
  deadLetters: createSqsDeadLetters(clients.sqs, requiredEnv('DLQ_URL')),
  logger: createLogger('zonecron-recorder'),
  metrics,
});

/**
 * The recorder Lambda: Lambda destination records (success and failure) of `lambda` targets
 * and Step Functions `Execution Status Change` events, turned into the run's terminal ledger
 * state by {@link createRecorder}.
 *
 * Environment: `LEDGER_TABLE_NAME`, `DLQ_URL`. Invoked asynchronously (destinations,
 * EventBridge), so a thrown error is retried by Lambda; only races that a retry resolves
 * throw (see `CompletionBeforeDispatchError`, `DeadLetterPendingError`).
 */
export async function handler(event: unknown): Promise<RecordOutcome> {
  try {
    return await recorder.handle(event);
  } finally {
    metrics.flush();
  }
}
