/**
 * The repository's own jobs.yaml, the worked example: it synthesizes, cdk-nag-clean, clean under
 * aws-cdk-lib's CloudFormation validation and within every AWS limit, into stacks whose contents follow the file and that `cdk deploy --all`
 * deploys main stack first, and the cost estimate counts what those stacks contain.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaTargetRef } from '#jobs/target-arn.ts';
import { estimateMonthlyCost } from '../../infra/app/cost-estimate.ts';
import { nagViolations } from '../../infra/constructs/nag.ts';
import type { JobShardStack } from '../../infra/stacks/job-shard-stack.ts';
import { resourcesOfType, type SynthesizedFixture, synthFixture } from './synth-fixture.ts';

let fx: SynthesizedFixture;
beforeAll(() => {
  fx = synthFixture('jobs.yaml', { cloudFormationValidation: true });
});

describe('jobs.yaml', () => {
  it("synthesizes with no cdk-nag finding left, no finding of aws-cdk-lib's CloudFormation validation (default rules as errors) and no AWS limit exceeded", () => {
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

  it('gets the 17 stack alarms and no job alarms: no job has alarm.dedicated', () => {
    expect(fx.config.jobs.some((job) => job.alarm.dedicated)).toBe(false);
    expect(resourcesOfType(fx, 'AWS::CloudWatch::Alarm')).toHaveLength(17);
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

  it('costs a wall-clock daily job without a calendar at most 2 ticks per run', () => {
    // A fixed minute (or an H minute) of a fixed hour, every day; a calendar's job runs on
    // fewer days than its covering fires, so more ticks per run.
    const daily = fx.installation.coverings.filter(
      ({ job }) => !job.calendar && /^(\d+|H\(\d+-\d+\)) \d+ \* \* \*$/.test(job.schedule),
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

interface Manifest {
  readonly artifacts: Record<string, { readonly type: string; readonly dependencies?: string[] }>;
}

type ShardKind = 'schedules' | 'invoke configs' | 'schedules and invoke configs';

function kindOf(shard: JobShardStack): ShardKind {
  if (shard.invokeConfigs.length === 0) return 'schedules';
  return shard.schedules.size === 0 ? 'invoke configs' : 'schedules and invoke configs';
}

function firstShardOf(kind: ShardKind): JobShardStack {
  const shard = fx.installation.shards.find((s) => kindOf(s) === kind);
  if (shard === undefined) throw new Error(`jobs.yaml has no shard holding ${kind}`);
  return shard;
}

/**
 * The order `cdk deploy --all` deploys in, as the CDK CLI reads it: each stack's
 * `dependencies` in the cloud assembly's manifest.json. jobs.yaml has a shard of each kind.
 */
describe('cdk deploy --all on jobs.yaml', () => {
  let manifest: Manifest;
  beforeAll(() => {
    manifest = JSON.parse(readFileSync(join(fx.directory, 'manifest.json'), 'utf8')) as Manifest;
  });

  it.each<ShardKind>(['schedules', 'invoke configs', 'schedules and invoke configs'])(
    'deploys the main stack before a shard holding %s',
    (kind) => {
      const shard = firstShardOf(kind);
      expect(manifest.artifacts[shard.artifactId]?.dependencies).toContain(
        fx.installation.main.artifactId,
      );
    },
  );

  it('deploys the main stack before every shard, and the main stack after none', () => {
    const main = fx.installation.main.artifactId;
    expect(fx.installation.shards.length).toBeGreaterThan(0);
    for (const shard of fx.installation.shards) {
      expect(manifest.artifacts[shard.artifactId]?.dependencies, shard.stackName).toContain(main);
    }
    const stacks = Object.keys(manifest.artifacts).filter(
      (id) => manifest.artifacts[id]?.type === 'aws:cloudformation:stack',
    );
    const mainDependsOn = manifest.artifacts[main]?.dependencies ?? [];
    expect(mainDependsOn.filter((id) => stacks.includes(id))).toEqual([]);
  });
});
