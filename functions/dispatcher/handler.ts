import { createAwsClients } from '../shared/aws-clients.ts';
import { createSqsDeadLetters } from '../shared/dead-letters.ts';
import { DEFAULT_LEASE_SECONDS, DEFAULT_RETENTION_DAYS } from '../shared/defaults.ts';
import { positiveNumberEnv, requiredEnv } from '../shared/env.ts';
import { dedicatedJobIds } from '../shared/job.ts';
import { JOBS_BUNDLE_FILE, loadJobsBundle } from '../shared/jobs-bundle.ts';
import { createLogger } from '../shared/logger.ts';
import { createMetrics } from '../shared/metrics.ts';
import { createDispatcher, type DispatchResult } from './dispatch.ts';
import { createDynamoLedger } from './ledger.ts';
import { createTargetDelivery } from './targets/index.ts';

// The jobs file the stack ships beside the bundle (architecture §7); none when run from source.
const { jobs } = loadJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));

const clients = createAwsClients();
const logger = createLogger('zonecron-dispatcher');
const dispatcher = createDispatcher({
  clock: () => new Date(),
  jobs,
  ledger: createDynamoLedger({
    client: clients.dynamodb,
    tableName: requiredEnv('LEDGER_TABLE_NAME'),
  }),
  targets: createTargetDelivery(clients),
  deadLetters: createSqsDeadLetters(clients.sqs, requiredEnv('DLQ_URL')),
  logger,
  metrics: createMetrics({
    stackName: requiredEnv('STACK_NAME'),
    dedicatedJobIds: dedicatedJobIds(jobs),
  }),
  options: {
    retentionDays: positiveNumberEnv('RETENTION_DAYS', DEFAULT_RETENTION_DAYS),
    // Optional: the stack may set it from the function's timeout (lease > timeout).
    leaseSeconds: positiveNumberEnv('LEASE_SECONDS', DEFAULT_LEASE_SECONDS),
  },
});

/**
 * The dispatcher Lambda's entry: per-job ticks and the one-minute sweep.
 *
 * Deps are built once per container, above. A thrown error (a delivery to retry, DynamoDB
 * unreachable) makes EventBridge Scheduler retry the event.
 */
export async function handler(event: unknown): Promise<DispatchResult> {
  return dispatcher.handle(event);
}
