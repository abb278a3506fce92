/**
 * Runs one scenario on the real system: the simulation's own pieces (cli/simulation: the real
 * dispatcher, recorder and ledger on dynalite, a simulated clock, the faults plan), one window,
 * with three things watched besides what `runSimulation` reports: which dispatcher invocations
 * the plan sent when (the history the model is given), which of them failed (a crash, a
 * throttled request: Lambda retries those), and every notification sent.
 */

import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { createSkipRangeLedger, decodeRun, reasonInRange } from '#ledger/index.ts';
import { runTimeline } from '../../cli/simulation/event-loop.ts';
import type { FaultPlan } from '../../cli/simulation/fault-plan.ts';
import { deliveriesByKey, outcomeStatus } from '../../cli/simulation/outcomes.ts';
import type { SimulationWindow } from '../../cli/simulation/windows.ts';
import {
  closeWindow,
  openWindow,
  type SimEvent,
  startSimulation,
  stopSimulation,
  type WindowWorld,
} from '../../cli/simulation/world.ts';
import { runKeyOf } from '../../functions/dispatcher/planned-run.ts';
import {
  type Occurrence,
  occurrencesBetween,
  periodBucket,
} from '../../functions/schedule/index.ts';

/** One dispatcher invocation as Lambda hands it over: a tick's or a sweep's. */
export interface DispatcherInvocation {
  readonly kind: 'tick' | 'sweep';
  readonly jobId?: string;
  readonly scheduledAt: Date;
  /** Lambda's attempt: 1, then 2 and 3 for its retries. */
  readonly attempt: number;
  readonly arrivesAt: Date;
}

/** How one run of the window ended in the ledger, and how often a target received it. */
export interface SystemRun {
  readonly jobId: string;
  readonly at: string;
  /** A run a calendar moved: the instant the schedule named, which names it (its key's). */
  readonly key?: string;
  readonly status: 'delivered' | 'dead-lettered' | 'skipped' | 'open' | 'undecided';
  readonly reason: string | null;
  readonly deliveries: number;
  /** Takeovers the dispatcher counted as possible redeliveries. */
  readonly redelivered: number;
  readonly attempts: number;
  /** Who decided it, as its item says (`tick`, `sweep`, `catch-up`, …; null: no item). */
  readonly origin: string | null;
  /** When a target first received it (null: never). */
  readonly firstDeliveredAt: string | null;
  /**
   * A forbid run whose delivery started while the previous run of its job still ran (before
   * its reported end and within its maxRuntime): the simulation's forbid invariant broken.
   */
  readonly startedWhileAnotherRan: boolean;
  /**
   * A run a gap's catch-up skipped one by one: when its skip was written and the instant the
   * gap was decided up to (its `skipped-<reason>` line's `upTo`); null otherwise.
   */
  readonly gapSkip: { readonly writtenAt: string; readonly upTo: string } | null;
}

/** One notification the on-call topic received. */
export interface SystemNotification {
  readonly kind: string;
  readonly jobId: string;
  readonly runs: number;
  readonly first: string;
  readonly last: string;
  /** The run that carried it. */
  readonly at: string;
}

/** What the real system did with one scenario. */
export interface SystemObservation {
  readonly runs: readonly SystemRun[];
  readonly notifications: readonly SystemNotification[];
  /** Every dispatcher invocation sent (also those an outage then swallowed). */
  readonly invocations: readonly DispatcherInvocation[];
  /** The invocations that failed, each retried by Lambda unless it was the third attempt. */
  readonly failed: readonly DispatcherInvocation[];
  /** The forged completions the recorder recorded (none, if it keeps §6), in words. */
  readonly forgeriesRecorded: readonly string[];
  /** Dispatcher and recorder invocations handled, and the functions' ledger requests. */
  readonly operations: { readonly invocations: number; readonly ledgerRequests: number };
}

/** What {@link driveSystem} is given. */
export interface SystemInput {
  readonly jobs: readonly JobDefinition[];
  readonly window: SimulationWindow;
  readonly duplicateTicks: number;
  readonly plan: FaultPlan;
}

/**
 * The scenario run on the real system, as `zonecron simulate --faults` runs it, watched.
 *
 * @example
 * const seen = await driveSystem({ jobs, window, duplicateTicks: 2, plan });
 * seen.runs.every((r) => r.status !== 'undecided') //=> true, unless the system lost a run
 */
export async function driveSystem(input: SystemInput): Promise<SystemObservation> {
  const sim = startSimulation({
    jobs: input.jobs,
    windows: [input.window],
    duplicateTicks: input.duplicateTicks,
    plan: input.plan,
  });
  const counts = { invocations: 0, ledgerRequests: 0 };
  sim.functionsClient.middlewareStack.add(
    (next) => async (args) => {
      counts.ledgerRequests++;
      return next(args);
    },
    { step: 'initialize', name: 'fuzzerRequestCount' },
  );
  const invocations: DispatcherInvocation[] = [];
  const failed: DispatcherInvocation[] = [];
  let runs: SystemRun[];
  try {
    const { world } = await openWindow(sim, input.window, 0, 0);
    watch(world, invocations, failed, counts);
    await runTimeline(world);
    await closeWindow(world);
    const versions = [...input.jobs, ...input.plan.deploys.flatMap((d) => d.jobs)];
    const overlapped = startedWhileAnotherRan(sim, versions);
    const pending = await runsBeforeDeploysTookEffect(world, input.plan, versions, invocations);
    runs = [
      ...(await withSkipRanges(world, systemRuns(sim, overlapped, pending))),
      ...(await manualRuns(world)),
    ];
  } finally {
    await stopSimulation(sim);
  }
  return {
    runs,
    notifications: sim.notifier.sent.map(({ notification: n }) => ({
      kind: n.signal,
      jobId: n.jobId,
      runs: n.runs,
      first: n.first,
      last: n.last,
      at: n.at,
    })),
    invocations,
    failed,
    forgeriesRecorded: [...sim.hostileRecords.values()]
      .filter((r) => r.recorded)
      .map((r) => JSON.stringify(r)),
    operations: counts,
  };
}

/** The run a `zonecron run` record made: `manual:<job>` at the record's minute, and its key. */
function manualRunOf(record: { readonly at: string; readonly jobId: string }) {
  const at = new Date(Math.floor(Date.parse(record.at) / 60_000) * 60_000);
  return { jobId: `manual:${record.jobId}`, at, key: periodBucket(`manual:${record.jobId}`, at) };
}

/**
 * The runs `zonecron run` made are the window's too: the simulation settles only once they
 * ended, as the model's sweeps go on until they did.
 */
function watchManualRuns(world: WindowWorld, seen: number): number {
  const records = world.sim.operatorRecords;
  for (const record of records.slice(seen)) {
    if (record.action === 'run') (world.expectedKeys as string[]).push(manualRunOf(record).key);
  }
  return records.length;
}

/**
 * The runs `zonecron run` made, each under its manual key (`manual:<job>` at its minute), as the
 * ledger and the targets have them at the end.
 */
async function manualRuns(world: WindowWorld): Promise<SystemRun[]> {
  const { sim } = world;
  const byKey = deliveriesByKey(sim.deliveries);
  const byRunKey = new Map(
    sim.operatorRecords.filter((r) => r.action === 'run').map((r) => [manualRunOf(r).key, r]),
  );
  // Two `zonecron run` of one job in one minute are one run: the minute's key.
  const runs = [...byRunKey.values()].map(manualRunOf);
  if (runs.length === 0) return [];
  const items = await world.store.batchGet(
    runs.map((r) => r.key),
    true,
  );
  return runs.map((r) => {
    const raw = items.get(r.key);
    const item = raw ? decodeRun(raw) : undefined;
    return {
      jobId: r.jobId,
      at: r.at.toISOString(),
      status: outcomeStatus(item),
      reason: item?.skipReason ?? null,
      deliveries: byKey.get(r.key)?.length ?? 0,
      redelivered: 0,
      attempts: item?.attempts ?? 0,
      origin: item?.origin ?? null,
      firstDeliveredAt: byKey.get(r.key)?.[0]?.deliveredAt.toISOString() ?? null,
      startedWhileAnotherRan: false,
      gapSkip: null,
    };
  });
}

/** The dispatcher invocations of one timeline event. */
function dispatcherInvocations(event: SimEvent): DispatcherInvocation[] {
  if (event.kind !== 'invoke') return [];
  return event.invocations.flatMap((inv) => {
    if (inv.fn !== 'dispatcher') return [];
    const p = inv.payload as { jobId?: string; scheduledTime?: string; sweep?: boolean };
    const scheduledAt = new Date(p.scheduledTime ?? 0);
    const arrivesAt = new Date(event.at);
    return [
      p.sweep
        ? { kind: 'sweep' as const, scheduledAt, attempt: inv.attempt, arrivesAt }
        : {
            kind: 'tick' as const,
            jobId: p.jobId ?? '',
            scheduledAt,
            attempt: inv.attempt,
            arrivesAt,
          },
    ];
  });
}

/**
 * Watches the window's timeline: every invocation pushed onto it is recorded; a retry pushed
 * (attempt n + 1) says attempt n failed, and an invocation given up after its third attempt
 * says so in the fault counts, read after each event.
 */
function watch(
  world: WindowWorld,
  invocations: DispatcherInvocation[],
  failed: DispatcherInvocation[],
  counts: { invocations: number },
): void {
  const { timeline } = world;
  const push = timeline.push.bind(timeline);
  const pop = timeline.pop.bind(timeline);
  let current: SimEvent | undefined;
  let givenUp = world.sim.faults.invocationsGivenUp;
  let records = 0;
  timeline.push = (event: SimEvent) => {
    for (const inv of dispatcherInvocations(event)) {
      invocations.push(inv);
      if (inv.attempt > 1) failed.push({ ...inv, attempt: inv.attempt - 1 });
    }
    push(event);
  };
  timeline.pop = () => {
    if (world.sim.faults.invocationsGivenUp > givenUp && current) {
      failed.push(...dispatcherInvocations(current).filter((inv) => inv.attempt === 3));
    }
    givenUp = world.sim.faults.invocationsGivenUp;
    records = watchManualRuns(world, records);
    current = pop();
    if (current?.kind === 'invoke') counts.invocations += current.invocations.length;
    return current;
  };
}

/**
 * A gap's oldest skipped runs have no item of their own: one range item stands for them (§6,
 * "Every run of a gap gets a durable decision"), as `history` and `describe` read it.
 */
async function withSkipRanges(world: WindowWorld, runs: SystemRun[]): Promise<SystemRun[]> {
  const ranges = createSkipRangeLedger(world.store);
  return Promise.all(
    runs.map(async (run) => {
      if (run.status !== 'undecided') return run;
      const at = new Date(run.at);
      const range = await ranges.findSkipRange(run.jobId, at);
      const reason = range && reasonInRange(range, at);
      return reason ? { ...run, status: 'skipped' as const, reason } : run;
    }),
  );
}

/**
 * The runs the simulation leaves out that a deploy's bundle may still decide, with their items
 * read: the simulation cuts a job's runs at each deploy's `at`, but a deploy takes effect at its
 * deploy instant, the first event of its bundle (§6), which an outage can hold off for hours;
 * until then the definitions before it are in force, and their runs are decided like any
 * other (the model has them). So every definition's runs from a deploy's `at` up to the first
 * invocation that reached the dispatcher after it are looked at too. One nobody decided stays
 * undecided, which is no disagreement with a model that has no such run.
 */
async function runsBeforeDeploysTookEffect(
  world: WindowWorld,
  plan: FaultPlan,
  versions: readonly JobDefinition[],
  invocations: readonly DispatcherInvocation[],
): Promise<Map<string, Occurrence[]>> {
  const { sim } = world;
  const known = new Set<string>();
  for (const [jobId, os] of sim.expected) for (const o of os) known.add(runKeyOf(jobId, o));
  const reached = (i: DispatcherInvocation) =>
    !plan.outages.some((o) => o.from <= i.arrivesAt && i.arrivesAt < o.to);
  const pending = new Map<string, Occurrence[]>();
  const keys: string[] = [];
  for (const deploy of plan.deploys) {
    const first = invocations.find((i) => i.arrivesAt > deploy.at && reached(i));
    const until = new Date(Math.min(first?.arrivesAt.getTime() ?? Infinity, +world.window.to));
    const from = new Date(Math.max(+deploy.at, +world.window.from));
    if (from >= until) continue;
    for (const job of versions.filter((j) => j.enabled)) {
      for (const o of occurrencesBetween(scheduleSpecOf(job), from, until)) {
        const key = runKeyOf(job.id, o);
        if (known.has(key)) continue;
        known.add(key);
        keys.push(key);
        const runs = pending.get(job.id) ?? [];
        runs.push(o);
        pending.set(job.id, runs);
      }
    }
  }
  const items = keys.length > 0 ? await world.store.batchGet(keys, true) : new Map();
  for (const [key, item] of items) sim.items.set(key, decodeRun(item));
  return pending;
}

/**
 * The keys of the scheduled runs of forbid jobs whose delivery started while the previous run
 * delivered ran: before the target reported its end, and within its maxRuntime (the longest any
 * deploy gave the job), as the simulation's `forbidHeld` invariant reads it. Manual runs neither
 * take nor check the slot.
 */
function startedWhileAnotherRan(
  sim: ReturnType<typeof startSimulation>,
  versions: readonly JobDefinition[],
): Set<string> {
  const maxRuntimeMs = new Map<string, number>();
  for (const job of versions.filter((j) => j.concurrency === 'forbid')) {
    const ms = Math.max(maxRuntimeMs.get(job.id) ?? 0, job.maxRuntimeSeconds * 1000);
    maxRuntimeMs.set(job.id, ms);
  }
  const overlapped = new Set<string>();
  for (const [jobId, runtimeMs] of maxRuntimeMs) {
    const keys = new Set((sim.expected.get(jobId) ?? []).map((o) => runKeyOf(jobId, o)));
    const deliveries = sim.deliveries
      .filter((d) => keys.has(d.envelope.key))
      .sort((a, b) => a.deliveredAt.getTime() - b.deliveredAt.getTime());
    deliveries.forEach((current, i) => {
      const previous = deliveries[i - 1];
      if (!previous || previous.envelope.key === current.envelope.key) return;
      const limitMs = previous.deliveredAt.getTime() + runtimeMs;
      const finishedMs = sim.completions.get(previous.deliveryId)?.getTime() ?? limitMs;
      const endMs = Math.min(limitMs, finishedMs);
      if (current.deliveredAt.getTime() < endMs) overlapped.add(current.envelope.key);
    });
  }
  return overlapped;
}

/** By run key, each gap skip's line: when the skip was written, and the gap's `upTo`. */
function gapSkipsOf(sim: ReturnType<typeof startSimulation>) {
  const gapSkips = new Map<string, { writtenAt: string; upTo: string }>();
  for (const entry of sim.logger.entries) {
    const { decision, key, upTo } = entry.fields;
    if (typeof decision !== 'string' || !decision.startsWith('skipped-')) continue;
    if (typeof upTo !== 'string' || gapSkips.has(String(key))) continue;
    gapSkips.set(String(key), { writtenAt: entry.at.toISOString(), upTo });
  }
  return gapSkips;
}

/** The window's runs as the ledger and the targets have them at the end, in time order. */
function systemRuns(
  sim: ReturnType<typeof startSimulation>,
  overlapped: ReadonlySet<string>,
  pending: ReadonlyMap<string, readonly Occurrence[]>,
): SystemRun[] {
  const byKey = deliveriesByKey(sim.deliveries);
  const redelivered = new Map<string, number>();
  for (const entry of sim.logger.decisions('possible-redelivery')) {
    const key = String(entry.fields.key);
    redelivered.set(key, (redelivered.get(key) ?? 0) + 1);
  }
  const gapSkips = gapSkipsOf(sim);
  const runs: SystemRun[] = [];
  for (const [jobId, occurrences] of [...sim.expected, ...pending]) {
    for (const o of occurrences) {
      const key = runKeyOf(jobId, o);
      const item = sim.items.get(key);
      runs.push({
        jobId,
        at: o.at.toISOString(),
        ...(o.moved ? { key: o.moved.nominalAt.toISOString() } : {}),
        status: outcomeStatus(item),
        reason: item?.skipReason ?? null,
        deliveries: byKey.get(key)?.length ?? 0,
        redelivered: redelivered.get(key) ?? 0,
        attempts: item?.attempts ?? 0,
        origin: item?.origin ?? null,
        firstDeliveredAt: byKey.get(key)?.[0]?.deliveredAt.toISOString() ?? null,
        startedWhileAnotherRan: overlapped.has(key),
        gapSkip: gapSkips.get(key) ?? null,
      });
    }
  }
  const keyOf = (r: SystemRun) => r.key ?? r.at;
  return runs.sort(
    (a, b) =>
      a.at.localeCompare(b.at) ||
      a.jobId.localeCompare(b.jobId) ||
      keyOf(a).localeCompare(keyOf(b)),
  );
}
