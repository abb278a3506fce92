import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type JobDefinition, scheduleIdOf, tracksCompletion } from '#jobs/job.ts';
import {
  createJobStateLedger,
  createLedgerStore,
  createRosterLedger,
  decodeRun,
  type JobStateLedger,
  type LedgerStore,
  ledgerTableDefinition,
  type RecorderLedger,
  type RunItem,
} from '#ledger/index.ts';
import { RecordingMetrics } from '#shared/metrics.ts';
import { runKeyOf } from '../../functions/dispatcher/planned-run.ts';
import type { Occurrence } from '../../functions/schedule/index.ts';
import { localRecorder, type Recorder, tableLedgers } from '../local-world/index.ts';
import type { HostileRecord, OperatorRecord } from './action-records.ts';
import { completionEvent } from './completions.ts';
import { ContainerPool, type LedgerWatch, SIMULATION_STACK } from './containers.ts';
import {
  type Deployment,
  definitionAt,
  deploymentAt,
  deploymentsOf,
  everEnabled,
  expectedRuns,
} from './deployments.ts';
import { type EmbeddedDynamo, IN_PROCESS_MIDDLEWARE, startEmbeddedDynamo } from './dynalite.ts';
import { type ScheduledFire, scheduledFires } from './events.ts';
import type { FaultPlan, OperatorStep } from './fault-plan.ts';
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
  /**
   * A schedule fires: the next fire of the stack's schedules, pulled lazily; `generation`
   * counts the window's deploys, and a fire of schedules a deploy replaced is dropped.
   */
  | {
      readonly at: number;
      readonly kind: 'fire';
      readonly fire: ScheduledFire;
      readonly extra: boolean;
      readonly generation: number;
    }
  /** Lambda runs these invocations concurrently (the copies of one tick race for the claim). */
  | { readonly at: number; readonly kind: 'invoke'; readonly invocations: readonly Invocation[] }
  /** An on-call engineer runs one operating command (a planned pause's start and end, too). */
  | { readonly at: number; readonly kind: 'operator'; readonly step: OperatorStep }
  /** The stack is deployed with another jobs file. */
  | { readonly at: number; readonly kind: 'deploy'; readonly deployment: Deployment }
  /** Somebody sends the plan's `hostile[index]`. */
  | { readonly at: number; readonly kind: 'hostile'; readonly index: number };

/** One asynchronous invocation of the dispatcher or the recorder function. */
export interface Invocation {
  readonly fn: 'dispatcher' | 'recorder';
  readonly payload: object;
  /** Lambda's attempt at this event: 1, then 2 and 3 for its retries. */
  readonly attempt: number;
  /** For a completion report: the delivery whose run finished. */
  readonly deliveryId?: string;
  /** For a hostile event: its index in the plan's `hostile`. */
  readonly hostile?: number;
}

/** Who made a delivery happen: the stack's own schedules, an operator, or a hostile event. */
export type DeliveryCause = 'schedule' | 'operator' | 'hostile';

/** What the whole simulation shares across windows: the clock, the faults, what it saw. */
export interface Simulation {
  /** The simulated jobs file's jobs. */
  readonly jobs: readonly JobDefinition[];
  /** Every job enabled by any deploy, each with its last definition. */
  readonly enabled: readonly JobDefinition[];
  /** The simulated jobs file (`deploy-0`), then the plan's deploys, in time order. */
  readonly deployments: readonly Deployment[];
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
  /** Each job's UTC covering expression, as the deploy that first enabled it computed it. */
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
  /** Who is acting now: every delivery made meanwhile is theirs. */
  cause: DeliveryCause;
  /** The deliveries an operator or a hostile event made, by delivery id. */
  readonly deliveryCauses: Map<string, Exclude<DeliveryCause, 'schedule'>>;
  /** What each operator action did, in order. */
  readonly operatorRecords: OperatorRecord[];
  /** What each hostile event did, by its index in the plan. */
  readonly hostileRecords: Map<number, HostileRecord>;
}

/** One window of the simulation: its table, its functions, its pending events. */
export interface WindowWorld {
  readonly sim: Simulation;
  readonly window: SimulationWindow;
  readonly index: number;
  readonly timeline: Timeline<SimEvent>;
  /** The deploy in force now. */
  deployment: Deployment;
  /** The fires of its schedules, pulled lazily; replaced at a deploy. */
  fires: Iterator<ScheduledFire>;
  /** How many deploys the window has seen: a fire of another generation is stale. */
  fireGeneration: number;
  readonly containers: ContainerPool;
  /** The recorder of the deploy in force (a deploy replaces it). */
  recorder: Recorder;
  /** The recorder's ledger on the window's table, for the recorders deploys start. */
  readonly recorderLedger: RecorderLedger;
  readonly operator: JobStateLedger;
  /** The operator's store, for the simulation's own reads. */
  readonly store: LedgerStore;
  readonly targets: SimulatedTargets;
  /** Keys of the engine's runs in the window. */
  readonly expectedKeys: readonly string[];
  /** Keys of the runs hostile events named (forged completions), read at the end too. */
  readonly hostileKeys: Set<string>;
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
 * The covering expressions are computed once per deploy, as the stack does at synth time
 * (the simulated file's valid for the two years after the first window's start).
 *
 * @example
 * const sim = startSimulation({ jobs, windows, duplicateTicks: 2, plan: NO_FAULTS });
 * await stopSimulation(sim);
 */
export function startSimulation(setup: SimulationSetup): Simulation {
  const startMs = setup.windows[0]?.from.getTime() ?? 0;
  const deployments = deploymentsOf(setup.jobs, setup.plan.deploys, startMs);
  const enabled = everEnabled(deployments);
  const db = startEmbeddedDynamo();
  const faults = faultCounts();
  const functionsClient = simulationClient(db);
  throttle(functionsClient, setup.plan, seededRandom(setup.plan.seed + 2), faults);
  const sim: Simulation = {
    jobs: setup.jobs,
    enabled,
    deployments,
    plan: setup.plan,
    duplicateTicks: setup.duplicateTicks,
    clock: () => new Date(sim.nowMs),
    nowMs: startMs,
    random: { late: seededRandom(setup.plan.seed), crash: seededRandom(setup.plan.seed + 1) },
    faults,
    db,
    functionsClient,
    operatorClient: simulationClient(db),
    coveringExpressions: firstCoverings(deployments),
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
    cause: 'schedule',
    deliveryCauses: new Map(),
    operatorRecords: [],
    hostileRecords: new Map(),
  };
  return sim;
}

/** Each job's covering expression, from the first deploy that enables it. */
function firstCoverings(deployments: readonly Deployment[]): Map<string, string> {
  const expressions = new Map<string, string>();
  for (const d of deployments) {
    for (const [jobId, expression] of d.coveringExpressions) {
      if (!expressions.has(jobId)) expressions.set(jobId, expression);
    }
  }
  return expressions;
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
  // Each command answered from dynalite directly: no serialising, signing or parsing it back.
  client.middlewareStack.add(db.middleware, IN_PROCESS_MIDDLEWARE);
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
 * catch up the months between them), the stack already running at `from` with the deploy in
 * force then (every enabled job's watermark and the sweep's cursor there, and its jobs on the
 * roster, as if it had run until then: the runs at or before `from` are not the window's),
 * the dispatcher's execution environments, the recorder, the plan's deploys, operators and
 * hostile events of the window, and the first fire on the timeline.
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
  const deployment = deploymentAt(sim.deployments, window.from.getTime());
  // A millisecond after `from`: the runs at or before it belong to the time before the window.
  const running = new Date(window.from.getTime() + 1);
  for (const job of deployment.enabled) {
    await operator.createJobState(job.id, running, scheduleIdOf(job));
  }
  // Its sweeps put every job it lists on the roster: a later deploy that drops one ends it.
  await createRosterLedger(stores.operator).enrol(deployment.jobs.map((job) => job.id));
  await operator.advanceSweepCursor(window.from);
  const timeline = new Timeline<SimEvent>();
  const targets = new SimulatedTargets(sim.clock, sim.plan, sim.faults, index, (delivery) => {
    sim.deliveries.push(delivery);
    if (sim.cause !== 'schedule') sim.deliveryCauses.set(delivery.deliveryId, sim.cause);
    scheduleCompletion(sim, timeline, delivery);
  });
  const ledgers = tableLedgers(stores.functions);
  const recorderLedger = ledgers.recorder;
  const world: WindowWorld = {
    sim,
    window,
    index,
    timeline,
    deployment,
    fires: scheduledFires(deployment.coverings, window.from, window.to),
    fireGeneration: 0,
    containers: new ContainerPool({
      clock: sim.clock,
      jobs: deployment.jobs,
      deployId: deployment.id,
      ledger: ledgers.dispatcher,
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
    recorder: recorderOf(sim, recorderLedger, deployment.jobs),
    recorderLedger,
    operator,
    store: stores.operator,
    targets,
    expectedKeys: expectRuns(sim, window),
    hostileKeys: new Set(),
    minutesBefore,
  };
  schedulePlan(world);
  return { world, memo: stores.memo };
}

/**
 * The recorder of a deploy: the real core on the window's table, with the deploy's jobs.
 *
 * @example
 * world.recorder = recorderOf(sim, world.recorderLedger, deployment.jobs);
 */
export function recorderOf(
  sim: Simulation,
  ledger: RecorderLedger,
  jobs: readonly JobDefinition[],
): Recorder {
  const world = {
    clock: sim.clock,
    jobs,
    stackName: SIMULATION_STACK,
    deadLetters: sim.deadLetters,
    notifier: sim.notifier,
  };
  return localRecorder(world, {
    ledger,
    metrics: sim.recorderMetrics,
    // The in-invocation retries of ledger writes take no simulated time.
    sleep: async () => {},
  }).core;
}

/** Records the engine's runs of the window, deploy by deploy; their keys. */
function expectRuns(sim: Simulation, window: SimulationWindow): string[] {
  const keys: string[] = [];
  for (const { job, runs } of expectedRuns(sim.deployments, window)) {
    const list = sim.expected.get(job.id);
    if (list) list.push(...runs);
    else sim.expected.set(job.id, [...runs]);
    for (const run of runs) keys.push(runKeyOf(job.id, run));
  }
  return keys;
}

/**
 * The plan's events of the window on its timeline: the planned pauses (a pause that began
 * before the window is in force when it opens), the deploys after `from` (one at or before it
 * is the deploy the window opens with), and the operators' actions and hostile events in
 * `[from, to]`. Pushed before the first fire: at one instant, they come first.
 */
function schedulePlan(world: WindowWorld): void {
  const { plan } = world.sim;
  const fromMs = world.window.from.getTime();
  const toMs = world.window.to.getTime();
  const inWindow = (at: Date) => at.getTime() >= fromMs && at.getTime() <= toMs;
  for (const pause of plan.pauses) {
    if (pause.to.getTime() <= fromMs || pause.from.getTime() > toMs) continue;
    const { job, reason } = pause;
    const at = Math.max(fromMs, pause.from.getTime());
    const step = { at: new Date(at), action: 'pause' as const, job, reason, until: undefined };
    world.timeline.push({ at, kind: 'operator', step });
    if (pause.to.getTime() <= toMs) {
      const resume = { at: pause.to, action: 'resume' as const, job, catchUp: pause.catchUp };
      world.timeline.push({ at: pause.to.getTime(), kind: 'operator', step: resume });
    }
  }
  for (const deployment of world.sim.deployments) {
    if (deployment.atMs > fromMs && deployment.atMs <= toMs) {
      world.timeline.push({ at: deployment.atMs, kind: 'deploy', deployment });
    }
  }
  for (const step of plan.operator) {
    if (inWindow(step.at)) world.timeline.push({ at: step.at.getTime(), kind: 'operator', step });
  }
  plan.hostile.forEach((event, index) => {
    if (inWindow(event.at)) world.timeline.push({ at: event.at.getTime(), kind: 'hostile', index });
  });
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
  const job = definitionAt(
    sim.deployments,
    delivery.envelope.jobId,
    delivery.deliveredAt.getTime(),
  );
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
  const keys = new Set([...world.expectedKeys, ...world.hostileKeys]);
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
