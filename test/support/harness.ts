import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeadLetters } from '#jobs/dead-letters.ts';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { createLedgerStore, type Ledger, RecordingNotifier } from '#ledger/index.ts';
import { RecordingLogger } from '#shared/logger.ts';
import { RecordingMetrics } from '#shared/metrics.ts';
import {
  createZoneDriftCheck,
  type RecordedZoneData,
  type RuntimeZoneData,
} from '#zone-drift/zone-drift-check.ts';
import {
  type LocalWorld,
  localDispatcher,
  localRecorder,
  type Recorder,
  type TableLedgers,
  tableLedgers,
} from '../../cli/local-world/index.ts';
import type { DispatcherOptions } from '../../functions/dispatcher/context.ts';
import type { Dispatcher } from '../../functions/dispatcher/dispatch.ts';
import type { TargetDelivery } from '../../functions/dispatcher/targets/index.ts';
import type { RecordOutcome } from '../../functions/recorder/record.ts';
import { RecordingDeadLetters, RecordingTargets, type TestClock } from './doubles.ts';

/** The stack name every harness runs as. */
export const TEST_STACK = 'Test';

/** One dispatcher "container" on a ledger table, with recording logger, metrics and notifier. */
export interface Harness {
  readonly dispatcher: Dispatcher;
  readonly ledger: Ledger;
  readonly logger: RecordingLogger;
  readonly metrics: RecordingMetrics;
  readonly notifier: RecordingNotifier;
}

/** What every dispatcher of one scenario shares. */
export interface HarnessSetup {
  readonly client: Pick<DynamoDBClient, 'send'>;
  readonly tableName: string;
  readonly clock: TestClock;
  readonly jobs: readonly JobDefinition[];
  readonly targets: TargetDelivery;
  readonly deadLetters?: DeadLetters;
  readonly notifier?: RecordingNotifier;
  readonly options?: Partial<DispatcherOptions>;
  /**
   * What synth recorded (a jobs bundle), for the sweep's zone-data check, and the runtime's
   * side (default: this Node.js). Absent: no check, as for a bundle-less handler.
   */
  readonly zoneData?: {
    readonly recorded: RecordedZoneData;
    readonly runtime?: RuntimeZoneData;
  };
}

/** The world a harness runs in: its table's ledgers, the stack, the clock and the doubles. */
interface HarnessWorld extends LocalWorld {
  readonly ledgers: TableLedgers;
}

function harnessWorld(
  setup: Omit<HarnessSetup, 'targets'>,
  notifier: RecordingNotifier,
  deadLetters: DeadLetters,
): HarnessWorld {
  return {
    clock: setup.clock.now,
    jobs: setup.jobs,
    stackName: TEST_STACK,
    deadLetters,
    notifier,
    ledgers: tableLedgers(createLedgerStore({ client: setup.client, tableName: setup.tableName })),
  };
}

/**
 * Builds one dispatcher the way `handler.ts` does, with doubles for the target, the DLQ and
 * the notifier, and no real waiting in the in-invocation retries.
 */
export function harness(setup: HarnessSetup): Harness {
  const notifier = setup.notifier ?? new RecordingNotifier();
  const deadLetters = setup.deadLetters ?? new RecordingDeadLetters();
  return harnessIn(harnessWorld(setup, notifier, deadLetters), notifier, setup);
}

function harnessIn(
  world: HarnessWorld,
  notifier: RecordingNotifier,
  setup: Pick<HarnessSetup, 'targets' | 'options' | 'zoneData'>,
): Harness {
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const zoneData = setup.zoneData;
  const { core: dispatcher } = localDispatcher(world, {
    ledger: world.ledgers.dispatcher,
    targets: setup.targets,
    logger,
    metrics,
    ...(zoneData
      ? {
          zoneDrift: createZoneDriftCheck({
            recorded: () => zoneData.recorded,
            ledger: world.ledgers.zoneDrift,
            notifier,
            logger,
            metrics,
            clock: world.clock,
            stackName: TEST_STACK,
            ...(zoneData.runtime ? { runtime: zoneData.runtime } : {}),
          }),
        }
      : {}),
    options: { sleep: async () => {}, ...setup.options },
  });
  return { dispatcher, ledger: world.ledgers.dispatcher, logger, metrics, notifier };
}

/** The whole run lifecycle on one ledger table: dispatcher, a recording target, the recorder. */
export interface Lifecycle {
  readonly dispatch: Harness;
  readonly targets: RecordingTargets;
  readonly deadLetters: RecordingDeadLetters;
  readonly notifier: RecordingNotifier;
  readonly recorder: Recorder;
  readonly recorderMetrics: RecordingMetrics;
  readonly recorderLogger: RecordingLogger;
  /**
   * Reports one delivered run finished, the way Lambda does for an asynchronous invocation with
   * an event-bus destination: the invocation record of that very delivery (its request id, the
   * job's function), inside an EventBridge event.
   */
  complete(
    envelope: RunEnvelope,
    finishedAt: Date,
    outcome?: 'Success' | 'RetriesExhausted',
  ): Promise<RecordOutcome>;
}

/** Builds dispatcher + recorder the way their handlers do, on one ledger table. */
export function lifecycle(
  setup: Omit<HarnessSetup, 'targets' | 'deadLetters'> & { deadLetters?: RecordingDeadLetters },
): Lifecycle {
  const targets = new RecordingTargets();
  const deadLetters = setup.deadLetters ?? new RecordingDeadLetters();
  const notifier = setup.notifier ?? new RecordingNotifier();
  const world = harnessWorld(setup, notifier, deadLetters);
  const dispatch = harnessIn(world, notifier, { ...setup, targets });
  const {
    core: recorder,
    logger: recorderLogger,
    metrics: recorderMetrics,
  } = localRecorder(world, { ledger: world.ledgers.recorder });
  const jobs = new Map(setup.jobs.map((job) => [job.id, job]));
  return {
    dispatch,
    targets,
    deadLetters,
    notifier,
    recorder,
    recorderMetrics,
    recorderLogger,
    complete(envelope, finishedAt, outcome = 'Success') {
      const delivery = targets.deliveryOf(envelope.key, envelope.attempt);
      const job = jobs.get(envelope.jobId);
      if (!delivery || !job)
        throw new Error(`no delivery of ${envelope.key} attempt ${envelope.attempt}`);
      return recorder.handle(
        lambdaResult(job.target.arn, delivery.deliveryId, envelope, finishedAt, outcome),
      );
    },
  };
}

/** Lambda's invocation record for one delivery, inside the event the default bus carries. */
export function lambdaResult(
  functionArn: string,
  requestId: string,
  envelope: RunEnvelope,
  finishedAt: Date,
  outcome: 'Success' | 'RetriesExhausted' = 'Success',
) {
  const qualified = functionArn.split(':').length === 7 ? `${functionArn}:$LATEST` : functionArn;
  const failed = outcome !== 'Success';
  return {
    version: '0',
    source: 'lambda',
    'detail-type': `Lambda Function Invocation Result - ${failed ? 'Failure' : 'Success'}`,
    time: finishedAt.toISOString(),
    detail: {
      version: '1.0',
      timestamp: finishedAt.toISOString(),
      requestContext: {
        requestId,
        functionArn: qualified,
        condition: outcome,
        approximateInvokeCount: failed ? 3 : 1,
      },
      requestPayload: envelope,
      responseContext: {
        statusCode: 200,
        executedVersion: '$LATEST',
        ...(failed ? { functionError: 'Unhandled' } : {}),
      },
      responsePayload: failed ? { errorType: 'Error', errorMessage: 'boom' } : null,
    },
  };
}

/** A per-job tick as EventBridge Scheduler sends it (the attempt number quoted, as templated). */
export function tickEvent(jobId: string, scheduledAt: Date | string, attempt = 1) {
  const iso = typeof scheduledAt === 'string' ? scheduledAt : scheduledAt.toISOString();
  const scheduledTime = iso.replace('.000Z', 'Z');
  return {
    jobId,
    scheduledTime,
    executionId: `exec-${jobId}-${scheduledTime}-${attempt}`,
    attempt: String(attempt),
  };
}

/** The one-minute sweep event. */
export function sweepEvent(scheduledAt: Date | string) {
  const iso = typeof scheduledAt === 'string' ? scheduledAt : scheduledAt.toISOString();
  return { sweep: true, scheduledTime: iso.replace('.000Z', 'Z') };
}

/**
 * Sweeps once a minute over [fromIso, toIso], 20 s into each minute, as the stack's one-minute
 * schedule does.
 *
 * @example
 * await sweepMinutes(h, clock, '2027-01-01T00:00:00Z', '2027-01-01T00:10:00Z'); // 11 sweeps
 */
export async function sweepMinutes(h: Harness, clock: TestClock, fromIso: string, toIso: string) {
  for (let ms = Date.parse(fromIso); ms <= Date.parse(toIso); ms += 60_000) {
    clock.set(new Date(ms + 20_000).toISOString());
    await h.dispatcher.handle(sweepEvent(new Date(ms)));
  }
}
