import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFaultPlan } from '../../../../cli/simulation/faults.ts';
import { runSimulation, type SimulationResult } from '../../../../cli/simulation/run-simulation.ts';
import { periodBucket } from '../../../../functions/schedule/index.ts';
import { loadJobsFile } from '../../../../infra/config/load-jobs.ts';

// Hostile events aimed where they hurt (test/fixtures/simulation/hostile-faults.yaml), through
// the real dispatcher and recorder. Whether today's functions resist them is theirs to say;
// these tests hold that each event reaches its function, that the simulation contains what
// the function does with it, and that the invariant for it says exactly what happened.

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../../fixtures/simulation/${name}`, import.meta.url));
const config = loadJobsFile(fixture('replay-jobs.yaml'));
const plan = loadFaultPlan(fixture('hostile-faults.yaml'), config);
const window = {
  from: new Date('2027-03-28T00:00:00Z'),
  to: new Date('2027-03-28T01:00:00Z'),
  reasons: [],
};

let result: SimulationResult;
beforeAll(async () => {
  result = await runSimulation({
    jobs: config.jobs,
    windows: [window],
    duplicateTicks: 1,
    faults: plan,
  });
}, 300_000);

const invariant = (name: string) => {
  const found = result.invariants.find((i) => i.name === name);
  if (!found) throw new Error(`no invariant '${name}'`);
  return found;
};

describe('hostile events against the real functions', () => {
  it("takes a forged failure of a running Step Functions run to the recorder, and breaks 'no forged completion changes a run' exactly when the recorder recorded it", () => {
    const forged = result.hostile[0];
    expect(forged).toMatchObject({ kind: 'forged-completion', to: 'recorder', attempts: 1 });
    expect(forged?.key).toBe(periodBucket('backup', new Date('2027-03-28T00:15:00Z')));
    expect(forged?.result).toMatch(/^(recorded failed|ignored \(.+\)|unrecognised \(.+\))$/);
    expect(invariant('no forged completion changes a run').ok).toBe(forged?.recorded === false);
  });

  it("contains what a 20,000-deep event makes the dispatcher do, and breaks 'hostile events ignored, never thrown' exactly when it threw", () => {
    const deep = result.hostile[1];
    expect(deep).toMatchObject({ kind: 'deep-event', to: 'dispatcher', attempts: 1 });
    if (deep?.threw === null) expect(deep.counted).toContain('MalformedEvents');
    expect(invariant('hostile events ignored, never thrown').ok).toBe(deep?.threw === null);
  });

  it("sends a tick of 1970 that is one of an hourly job's runs, and breaks 'no hostile event delivers a run' exactly when a target got that run", () => {
    const ancient = result.hostile[2];
    const key = periodBucket('hourly', new Date('1970-01-01T00:00:00Z'));
    expect(ancient).toMatchObject({ kind: 'ancient-tick', key, attempts: 1 });
    const delivered = result.runs.filter((r) => r.key === key);
    expect(ancient?.deliveries).toBe(delivered.length);
    expect(invariant('no hostile event delivers a run').ok).toBe(delivered.length === 0);
  });
});
