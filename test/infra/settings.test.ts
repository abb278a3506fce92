/**
 * What the jobs file's stack-wide settings do to the templates: an existing on-call topic,
 * and the template rule that refuses a deploy to the wrong account or region.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { nagViolations } from '../../infra/constructs/nag.ts';
import {
  type Props,
  resourcesOfType,
  type SynthesizedFixture,
  synthFixture,
} from './synth-fixture.ts';

const TOPIC = 'arn:aws:sns:eu-west-1:999999999999:team-oncall';

function jobs(target: string, type = 'sqs', extra = ''): string {
  return `jobs:
  - id: nightly
    description: nightly
    schedule: "0 3 * * *"
    timezone: Europe/Berlin
    target: { type: ${type}, arn: '${target}' }
${extra}`;
}

describe('an existing on-call topic (alarms.topicArn)', () => {
  let fx: SynthesizedFixture;
  beforeAll(() => {
    fx = synthFixture(
      parseJobsConfig(
        `alarms:\n  topicArn: ${TOPIC}\n  email: [oncall@example.com]\n${jobs('arn:aws:sqs:eu-west-1:123456789012:q', 'sqs', '    alarm: { dedicated: true }\n')}`,
        'existing-topic.yaml',
      ),
      { bundle: false },
    );
  }, 120_000);

  it('creates no topic and no key', () => {
    fx.template.resourceCountIs('AWS::SNS::Topic', 0);
    fx.template.resourceCountIs('AWS::KMS::Key', 0);
  });

  it('subscribes alarms.email to it and points every alarm, stack or dedicated, at it', () => {
    fx.template.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: TOPIC,
      Endpoint: 'oncall@example.com',
    });
    const alarms = resourcesOfType(fx, 'AWS::CloudWatch::Alarm').map(
      ([, r]) => r.Properties as Props,
    );
    expect(alarms).toHaveLength(17 + 5);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([TOPIC]);
      expect(alarm.OKActions).toEqual([TOPIC]);
    }
  });

  it('tells both functions to notify it, lets them publish to it, and grants no KMS use', () => {
    const functions = resourcesOfType(fx, 'AWS::Lambda::Function').map(
      ([, r]) => r.Properties as Props,
    );
    expect(functions.map((f) => f.Environment.Variables.NOTIFY_TOPIC_ARN)).toEqual([TOPIC, TOPIC]);
    const statements = resourcesOfType(fx, 'AWS::IAM::Policy').flatMap(
      ([, r]) => (r.Properties as Props).PolicyDocument.Statement as Props[],
    );
    expect(statements.filter((s) => s.Action === 'sns:Publish').map((s) => s.Resource)).toEqual([
      TOPIC,
      TOPIC,
    ]);
    expect(JSON.stringify(statements)).not.toContain('kms:');
    expect(fx.json.Outputs?.AlarmTopicArn?.Value).toBe(TOPIC);
  });

  it('pins the stack to the topic’s region only, when no target pins more', () => {
    expect(fx.json.Rules?.DeployWhereTheTargetsAre?.Assertions.map((a: Props) => a.Assert)).toEqual(
      [{ 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] }],
    );
    expect(nagViolations(fx.built.nag, fx.built.app)).toEqual([]);
  });
});

describe('the template rule on the deploying account and region', () => {
  it('is absent when only SQS, SNS and EventBridge targets are used: they may be anywhere', () => {
    const fx = synthFixture(
      parseJobsConfig(jobs('arn:aws:sqs:us-east-1:999999999999:q'), 'anywhere.yaml'),
      {
        bundle: false,
      },
    );
    expect(fx.json.Rules?.DeployWhereTheTargetsAre).toBeUndefined();
  }, 120_000);

  it('asserts what environment: says, and names it in the refusal', () => {
    const fx = synthFixture(
      parseJobsConfig(
        `environment:\n  account: '123456789012'\n  region: eu-central-1\n${jobs('arn:aws:sqs:us-east-1:999999999999:q')}`,
        'declared.yaml',
      ),
      { bundle: false },
    );
    const assertions = fx.json.Rules?.DeployWhereTheTargetsAre?.Assertions as Props[];
    expect(assertions.map((a) => a.Assert)).toEqual([
      { 'Fn::Equals': [{ Ref: 'AWS::AccountId' }, '123456789012'] },
      { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-central-1'] },
    ]);
    expect(assertions[1]?.AssertDescription).toBe(
      'This stack must be deployed to region eu-central-1, because of the environment: setting in jobs.yaml (docs/deploy.md, "Targets in other accounts and regions")',
    );
  }, 120_000);
});
