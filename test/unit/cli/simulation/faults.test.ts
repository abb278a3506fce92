import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { injectsFaults, NO_FAULTS, within } from '../../../../cli/simulation/fault-plan.ts';
import { loadFaultPlan, parseFaultPlan } from '../../../../cli/simulation/faults.ts';
import { type ConfigIssue, isConfigError } from '../../../../infra/config/config-error.ts';

const JOBS = ['nightly-report', 'slow-backup'];

function issuesOf(text: string): string[] {
  try {
    parseFaultPlan(text, 'faults.yaml', JOBS);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return error.issues.map(
      (i: ConfigIssue) => `${i.file}:${i.line}:${i.column} ${i.field}: ${i.message}`,
    );
  }
  throw new Error('expected a ConfigError, but the plan loaded');
}

describe('parseFaultPlan', () => {
  it('reads every kind of fault into a typed plan, durations in milliseconds', () => {
    const plan = parseFaultPlan(
      [
        'seed: 42',
        'outages:',
        '  - { from: "2027-03-28T00:00:00Z", to: "2027-03-28T03:00:00Z" }',
        'lateTicks: { probability: 0.2, maxDelay: 10m }',
        'crashes:',
        '  - { point: after-claim, probability: 0.1 }',
        '  - { point: after-delivery, probability: 0.02 }',
        'throttling: { probability: 0.05 }',
        'targets:',
        '  - { job: nightly-report, fail: { from: "2027-03-28T01:00:00Z", to: "2027-03-28T01:30:00Z" } }',
        '  - { job: slow-backup, runtime: 25m }',
        'pauses:',
        '  - { job: nightly-report, from: "2027-03-28T02:00:00Z", to: "2027-03-28T02:30:00Z" }',
      ].join('\n'),
      'faults.yaml',
      JOBS,
    );
    expect(plan).toEqual({
      seed: 42,
      outages: [{ from: new Date('2027-03-28T00:00:00Z'), to: new Date('2027-03-28T03:00:00Z') }],
      lateTicks: { probability: 0.2, maxDelayMs: 600_000 },
      crashes: [
        { point: 'after-claim', probability: 0.1 },
        { point: 'after-delivery', probability: 0.02 },
      ],
      throttling: { probability: 0.05 },
      targets: [
        {
          job: 'nightly-report',
          fail: { from: new Date('2027-03-28T01:00:00Z'), to: new Date('2027-03-28T01:30:00Z') },
          runtimeMs: undefined,
        },
        { job: 'slow-backup', fail: undefined, runtimeMs: 1_500_000 },
      ],
      pauses: [
        {
          job: 'nightly-report',
          from: new Date('2027-03-28T02:00:00Z'),
          to: new Date('2027-03-28T02:30:00Z'),
          reason: 'simulated pause',
          catchUp: false,
        },
      ],
      deploys: [],
      operator: [],
      hostile: [],
    });
  });

  it('reads an empty plan as no faults with seed 1', () => {
    expect(parseFaultPlan('', 'faults.yaml', JOBS)).toEqual(NO_FAULTS);
  });

  it.each([
    [
      'an interval that ends before it starts',
      'outages:\n  - { from: "2027-03-28T03:00:00Z", to: "2027-03-28T00:00:00Z" }',
      'faults.yaml:2:5 outages.0: from must be before to',
    ],
    [
      'an instant without a zone designator',
      'outages:\n  - { from: "2027-03-28", to: "2027-03-29T00:00:00Z" }',
      'faults.yaml:2:13 outages.0.from: expected an ISO 8601 instant with a zone designator, e.g. 2027-03-28T00:00:00Z',
    ],
    [
      'a probability above 1',
      'throttling: { probability: 1.5 }',
      'faults.yaml:1:28 throttling.probability: expected a probability from 0 to 1',
    ],
    [
      'a duration that is none',
      'lateTicks: { probability: 0.2, maxDelay: soon }',
      "faults.yaml:1:42 lateTicks.maxDelay: invalid duration 'soon' (use 90s, 5m, 24h, 1h30m, 2d, or ISO 8601 like 'PT5M', 'P1D')",
    ],
    [
      'an unknown crash point',
      'crashes:\n  - { point: after-lunch, probability: 0.1 }',
      'faults.yaml:2:14 crashes.0.point: Invalid option: expected one of "after-claim"|"after-delivery"',
    ],
    [
      'a job the jobs file does not have',
      'targets:\n  - { job: nobody, runtime: 5m }',
      "faults.yaml:2:12 targets.0.job: unknown job 'nobody' (jobs: nightly-report, slow-backup)",
    ],
    [
      'an unknown field, at the key',
      'seed: 3\nthrotling: { probability: 0.1 }',
      "faults.yaml:2:1 throtling: unknown field 'throtling'",
    ],
    ['a seed that is not whole', 'seed: 1.5', 'faults.yaml:1:7 seed: expected a whole number'],
  ])('reports %s at its line and column', (_what, text, issue) => {
    expect(issuesOf(text)).toEqual([issue]);
  });

  it('reports a YAML syntax error at its position', () => {
    expect(issuesOf('seed: 1\ncrashes: [1\n')).toEqual([
      expect.stringMatching(/^faults\.yaml:3:1 : fault plan: /),
    ]);
  });
});

describe('loadFaultPlan', () => {
  it('reads the plan from its file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonecron-faults-'));
    const file = join(dir, 'faults.yaml');
    writeFileSync(file, 'seed: 9\nthrottling: { probability: 0.25 }\n');
    expect(loadFaultPlan(file, JOBS)).toMatchObject({ seed: 9, throttling: { probability: 0.25 } });
  });

  it('reports a missing file as one issue about the whole file', () => {
    try {
      loadFaultPlan('/nonexistent/faults.yaml', JOBS);
      expect.unreachable('the plan loaded');
    } catch (error) {
      expect(isConfigError(error) && error.issues).toEqual([
        {
          file: '/nonexistent/faults.yaml',
          line: 0,
          column: 0,
          field: '',
          message: 'fault plan: no such file',
          code: 'unreadable',
        },
      ]);
    }
  });
});

describe('within and injectsFaults', () => {
  const interval = { from: new Date('2027-03-28T00:00:00Z'), to: new Date('2027-03-28T01:00:00Z') };

  it('takes an interval as closed at its start and open at its end', () => {
    expect(within([interval], new Date('2027-03-28T00:00:00Z'))).toBe(true);
    expect(within([interval], new Date('2027-03-28T00:59:59.999Z'))).toBe(true);
    expect(within([interval], new Date('2027-03-28T01:00:00Z'))).toBe(false);
  });

  it('calls a plan with only slow targets fault-free, and one with any fault faulty', () => {
    expect(injectsFaults(NO_FAULTS)).toBe(false);
    const slow = { ...NO_FAULTS, targets: [{ job: 'x', fail: undefined, runtimeMs: 60_000 }] };
    expect(injectsFaults(slow)).toBe(false);
    expect(injectsFaults({ ...NO_FAULTS, outages: [interval] })).toBe(true);
    expect(injectsFaults({ ...NO_FAULTS, throttling: { probability: 0.1 } })).toBe(true);
  });
});
