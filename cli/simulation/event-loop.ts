import { LedgerThrottledError } from '#ledger/index.ts';
import { describeError } from '#shared/describe-error.ts';
import { isTransient } from '#shared/retry.ts';
import type { DispatchResult } from '../../functions/dispatcher/dispatch.ts';
import type { Deployment } from './deployments.ts';
import { type ScheduledFire, scheduledFires } from './events.ts';
import { within } from './fault-plan.ts';
import { SimulatedCrash } from './faulty-parts.ts';
import {
  EVENT_DELAY_MS,
  type Invocation,
  recorderOf,
  type SimEvent,
  type WindowWorld,
  windowSettled,
} from './world.ts';

/** After `--to`: sweeps only, until every run ended or this much simulated time passed. */
export const SETTLE_LIMIT_MS = 2 * 60 * 60_000;

/**
 * The waits before Lambda's retries of a failed asynchronous invocation.
 *
 * EventBridge Scheduler invokes a Lambda target asynchronously ("When you set up EventBridge
 * Scheduler with Lambda, EventBridge Scheduler invokes your Lambda function asynchronously",
 * https://docs.aws.amazon.com/lambda/latest/dg/with-eventbridge-scheduler.html): Scheduler's
 * own retry policy (`TICK_RETRY_ATTEMPTS`, infra/constructs/job-schedules.ts) covers only a
 * hand-over Lambda refuses, and the invoke succeeds as soon as the event is queued. A
 * dispatcher that dies or throws is retried by Lambda: "If the function returns an error, by
 * default Lambda attempts to run it two more times, with a one-minute wait between the first
 * two attempts, and two minutes between the second and third attempts"
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html); the
 * stack keeps those two retries (`configureAsyncInvoke({ retryAttempts: 2 })` on the
 * dispatcher and the recorder). A recorder fed by an EventBridge rule is invoked the same way.
 */
export const LAMBDA_RETRY_DELAYS_MS: readonly number[] = [60_000, 120_000];

const MINUTE_MS = 60_000;

/**
 * Runs one window's events in time order until none is left: the schedules' fires (pulled
 * lazily, so a year of sweeps is never materialised), the functions' invocations and their
 * retries, the targets' completions, the deploys, the operators' actions and the hostile
 * events. Events at one instant run one after the other, except the invocations of one event
 * (the copies of one tick), which run concurrently and race for the claim.
 *
 * @example
 * const { world } = await openWindow(sim, window, 0, 0);
 * await runTimeline(world); // the window's events, then sweeps until its runs ended
 */
export async function runTimeline(world: WindowWorld): Promise<void> {
  pushNextFire(world, undefined);
  for (let event = world.timeline.pop(); event; event = world.timeline.pop()) {
    world.sim.nowMs = event.at;
    await handleEvent(world, event);
  }
}

async function handleEvent(world: WindowWorld, event: SimEvent): Promise<void> {
  switch (event.kind) {
    case 'fire':
      // A fire of the schedules a deploy replaced: the new ones fire instead.
      if (event.generation !== world.fireGeneration) return;
      return handleFire(world, event.fire, event.extra);
    case 'invoke':
      await Promise.all(event.invocations.map((invocation) => invoke(world, invocation)));
      return;
    case 'operator': {
      // Loaded only by a plan that has operators: the plain simulation never needs them.
      const { performOperatorStep } = await import('./operator-actions.ts');
      return performOperatorStep(world, event.step);
    }
    case 'deploy':
      return deploy(world, event.deployment);
    case 'hostile':
      return sendHostile(world, event.index);
  }
}

/** The next fire after `last`: the window's schedules, then sweeps only until settled. */
function pushNextFire(world: WindowWorld, last: { at: number; extra: boolean } | undefined) {
  const next = last?.extra ? undefined : world.fires.next();
  const generation = world.fireGeneration;
  if (next && !next.done) {
    world.timeline.push({
      at: next.value.at.getTime(),
      kind: 'fire',
      fire: next.value,
      extra: false,
      generation,
    });
    return;
  }
  const afterMs = last?.at ?? world.window.to.getTime();
  const at = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const fire = { kind: 'sweep' as const, at: new Date(at) };
  world.timeline.push({ at, kind: 'fire', fire, extra: true, generation });
}

/**
 * A deploy: from now on the dispatcher's new environments and the recorder run with its
 * jobs, and its covering schedules fire instead of the old ones from the deploy's instant
 * on (a job it removed stops ticking, a new one starts, a changed one ticks as its new
 * covering says).
 */
function deploy(world: WindowWorld, deployment: Deployment): void {
  world.deployment = deployment;
  world.containers.deploy(deployment.id, deployment.jobs);
  world.recorder = recorderOf(world.sim, world.recorderLedger, deployment.jobs);
  world.fireGeneration++;
  const since = new Date(deployment.atMs - 1);
  world.fires = scheduledFires(deployment.coverings, since, world.window.to);
  pushNextFire(world, undefined);
}

/** A hostile event reaches its function a moment after it was sent, as any event does. */
async function sendHostile(world: WindowWorld, index: number): Promise<void> {
  const { sim } = world;
  const event = sim.plan.hostile[index];
  if (!event) return;
  const { hostileInvocation } = await import('./hostile-events.ts');
  const { invocation, record } = hostileInvocation(sim, index, event);
  sim.hostileRecords.set(index, record);
  if (record.key && event.kind === 'forged-completion') world.hostileKeys.add(record.key);
  const at = sim.nowMs + EVENT_DELAY_MS;
  world.timeline.push({ at, kind: 'invoke', invocations: [invocation] });
}

/**
 * A schedule fires: its event reaches the dispatcher a moment later (a tick, maybe late, as
 * often as Scheduler duplicates it). After `--to` a sweep fires only while runs are unsettled.
 */
async function handleFire(world: WindowWorld, fire: ScheduledFire, extra: boolean) {
  const atMs = fire.at.getTime();
  if (
    extra &&
    (atMs > world.window.to.getTime() + SETTLE_LIMIT_MS || (await windowSettled(world)))
  ) {
    return;
  }
  deliverFire(world, fire);
  if (!extra && fire.kind === 'sweep') reportProgress(world, atMs);
  pushNextFire(world, { at: atMs, extra });
}

function deliverFire(world: WindowWorld, fire: ScheduledFire): void {
  const { sim } = world;
  const scheduledTime = `${fire.at.toISOString().slice(0, 19)}Z`;
  const isTick = fire.kind === 'tick';
  const payload = isTick
    ? {
        jobId: fire.jobId,
        scheduledTime,
        executionId: `sim-${fire.jobId}-${scheduledTime}`,
        attempt: 1,
      }
    : { sweep: true, scheduledTime };
  const copies = isTick ? sim.duplicateTicks : 1;
  if (isTick) sim.counts.ticks++;
  else sim.counts.sweeps++;
  sim.counts.events += copies;
  const invocation: Invocation = { fn: 'dispatcher', payload, attempt: 1 };
  world.timeline.push({
    at: fire.at.getTime() + EVENT_DELAY_MS + (isTick ? lateBy(world) : 0),
    kind: 'invoke',
    invocations: Array.from({ length: copies }, () => invocation),
  });
}

/** How late a tick arrives: up to `maxDelay`, with the plan's probability (drawn from its seed). */
function lateBy(world: WindowWorld): number {
  const { plan, random, faults } = world.sim;
  if (!plan.lateTicks || random.late() >= plan.lateTicks.probability) return 0;
  faults.lateTicks++;
  return Math.ceil(random.late() * plan.lateTicks.maxDelayMs);
}

function reportProgress(world: WindowWorld, atMs: number): void {
  const { sim, window } = world;
  if (!sim.onProgress) return;
  const total = sim.progress.totalMinutes;
  const minutes = world.minutesBefore + Math.round((atMs - window.from.getTime()) / MINUTE_MS);
  if (minutes - sim.progress.reportedMinutes >= 60 || minutes === total) {
    sim.progress.reportedMinutes = minutes;
    sim.onProgress(minutes, total);
  }
}

/**
 * One asynchronous invocation. An outage swallows the dispatcher's; a simulated failure (a
 * crash, a throttled request) makes Lambda retry it later; anything else is a bug the
 * simulation found, and stops it (a hostile event's is recorded instead: it must not throw).
 */
async function invoke(world: WindowWorld, invocation: Invocation): Promise<void> {
  const { sim } = world;
  if (invocation.fn === 'dispatcher' && within(sim.plan.outages, sim.clock())) {
    sim.faults.droppedByOutage++;
    return;
  }
  try {
    if (invocation.hostile !== undefined) {
      await invokeHostile(world, invocation, invocation.hostile);
    } else if (invocation.fn === 'recorder') {
      await report(world, invocation);
    } else {
      await invokeDispatcher(world, invocation.payload);
    }
  } catch (error) {
    if (!isSimulatedFailure(error)) throw error;
    retryLater(world, invocation);
  }
}

/** One invocation on a warm (or a cold) dispatcher; a process that died fails it. */
async function invokeDispatcher(world: WindowWorld, payload: object): Promise<DispatchResult> {
  const container = world.containers.acquire();
  let result: DispatchResult;
  try {
    result = await container.dispatcher.handle(payload);
    countDuplicates(world, result);
  } finally {
    world.containers.release(container);
  }
  if (container.state.dead) throw new SimulatedCrash();
  return result;
}

/**
 * A hostile event at its function's entry (the handler's own parse, so what it cannot read is
 * counted there): what it answered, counted, threw and delivered goes to its record. A
 * simulated fault fails the invocation as any other, and Lambda retries it.
 */
async function invokeHostile(
  world: WindowWorld,
  invocation: Invocation,
  index: number,
): Promise<void> {
  const { sim } = world;
  const record = sim.hostileRecords.get(index);
  if (!record) return;
  const { answerOf, countedBetween, metricSums } = await import('./hostile-events.ts');
  const sinks = [sim.metrics, sim.recorderMetrics];
  const before = { metrics: metricSums(sinks), deliveries: sim.deliveries.length };
  record.attempts++;
  sim.cause = 'hostile';
  try {
    const answer =
      invocation.fn === 'recorder'
        ? await world.recorder.handle(invocation.payload)
        : await invokeDispatcher(world, invocation.payload);
    record.result = answerOf(answer);
    if ('outcome' in answer && answer.outcome === 'recorded') record.recorded = true;
  } catch (error) {
    if (isSimulatedFailure(error)) {
      record.result = `failed (${describeError(error)}); Lambda retries it`;
      throw error;
    }
    record.result = 'threw';
    record.threw = describeError(error);
  } finally {
    sim.cause = 'schedule';
    record.counted.push(...countedBetween(before.metrics, metricSums(sinks)));
    record.deliveries += sim.deliveries.length - before.deliveries;
  }
}

/** The recorder takes a target's report that a run finished. */
async function report(world: WindowWorld, invocation: Invocation): Promise<void> {
  await world.recorder.handle(invocation.payload);
  if (invocation.deliveryId !== undefined) {
    world.sim.reported.set(invocation.deliveryId, world.sim.clock());
  }
}

function countDuplicates(world: WindowWorld, result: DispatchResult): void {
  const outcomes =
    'outcomes' in result ? result.outcomes : 'outcome' in result ? [result.outcome] : [];
  for (const o of outcomes) {
    if (o.outcome !== 'duplicate') continue;
    world.sim.duplicatesByKey.set(o.key, (world.sim.duplicatesByKey.get(o.key) ?? 0) + 1);
  }
}

/** An error the faults cause: a crash, throttling, or a sweep that failed only of those. */
function isSimulatedFailure(error: unknown): boolean {
  if (error instanceof SimulatedCrash || error instanceof LedgerThrottledError) return true;
  if (error instanceof AggregateError) return error.errors.every(isSimulatedFailure);
  return isTransient(error);
}

function retryLater(world: WindowWorld, invocation: Invocation): void {
  const { sim } = world;
  const delayMs = LAMBDA_RETRY_DELAYS_MS[invocation.attempt - 1];
  if (delayMs === undefined) {
    sim.faults.invocationsGivenUp++;
    return;
  }
  sim.faults.lambdaRetries++;
  world.timeline.push({
    at: sim.nowMs + delayMs,
    kind: 'invoke',
    invocations: [{ ...invocation, attempt: invocation.attempt + 1 }],
  });
}
