/**
 * Two installations in one account: `Zonecron` and `Billing`, built into one app, both with a
 * job on the same Lambda function and qualifier. They share no metric dimension value, alarm,
 * alarm target, schedule group, rule or named resource; exactly one of them creates the
 * shared function's invoke config, and each hears of its own runs from the default bus.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { checkCloudAssembly } from '../../infra/limits/check-assembly.ts';
import {
  type Props,
  type SynthesizedFixture,
  synthFixture,
  type TemplateJson,
} from './synth-fixture.ts';

const SHARED = 'arn:aws:lambda:eu-west-1:123456789012:function:shared-report:live';

function config(name: string, extra = '') {
  return parseJobsConfig(
    `
alarms:
  email: [${name}@example.com]
${extra}
jobs:
  - id: ${name}-shared
    description: both installations run the shared report
    schedule: "0 6 * * *"
    timezone: Europe/Berlin
    alarm: { dedicated: true }
    target: { type: lambda, arn: '${SHARED}' }
  - id: ${name}-own
    description: a function of its own
    schedule: "0 7 * * *"
    timezone: Europe/Berlin
    target: { type: lambda, arn: 'arn:aws:lambda:eu-west-1:123456789012:function:${name}-only' }
  - id: ${name}-etl
    description: a state machine
    schedule: "0 8 * * *"
    timezone: Europe/Berlin
    target: { type: stepfunctions, arn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:etl' }
`,
    `${name}.yaml`,
  );
}

let fx: SynthesizedFixture;
beforeAll(() => {
  fx = synthFixture(config('zonecron'), {
    bundle: false,
    more: [{ config: config('billing'), stackName: 'Billing' }],
  });
}, 120_000);

/** The templates of one installation: its main stack and its shards. */
function templatesOf(stackName: string): TemplateJson[] {
  return Object.entries(fx.templates)
    .filter(([name]) => name === stackName || name.startsWith(`${stackName}-jobs-`))
    .map(([, template]) => template);
}

function resources(stackName: string, type: string): Props[] {
  return templatesOf(stackName).flatMap((t) =>
    Object.values(t.Resources)
      .filter((r) => r.Type === type)
      .map((r) => r.Properties ?? {}),
  );
}

describe('two installations in one app', () => {
  it('passes the AWS-limit check of the whole app: no duplicate invoke config or schedule name', () => {
    expect(fx.check.violations).toEqual([]);
  });

  it('creates the shared function’s invoke config once, in the first installation by name (Billing)', () => {
    const shared = (stack: string) =>
      resources(stack, 'AWS::Lambda::EventInvokeConfig').filter(
        (p) => `${p.FunctionName}:${p.Qualifier}` === SHARED,
      );
    expect(shared('Billing')).toHaveLength(1);
    expect(shared('Zonecron')).toHaveLength(0);
    const zonecron = fx.built.installations.find((i) => i.stackName === 'Zonecron');
    expect([...(zonecron?.invokeConfigsOwnedElsewhere ?? [])]).toEqual([[SHARED, 'Billing']]);
  });

  it('lets each installation take only the lambda results and executions its own dispatcher started', () => {
    const patterns = (stack: string) =>
      resources(stack, 'AWS::Events::Rule').map((p) => JSON.stringify(p.EventPattern));
    expect(patterns('Zonecron')).toContainEqual(
      expect.stringContaining('"requestPayload":{"stack":["Zonecron"]}'),
    );
    expect(patterns('Billing')).toContainEqual(
      expect.stringContaining('"requestPayload":{"stack":["Billing"]}'),
    );
    const prefixes = ['Zonecron', 'Billing'].map((stack) =>
      patterns(stack)
        .map((p) => /"prefix":"([^"]+)"/.exec(p)?.[1])
        .find((prefix) => prefix !== undefined),
    );
    expect(prefixes[0]).not.toBe(prefixes[1]);
  });

  it('shares no metric dimension value: every zonecron metric is dimensioned by its own stack', () => {
    for (const stack of ['Zonecron', 'Billing']) {
      const values = resources(stack, 'AWS::CloudWatch::Alarm')
        .filter((a) => a.Namespace === 'zonecron')
        .flatMap((a) =>
          (a.Dimensions as { Name: string; Value: unknown }[]).filter((d) => d.Name === 'Stack'),
        )
        .map((d) => d.Value);
      expect(values.length).toBeGreaterThan(0);
      expect(new Set(values)).toEqual(new Set([stack]));
    }
  });

  it('shares no alarm name and no alarm target', () => {
    const names = (stack: string) =>
      resources(stack, 'AWS::CloudWatch::Alarm').map((a) => a.AlarmName);
    const targets = (stack: string) =>
      new Set(
        resources(stack, 'AWS::CloudWatch::Alarm').flatMap((a) =>
          (a.AlarmActions as unknown[]).map((t) => JSON.stringify(t)),
        ),
      );
    expect(names('Zonecron').filter((name) => names('Billing').includes(name))).toEqual([]);
    // Main-stack alarms point at their own topic by Ref; shard alarms by the topic's fixed name.
    expect([...targets('Zonecron')].some((t) => t.includes('Billing'))).toBe(false);
    expect([...targets('Billing')].some((t) => t.includes('Zonecron-oncall'))).toBe(false);
    expect([...targets('Billing')].some((t) => t.includes('Billing-oncall'))).toBe(true);
  });

  it('gives each its own schedule group: every shard imports only from its own main stack', () => {
    for (const stack of ['Zonecron', 'Billing']) {
      const imports =
        JSON.stringify(templatesOf(stack)).match(/"Fn::ImportValue":"([^"]+)"/g) ?? [];
      expect(imports.length).toBeGreaterThan(0);
      for (const value of imports) expect(value).toContain(`"Fn::ImportValue":"${stack}:`);
    }
  });

  it('names nothing alike: topics, Contributor Insights rules and schedule names differ', () => {
    const named = (stack: string) => [
      ...resources(stack, 'AWS::SNS::Topic').map((p) => p.TopicName),
      ...resources(stack, 'AWS::CloudWatch::InsightRule').map((p) => p.RuleName),
      ...resources(stack, 'AWS::Scheduler::Schedule').map((p) => p.Name),
    ];
    expect(named('Zonecron').length).toBeGreaterThan(3);
    expect(
      named('Zonecron').filter(
        (name) => named('Billing').includes(name) && name !== 'zonecron.sweep',
      ),
    ).toEqual([]);
    for (const stack of ['Zonecron', 'Billing']) {
      expect(
        resources(stack, 'AWS::CloudWatch::Dashboard').every((p) => p.DashboardName === undefined),
      ).toBe(true);
    }
  });
});

describe('an installation whose function’s invoke config another app manages', () => {
  it('creates none for the listed function, and still creates the others', () => {
    const listed = synthFixture(
      config('billing', `completion:\n  existingInvokeConfigs: ['${SHARED}']`),
      { bundle: false, stackName: 'Billing' },
    );
    const keys = Object.values(listed.allResources)
      .filter(
        (r) =>
          r.Type === 'AWS::Lambda::EventInvokeConfig' &&
          typeof r.Properties?.FunctionName === 'string',
      )
      .map((r) => `${r.Properties?.FunctionName}:${r.Properties?.Qualifier}`);
    expect(keys).toEqual(['arn:aws:lambda:eu-west-1:123456789012:function:billing-only:$LATEST']);
    expect(
      checkCloudAssembly(listed.directory, { kind: 'estimated', jobsJsonBytes: 0 }).violations,
    ).toEqual([]);
  }, 120_000);

  it('creates none at all with lambdaInvokeConfig: existing, and keeps the results rule', () => {
    const existing = synthFixture(
      config('billing', 'completion:\n  lambdaInvokeConfig: existing'),
      {
        bundle: false,
        stackName: 'Billing',
      },
    );
    const targetConfigs = Object.values(existing.allResources).filter(
      (r) =>
        r.Type === 'AWS::Lambda::EventInvokeConfig' &&
        typeof r.Properties?.FunctionName === 'string',
    );
    expect(targetConfigs).toEqual([]);
    expect(JSON.stringify(existing.json)).toContain('"requestPayload":{"stack":["Billing"]}');
  }, 120_000);
});
