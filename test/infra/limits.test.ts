/**
 * The synth-time AWS-limit checks (`infra/limits/`) on small hand-written cloud assemblies:
 * each limit is exceeded once, and the check names the template, the resource, the number,
 * what is allowed and the AWS document. A clean assembly yields nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCloudAssembly, type LambdaCodeCheck } from '../../infra/limits/check-assembly.ts';

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;
interface TemplateSpec {
  readonly Resources: Resources;
  readonly Outputs?: Record<string, unknown>;
  readonly Parameters?: Record<string, unknown>;
  readonly Description?: string;
}

/** Writes a cloud assembly with these stack templates (and nested templates by asset hash). */
function assembly(
  stacks: Record<string, TemplateSpec>,
  nested: Record<string, { hash: string; template: TemplateSpec }> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-limits-'));
  const artifacts: Record<string, unknown> = {};
  for (const [name, template] of Object.entries(stacks)) {
    writeFileSync(join(dir, `${name}.template.json`), JSON.stringify(template, undefined, 1));
    artifacts[name] = {
      type: 'aws:cloudformation:stack',
      properties: { templateFile: `${name}.template.json` },
    };
    const files: Record<string, unknown> = {};
    for (const [file, { hash, template: inner }] of Object.entries(nested)) {
      writeFileSync(join(dir, file), JSON.stringify(inner));
      files[hash] = { source: { path: file } };
    }
    writeFileSync(join(dir, `${name}.assets.json`), JSON.stringify({ version: '1', files }));
    artifacts[`${name}.assets`] = {
      type: 'cdk:asset-manifest',
      properties: { file: `${name}.assets.json` },
    };
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ version: '1', artifacts }));
  return dir;
}

function queues(count: number): Resources {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`Queue${i}`, { Type: 'AWS::SQS::Queue' }]),
  );
}

function messages(
  stacks: Record<string, TemplateSpec>,
  code: LambdaCodeCheck = { kind: 'staged' },
) {
  return checkCloudAssembly(assembly(stacks), code).violations.map((v) => v.message);
}

const STATEMENT = (resource: string) => ({
  Effect: 'Allow',
  Action: 'sqs:SendMessage',
  Resource: resource,
});
const role = {
  Type: 'AWS::IAM::Role',
  Properties: { AssumeRolePolicyDocument: { Statement: [] } },
};

describe('CloudFormation limits', () => {
  it('finds nothing wrong with a small, valid template', () => {
    expect(messages({ Small: { Resources: queues(3) } })).toEqual([]);
  });

  it('refuses 501 resources in one template', () => {
    expect(messages({ Big: { Resources: queues(501) } })).toEqual([
      'Big.template.json: 501 resources, at most 500 allowed (AWS CloudFormation User Guide, "Understand CloudFormation quotas": Resources, 500)',
    ]);
  });

  it('refuses 201 outputs and 201 parameters', () => {
    const many = (n: number, value: unknown) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`X${i}`, value]));
    const found = messages({
      Wide: {
        Resources: queues(1),
        Outputs: many(201, { Value: 'x' }),
        Parameters: many(201, { Type: 'String' }),
      },
    });
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('201 outputs, at most 200 allowed');
    expect(found[1]).toContain('201 parameters, at most 200 allowed');
  });

  it('refuses a template body over 1 MB, counted as 1,000,000 bytes', () => {
    const padding = 'x'.repeat(1_000);
    const resources: Resources = Object.fromEntries(
      Array.from({ length: 1_000 }, (_, i) => [
        `Topic${i}`,
        { Type: 'AWS::SNS::Topic', Properties: { DisplayName: padding } },
      ]),
    );
    const [message] = messages({
      Heavy: { Resources: Object.fromEntries(Object.entries(resources).slice(0, 499)) },
      Heavier: {
        Resources: {
          ...Object.fromEntries(Object.entries(resources).slice(0, 499)),
          Extra: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: 'x'.repeat(600_000) } },
        },
      },
    });
    expect(message).toMatch(
      /^Heavier\.template\.json: 1,\d{3},\d{3} bytes of template, at most 1,000,000 allowed/,
    );
  });

  it('refuses a stack whose nested stacks together create more than 2,500 resources in one operation', () => {
    const hashes = Array.from({ length: 6 }, (_, i) =>
      String(i)
        .repeat(64)
        .slice(0, 64)
        .replace(/./g, 'abcdef'[i] ?? 'a'),
    );
    const nested = Object.fromEntries(
      hashes.map((hash, i) => [
        `Child${i}.nested.template.json`,
        { hash, template: { Resources: queues(450) } },
      ]),
    );
    const parent: Resources = Object.fromEntries(
      hashes.map((hash, i) => [
        `Child${i}`,
        {
          Type: 'AWS::CloudFormation::Stack',
          Properties: { TemplateURL: { 'Fn::Join': ['', ['https://s3/', `${hash}.json`]] } },
        },
      ]),
    );
    const violations = checkCloudAssembly(assembly({ Parent: { Resources: parent } }, nested), {
      kind: 'staged',
    }).violations;
    expect(violations.map((v) => v.message)).toEqual([
      'Parent.template.json: 2,706 resources in one stack operation (a stack and its nested stacks), at most 2,500 allowed (AWS CloudFormation User Guide, "Understand CloudFormation quotas": Nested stacks, 2,500 resources created, updated or deleted per operation)',
    ]);
  });
});

describe('IAM limits', () => {
  it('refuses a managed policy over 6,144 characters', () => {
    const statements = Array.from({ length: 100 }, (_, i) =>
      STATEMENT(`arn:aws:sqs:eu-west-1:123456789012:queue-number-${i}`),
    );
    const [message] = messages({
      Iam: {
        Resources: {
          Policy: {
            Type: 'AWS::IAM::ManagedPolicy',
            Properties: { PolicyDocument: { Version: '2012-10-17', Statement: statements } },
          },
        },
      },
    });
    expect(message).toMatch(
      /^Iam\.template\.json: Policy: [\d,]+ characters of managed policy \(whitespace not counted\), at most 6,144 allowed \(AWS IAM User Guide, "IAM and AWS STS quotas"/,
    );
  });

  it('refuses a role whose inline policies together exceed 10,240 characters, counting deploy-time ARNs at their longest', () => {
    const statements = Array.from({ length: 40 }, () =>
      STATEMENT({ 'Fn::GetAtt': ['Queue', 'Arn'] } as unknown as string),
    );
    const policy = (id: string) => ({
      Type: 'AWS::IAM::Policy',
      Properties: {
        Roles: [{ Ref: 'Role' }],
        PolicyDocument: { Statement: statements },
        PolicyName: id,
      },
    });
    const [message] = messages({
      Iam: { Resources: { Role: role, A: policy('A'), B: policy('B') } },
    });
    expect(message).toContain('Iam.template.json: Role: ');
    expect(message).toContain(
      "characters of the role's inline policies together (whitespace not counted), at most 10,240 allowed",
    );
  });

  it('refuses an 11th managed policy on one role', () => {
    const resources: Resources = {
      Role: {
        ...role,
        Properties: {
          ...role.Properties,
          ManagedPolicyArns: ['arn:aws:iam::aws:policy/ReadOnlyAccess'],
        },
      },
    };
    for (let i = 0; i < 10; i += 1) {
      resources[`Managed${i}`] = {
        Type: 'AWS::IAM::ManagedPolicy',
        Properties: {
          Roles: [{ Ref: 'Role' }],
          PolicyDocument: { Statement: [STATEMENT('arn:aws:sqs:eu-west-1:123456789012:q')] },
        },
      };
    }
    expect(messages({ Iam: { Resources: resources } })).toEqual([
      'Iam.template.json: Role: 11 managed policies attached to the role, at most 10 allowed (AWS IAM User Guide, "IAM and AWS STS quotas": Managed policies attached to an IAM role, 10 (raisable to 20))',
    ]);
  });
});

describe('EventBridge and CloudWatch limits', () => {
  it('refuses an event pattern over 2,048 characters, as a rule listing every state machine would be', () => {
    const machines = Array.from(
      { length: 40 },
      (_, i) => `arn:aws:states:eu-west-1:123456789012:stateMachine:pipeline-${i}`,
    );
    const [message] = messages({
      Rules: {
        Resources: {
          Rule: {
            Type: 'AWS::Events::Rule',
            Properties: { EventPattern: { detail: { stateMachineArn: machines } } },
          },
        },
      },
    });
    expect(message).toMatch(
      /^Rules\.template\.json: Rule: [\d,]+ characters of event pattern, at most 2,048 allowed \(Amazon EventBridge User Guide/,
    );
  });

  it('refuses an alarm widget of 101 alarms and a dashboard whose searches may draw 3,000 metrics', () => {
    const alarmsWidget = {
      type: 'alarm',
      properties: {
        title: 'Alarms',
        alarms: Array.from({ length: 101 }, (_, i) => `arn:aws:cloudwatch:eu-west-1:1:alarm:a${i}`),
      },
    };
    const search = (i: number) => ({
      type: 'metric',
      properties: {
        title: `s${i}`,
        metrics: [
          [{ expression: "SEARCH('{zonecron,JobId} MetricName=\"Dispatched\"', 'Sum', 300)" }],
        ],
      },
    });
    const body = JSON.stringify({
      widgets: [alarmsWidget, ...Array.from({ length: 6 }, (_, i) => search(i))],
    });
    const found = messages({
      Dash: {
        Resources: {
          Board: { Type: 'AWS::CloudWatch::Dashboard', Properties: { DashboardBody: body } },
        },
      },
    });
    expect(found).toEqual([
      'Dash.template.json: Board widget 1 \'Alarms\': 101 alarms in an alarm status widget, at most 100 allowed (Amazon CloudWatch API Reference, "Dashboard body structure and syntax": alarm widget, 100 alarms)',
      'Dash.template.json: Board: 3,000 metrics on a dashboard (a SEARCH counts as the 500 it may return), at most 2,500 allowed (Amazon CloudWatch User Guide, "CloudWatch service quotas": Dashboards, 2,500 metrics per dashboard)',
    ]);
  });

  it('reads a dashboard body CDK joined with deploy-time values', () => {
    const body = {
      'Fn::Join': [
        '',
        [
          '{"widgets":[{"type":"metric","properties":{"metrics":[["AWS/Lambda","Errors","FunctionName","',
          { Ref: 'Fn' },
          '"]]}}]}',
        ],
      ],
    };
    expect(
      messages({
        Dash: {
          Resources: {
            Board: { Type: 'AWS::CloudWatch::Dashboard', Properties: { DashboardBody: body } },
          },
        },
      }),
    ).toEqual([]);
  });
});

describe('EventBridge Scheduler and Lambda', () => {
  const schedule = (input: string, expression = 'cron(30 0,1 * * ? *)') => ({
    Type: 'AWS::Scheduler::Schedule',
    Properties: {
      Name: 'nightly',
      ScheduleExpression: expression,
      Target: { Arn: 'arn', RoleArn: 'arn', Input: input },
    },
  });

  it('refuses a tick input with an unquoted attempt number: not JSON as written, which Scheduler requires', () => {
    const [message] = messages({
      Ticks: {
        Resources: {
          Tick: schedule('{"jobId":"nightly","attempt":<aws.scheduler.attempt-number>}'),
        },
      },
    });
    expect(message).toContain(
      'Ticks.template.json: Tick: target input is not well-formed JSON as written',
    );
  });

  it('accepts the same input with the placeholder quoted', () => {
    expect(
      messages({
        Ticks: {
          Resources: {
            Tick: schedule('{"jobId":"nightly","attempt":"<aws.scheduler.attempt-number>"}'),
          },
        },
      }),
    ).toEqual([]);
  });

  it('refuses a five-field expression that is not EventBridge Scheduler syntax', () => {
    const [message] = messages({
      Ticks: { Resources: { Tick: schedule('{}', 'cron(30 2 * * *)') } },
    });
    expect(message).toBe(
      'Ticks.template.json: Tick: schedule expression \'cron(30 2 * * *)\' is not EventBridge Scheduler syntax: expected 6 fields (minutes hours day-of-month month day-of-week year), got 5 (EventBridge Scheduler User Guide, "Schedule types on EventBridge Scheduler")',
    );
  });

  it('refuses two schedules of one name in one group, even in different stacks', () => {
    const named = {
      ...schedule('{}'),
      Properties: { ...schedule('{}').Properties, GroupName: { 'Fn::ImportValue': 'Z:Group' } },
    };
    const found = messages({
      A: { Resources: { Tick: named } },
      B: { Resources: { Tick: named } },
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain("B.template.json: Tick: schedule 'nightly' of group");
    expect(found[0]).toContain('is also created by A.template.json: Tick');
  });

  it('refuses a second invoke config for one function and qualifier anywhere in the app, and says what to do', () => {
    const config = {
      Type: 'AWS::Lambda::EventInvokeConfig',
      Properties: { FunctionName: 'arn:aws:lambda:eu-west-1:1:function:f', Qualifier: '$LATEST' },
    };
    const found = messages({
      A: { Resources: { Destinations: config } },
      B: { Resources: { Destinations: config } },
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('Lambda allows one per function and qualifier');
    expect(found[0]).toContain('completion.existingInvokeConfigs');
  });

  it('refuses environment variables over 4 KB', () => {
    const fn = {
      Type: 'AWS::Lambda::Function',
      Properties: { Environment: { Variables: { BIG: 'x'.repeat(4_100) } } },
    };
    expect(messages({ Fn: { Resources: { Fn: fn } } })).toEqual([
      'Fn.template.json: Fn: 4,103 bytes of environment variables (names and values), at most 4,096 allowed (AWS Lambda Developer Guide, "Lambda quotas": Function environment variables, 4 KB)',
    ]);
  });

  it('refuses, without bundling, a jobs.json that would push a package past 250 MB unzipped', () => {
    const fn = {
      Type: 'AWS::Lambda::Function',
      Properties: { Code: { S3Key: `${'a'.repeat(64)}.zip` } },
    };
    const found = messages(
      { Fn: { Resources: { Fn: fn } } },
      { kind: 'estimated', jobsJsonBytes: 250 * 1024 * 1024 },
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(
      'bytes of deployment package, unzipped, at most 262,144,000 allowed',
    );
  });
});
