import { createAwsClients } from '../shared/aws-clients.ts';
import type { JobDefinition } from '../shared/job.ts';
import { createLogger } from '../shared/logger.ts';
import { createMetrics } from '../shared/metrics.ts';
import { createSqsDeadLetters } from './dead-letters.ts';
import { createDispatcher, type DispatchResult } from './dispatch.ts';
import { createDynamoLedger } from './ledger.ts';
import { createTargetDelivery } from './targets/index.ts';

/** The jobs, inlined by esbuild's `define` at bundle time (architecture §7). */
declare const __ZONECRON_JOBS__: readonly JobDefinition[] | undefined;

/** A required environment variable is missing. */
export class MissingEnvironmentError extends Error {
  readonly variable: string;
  constructor(variable: string) {
    super(`environment variable '${variable}' is not set`);
    this.name = new.target.name;
    this.variable = variable;
  }
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new MissingEnvironmentError(name);
  return value;
}

function positiveNumber(name: string): number | undefined {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

// Unbundled (tests, tsx) the constant does not exist; the handler then runs with no jobs.
const jobs: readonly JobDefinition[] =
  typeof __ZONECRON_JOBS__ === 'undefined' ? [] : __ZONECRON_JOBS__;

const clients = createAwsClients();
const logger = createLogger('zonecron-dispatcher');
const dispatcher = createDispatcher({
  clock: () => new Date(),
  jobs,
  ledger: createDynamoLedger({ client: clients.dynamodb, tableName: env('LEDGER_TABLE_NAME') }),
  targets: createTargetDelivery(clients),
  deadLetters: createSqsDeadLetters(clients.sqs, env('DLQ_URL')),
  logger,
  metrics: createMetrics(),
  options: {
    retentionDays: positiveNumber('RETENTION_DAYS') ?? 35,
    // Optional: the stack may set it from the function's timeout (lease > timeout).
    leaseSeconds: positiveNumber('LEASE_SECONDS') ?? 300,
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
