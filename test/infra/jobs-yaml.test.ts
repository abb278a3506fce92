/**
 * The repository's own jobs.yaml, the worked example: it synthesizes, cdk-nag-clean and within
 * every AWS limit, into stacks whose contents follow the file, and the cost estimate counts what
 * those stacks contain.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaTargetRef } from '#jobs/target-arn.ts';
import { estimateMonthlyCost } from '../../infra/app/cost-estimate.ts';
import { nagViolations } from '../../infra/constructs/nag.ts';
import { resourcesOfType, type SynthesizedFixture, synthFixture } from './synth-fixture.ts';

let fx: SynthesizedFixture;
beforeAll(() => {
  fx = synthFixture('jobs.yaml');
});

describe('jobs.yaml', () => {
  it('synthesizes with no cdk-nag finding left and no AWS limit exceeded', () => {
    expect(nagViolations(fx.built.nag, fx.built.app)).toEqual([]);
    expect(fx.check.violations).toEqual([]);
  });

  it('gets one schedule per enabled job, plus the sweep', () => {
    const enabled = fx.config.jobs.filter((job) => job.enabled).map((job) => job.id);
    const names = resourcesOfType(fx, 'AWS::Scheduler::Schedule').map(
      ([, r]) => r.Properties?.Name,
    );
    expect(names.sort()).toEqual([...enabled, 'zonecron.sweep'].sort());
  });

  it('gets the 16 stack alarms and no job alarms: no job has alarm.dedicated', () => {
    expect(fx.config.jobs.some((job) => job.alarm.dedicated)).toBe(false);
    expect(resourcesOfType(fx, 'AWS::CloudWatch::Alarm')).toHaveLength(16);
  });

  it('wires an invoke config for each distinct lambda target and one rule per completion kind', () => {
    const lambdaTargets = new Set(
      fx.config.jobs
        .filter((job) => job.enabled && job.target.type === 'lambda')
        .map((job) => lambdaTargetRef(job.target.arn).key),
    );
    const targetConfigs = resourcesOfType(fx, 'AWS::Lambda::EventInvokeConfig').filter(
      ([, r]) => typeof r.Properties?.FunctionName === 'string',
    );
    expect(targetConfigs).toHaveLength(lambdaTargets.size);
    fx.template.resourceCountIs('AWS::Events::Rule', 2);
  });

  it('subscribes every alarms.email address', () => {
    fx.template.resourceCountIs('AWS::SNS::Subscription', fx.config.alarmEmails.length);
  });

  it('costs a wall-clock daily job at most 2 ticks per run', () => {
    // A fixed minute (or an H minute) of a fixed hour, every day.
    const daily = fx.installation.coverings.filter(({ job }) =>
      /^(\d+|H\(\d+-\d+\)) \d+ \* \* \*$/.test(job.schedule),
    );
    expect(daily.length).toBeGreaterThan(0);
    for (const { covering } of daily) expect(covering.ticksPerRun).toBeLessThanOrEqual(2);
  });
});

describe('infra/app/cost-estimate.ts on jobs.yaml', () => {
  it('prices exactly the alarms, dashboards, insight rules and keys the stacks contain', () => {
    const estimate = estimateMonthlyCost(fx.installation, fx.check.templates);
    expect(estimate.alarms).toBe(resourcesOfType(fx, 'AWS::CloudWatch::Alarm').length);
    const quantity = (item: string) => estimate.lines.find((line) => line.item === item)?.quantity;
    expect(quantity('CloudWatch dashboards')).toBe('1');
    expect(quantity('CloudWatch Contributor Insights rules')).toBe('1');
    expect(quantity('KMS keys')).toBe('1');
    expect(estimate.schedules).toBe(resourcesOfType(fx, 'AWS::Scheduler::Schedule').length);
    expect(estimate.stacks).toBe(Object.keys(fx.templates).length);
  });

  it('counts two UTC ticks a day for the Berlin 02:30 job (one per DST state), one run a day', () => {
    const berlin = fx.installation.coverings.find(({ job }) => job.id === 'berlin-nightly-report');
    if (!berlin) throw new Error('jobs.yaml lost berlin-nightly-report');
    const days = berlin.details.countedMs / 86_400_000;
    expect(berlin.details.ticks / days).toBeCloseTo(2, 2);
    expect(berlin.details.runs / days).toBeCloseTo(1, 2);
  });
});
