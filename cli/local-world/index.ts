/**
 * One local world: the dispatcher and recorder cores wired outside Lambda, on one ledger table,
 * the way their handlers wire them (docs/architecture.md §7). `zonecron simulate` builds its
 * execution environments and recorders here, the operating commands (and so `sandbox`) their
 * dispatcher, and the test suite its harness.
 *
 * What differs between them is passed in, never chosen here: the clock, the ledger (the
 * simulation wraps it in faults and watches), the targets (real, simulated or recording), the
 * dead-letter queue and notifier, the options (a test or a simulation retries without waiting;
 * an operator's command waits for real).
 */

import type { DeadLetters } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import {
  createDynamoLedger,
  createRecorderLedger,
  createZoneDriftLedger,
  type Ledger,
  type LedgerStore,
  type Notifier,
  type RecorderLedger,
  type ZoneDriftLedger,
} from '#ledger/index.ts';
import { type AppLogger, RecordingLogger } from '#shared/logger.ts';
import { type AppMetrics, RecordingMetrics } from '#shared/metrics.ts';
import type { ZoneDriftCheck } from '#zone-drift/zone-drift-check.ts';
import type { DispatcherOptions } from '../../functions/dispatcher/context.ts';
import { createDispatcher, type Dispatcher } from '../../functions/dispatcher/dispatch.ts';
import type { TargetDelivery } from '../../functions/dispatcher/targets/index.ts';
import { createRecorder, type RecordOutcome } from '../../functions/recorder/record.ts';

/** What a world's dispatcher and recorder share: one stack, its jobs, a clock, where failures go. */
export interface LocalWorld {
  readonly clock: () => Date;
  readonly jobs: readonly JobDefinition[];
  /** The stack's name: in every envelope, notification and command it prints. */
  readonly stackName: string;
  readonly deadLetters: DeadLetters;
  readonly notifier: Notifier;
}

/** The ledgers each part of a world reads and writes, all on one table's store. */
export interface TableLedgers {
  readonly dispatcher: Ledger;
  readonly recorder: RecorderLedger;
  /** The sweep's zone-data check's. */
  readonly zoneDrift: ZoneDriftLedger;
}

/**
 * The ledgers of one table, as the dispatcher, the recorder and the zone-data check use it.
 *
 * @example
 * const ledgers = tableLedgers(createLedgerStore({ client, tableName: 'zonecron-ledger' }));
 * await ledgers.dispatcher.getRun(key);
 */
export function tableLedgers(store: LedgerStore): TableLedgers {
  return {
    dispatcher: createDynamoLedger(store),
    recorder: createRecorderLedger(store),
    zoneDrift: createZoneDriftLedger(store),
  };
}

/** A function core of a world, with the logger and metrics it writes to. */
export interface LocalFunction<F, L extends AppLogger, M extends AppMetrics> {
  readonly core: F;
  readonly logger: L;
  readonly metrics: M;
}

/** What a world's dispatcher has of its own. */
export interface LocalDispatcherParts<L extends AppLogger, M extends AppMetrics> {
  readonly ledger: Ledger;
  readonly targets: TargetDelivery;
  /** @default a `RecordingLogger` */
  readonly logger?: L;
  /** @default a `RecordingMetrics` */
  readonly metrics?: M;
  /** The sweep's zone-data check. @default none, as for a handler without a jobs bundle */
  readonly zoneDrift?: ZoneDriftCheck;
  /** @default the dispatcher's defaults (real waits between in-invocation retries) */
  readonly options?: Partial<DispatcherOptions>;
}

/**
 * The dispatcher core of a world, as `handler.ts` builds it from its deps.
 *
 * @example
 * const { core: dispatcher, logger } = localDispatcher(world, { ledger, targets });
 * await dispatcher.handle(tick);
 */
export function localDispatcher<
  L extends AppLogger = RecordingLogger,
  M extends AppMetrics = RecordingMetrics,
>(world: LocalWorld, parts: LocalDispatcherParts<L, M>): LocalFunction<Dispatcher, L, M> {
  const { logger, metrics } = withRecorders(parts);
  const core = createDispatcher({
    clock: world.clock,
    jobs: world.jobs,
    ledger: parts.ledger,
    targets: parts.targets,
    deadLetters: world.deadLetters,
    notifier: world.notifier,
    logger,
    metrics,
    stackName: world.stackName,
    ...(parts.zoneDrift ? { zoneDrift: parts.zoneDrift } : {}),
    ...(parts.options ? { options: parts.options } : {}),
  });
  return { core, logger, metrics };
}

/** The parts' logger and metrics, or recording ones when a caller brings none. */
function withRecorders<L extends AppLogger, M extends AppMetrics>(parts: {
  readonly logger?: L;
  readonly metrics?: M;
}): { logger: L; metrics: M } {
  return {
    logger: parts.logger ?? (new RecordingLogger() as AppLogger as L),
    metrics: parts.metrics ?? (new RecordingMetrics() as AppMetrics as M),
  };
}

/** The recorder core: what reads a target's report of a finished run. */
export interface Recorder {
  handle(event: unknown): Promise<RecordOutcome>;
}

/** What a world's recorder has of its own. */
export interface LocalRecorderParts<L extends AppLogger, M extends AppMetrics> {
  readonly ledger: RecorderLedger;
  /** @default a `RecordingLogger` */
  readonly logger?: L;
  /** @default a `RecordingMetrics` */
  readonly metrics?: M;
  /** Waits of the in-invocation retries of ledger writes. @default real time */
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * The recorder core of a world, as its handler builds it: same clock, jobs, dead-letter queue
 * and notifier as the world's dispatcher.
 *
 * @example
 * const { core: recorder } = localRecorder(world, { ledger: ledgers.recorder });
 * await recorder.handle(lambdaResultEvent);
 */
export function localRecorder<
  L extends AppLogger = RecordingLogger,
  M extends AppMetrics = RecordingMetrics,
>(world: LocalWorld, parts: LocalRecorderParts<L, M>): LocalFunction<Recorder, L, M> {
  const { logger, metrics } = withRecorders(parts);
  const core = createRecorder({
    clock: world.clock,
    jobs: world.jobs,
    ledger: parts.ledger,
    deadLetters: world.deadLetters,
    notifier: world.notifier,
    logger,
    metrics,
    stackName: world.stackName,
    ...(parts.sleep ? { sleep: parts.sleep } : {}),
  });
  return { core, logger, metrics };
}
