import { createSqsDeadLetters } from '#jobs/dead-letters.ts';
import { JOBS_BUNDLE_FILE, openJobsBundle } from '#jobs/jobs-bundle.ts';
import { createLedgerStore, createRecorderLedger, createSnsNotifier } from '#ledger/index.ts';
import { createAwsClients } from '#shared/aws-clients.ts';
import { requiredEnv } from '#shared/env.ts';
import { createLogger } from '#shared/logger.ts';
import { createMetrics } from '#shared/metrics.ts';
import { createRecorder, type RecordOutcome } from './record.ts';

// Read on first use: a tick parses only its own job's line (architecture §7).
const { catalog: jobs } = openJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));
const stackName = requiredEnv('STACK_NAME');
const clients = createAwsClients();
const metrics = createMetrics({ stackName, jobs });

const recorder = createRecorder({
  clock: () => new Date(),
  jobs,
  ledger: createRecorderLedger(
    createLedgerStore({ client: clients.dynamodb, tableName: requiredEnv('LEDGER_TABLE_NAME') }),
  ),
  deadLetters: createSqsDeadLetters(clients.sqs, requiredEnv('DLQ_URL')),
  notifier: createSnsNotifier(clients.sns, requiredEnv('NOTIFY_TOPIC_ARN')),
  logger: createLogger('zonecron-recorder'),
  metrics,
  stackName,
});

/**
 * The recorder Lambda: results of `lambda` targets' asynchronous invocations (through the
 * default event bus) and Step Functions `Execution Status Change` events, turned into the
 * run's terminal ledger state by {@link createRecorder}.
 *
 * Environment: `STACK_NAME`, `LEDGER_TABLE_NAME`, `DLQ_URL`, `NOTIFY_TOPIC_ARN`. A thrown error
 * (the ledger unreachable) makes the event be retried; races never throw.
 */
export async function handler(event: unknown): Promise<RecordOutcome> {
  try {
    return await recorder.handle(event);
  } finally {
    metrics.flush();
  }
}
