import type { DeadLetters } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import type { Ledger, Notifier } from '#ledger/index.ts';
import { DEFAULT_DISPATCHER_TIMEOUT_SECONDS, LEASE_MARGIN_SECONDS } from '#shared/defaults.ts';
import type { AppLogger, LogFields } from '#shared/logger.ts';
import type {
  AppMetrics,
  GlobalMetricName,
  RecordingMetrics,
  RunMetricName,
} from '#shared/metrics.ts';
import type { DispatcherOptions } from '../../functions/dispatcher/context.ts';
import type { Dispatcher } from '../../functions/dispatcher/dispatch.ts';
import { type LocalWorld, localDispatcher } from '../local-world/index.ts';
import type { FaultPlan } from './fault-plan.ts';
import {
  type ContainerState,
  crashingLedger,
  type FaultCounts,
  SimulatedCrash,
  type SimulatedTargets,
} from './faulty-parts.ts';

/** The stack name the simulation's dispatcher and recorder run as. */
export const SIMULATION_STACK = 'simulation';

/** One warm dispatcher execution environment: its dispatcher and whether it still lives. */
export interface Container {
  readonly dispatcher: Dispatcher;
  readonly state: ContainerState;
  /** The forbid slots it took in its current invocation. */
  readonly held: SlotHold[];
  /** Its current invocation, numbered across the simulation. */
  readonly invocation: { id: number };
}

/** One take of a job's `concurrency: forbid` slot by a run. */
export interface SlotHold {
  readonly jobId: string;
  readonly key: string;
  readonly at: Date;
  readonly untilEpochMs: number;
  /** Its dispatcher gave it back (its delivery failed), and when. */
  released: boolean;
  releasedAt?: Date;
  /** Its dispatcher died in the invocation that took it, still holding it. */
  orphaned: boolean;
}

/** When, and in which invocation, a run was first claimed: a decision to deliver it. */
export interface FirstClaim {
  readonly at: Date;
  readonly invocation: number;
}

/** What the simulation sees the dispatchers' ledger do, for the invariants. */
export interface LedgerWatch {
  /** Each run's first claim, by key. */
  readonly firstClaims: Map<string, FirstClaim>;
  readonly slotHolds: SlotHold[];
  /** Dispatcher invocations so far. */
  invocations: number;
}

/** What every container of one window is built from. */
export interface ContainerParts {
  readonly clock: () => Date;
  /** The jobs of the deploy the window starts with ({@link ContainerPool.deploy} changes them). */
  readonly jobs: readonly JobDefinition[];
  /** That deploy's id (`deploy-0` for the simulated jobs file). */
  readonly deployId: string;
  /** The ledger on the window's table; each container wraps it in its own life. */
  readonly ledger: Ledger;
  readonly targets: SimulatedTargets;
  readonly deadLetters: DeadLetters;
  readonly notifier: Notifier;
  readonly logger: AppLogger;
  readonly metrics: RecordingMetrics;
  readonly plan: FaultPlan;
  /** Draws whether a container crashes at a crash point. */
  readonly crashRandom: () => number;
  readonly counts: FaultCounts;
  readonly watch: LedgerWatch;
}

/**
 * The dispatcher function's execution environments, as Lambda keeps them: an invocation takes
 * an idle warm one (the most recently used, so consecutive sweeps mostly meet their own
 * in-memory cursor and run windows) or starts a cold one; concurrent invocations get one each;
 * one that crashed is never used again.
 *
 * @example
 * const pool = new ContainerPool(parts);
 * const container = pool.acquire();
 * try { await container.dispatcher.handle(event); } finally { pool.release(container); }
 */
export class ContainerPool {
  readonly #idle: Container[] = [];
  readonly #parts: ContainerParts;
  #deploy: { readonly id: string; readonly jobs: readonly JobDefinition[] };
  /** Containers started, the first one included. */
  coldStarts = 0;

  constructor(parts: ContainerParts) {
    this.#parts = parts;
    this.#deploy = { id: parts.deployId, jobs: parts.jobs };
  }

  /**
   * A deploy: the function's new version runs with these jobs. Lambda sends no invocation to
   * the old version's environments again, so the idle ones are dropped and the next
   * invocation starts a cold one with the new jobs bundle.
   */
  deploy(deployId: string, jobs: readonly JobDefinition[]): void {
    this.#deploy = { id: deployId, jobs };
    this.#idle.length = 0;
  }

  acquire(): Container {
    const container = this.#idle.pop() ?? this.#start();
    container.held.length = 0;
    container.invocation.id = ++this.#parts.watch.invocations;
    return container;
  }

  /** The invocation ended: a living container waits for the next one; a dead one is gone. */
  release(container: Container): void {
    if (!container.state.dead) {
      this.#idle.push(container);
      return;
    }
    for (const hold of container.held) hold.orphaned = !hold.released;
  }

  #start(): Container {
    this.coldStarts++;
    const p = this.#parts;
    const state: ContainerState = { dead: false };
    const held: SlotHold[] = [];
    const invocation = { id: 0 };
    const watched = watchedLedger(p.ledger, p.watch, { held, invocation }, p.clock);
    const world: LocalWorld = {
      clock: p.clock,
      jobs: this.#deploy.jobs,
      stackName: SIMULATION_STACK,
      deadLetters: { send: aliveOnly(state, (m) => p.deadLetters.send(m)) },
      notifier: { notify: aliveOnly(state, (n) => p.notifier.notify(n)) },
    };
    const { core: dispatcher } = localDispatcher(world, {
      ledger: crashingLedger(watched, state, p.plan, p.crashRandom, p.counts),
      targets: p.targets.forContainer(state),
      logger: containerLogger(state, p.logger),
      metrics: new ContainerMetrics(state, p.metrics),
      options: dispatcherOptions(this.#deploy.id),
    });
    return { dispatcher, state, held, invocation };
  }
}

/**
 * The options of every simulated dispatcher, of the deploy it runs in.
 *
 * The one place a deploy's id would reach the dispatcher core: `DispatcherOptions` has no
 * field for it yet (`deployId`), so it is not passed; the stack would pass it the same way.
 */
function dispatcherOptions(_deployId: string): Partial<DispatcherOptions> {
  return {
    // As the stack sets LEASE_SECONDS: the function's timeout plus a margin.
    leaseSeconds: DEFAULT_DISPATCHER_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS,
    // The in-invocation retries of ledger writes take no simulated time.
    sleep: async () => {},
  };
}

/**
 * The ledger as the simulation watches it: first claims, and the forbid slots' holds (taken
 * by a container's invocation, or by an operator's command).
 *
 * @example
 * const ledger = watchedLedger(createDynamoLedger(store), watch, { held: [], invocation: { id: 1 } }, clock);
 */
export function watchedLedger(
  ledger: Ledger,
  watch: LedgerWatch,
  container: Pick<Container, 'held' | 'invocation'>,
  clock: () => Date,
): Ledger {
  const { held } = container;
  return {
    ...ledger,
    async claim(request) {
      const outcome = await ledger.claim(request);
      if (outcome.claimed && !watch.firstClaims.has(request.key)) {
        watch.firstClaims.set(request.key, { at: clock(), invocation: container.invocation.id });
      }
      return outcome;
    },
    // Every argument passes through: a dropped one (`freeOf`) once kept a holder that could no
    // longer be running in the slot, in the simulation only.
    async acquireSlot(...args) {
      const result = await ledger.acquireSlot(...args);
      const [jobId, key, , untilEpochMs] = args;
      if (result.acquired) {
        const hold = { jobId, key, at: clock(), untilEpochMs, released: false, orphaned: false };
        watch.slotHolds.push(hold);
        held.push(hold);
      }
      return result;
    },
    async releaseSlot(jobId, key) {
      const released = await ledger.releaseSlot(jobId, key);
      for (const hold of held) {
        if (hold.key !== key) continue;
        hold.released = true;
        hold.releasedAt = clock();
      }
      return released;
    },
  };
}

/** A call a dead process can no longer make. */
function aliveOnly<A, R>(state: ContainerState, fn: (arg: A) => Promise<R>) {
  return async (arg: A): Promise<R> => {
    if (state.dead) throw new SimulatedCrash();
    return fn(arg);
  };
}

/** Lines a process writes before it dies reach the log; nothing after. */
function containerLogger(state: ContainerState, logger: AppLogger): AppLogger {
  const line =
    (level: 'info' | 'warn' | 'error') =>
    (message: string, fields?: LogFields): void => {
      if (!state.dead) logger[level](message, fields);
    };
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

/**
 * Metrics as the embedded metric format publishes them: buffered in the process and written
 * at the end of the invocation, so a process that dies loses what it had not flushed.
 */
class ContainerMetrics implements AppMetrics {
  readonly #buffer: (() => void)[] = [];
  readonly #state: ContainerState;
  readonly #sink: RecordingMetrics;

  constructor(state: ContainerState, sink: RecordingMetrics) {
    this.#state = state;
    this.#sink = sink;
  }

  job(jobId: string, name: RunMetricName, value = 1): void {
    this.#buffer.push(() => this.#sink.job(jobId, name, value));
  }

  global(name: GlobalMetricName, value = 1): void {
    this.#buffer.push(() => this.#sink.global(name, value));
  }

  flush(): void {
    const pending = this.#buffer.splice(0);
    if (this.#state.dead) return;
    for (const emit of pending) emit();
    this.#sink.flush();
  }
}
