import { createSqsDeadLetters } from '#jobs/dead-letters.ts';
import { JOBS_BUNDLE_FILE, openJobsBundle } from '#jobs/jobs-bundle.ts';
import {
  createDynamoLedger,
  createLedgerStore,
  createSnsNotifier,
  createZoneDriftLedger,
} from '#ledger/index.ts';
import { createAwsClients } from '#shared/aws-clients.ts';
import { DEFAULT_LEASE_SECONDS, DEFAULT_RETENTION_DAYS } from '#shared/defaults.ts';
import { positiveNumberEnv, requiredEnv } from '#shared/env.ts';
import { createLogger } from '#shared/logger.ts';
import { createMetrics } from '#shared/metrics.ts';
import { createZoneDriftCheck } from '#zone-drift/zone-drift-check.ts';
import { useHolidaySource } from '../calendar/holiday-source.ts';
import { createDispatcher, type DispatchResult } from './dispatch.ts';
import { createTargetDelivery } from './targets/index.ts';

// The jobs file the stack ships beside the bundle (architecture §7); none when run from source.
// Read on first use: a tick parses only its own job's line, the sweep's zone-data check all.
const bundle = openJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));
const jobs = bundle.catalog;
// The jobs' calendars read their holidays from the bundle's table.
useHolidaySource(bundle.holidays);
const stackName = requiredEnv('STACK_NAME');

const clients = createAwsClients();
const store = createLedgerStore({
  client: clients.dynamodb,
  tableName: requiredEnv('LEDGER_TABLE_NAME'),
});
const clock = () => new Date();
const notifier = createSnsNotifier(clients.sns, requiredEnv('NOTIFY_TOPIC_ARN'));
const logger = createLogger('zonecron-dispatcher');
const metrics = createMetrics({ stackName, jobs });
const dispatcher = createDispatcher({
  clock,
  jobs,
  ledger: createDynamoLedger(store),
  targets: createTargetDelivery(clients),
  deadLetters: createSqsDeadLetters(clients.sqs, requiredEnv('DLQ_URL')),
  notifier,
  logger,
  metrics,
  stackName,
  // Built now, computed at the first sweep: the cold start does not pay for it.
  zoneDrift: createZoneDriftCheck({
    recorded: () => ({ ...bundle.header(), jobs: jobs.all() }),
    ledger: createZoneDriftLedger(store),
    notifier,
    logger,
    metrics,
    clock,
    stackName,
  }),
  options: {
    retentionDays: positiveNumberEnv('RETENTION_DAYS', DEFAULT_RETENTION_DAYS),
    // The stack sets it from the function's timeout (lease > timeout).
    leaseSeconds: positiveNumberEnv('LEASE_SECONDS', DEFAULT_LEASE_SECONDS),
  },
});

/**
 * The dispatcher Lambda's entry: per-job ticks and the one-minute sweep.
 *
 * Deps are built once per container, above. A thrown error (DynamoDB unreachable) makes Lambda
 * retry the event; a failed delivery does not throw, the sweep retries it.
 */
export async function handler(event: unknown): Promise<DispatchResult> {
  return dispatcher.handle(event);
}
