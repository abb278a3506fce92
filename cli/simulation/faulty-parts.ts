import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { JobDefinition, JobTarget } from '#jobs/job.ts';
import { executionNamePrefix } from '#jobs/stack-scope.ts';
import { stateMachineArnOf } from '#jobs/target-arn.ts';
import type { Ledger } from '#ledger/index.ts';
import { executionNameFor, type TargetDelivery } from '../../functions/dispatcher/targets/index.ts';
import { type CrashPoint, type FaultPlan, within } from './fault-plan.ts';

/**
 * The dispatcher process died (a simulated crash) at `point`, or is already gone (no point):
 * nothing after it happens.
 */
export class SimulatedCrash extends Error {
  readonly point: CrashPoint | undefined;
  constructor(point?: CrashPoint) {
    super(point ? `simulated crash ${point}` : 'the simulated dispatcher process is gone');
    this.name = new.target.name;
    this.point = point;
  }
}

/** What the faults did, for the report. */
export interface FaultCounts {
  droppedByOutage: number;
  lateTicks: number;
  crashes: Record<CrashPoint, number>;
  throttled: number;
  targetFailures: number;
  lambdaRetries: number;
  /** Invocations that failed all of Lambda's retries (they would land in Lambda's DLQ). */
  invocationsGivenUp: number;
}

/**
 * Fresh counters.
 *
 * @example
 * faultCounts().crashes //=> { 'after-claim': 0, 'after-delivery': 0 }
 */
export function faultCounts(): FaultCounts {
  return {
    droppedByOutage: 0,
    lateTicks: 0,
    crashes: { 'after-claim': 0, 'after-delivery': 0 },
    throttled: 0,
    targetFailures: 0,
    lambdaRetries: 0,
    invocationsGivenUp: 0,
  };
}

/** A dispatcher container's life: once it crashed, every call it makes fails. */
export interface ContainerState {
  dead: boolean;
}

function crashIf(
  state: ContainerState,
  plan: FaultPlan,
  point: CrashPoint,
  random: () => number,
  counts: FaultCounts,
): void {
  const probability = plan.crashes.find((c) => c.point === point)?.probability ?? 0;
  if (probability > 0 && random() < probability) {
    state.dead = true;
    counts.crashes[point]++;
    throw new SimulatedCrash(point);
  }
}

/**
 * The container's ledger: every call fails once the container died; a claim may kill it right
 * after it was written, and the write that records a delivery may kill it before it is made.
 *
 * @example
 * const ledger = crashingLedger(createDynamoLedger(store), { dead: false }, plan, random, counts);
 * await ledger.claim(request); // may throw SimulatedCrash('after-claim') once it wrote
 */
export function crashingLedger(
  ledger: Ledger,
  state: ContainerState,
  plan: FaultPlan,
  random: () => number,
  counts: FaultCounts,
): Ledger {
  const guarded = new Proxy(ledger, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (state.dead) throw new SimulatedCrash();
        return value.apply(target, args);
      };
    },
  });
  return {
    ...guarded,
    async claim(request) {
      const outcome = await guarded.claim(request);
      if (outcome.claimed) crashIf(state, plan, 'after-claim', random, counts);
      return outcome;
    },
    async markDispatched(key, attempts, delivery) {
      crashIf(state, plan, 'after-delivery', random, counts);
      return guarded.markDispatched(key, attempts, delivery);
    },
  } as Ledger;
}

/** DynamoDB's throttling error, as the SDK raises it. */
function throughputExceeded(): Error {
  const error = new Error('Rate of requests exceeds the allowed throughput (simulated).');
  error.name = 'ProvisionedThroughputExceededException';
  Object.assign(error, { $fault: 'client', $retryable: { throttling: true } });
  return error;
}

/**
 * Makes a fraction of the client's requests fail with a throughput error.
 *
 * @example
 * throttle(client, { ...NO_FAULTS, throttling: { probability: 0.05 } }, seededRandom(3), counts);
 * // about one request in twenty now fails with ProvisionedThroughputExceededException
 */
export function throttle(
  client: DynamoDBClient,
  plan: FaultPlan,
  random: () => number,
  counts: FaultCounts,
): void {
  const probability = plan.throttling?.probability ?? 0;
  if (probability <= 0) return;
  client.middlewareStack.add(
    (next) => async (args) => {
      if (random() < probability) {
        counts.throttled++;
        throw throughputExceeded();
      }
      return next(args);
    },
    { step: 'initialize', name: 'zonecronSimulatedThrottling' },
  );
}

/** One run a simulated target started, with the simulated time it arrived. */
export interface SimulatedDelivery {
  readonly target: JobTarget;
  readonly envelope: RunEnvelope;
  readonly deliveredAt: Date;
  readonly deliveryId: string;
  /** Index of the simulation window it happened in. */
  readonly window: number;
}

/**
 * The simulation's targets: accept every envelope and keep it, unless the plan makes the job's
 * target fail at that time.
 *
 * Delivery ids look like the real ones, so completions can name them: a request id per Lambda
 * invoke, and for Step Functions the ARN of an execution named as the real delivery names it
 * (`executionNameFor`: one name per run and round), so a second start of the same round is
 * refused the way Step Functions refuses it (`ExecutionAlreadyExists`): the existing
 * execution's ARN comes back and nothing runs twice.
 */
export class SimulatedTargets {
  readonly deliveries: SimulatedDelivery[] = [];
  readonly #executions = new Map<string, string>();
  #requests = 0;

  constructor(
    private readonly clock: () => Date,
    private readonly plan: FaultPlan,
    private readonly counts: FaultCounts,
    /** Index of the window these targets serve. */
    private readonly window: number,
    private readonly onDelivered: (delivery: SimulatedDelivery) => void = () => {},
  ) {}

  /** The delivery boundary of one container: fails once the container died. */
  forContainer(state: ContainerState): TargetDelivery {
    return {
      deliver: async (target, envelope, context) => {
        if (state.dead) throw new SimulatedCrash();
        return this.deliver(target, envelope, context?.generation ?? 0);
      },
    };
  }

  async deliver(
    target: JobTarget,
    envelope: RunEnvelope,
    generation: number,
  ): Promise<{ deliveryId: string }> {
    const now = this.clock();
    const fail = this.plan.targets.find((t) => t.job === envelope.jobId)?.fail;
    if (fail && within([fail], now)) {
      this.counts.targetFailures++;
      throw new Error(`simulated target failure of ${target.type} ${target.arn}`);
    }
    if (target.type === 'stepfunctions') {
      const name = executionNameFor(executionNamePrefix(envelope.stack), envelope.key, generation);
      const started = this.#executions.get(name);
      if (started) return { deliveryId: started };
      const arn = `${stateMachineArnOf(target.arn).replace(':stateMachine:', ':execution:')}:${name}`;
      this.#executions.set(name, arn);
      return this.#accept(target, envelope, now, arn);
    }
    this.#requests++;
    return this.#accept(target, envelope, now, `sim-request-${this.#requests}`);
  }

  #accept(target: JobTarget, envelope: RunEnvelope, deliveredAt: Date, deliveryId: string) {
    const delivery = { target, envelope, deliveredAt, deliveryId, window: this.window };
    this.deliveries.push(delivery);
    this.onDelivered(delivery);
    return { deliveryId };
  }
}

/**
 * How long a job's runs take, for targets that report completion (1 s unless planned).
 *
 * @example
 * runtimeMs(NO_FAULTS, job) //=> 1000
 */
export function runtimeMs(plan: FaultPlan, job: JobDefinition): number {
  return plan.targets.find((t) => t.job === job.id)?.runtimeMs ?? 1_000;
}
