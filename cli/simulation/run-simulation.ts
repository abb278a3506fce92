import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import type { Occurrence } from '../../functions/schedule/index.ts';
import type { HostileRecord, OperatorRecord } from './action-records.ts';
import { runTimeline } from './event-loop.ts';
import { type FaultPlan, injectsFaults, NO_FAULTS } from './fault-plan.ts';
import type { FaultCounts, SimulatedDelivery } from './faulty-parts.ts';
import { checkInvariants, type Invariant } from './invariants.ts';
import { type OutcomeInput, type RunOutcomeRecord, runOutcomes } from './outcomes.ts';
import { type NotificationRecord, notificationRecord } from './recorders.ts';
import type { SimulationWindow } from './windows.ts';
import {
  closeWindow,
  openWindow,
  type Simulation,
  startSimulation,
  stopSimulation,
  windowMinutes,
} from './world.ts';

/** One run a target received, in delivery order. */
export interface SimulatedRun {
  readonly jobId: string;
  readonly at: Date;
  readonly nominal: string;
  readonly dst: 'none' | 'gap' | 'overlap';
  readonly key: string;
  /** Simulated time of the delivery. */
  readonly deliveredAt: Date;
  readonly attempt: number;
  /** Index into the windows. */
  readonly window: number;
}

/** How often each signal was raised for the windows' runs. */
export interface SignalCounts {
  readonly missed: number;
  readonly late: number;
  readonly stuck: number;
  readonly deadLettered: number;
  /** Runs not done by their job's `deadline` (docs/semantics.md §6, "Deadlines"). */
  readonly deadlineMissed: number;
  readonly redelivered: number;
}

/** What a simulation did. */
export interface SimulationResult {
  readonly windows: readonly SimulationWindow[];
  readonly runs: readonly SimulatedRun[];
  /** Deliveries the ledger refused, summed over jobs (the dispatcher's metric). */
  readonly duplicatesSuppressed: number;
  readonly duplicatesByJob: ReadonlyMap<string, number>;
  /** Refused deliveries per run key. */
  readonly duplicatesByKey: ReadonlyMap<string, number>;
  /** The engine's runs of every enabled job in the windows: what should have been delivered. */
  readonly expected: ReadonlyMap<string, readonly Occurrence[]>;
  readonly deadLettered: readonly DeadLetterMessage[];
  readonly counts: { readonly ticks: number; readonly sweeps: number; readonly events: number };
  /** The UTC covering expression of each enabled job, as the stack would deploy it. */
  readonly coverings: ReadonlyMap<string, string>;
  /** Whether the plan injected any fault. */
  readonly faulted: boolean;
  /** What the faults did. */
  readonly faults: FaultCounts;
  /** One per engine run of every enabled job in the windows. */
  readonly outcomes: readonly RunOutcomeRecord[];
  readonly invariants: readonly Invariant[];
  readonly signals: SignalCounts;
  /** Dispatcher execution environments started (one, plus one per concurrent or crashed). */
  readonly coldStarts: number;
  /** Every notification the on-call topic received, in the order sent. */
  readonly notifications: readonly NotificationRecord[];
  /** What each of the plan's operator actions in the windows did, in order. */
  readonly operator: readonly OperatorRecord[];
  /** What each of the plan's hostile events in the windows did, in the plan's order. */
  readonly hostile: readonly HostileRecord[];
}

/** Options of {@link runSimulation}. */
export interface SimulationOptions {
  readonly jobs: readonly JobDefinition[];
  readonly windows: readonly SimulationWindow[];
  /** How often Scheduler delivers each per-job tick (>= 1); the sweep fires once a minute. */
  readonly duplicateTicks: number;
  /** The faults to inject (`--faults`); none by default. */
  readonly faults?: FaultPlan;
  /** Called now and then with simulated minutes done and in total. */
  readonly onProgress?: (doneMinutes: number, totalMinutes: number) => void;
}

/**
 * Runs the real dispatcher and recorder over simulated time against an in-process DynamoDB.
 *
 * Per window: a fresh ledger table, the stack running as of `from`, and an event loop over
 * every fire of the stack's schedules (each job's UTC covering expression and the one-minute
 * sweep, each tick delivered `duplicateTicks` times with Scheduler's input), Lambda's
 * execution environments and retries, the targets' completions reported to the recorder, and
 * the faults of the plan. After `to`, sweeps go on until every run ended (at most two hours).
 * Only the targets, the dead-letter queue and the notification topic are local.
 *
 * @example
 * const result = await runSimulation({ jobs, windows, duplicateTicks: 2 });
 * result.invariants.every((i) => i.ok) //=> true
 */
export async function runSimulation(options: SimulationOptions): Promise<SimulationResult> {
  const plan = options.faults ?? NO_FAULTS;
  const sim = startSimulation({
    jobs: options.jobs,
    windows: options.windows,
    duplicateTicks: options.duplicateTicks,
    plan,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  try {
    let minutesBefore = 0;
    for (const [index, window] of options.windows.entries()) {
      await simulateWindow(sim, window, index, minutesBefore);
      minutesBefore += windowMinutes([window]);
      options.onProgress?.(minutesBefore, sim.progress.totalMinutes);
    }
  } finally {
    await stopSimulation(sim);
  }
  return resultOf(sim, options.windows);
}

async function simulateWindow(
  sim: Simulation,
  window: SimulationWindow,
  index: number,
  minutesBefore: number,
): Promise<void> {
  const { world, memo } = await openWindow(sim, window, index, minutesBefore);
  await runTimeline(world);
  await closeWindow(world);
  sim.coldStarts += world.containers.coldStarts;
  if (memo) {
    sim.memoStats.answered += memo.stats.answered;
    sim.memoStats.probed += memo.stats.probed;
    sim.memoStats.passed += memo.stats.passed;
  }
}

function resultOf(sim: Simulation, windows: readonly SimulationWindow[]): SimulationResult {
  const input = outcomeInput(sim, windows);
  const outcomes = runOutcomes(input);
  const duplicatesByJob = new Map<string, number>();
  for (const job of sim.enabled) {
    duplicatesByJob.set(job.id, sim.metrics.count(job.id, 'DuplicatesSuppressed'));
  }
  return {
    windows,
    runs: sim.deliveries.map(runOf),
    duplicatesSuppressed: sim.metrics.total('DuplicatesSuppressed'),
    duplicatesByJob,
    duplicatesByKey: sim.duplicatesByKey,
    expected: sim.expected,
    deadLettered: sim.deadLetters.messages,
    counts: sim.counts,
    coverings: sim.coveringExpressions,
    faulted: input.faulted,
    faults: sim.faults,
    outcomes,
    invariants: checkInvariants(input, outcomes),
    signals: signalCounts(input, outcomes),
    coldStarts: sim.coldStarts,
    notifications: sim.notifier.sent.map(notificationRecord),
    operator: sim.operatorRecords,
    hostile: input.hostile,
  };
}

function runOf(d: SimulatedDelivery): SimulatedRun {
  return {
    jobId: d.envelope.jobId,
    at: new Date(d.envelope.scheduledAt),
    nominal: d.envelope.nominal,
    dst: d.envelope.dst as SimulatedRun['dst'],
    key: d.envelope.key,
    deliveredAt: d.deliveredAt,
    attempt: d.envelope.attempt,
    window: d.window,
  };
}

/** What the invariants are held against, from what the simulation recorded. */
function outcomeInput(sim: Simulation, windows: readonly SimulationWindow[]): OutcomeInput {
  const redelivered = new Map<string, number>();
  for (const entry of sim.logger.decisions('possible-redelivery')) {
    const key = String(entry.fields.key);
    redelivered.set(key, (redelivered.get(key) ?? 0) + 1);
  }
  const overlapSkips = sim.logger.decisions('skipped-overlap').map((entry) => ({
    key: String(entry.fields.key),
    at: entry.at,
    runningKey: String(entry.fields.runningKey),
  }));
  return {
    jobs: sim.enabled,
    expected: sim.expected,
    items: sim.items,
    deliveries: sim.deliveries,
    completions: sim.completions,
    reported: sim.reported,
    deadLetters: sim.deadLetters.messages,
    notifications: sim.notifier.sent,
    redelivered,
    overlapSkips,
    firstClaims: sim.watch.firstClaims,
    slotHolds: sim.watch.slotHolds,
    pauses: sim.plan.pauses,
    faulted: injectsFaults(sim.plan),
    windows,
    deployments: sim.deployments,
    deliveryCauses: sim.deliveryCauses,
    deadLettersDeleted: sim.deadLetters.deletedByKey('delivery-failed'),
    operator: sim.operatorRecords,
    hostile: [...sim.hostileRecords.entries()].sort(([a], [b]) => a - b).map(([, h]) => h),
  };
}

/**
 * The signals raised for the windows' runs: notifications sent per signal, and possible
 * redeliveries logged. (The sweeps after `to` also decide the runs after it; those are not
 * the window's and are left out.)
 */
function signalCounts(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): SignalCounts {
  const keys = new Set(outcomes.map((o) => o.key));
  const notified = (signal: string) =>
    input.notifications.filter(
      (n) => n.notification.signal === signal && keys.has(n.notification.key),
    ).length;
  let redelivered = 0;
  for (const [key, count] of input.redelivered) if (keys.has(key)) redelivered += count;
  return {
    missed: notified('missed'),
    late: notified('late'),
    stuck: notified('stuck'),
    deadLettered: notified('dead-lettered'),
    deadlineMissed: notified('deadline-missed'),
    redelivered,
  };
}
