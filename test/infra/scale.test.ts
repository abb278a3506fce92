/**
 * Generated jobs at two sizes, 10 and 2,000 (`scripts/generate-jobs.ts`: every cron form and
 * target type, 40 zones, mostly distinct targets; 20 of the 2,000 with dedicated alarms),
 * synthesized with bundling like `cdk synth`: every template within the AWS limits a deploy
 * meets, measured here from the template JSON itself, and a number of alarms that does not
 * grow with the jobs. The 2,000-job synth is the slowest fixture of the suite (see
 * docs/architecture.md, "Tests").
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { nagAcknowledgements, nagViolations } from '../../infra/constructs/nag.ts';
import { jsonCharsForSize } from '../../infra/limits/intrinsics.ts';
import { generateJobsYaml } from '../../scripts/generate-jobs.ts';
import {
  type Props,
  type SynthesizedFixture,
  synthFixture,
  type TemplateJson,
} from './synth-fixture.ts';

let small: SynthesizedFixture;
let large: SynthesizedFixture;

beforeAll(() => {
  small = synthFixture(
    parseJobsConfig(generateJobsYaml({ count: 10, seed: 1 }), 'generated-10.yaml'),
  );
  large = synthFixture(
    parseJobsConfig(
      generateJobsYaml({ count: 2_000, seed: 1, dedicated: 20 }),
      'generated-2000.yaml',
    ),
  );
}, 180_000);

/** What EventBridge Scheduler accepts, field by field (steps need an explicit start). */
const AWS_CRON = new RegExp(
  [
    String.raw`^cron\(`,
    String.raw`(\*|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\?|L|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\?|[1-7]#[1-5]|(?:SUN|MON|TUE|WED|THU|FRI|SAT)(?:[-,](?:SUN|MON|TUE|WED|THU|FRI|SAT))*) `,
    String.raw`\*\)$`,
  ].join(''),
);

function resourcesOf(template: TemplateJson, type: string): Props[] {
  return Object.values(template.Resources)
    .filter((r) => r.Type === type)
    .map((r) => r.Properties ?? {});
}

function everyTemplate(fx: SynthesizedFixture): [string, TemplateJson][] {
  return Object.entries(fx.templates);
}

describe.each([
  ['10 jobs', () => small],
  ['2,000 jobs', () => large],
])('%s', (_, fixture) => {
  it('pass the synth’s own AWS-limit check and cdk-nag', () => {
    const fx = fixture();
    expect(fx.check.violations).toEqual([]);
    expect(nagViolations(fx.built.nag, fx.built.app)).toEqual([]);
  });

  it('keep every template within 500 resources, 200 outputs, 200 parameters and 1 MB', () => {
    for (const [stack, template] of everyTemplate(fixture())) {
      expect(Object.keys(template.Resources).length, stack).toBeLessThanOrEqual(500);
      expect(Object.keys(template.Outputs ?? {}).length, stack).toBeLessThanOrEqual(200);
      expect(Object.keys(template.Parameters ?? {}).length, stack).toBeLessThanOrEqual(200);
      const bytes = statSync(join(fixture().directory, `${stack}.template.json`)).size;
      expect(bytes, stack).toBeLessThanOrEqual(1_000_000);
    }
  });

  it('keep every event pattern within 2,048 characters', () => {
    for (const [, template] of everyTemplate(fixture())) {
      for (const rule of resourcesOf(template, 'AWS::Events::Rule')) {
        expect(JSON.stringify(rule.EventPattern).length).toBeLessThanOrEqual(2_048);
      }
    }
  });

  it('keep every managed policy within 6,144 characters and every role within 10 managed policies', () => {
    const main = fixture().json;
    const managed = resourcesOf(main, 'AWS::IAM::ManagedPolicy');
    for (const policy of managed) {
      // Target grants are literal ARNs: their JSON is what IAM counts.
      if (JSON.stringify(policy.PolicyDocument).includes('Fn::')) continue;
      expect(JSON.stringify(policy.PolicyDocument).length).toBeLessThanOrEqual(6_144);
    }
    for (const [roleId] of Object.entries(main.Resources).filter(
      ([, r]) => r.Type === 'AWS::IAM::Role',
    )) {
      const attached = managed.filter((p) => JSON.stringify(p.Roles ?? []).includes(`"${roleId}"`));
      expect(attached.length, roleId).toBeLessThanOrEqual(10);
    }
  });

  it('keep the alarm widget within 100 alarms and the dashboard within 2,500 metrics, with no search', () => {
    for (const dashboard of resourcesOf(fixture().json, 'AWS::CloudWatch::Dashboard')) {
      const parts = dashboard.DashboardBody['Fn::Join'][1] as unknown[];
      const body = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'TOKEN')).join('')) as {
        widgets: Props[];
      };
      expect(JSON.stringify(body)).not.toContain('SEARCH');
      const metrics = body.widgets.reduce(
        (sum, w) => sum + (w.properties?.metrics?.length ?? 0),
        0,
      );
      expect(metrics).toBeLessThanOrEqual(2_500);
      for (const widget of body.widgets.filter((w) => w.type === 'alarm')) {
        expect(widget.properties.alarms.length).toBeLessThanOrEqual(100);
      }
    }
  });

  it('give every schedule EventBridge Scheduler cron syntax and an input that is JSON as written', () => {
    for (const [, template] of everyTemplate(fixture())) {
      for (const schedule of resourcesOf(template, 'AWS::Scheduler::Schedule')) {
        expect(schedule.ScheduleExpression).toMatch(AWS_CRON);
        expect(() => JSON.parse(schedule.Target.Input)).not.toThrow();
      }
    }
  });

  it('keep each Lambda package far below 250 MB unzipped', () => {
    const assets = readdirSync(fixture().directory).filter((name) => name.startsWith('asset.'));
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const dir = join(fixture().directory, asset);
      const bytes = readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
      expect(bytes).toBeLessThan(262_144_000);
    }
  });

  it('create each lambda target’s invoke config once', () => {
    const keys = everyTemplate(fixture()).flatMap(([, template]) =>
      resourcesOf(template, 'AWS::Lambda::EventInvokeConfig')
        .filter((p) => typeof p.FunctionName === 'string')
        .map((p) => `${p.FunctionName}:${p.Qualifier}`),
    );
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('on-call that does not grow with the job count', () => {
  const stackAlarms = (fx: SynthesizedFixture) =>
    resourcesOf(fx.json, 'AWS::CloudWatch::Alarm').map((a) => a.AlarmName as string);

  it('has the same 17 stack alarms for 10 jobs as for 2,000, at most 40', () => {
    expect(stackAlarms(small)).toHaveLength(17);
    expect(
      stackAlarms(large)
        .map((name) => name)
        .sort(),
    ).toEqual(stackAlarms(small).sort());
  });

  it('adds alarms only for the 20 jobs with alarm.dedicated, 5 or 6 each, in the shard stacks', () => {
    const dedicated = large.config.jobs.filter((job) => job.enabled && job.alarm.dedicated);
    expect(dedicated).toHaveLength(20);
    const inShards = everyTemplate(large)
      .filter(([stack]) => stack !== 'Zonecron')
      .flatMap(([, template]) => resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    const expected = dedicated.reduce(
      (sum, job) =>
        sum + (job.target.type === 'lambda' || job.target.type === 'stepfunctions' ? 6 : 5),
      0,
    );
    expect(inShards).toHaveLength(expected);
    for (const alarm of inShards) expect(alarm.AlarmName).toMatch(/^Zonecron-job-/);
  });

  it('publishes no per-job metric for ordinary jobs: every alarm outside the shards is on {Stack} or an AWS namespace', () => {
    for (const alarm of resourcesOf(large.json, 'AWS::CloudWatch::Alarm')) {
      if (alarm.Namespace !== 'zonecron') continue;
      expect(alarm.Dimensions).toEqual([{ Name: 'Stack', Value: 'Zonecron' }]);
    }
  });
});

describe('the dispatcher’s target grants at 2,000 jobs', () => {
  it('widens only what does not fit, and acknowledges each wildcard with its reason', () => {
    const grants = large.installation.main.dispatcher.targetPolicies.grants;
    expect(grants.widened.length).toBeGreaterThan(0);
    const acks = nagAcknowledgements(large.built.app).filter(({ id }) =>
      id.startsWith('AwsSolutions-IAM5'),
    );
    expect(acks.map(({ id }) => id).sort()).toEqual(
      grants.widened.map((group) => `AwsSolutions-IAM5[Resource::${group.wildcard}]`).sort(),
    );
    for (const ack of acks) expect(ack.reason).toContain('IAM and AWS STS quotas');
  });

  it('keeps every managed policy of the app at or below 99 % of IAM’s 6,144 characters', () => {
    const managed = everyTemplate(large).flatMap(([stack, template]) =>
      Object.entries(template.Resources)
        .filter(([, r]) => r.Type === 'AWS::IAM::ManagedPolicy')
        .map(([id, r]) => [`${stack}/${id}`, r.Properties?.PolicyDocument] as const),
    );
    // References measured at their longest, as the synth's own limit check does.
    const chars = managed.map(([where, document]) => [where, jsonCharsForSize(document)] as const);
    for (const [where, size] of chars) expect(size, where).toBeLessThanOrEqual(6_144 * 0.99);
    // The target grants fill their policies: the bound is what holds them back.
    const targetPolicies = large.installation.main.dispatcher.targetPolicies.policies.length;
    expect(chars.filter(([, size]) => size > 6_144 * 0.95).length).toBeGreaterThanOrEqual(
      targetPolicies - 1,
    );
  });

  it('writes the jobs bundle beside both handlers', () => {
    const jobsFiles = readdirSync(large.directory)
      .filter((name) => name.startsWith('asset.'))
      .map((asset) => JSON.parse(readFileSync(join(large.directory, asset, 'jobs.json'), 'utf8')));
    expect(jobsFiles).toHaveLength(2);
    for (const bundle of jobsFiles) expect(bundle.jobs).toHaveLength(2_000);
  });
});
