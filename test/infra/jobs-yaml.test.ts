/**
 * The repository's own jobs.yaml, the worked example: it synthesizes, cdk-nag-clean, into a
 * stack whose resource counts follow the file.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateMonthlyCost, jobVolumes } from '../../infra/cost-estimate.ts';
import { nagViolations } from '../../infra/nag.ts';
import { resourcesOfType, type SynthesizedFixture, synthFixture } from './synth-fixture.ts';

let fx: SynthesizedFixture;
beforeAll(() => {
  fx = synthFixture('jobs.yaml');
});

describe('jobs.yaml', () => {
  it('synthesizes with no cdk-nag finding left', () => {
    expect(nagViolations(fx.built.nag, fx.built.app)).toEqual([]);
  });

  it('gets one schedule per enabled job, plus the sweep', () => {
    const enabled = fx.config.jobs.filter((job) => job.enabled).map((job) => job.id);
    const names = resourcesOfType(fx, 'AWS::Scheduler::Schedule').map(
      ([, r]) => r.Properties?.Name,
    );
    expect(names.sort()).toEqual([...enabled, 'zonecron.sweep'].sort());
  });

  it('gets 7 machinery alarms, 5 per enabled job and RunFailed per lambda/stepfunctions job', () => {
    const enabled = fx.config.jobs.filter((job) => job.enabled);
    const completing = enabled.filter(
      (job) => job.target.type === 'lambda' || job.target.type === 'stepfunctions',
    );
    expect(resourcesOfType(fx, 'AWS::CloudWatch::Alarm')).toHaveLength(
      7 + 5 * enabled.length + completing.length,
    );
  });

  it('wires destinations for each distinct lambda target and one rule for state machines', () => {
    const lambdaTargets = new Set(
      fx.config.jobs
        .filter((job) => job.enabled && job.target.type === 'lambda')
        .map((job) => job.target.arn),
    );
    const targetConfigs = resourcesOfType(fx, 'AWS::Lambda::EventInvokeConfig').filter(
      ([, r]) => typeof r.Properties?.FunctionName === 'string',
    );
    expect(targetConfigs).toHaveLength(lambdaTargets.size);
    const hasStateMachines = fx.config.jobs.some(
      (job) => job.enabled && job.target.type === 'stepfunctions',
    );
    fx.template.resourceCountIs('AWS::Events::Rule', hasStateMachines ? 1 : 0);
  });

  it('subscribes every alarms.email address', () => {
    fx.template.resourceCountIs('AWS::SNS::Subscription', fx.config.alarmEmails.length);
  });

  it('costs a wall-clock daily job at most 2 ticks per run', () => {
    // A fixed minute (or an H minute) of a fixed hour, every day.
    const daily = fx.built.stack.coverings.filter(({ job }) =>
      /^(\d+|H\(\d+-\d+\)) \d+ \* \* \*$/.test(job.schedule),
    );
    expect(daily.length).toBeGreaterThan(0);
    for (const { covering } of daily) expect(covering.ticksPerRun).toBeLessThanOrEqual(2);
  });
});

describe('infra/cost-estimate.ts on jobs.yaml', () => {
  const from = new Date('2026-01-01T00:00:00.000Z');

  it('prices exactly as many alarms as the stack creates', () => {
    const alarms = resourcesOfType(fx, 'AWS::CloudWatch::Alarm').length;
    expect(estimateMonthlyCost(fx.config, from).alarms).toBe(alarms);
  });

  it('counts two UTC ticks a day for a Berlin 02:30 job (one per DST state), one run a day', () => {
    const berlin = fx.config.jobs.find((job) => job.id === 'berlin-nightly-report');
    if (!berlin) throw new Error('jobs.yaml lost berlin-nightly-report');
    const volumes = jobVolumes(berlin, from);
    // 365 days of 2 ticks and 1 run, over an average month of 365.25 / 12 days.
    expect(volumes.ticksPerMonth).toBeCloseTo((730 * 30.4375) / 365, 6);
    expect(volumes.runsPerMonth).toBeCloseTo((365 * 30.4375) / 365, 6);
  });

  it('scales per-job items linearly with --scale', () => {
    const one = estimateMonthlyCost(fx.config, from, 1);
    const ten = estimateMonthlyCost(fx.config, from, 10);
    expect(ten.ticksPerMonth).toBeCloseTo(one.ticksPerMonth * 10, 6);
    expect(ten.sweepsPerMonth).toBe(one.sweepsPerMonth);
  });
});
