import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadFaultPlan, parseFaultPlan } from '../../../../cli/simulation/faults.ts';
import { type ConfigIssue, isConfigError } from '../../../../infra/config/config-error.ts';
import { loadJobsFile } from '../../../../infra/config/load-jobs.ts';

// The fields of a fault plan that replay a history: deploys, pauses resumed with --catch-up,
// operators' actions and hostile events (test/fixtures/simulation/replay-faults.yaml).

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../../fixtures/simulation/${name}`, import.meta.url));
const config = loadJobsFile(fixture('replay-jobs.yaml'));

/** A plan in a directory of its own, beside a copy of the fixture's second jobs file. */
function planFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-replay-'));
  writeFileSync(join(dir, 'jobs-v2.yaml'), readFileSync(fixture('replay-jobs-v2.yaml'), 'utf8'));
  const file = join(dir, 'faults.yaml');
  writeFileSync(file, text);
  return file;
}

function issuesOf(text: string, jobs: Parameters<typeof parseFaultPlan>[2] = config): string[] {
  const file = planFile(text);
  try {
    loadFaultPlan(file, jobs);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return error.issues.map(
      (i: ConfigIssue) =>
        `${i.file === file ? 'faults.yaml' : i.file}:${i.line}:${i.column} ${i.field}: ${i.message}`,
    );
  }
  throw new Error('expected a ConfigError, but the plan loaded');
}

describe('a replay plan', () => {
  it('reads the fixture: its deploy with the jobs of its file, pauses, operators and hostile events', () => {
    const plan = loadFaultPlan(fixture('replay-faults.yaml'), config);
    expect(plan.deploys).toHaveLength(1);
    expect(plan.deploys[0]).toMatchObject({
      id: 'deploy-1',
      at: new Date('2027-03-28T10:20:00Z'),
      file: fixture('replay-jobs-v2.yaml'),
      retentionDays: 35,
    });
    expect(plan.deploys[0]?.jobs.map((j) => `${j.id} ${j.schedule}`)).toEqual([
      'nightly 30 2 * * *',
      'hourly */5 * * * *',
      'sync */10 * * * *',
      'backup */15 * * * *',
      'fresh */30 * * * *',
    ]);
    expect(plan.pauses.map((p) => [p.job, p.catchUp])).toEqual([
      ['sync', true],
      ['hourly', false],
    ]);
    expect(plan.operator.map((o) => o.action)).toEqual([
      'backfill',
      'run',
      'redrive',
      'discard',
      'pause',
      'resume',
    ]);
    expect(plan.operator[3]).toEqual({
      at: new Date('2027-03-28T06:12:00Z'),
      action: 'discard',
      job: 'sync',
      run: new Date('2027-03-28T03:10:00Z'),
      reason: 'ran by hand',
    });
    expect(plan.hostile.map((h) => h.kind)).toEqual([
      'ancient-tick',
      'future-tick',
      'forged-completion',
      'deep-event',
      'huge-event',
    ]);
    expect(plan.hostile[3]).toEqual({
      at: new Date('2027-03-28T07:03:00Z'),
      kind: 'deep-event',
      depth: 200,
      to: 'dispatcher',
    });
  });

  it('fills in the defaults: a resume without catch-up, a succeeded forgery, a reason', () => {
    const plan = parseFaultPlan(
      [
        'operator:',
        '  - { at: "2027-03-28T06:00:00Z", action: resume, job: nightly }',
        '  - { at: "2027-03-28T06:01:00Z", action: pause, job: nightly }',
        'hostile:',
        '  - { at: "2027-03-28T07:00:00Z", kind: forged-completion, job: nightly, run: "2027-03-28T02:30:00Z" }',
      ].join('\n'),
      'faults.yaml',
      config,
    );
    expect(plan.operator).toEqual([
      { at: new Date('2027-03-28T06:00:00Z'), action: 'resume', job: 'nightly', catchUp: false },
      {
        at: new Date('2027-03-28T06:01:00Z'),
        action: 'pause',
        job: 'nightly',
        reason: 'simulated pause',
        until: undefined,
      },
    ]);
    expect(plan.hostile[0]).toMatchObject({ kind: 'forged-completion', outcome: 'succeeded' });
  });

  it.each([
    [
      'an operator naming a job one typo away, with the closest id',
      'operator:\n  - { at: "2027-03-28T06:00:00Z", action: run, job: nightli }',
      "faults.yaml:2:53 operator.0.job: unknown job 'nightli'; did you mean 'nightly'? (jobs: nightly, hourly, sync, backup, feed)",
    ],
    [
      'a job that only a later deploy brings',
      'deploys:\n  - { at: "2027-03-28T10:20:00Z", config: jobs-v2.yaml }\noperator:\n  - { at: "2027-03-28T06:00:00Z", action: run, job: fresh }',
      "faults.yaml:4:53 operator.0.job: unknown job 'fresh' (jobs: nightly, hourly, sync, backup, feed)",
    ],
    [
      'a pause of a job the deploy before it removed',
      'deploys:\n  - { at: "2027-03-28T10:20:00Z", config: jobs-v2.yaml }\npauses:\n  - { job: feed, from: "2027-03-28T11:00:00Z", to: "2027-03-28T11:30:00Z" }',
      "faults.yaml:4:12 pauses.0.job: unknown job 'feed' (jobs: nightly, hourly, sync, backup, fresh)",
    ],
    [
      'a backfill of runs that are not due yet',
      'operator:\n  - { at: "2027-03-28T06:00:00Z", action: backfill, job: sync, from: "2027-03-28T05:00:00Z", to: "2027-03-28T07:00:00Z" }',
      'faults.yaml:2:98 operator.0.to: to must not be after at: backfill delivers runs that were due',
    ],
    [
      'a pause that ends before it starts',
      'operator:\n  - { at: "2027-03-28T06:00:00Z", action: pause, job: sync, until: "2027-03-28T05:00:00Z" }',
      'faults.yaml:2:68 operator.0.until: until must be after at',
    ],
    [
      'an operator action there is no command for',
      'operator:\n  - { at: "2027-03-28T06:00:00Z", action: reboot, job: sync }',
      "faults.yaml:2:43 operator.0.action: Invalid discriminator value. Expected 'backfill' | 'run' | 'redrive' | 'discard' | 'pause' | 'resume'",
    ],
    [
      "an ancient tick within its job's catch-up window",
      'hostile:\n  - { at: "2027-03-28T07:00:00Z", kind: ancient-tick, job: sync, scheduledTime: "2027-03-28T06:00:00Z" }',
      "faults.yaml:2:81 hostile.0.scheduledTime: an ancient tick must be older than 86400s before at (the job's catch-up window or retention, whichever is shorter)",
    ],
    [
      'a future tick within the clock skew',
      'hostile:\n  - { at: "2027-03-28T07:00:00Z", kind: future-tick, job: sync, scheduledTime: "2027-03-28T07:00:30Z" }',
      'faults.yaml:2:80 hostile.0.scheduledTime: a future tick must be more than the clock skew (60s) after at',
    ],
    [
      'a forged completion of a job whose target reports none',
      'hostile:\n  - { at: "2027-03-28T07:00:00Z", kind: forged-completion, job: sync, run: "2027-03-28T06:00:00Z" }',
      'faults.yaml:2:65 hostile.0.job: a forged completion needs a lambda or stepfunctions job; its target (sqs) reports no completions',
    ],
    [
      'an event deeper than the limit',
      'hostile:\n  - { at: "2027-03-28T07:00:00Z", kind: deep-event, depth: 2000000 }',
      'faults.yaml:2:60 hostile.0.depth: expected a whole number from 1 to 1000000',
    ],
    [
      'an unknown field of a hostile event, at the key',
      'hostile:\n  - { at: "2027-03-28T07:00:00Z", kind: huge-event, bytes: 10, size: 3 }',
      "faults.yaml:2:64 hostile.0.size: unknown field 'size'",
    ],
    [
      'deploys out of order',
      'deploys:\n  - { at: "2027-03-28T10:20:00Z", config: jobs-v2.yaml }\n  - { at: "2027-03-28T10:00:00Z", config: jobs-v2.yaml }',
      'faults.yaml:3:11 deploys.1.at: a deploy must come after the one before it',
    ],
  ])('reports %s at its line and column', (_what, text, issue) => {
    expect(issuesOf(text)).toEqual([issue]);
  });

  it("reports a deploy's missing jobs file at its config, and a bad one at the problem in that file", () => {
    expect(issuesOf('deploys:\n  - { at: "2027-03-28T10:20:00Z", config: nowhere.yaml }')).toEqual([
      expect.stringMatching(
        /^faults\.yaml:2:43 deploys\.0\.config: jobs file: no such file \(.*nowhere\.yaml\)$/,
      ),
    ]);
    const file = planFile('deploys:\n  - { at: "2027-03-28T10:20:00Z", config: bad.yaml }');
    const bad = join(file, '..', 'bad.yaml');
    writeFileSync(bad, 'jobs:\n  - id: x\n    schedule: "99 * * * *"\n');
    try {
      loadFaultPlan(file, config);
      expect.unreachable('the plan loaded');
    } catch (error) {
      expect(isConfigError(error) && error.issues.every((i) => i.file === bad)).toBe(true);
    }
  });

  it('checks hostile ticks against the job only when it knows the definitions (ids alone: any past instant)', () => {
    const text =
      'hostile:\n  - { at: "2027-03-28T07:00:00Z", kind: ancient-tick, job: sync, scheduledTime: "2027-03-28T06:00:00Z" }';
    expect(parseFaultPlan(text, 'faults.yaml', ['sync']).hostile).toHaveLength(1);
  });
});
