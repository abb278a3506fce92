import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadFaultPlan } from '../../../../cli/simulation/faults.ts';
import { runSimulation, type SimulationResult } from '../../../../cli/simulation/run-simulation.ts';
import { loadJobsFile } from '../../../../infra/config/load-jobs.ts';

// The seeded chaos simulation: Berlin's spring-forward night (01:00Z) with an
// outage, late ticks, crashes after a claim and after a delivery, throttled ledger requests, a
// target that fails, a slow `concurrency: forbid` job whose runs take longer than its
// interval, and an operator's pause, all drawn from the plan's seed. The real dispatcher,
// ledger and recorder run against dynalite in this process.

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../../fixtures/simulation/${name}`, import.meta.url));
const config = loadJobsFile(fixture('chaos-jobs.yaml'));
const plan = loadFaultPlan(
  fixture('chaos-faults.yaml'),
  config.jobs.map((job) => job.id),
);
const window = {
  from: new Date('2027-03-27T23:00:00Z'),
  to: new Date('2027-03-28T03:00:00Z'),
  reasons: [],
};

function simulate(): Promise<SimulationResult> {
  return runSimulation({ jobs: config.jobs, windows: [window], duplicateTicks: 2, faults: plan });
}

const count = (result: SimulationResult, reason: string) =>
  result.outcomes.filter((o) => o.reason === reason).length;

describe('the seeded chaos simulation across a DST night', () => {
  it('keeps every invariant while every kind of fault is injected, and is the same again from the same seed', async () => {
    const first = await simulate();
    expect(first.invariants.filter((i) => !i.ok)).toEqual([]);
    expect(first.invariants).toHaveLength(13);

    // Every fault of the plan did happen.
    const f = first.faults;
    expect(f.droppedByOutage).toBeGreaterThan(0);
    expect(f.lateTicks).toBeGreaterThan(0);
    expect(f.crashes['after-claim']).toBeGreaterThan(0);
    expect(f.crashes['after-delivery']).toBeGreaterThan(0);
    expect(f.throttled).toBeGreaterThan(0);
    expect(f.targetFailures).toBeGreaterThan(0);
    expect(f.lambdaRetries).toBeGreaterThan(0);
    // …and shows in how the runs ended: the slow forbid job overlaps itself, the pause skips
    // runs, the failing target's run is dead-lettered, a dead dispatcher's run is redelivered.
    expect(count(first, 'overlap')).toBeGreaterThan(0);
    expect(count(first, 'paused')).toBeGreaterThan(0);
    expect(first.outcomes.some((o) => o.status === 'dead-lettered')).toBe(true);
    expect(first.signals.redelivered).toBeGreaterThan(0);
    // The 02:30 that Berlin skips runs at 03:30 CEST (01:30Z) under the default gap policy.
    expect(first.outcomes.filter((o) => o.jobId === 'nightly-report')).toMatchObject([
      { at: '2027-03-28T01:30:00.000Z', nominal: '2027-03-28T02:30' },
    ]);

    const again = await simulate();
    expect(again.outcomes).toEqual(first.outcomes);
    expect(again.faults).toEqual(first.faults);
    expect(again.signals).toEqual(first.signals);
  });
});
