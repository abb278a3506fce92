import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFaultPlan } from '../../../../cli/simulation/faults.ts';
import { runSimulation, type SimulationResult } from '../../../../cli/simulation/run-simulation.ts';
import { loadJobsFile } from '../../../../infra/config/load-jobs.ts';

// A window opens on a stack already running with its jobs file: its sweeps have put every job
// on the roster, so a deploy that drops one ends it even before the window's first sweep.
// Here deploy-1 (00:00:30, before any sweep of the window) drops `b`, deploy-2 (03:10:30)
// lists it again: §6, it starts at that deploy's instant and replays nothing of its absence.

const job = (id: string, minute: number) => `
  - id: ${id}
    description: hourly at :${minute}
    schedule: "${minute} * * * *"
    timezone: UTC
    target: { type: sqs, arn: "arn:aws:sqs:eu-west-1:123456789012:${id}" }
    catchup: { policy: all, window: 24h, maxRuns: 100 }
`;
const jobsFile = (...jobs: string[]) => `jobs:${jobs.join('')}`;

const window = {
  from: new Date('2027-06-15T00:00:00Z'),
  to: new Date('2027-06-15T06:00:00Z'),
  reasons: [],
};

let result: SimulationResult;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-world-'));
  try {
    writeFileSync(join(dir, 'jobs.yaml'), jobsFile(job('a', 0), job('b', 30)));
    writeFileSync(join(dir, 'deploy-1.yaml'), jobsFile(job('a', 0)));
    writeFileSync(join(dir, 'deploy-2.yaml'), jobsFile(job('a', 0), job('b', 30)));
    writeFileSync(
      join(dir, 'faults.yaml'),
      [
        'seed: 1',
        'deploys:',
        '  - { at: "2027-06-15T00:00:30Z", config: deploy-1.yaml }',
        '  - { at: "2027-06-15T03:10:30Z", config: deploy-2.yaml }',
      ].join('\n'),
    );
    const config = loadJobsFile(join(dir, 'jobs.yaml'));
    const faults = loadFaultPlan(join(dir, 'faults.yaml'), config);
    result = await runSimulation({
      jobs: config.jobs,
      windows: [window],
      duplicateTicks: 1,
      faults,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);

describe('a window opened on a running stack', () => {
  it('ends a job a deploy drops before the first sweep, and starts it afresh when listed again', () => {
    const b = result.outcomes.filter((o) => o.jobId === 'b');
    expect(b.map((o) => `${o.at.slice(11, 16)} ${o.status}`)).toEqual([
      '03:30 delivered',
      '04:30 delivered',
      '05:30 delivered',
    ]);
    expect(result.runs.filter((r) => r.jobId === 'b')).toHaveLength(3);
    expect(result.notifications.filter((n) => n.jobId === 'b')).toEqual([]);
  });
});
