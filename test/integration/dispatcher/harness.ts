import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DispatcherOptions } from '../../../functions/dispatcher/deliver-run.ts';
import { createDispatcher, type Dispatcher } from '../../../functions/dispatcher/dispatch.ts';
import { createDynamoLedger, type Ledger } from '../../../functions/dispatcher/ledger.ts';
import type { TargetDelivery } from '../../../functions/dispatcher/targets/index.ts';
import type { DeadLetters } from '../../../functions/shared/dead-letters.ts';
import type { JobDefinition } from '../../../functions/shared/job.ts';
import { RecordingLogger } from '../../../functions/shared/logger.ts';
import { RecordingMetrics } from '../../../functions/shared/metrics.ts';
import { RecordingDeadLetters, type TestClock } from '../../support/doubles.ts';

/** One dispatcher "container" on a DynamoDB Local table, with recording logger and metrics. */
export interface Harness {
  readonly dispatcher: Dispatcher;
  readonly ledger: Ledger;
  readonly logger: RecordingLogger;
  readonly metrics: RecordingMetrics;
}

/** What every dispatcher of one scenario shares. */
export interface HarnessSetup {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly clock: TestClock;
  readonly jobs: readonly JobDefinition[];
  readonly targets: TargetDelivery;
  readonly deadLetters?: DeadLetters;
  readonly options?: Partial<DispatcherOptions>;
}

/** Builds one dispatcher the way `handler.ts` does, with test doubles for the target and the dead-letter queue. */
export function harness(setup: HarnessSetup): Harness {
  const ledger = createDynamoLedger({ client: setup.client, tableName: setup.tableName });
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const dispatcher = createDispatcher({
    clock: setup.clock.now,
    jobs: setup.jobs,
    ledger,
    targets: setup.targets,
    deadLetters: setup.deadLetters ?? new RecordingDeadLetters(),
    logger,
    metrics,
    ...(setup.options ? { options: setup.options } : {}),
  });
  return { dispatcher, ledger, logger, metrics };
}

/** A per-job tick as EventBridge Scheduler sends it. */
export function tick(jobId: string, scheduledTime: string, attempt = 1) {
  return { jobId, scheduledTime, executionId: `exec-${scheduledTime}-${attempt}`, attempt };
}
