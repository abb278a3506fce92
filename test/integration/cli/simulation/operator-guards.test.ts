import { beforeAll, describe, expect, it } from 'vitest';
import { parseFaultPlan } from '../../../../cli/simulation/faults.ts';
import { runSimulation, type SimulationResult } from '../../../../cli/simulation/run-simulation.ts';
import { periodBucket } from '../../../../functions/schedule/index.ts';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';

// The operator's `run` and `backfill` steps of a fault plan go through the guards of the
// commands (cli/aws/run-guards.ts): a paused job, and a `forbid` job whose run is still
// running, are refused unless the step says `force`. Real dispatcher, recorder and ledger
// (dynalite, in this process), all in UTC. Every run by hand of export ends before its next
// scheduled run: a run by hand neither takes nor checks the forbid slot
// (functions/dispatcher/planned-run.ts), so a scheduled run would be delivered beside it.

const config = parseJobsConfig(
  `jobs:
  - id: billing
    description: paused for maintenance from 01:00 to 02:00
    schedule: '*/10 * * * *'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:eu-west-1:123456789012:billing' }
  - id: export
    description: one export at a time, each running twenty minutes
    schedule: '0 * * * *'
    timezone: UTC
    concurrency: forbid
    maxRuntime: 1h
    target: { type: lambda, arn: 'arn:aws:lambda:eu-west-1:123456789012:function:export' }
`,
  'jobs.yaml',
);

const plan = parseFaultPlan(
  `targets:
  - { job: export, runtime: 20m }
pauses:
  - { job: billing, from: "2027-03-28T01:00:00Z", to: "2027-03-28T02:00:00Z" }
operator:
  - { at: "2027-03-28T01:21:00Z", action: run, job: billing }
  - { at: "2027-03-28T01:22:00Z", action: run, job: billing, force: true }
  - { at: "2027-03-28T01:23:00Z", action: backfill, job: billing,
      from: "2027-03-28T00:00:00Z", to: "2027-03-28T00:30:00Z" }
  - { at: "2027-03-28T01:24:00Z", action: backfill, job: billing,
      from: "2027-03-28T00:00:00Z", to: "2027-03-28T00:30:00Z", force: true }
  - { at: "2027-03-28T02:10:00Z", action: run, job: export }
  - { at: "2027-03-28T02:11:00Z", action: run, job: export, force: true }
  - { at: "2027-03-28T02:35:00Z", action: run, job: export }
`,
  'faults.yaml',
  config,
);

let result: SimulationResult;
beforeAll(async () => {
  result = await runSimulation({
    jobs: config.jobs,
    windows: [
      { from: new Date('2027-03-28T00:00:00Z'), to: new Date('2027-03-28T03:00:00Z'), reasons: [] },
    ],
    duplicateTicks: 1,
    faults: plan,
  });
}, 300_000);

const stepAt = (hhmm: string) =>
  result.operator.find((o) => o.at.slice(11, 16) === hhmm && o.action !== 'pause');

describe("the simulation's operator run and backfill, through the commands' guards", () => {
  it('refuses a run of a paused job, and delivers nothing', () => {
    expect(stepAt('01:21')).toMatchObject({ action: 'run', ok: false, delivered: [] });
    expect(stepAt('01:21')?.detail).toMatch(
      /^'billing' is paused \(since 2027-03-28T01:00:00\.000Z by .*\); nothing was delivered: zonecron resume billing first, or run \.\.\. --force/,
    );
  });

  it('delivers a forced run of a paused job, and says it was forced past the pause', () => {
    expect(stepAt('01:22')).toMatchObject({
      action: 'run',
      ok: true,
      delivered: [periodBucket('manual:billing', new Date('2027-03-28T01:22:00Z'))],
    });
    expect(stepAt('01:22')?.detail).toContain('; forced past the pause (since 2027-03-28T01:00');
  });

  it('refuses a backfill of a paused job unless forced, then delivers only runs not in the ledger', () => {
    expect(stepAt('01:23')).toMatchObject({ action: 'backfill', ok: false, delivered: [] });
    expect(stepAt('01:23')?.detail).toContain("'billing' is paused");
    // 00:10 to 00:30 were delivered on time; 00:00, the window's opening instant, was not.
    expect(stepAt('01:24')).toMatchObject({
      action: 'backfill',
      ok: true,
      forced: true,
      delivered: [periodBucket('billing', new Date('2027-03-28T00:00:00Z'))],
    });
    expect(stepAt('01:24')?.detail).toContain('forced past the pause');
  });

  it('refuses a run of a forbid job while its run is still running, delivers it beside it when forced, and runs it once that run ended', () => {
    expect(stepAt('02:10')).toMatchObject({ action: 'run', ok: false, delivered: [] });
    expect(stepAt('02:10')?.detail).toMatch(
      /^run [0-9a-f]{7} at 2027-03-28T02:00:00\.000Z is dispatched \(concurrency forbid\); nothing was delivered/,
    );
    expect(stepAt('02:11')).toMatchObject({ action: 'run', ok: true, forced: true });
    expect(stepAt('02:11')?.detail).toMatch(
      /; beside run [0-9a-f]{7} at 2027-03-28T02:00:00\.000Z is dispatched \(overlap allow\)$/,
    );
    // The forced run ran twenty minutes, to 02:31.
    expect(stepAt('02:35')).toMatchObject({ action: 'run', ok: true, forced: false });
  });

  it('keeps every invariant, a forced run beside a forbid run being no overlap the stack made', () => {
    expect(result.invariants.filter((i) => !i.ok).map((i) => `${i.name}: ${i.detail}`)).toEqual([]);
  });
});
