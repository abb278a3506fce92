import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createDynamoLedger,
  createJobStateLedger,
  createLedgerStore,
  createRecorderLedger,
  decodeRun,
  type JobStateLedger,
  type LedgerStore,
  ledgerTableDefinition,
  type RunItem,
} from '#ledger/index.ts';
import { type JobDefinition, scheduleSpecOf, tracksCompletion } from '#shared/job.ts';
import { RecordingLogger } from '#shared/logger.ts';
import { RecordingMetrics } from '#shared/metrics.ts';
import { createRecorder, type RecordOutcome } from '../../functions/recorder/record.ts';
import {
  type Occurrence,
  occurrencesBetween,
  periodBucket,
} from '../../functions/schedule/index.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import { completionEvent } from './completions.ts';
import { ContainerPool, type LedgerWatch, SIMULATION_STACK } from './containers.ts';
import { type EmbeddedDynamo, startEmbeddedDynamo } from './dynalite.ts';
import { type CoveringTicks, type ScheduledFire, scheduledFires } from './events.ts';
import type { FaultPlan } from './faults.ts';
import {
  type FaultCounts,
  faultCounts,
  runtimeMs,
  type SimulatedDelivery,
  SimulatedTargets,
  throttle,
} from './faulty-parts.ts';
import { createQueryMemo, type QueryMemo } from './query-memo.ts';
import { RecordingDeadLetters, TimedLogger, TimedNotifier } from './recorders.ts';
import { seededRandom } from './seeded-random.ts';
import { Timeline } from './timeline.ts';
import type { SimulationWindow } from './windows.ts';

/** Simulated latency between an event's cause (a fire, a finished run) and its handler. */
export const EVENT_DELAY_MS = 200;

/** Something that happens at a simulated instant (epoch ms). */
export type SimEvent =
  /** A schedule fires: the next fire of the stack's schedules, pulled lazily. */
  | {
      readonly at: number;
      readonly kind: 'fire';
      readonly fire: ScheduledFire;
      readonly extra: boolean;
    }
  /** Lambda runs these invocations concurrently (the copies of one tick race for the claim). */
  | { readonly at: number; readonly kind: 'invoke'; readonly invocations: readonly Invocation[] }
  /** An operator pauses or resumes a job. */
  | {
      readonly at: number;
      readonly kind: 'operator';
      readonly action: 'pause' | 'resume';
      readonly job: string;
      readonly reason: string;
    };

/** One asynchronous invocation of the dispatcher or the recorder function. */
export interface Invocation {
  readonly fn: 'dispatcher' | 'recorder';
  readonly payload: object;
  /** Lambda's attempt at this event: 1, then 2 and 3 for its retries. */
  readonly attempt: number;
  /** For a completion report: the delivery whose run finished. */
  readonly deliveryId?: string;
}

/** What the whole simulation shares across windows: the clock, the faults, what it saw. */
export interface Simulation {
  readonly jobs: readonly JobDefinition[];
  readonly enabled: readonly JobDefinition[];
  readonly plan: FaultPlan;
  readonly duplicateTicks: number;
  readonly clock: () => Date;
  nowMs: number;
  readonly random: { readonly late: () => number; readonly crash: () => number };
  readonly faults: FaultCounts;
  readonly db: EmbeddedDynamo;
  /** The functions' client: throttled when the plan says so. */
  readonly functionsClient: DynamoDBClient;
  /** The operator's and the simulation's own client: never throttled. */
  readonly operatorClient: DynamoDBClient;
  readonly coverings: readonly CoveringTicks[];
  readonly coveringExpressions: ReadonlyMap<string, string>;
  readonly deadLetters: RecordingDeadLetters;
  readonly notifier: TimedNotifier;
  readonly logger: TimedLogger;
  readonly metrics: RecordingMetrics;
  readonly recorderMetrics: RecordingMetrics;
  readonly deliveries: SimulatedDelivery[];
  /** When the run each delivery started finished, by delivery id. */
  readonly completions: Map<string, Date>;
  /** When the recorder took the report of each finished run, by delivery id. */
  readonly reported: Map<string, Date>;
  readonly watch: LedgerWatch;
  readonly duplicatesByKey: Map<string, number>;
  readonly items: Map<string, RunItem>;
  readonly expected: Map<string, Occurrence[]>;
  readonly counts: { ticks: number; sweeps: number; events: number };
  readonly memoStats: { answered: number; probed: number; passed: number };
  coldStarts: number;
  readonly onProgress: ((doneMinutes: number, totalMinutes: number) => void) | undefined;
  readonly progress: { readonly totalMinutes: number; reportedMinutes: number };
}

/** One window of the simulation: its table, its functions, its pending events. */
export interface WindowWorld {
  readonly sim: Simulation;
  readonly window: SimulationWindow;
  readonly index: number;
  readonly timeline: Timeline<SimEvent>;
  readonly fires: Iterator<ScheduledFire>;
  readonly containers: ContainerPool;
  readonly recorder: { handle(event: unknown): Promise<RecordOutcome> };
  readonly operator: JobStateLedger;
  /** The operator's store, for the simulation's own reads. */
  readonly store: LedgerStore;
  readonly targets: SimulatedTargets;
  /** Keys of the engine's runs in the window. */
  readonly expectedKeys: readonly string[];
  /** Simulated minutes done before this window. */
  readonly minutesBefore: number;
}

/** What {@link startSimulation} is given. */
export interface SimulationSetup {
  readonly jobs: readonly JobDefinition[];
  readonly windows: readonly SimulationWindow[];
  readonly duplicateTicks: number;
  readonly plan: FaultPlan;
  readonly onProgress?: (doneMinutes: number, totalMinutes: number) => void;
}

/**
 * Starts the in-process DynamoDB, its two clients and everything the windows share.
 *
 * The covering expressions are computed once, as the stack does at synth time (valid for the
 * two years after the first window's start).
 *
 * @example
 * const sim = startSimulation({ jobs, windows, duplicateTicks: 2, plan: NO_FAULTS });
 * await stopSimulation(sim);
 */
export function startSimulation(setup: SimulationSetup): Simulation {
  const enabled = setup.jobs.filter((job) => job.enabled);
  const startMs = setup.windows[0]?.from.getTime() ?? 0;
  const db = startEmbeddedDynamo();
  const faults = faultCounts();
  const functionsClient = simulationClient(db);
  throttle(functionsClient, setup.plan, seededRandom(setup.plan.seed + 2), faults);
  const coveringExpressions = new Map<string, string>();
  const coverings = enabled.map((job) => {
    const schedule = coveringSchedule(job, new Date(startMs));
    coveringExpressions.set(job.id, schedule.awsExpression);
    return { jobId: job.id, cron: schedule.cron };
  });
  const sim: Simulation = {
    jobs: setup.jobs,
    enabled,
    plan: setup.plan,
    duplicateTicks: setup.duplicateTicks,
    clock: () => new Date(sim.nowMs),
    nowMs: startMs,
    random: { late: seededRandom(setup.plan.seed), crash: seededRandom(setup.plan.seed + 1) },
    faults,
    db,
    functionsClient,
    operatorClient: simulationClient(db),
    coverings,
    coveringExpressions,
    deadLetters: new RecordingDeadLetters(),
    notifier: new TimedNotifier(() => sim.clock()),
    logger: new TimedLogger(() => sim.clock()),
    metrics: new RecordingMetrics(),
    recorderMetrics: new RecordingMetrics(),
    deliveries: [],
    completions: new Map(),
    reported: new Map(),
    watch: { firstClaims: new Map(), slotHolds: [], invocations: 0 },
    duplicatesByKey: new Map(),
    items: new Map(),
    expected: new Map(enabled.map((job) => [job.id, []])),
    counts: { ticks: 0, sweeps: 0, events: 0 },
    memoStats: { answered: 0, probed: 0, passed: 0 },
    coldStarts: 0,
    onProgress: setup.onProgress,
    progress: { totalMinutes: windowMinutes(setup.windows), reportedMinutes: -1 },
  };
  return sim;
}

/**
 * Simulated minutes in the windows.
 *
 * @example
 * windowMinutes([{ from: new Date('2027-03-28T00:00Z'), to: new Date('2027-03-28T02:00Z'), reasons: [] }])
 * //=> 120
 */
export function windowMinutes(windows: readonly SimulationWindow[]): number {
  return windows.reduce(
    (sum, w) => sum + Math.round((w.to.getTime() - w.from.getTime()) / 60_000),
    0,
  );
}

/**
 * Drops the clients and the in-memory DynamoDB.
 *
 * @example
 * await stopSimulation(startSimulation(setup));
 */
export async function stopSimulation(sim: Simulation): Promise<void> {
  sim.functionsClient.destroy();
  sim.operatorClient.destroy();
  await sim.db.stop();
}

function simulationClient(db: EmbeddedDynamo): DynamoDBClient {
  const client = new DynamoDBClient({
    endpoint: db.endpoint,
    requestHandler: db.requestHandler,
    signer: db.signer,
    region: 'local',
    credentials: { accessKeyId: 'simulation', secretAccessKey: 'simulation' },
    // One request is one request: throttling reaches the ledger as the plan says.
    maxAttempts: 1,
    // Resolve each command's middleware stack once, not on every call (an SDK option).
    cacheMiddleware: true,
  });
  // Two headers dynalite never reads and the API's semantics never depend on: the SDK's
  // User-Agent (rebuilt and escaped on every request: a few percent of a simulation's CPU) and
  // Lambda's X-Amzn-Trace-Id recursion detection.
  client.middlewareStack.remove('getUserAgentMiddleware');
  client.middlewareStack.remove('recursionDetectionMiddleware');
  return client;
}

/**
 * Waits until a new table and its index accept requests.
 *
 * dynalite marks a table ACTIVE on a timer after CreateTable returns; on a busy machine the
 * first item write can otherwise arrive before that timer and fail with
 * ResourceNotFoundException.
 */
async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every(
      (index) => index.IndexStatus === 'ACTIVE',
    );
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the simulation's ledger table ${tableName} did not become active`);
}

/** The two stores of one table, sharing one query memo unless every request must be exposed. */
async function windowStores(sim: Simulation, index: number) {
  const tableName = `zonecron-simulation-${index + 1}`;
  await sim.operatorClient.send(new CreateTableCommand(ledgerTableDefinition(tableName)));
  await waitUntilActive(sim.operatorClient, tableName);
  // Throttling is drawn per request: with it planned, every request goes to the table.
  const memo: QueryMemo | undefined = sim.plan.throttling ? undefined : createQueryMemo();
  const wrap = (store: LedgerStore) => (memo ? memo.wrap(store) : store);
  return {
    memo,
    functions: wrap(createLedgerStore({ client: sim.functionsClient, tableName })),
    operator: wrap(createLedgerStore({ client: sim.operatorClient, tableName })),
  };
}

/**
 * Opens one window: a fresh ledger table (so one window's watermarks never make the next
 * catch up the months between them), the stack already running at `from` (every enabled job's
 * watermark and the sweep's cursor there, as if it had run until then: the runs at or before
 * `from` are not the window's), the dispatcher's
 * execution environments, the recorder, and the first fire on the timeline.
 *
 * @example
 * const { world, memo } = await openWindow(sim, windows[0], 0, 0);
 */
export async function openWindow(
  sim: Simulation,
  window: SimulationWindow,
  index: number,
  minutesBefore: number,
): Promise<{ world: WindowWorld; memo: QueryMemo | undefined }> {
  const stores = await windowStores(sim, index);
  const operator = createJobStateLedger(stores.operator);
  // A millisecond after `from`: the runs at or before it belong to the time before the window.
  const running = new Date(window.from.getTime() + 1);
  for (const job of sim.enabled) await operator.createJobState(job.id, running);
  await operator.advanceSweepCursor(window.from);
  const timeline = new Timeline<SimEvent>();
  const targets = new SimulatedTargets(sim.clock, sim.plan, sim.faults, index, (delivery) => {
    sim.deliveries.push(delivery);
    scheduleCompletion(sim, timeline, delivery);
  });
  const world: WindowWorld = {
    sim,
    window,
    index,
    timeline,
    fires: scheduledFires(sim.coverings, window.from, window.to),
    containers: new ContainerPool({
      clock: sim.clock,
      jobs: sim.jobs,
      ledger: createDynamoLedger(stores.functions),
      targets,
      deadLetters: sim.deadLetters,
      notifier: sim.notifier,
      logger: sim.logger,
      metrics: sim.metrics,
      plan: sim.plan,
      crashRandom: sim.random.crash,
      counts: sim.faults,
      watch: sim.watch,
    }),
    recorder: createRecorder({
      clock: sim.clock,
      jobs: sim.jobs,
      ledger: createRecorderLedger(stores.functions),
      deadLetters: sim.deadLetters,
      notifier: sim.notifier,
      logger: new RecordingLogger(),
      metrics: sim.recorderMetrics,
      stackName: SIMULATION_STACK,
      // The in-invocation retries of ledger writes take no simulated time.
      sleep: async () => {},
    }),
    operator,
    store: stores.operator,
    targets,
    expectedKeys: expectRuns(sim, window),
    minutesBefore,
  };
  scheduleOperators(world);
  return { world, memo: stores.memo };
}

/** Records the engine's runs of every enabled job in the window; their keys. */
function expectRuns(sim: Simulation, window: SimulationWindow): string[] {
  const keys: string[] = [];
  for (const job of sim.enabled) {
    const runs = occurrencesBetween(scheduleSpecOf(job), window.from, window.to);
    sim.expected.get(job.id)?.push(...runs);
    for (const run of runs) keys.push(periodBucket(job.id, run.at));
  }
  return keys;
}

/** The planned pauses and resumes that fall in the window. */
function scheduleOperators(world: WindowWorld): void {
  const fromMs = world.window.from.getTime();
  const toMs = world.window.to.getTime();
  for (const pause of world.sim.plan.pauses) {
    if (pause.to.getTime() <= fromMs || pause.from.getTime() > toMs) continue;
    const base = { kind: 'operator' as const, job: pause.job, reason: pause.reason };
    world.timeline.push({ ...base, at: Math.max(fromMs, pause.from.getTime()), action: 'pause' });
    if (pause.to.getTime() <= toMs) {
      world.timeline.push({ ...base, at: pause.to.getTime(), action: 'resume' });
    }
  }
}

/**
 * A run of a target that reports completion finishes after its runtime; the target's report
 * (Lambda's invocation result, Step Functions' status change) reaches the recorder then.
 */
function scheduleCompletion(
  sim: Simulation,
  timeline: Timeline<SimEvent>,
  delivery: SimulatedDelivery,
): void {
  const job = sim.jobs.find((j) => j.id === delivery.envelope.jobId);
  if (!job || !tracksCompletion(job)) return;
  const finishedAt = new Date(delivery.deliveredAt.getTime() + runtimeMs(sim.plan, job));
  const event = completionEvent(delivery, finishedAt);
  if (!event) return;
  sim.completions.set(delivery.deliveryId, finishedAt);
  timeline.push({
    at: finishedAt.getTime() + EVENT_DELAY_MS,
    kind: 'invoke',
    invocations: [{ fn: 'recorder', payload: event, attempt: 1, deliveryId: delivery.deliveryId }],
  });
}

/**
 * The ledger's items of the window's runs (and of anything delivered in it), read
 * consistently at the end, into the simulation's record.
 *
 * @example
 * await closeWindow(world); // sim.items now holds the window's runs as the ledger has them
 */
export async function closeWindow(world: WindowWorld): Promise<void> {
  const keys = new Set(world.expectedKeys);
  for (const d of world.targets.deliveries) keys.add(d.envelope.key);
  const items = await world.store.batchGet([...keys], true);
  for (const [key, item] of items) world.sim.items.set(key, decodeRun(item));
}

/**
 * True when every run of the window ended and owes nothing, and nothing is pending.
 *
 * @example
 * await windowSettled(world) //=> false while a run is claimed or waits for a retry
 */
export async function windowSettled(world: WindowWorld): Promise<boolean> {
  if (world.timeline.size > 0) return false;
  const items = await world.store.batchGet(world.expectedKeys, true);
  if (items.size < world.expectedKeys.length) return false;
  for (const raw of items.values()) {
    const item = decodeRun(raw);
    if (item.status === 'claimed' || item.status === 'delivery-failed') return false;
    if (item.outbox.length > 0) return false;
  }
  return true;
}
