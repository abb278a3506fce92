import type { SimulatedRun, SimulationResult } from './run-simulation.ts';

/** A run the engine expects in a window, identified by job and instant. */
export interface ExpectedRun {
  readonly jobId: string;
  readonly at: Date;
  readonly nominal: string;
}

/** The simulation held against the engine: every expected run delivered exactly once. */
export interface SimulationCheck {
  readonly ok: boolean;
  readonly expected: number;
  readonly missing: readonly ExpectedRun[];
  /** Runs delivered more than once, with how often. */
  readonly doubled: readonly { run: SimulatedRun; times: number }[];
  /** Deliveries the engine has no run for. */
  readonly unexpected: readonly SimulatedRun[];
}

const id = (jobId: string, at: Date) => `${jobId}@${at.toISOString()}`;

/**
 * Compares what the recorders received with the engine's occurrences of every enabled job.
 *
 * The engine is the reference: the dispatcher must turn the covering ticks (a superset) into
 * exactly the engine's runs, once each, however often each tick arrived.
 */
export function checkSimulation(result: SimulationResult): SimulationCheck {
  const expectedIds = new Map<string, ExpectedRun>();
  for (const [jobId, occurrences] of result.expected) {
    for (const o of occurrences) expectedIds.set(id(jobId, o.at), { jobId, ...o });
  }
  const seen = new Map<string, { run: SimulatedRun; times: number }>();
  const unexpected: SimulatedRun[] = [];
  for (const run of result.runs) {
    const key = id(run.jobId, run.at);
    const entry = seen.get(key);
    if (entry) entry.times++;
    else seen.set(key, { run, times: 1 });
    if (!expectedIds.has(key)) unexpected.push(run);
  }
  const missing = [...expectedIds.entries()].filter(([k]) => !seen.has(k)).map(([, v]) => v);
  const doubled = [...seen.values()].filter((e) => e.times > 1);
  return {
    ok: missing.length === 0 && doubled.length === 0 && unexpected.length === 0,
    expected: expectedIds.size,
    missing,
    doubled,
    unexpected,
  };
}
