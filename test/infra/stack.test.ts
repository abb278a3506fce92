/**
 * The templates built from test/fixtures/stack/all-targets.yaml: every target type, two jobs on
 * one function, an alias, a qualified state machine, two jobs with dedicated alarms and a
 * disabled job.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetStaging } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { unpackFingerprints } from '#jobs/jobs-bundle.ts';
import { RECORDER_RUN_ATTRIBUTES } from '#ledger/index.ts';
import { recordSchedules } from '#zone-drift/zone-drift.ts';
import { coveringTable } from '../../infra/app/zonecron-app.ts';
import { nagAcknowledgements, nagViolations } from '../../infra/constructs/nag.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import {
  logicalIdOf,
  type Props,
  resourcesOfType,
  SYNTH_TIME,
  type SynthesizedFixture,
  synthFixture,
} from './synth-fixture.ts';

let fx: SynthesizedFixture;
let ids: {
  dispatcher: string;
  dispatcherRole: string;
  recorder: string;
  recorderRole: string;
  queue: string;
  table: string;
  schedulerRole: string;
  topic: string;
  group: string;
};

beforeAll(() => {
  fx = synthFixture('test/fixtures/stack/all-targets.yaml');
  const s = fx.installation.main;
  ids = {
    dispatcher: logicalIdOf(fx, s.dispatcher.lambda.function),
    dispatcherRole: logicalIdOf(fx, s.dispatcher.lambda.role),
    recorder: logicalIdOf(fx, s.recorder.lambda.function),
    recorderRole: logicalIdOf(fx, s.recorder.lambda.role),
    queue: logicalIdOf(fx, s.deadLetterQueue.queue),
    table: logicalIdOf(fx, s.ledger.table),
    schedulerRole: logicalIdOf(fx, s.scheduling.role),
    topic: s.getLogicalId(s.onCall.topic.node.defaultChild as Parameters<typeof s.getLogicalId>[0]),
    group: s.getLogicalId(s.scheduling.group),
  };
});

const ENABLED_IDS = [
  'berlin-report',
  'berlin-report-live',
  'tokyo-report',
  'ny-queue',
  'tokyo-topic',
  'london-bus',
  'sydney-etl',
];

/** The deploying account, as the template writes it. */
const ACCOUNT = { Ref: 'AWS::AccountId' };

/** The default event bus of the deploying account and region, as the template writes it. */
const DEFAULT_BUS = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':events:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':event-bus/default',
    ],
  ],
};

type Statement = {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
};

function statementsOf(policy: { Properties?: Props }): Statement[] {
  const document = policy.Properties?.PolicyDocument as { Statement: Statement[] } | undefined;
  return document?.Statement ?? [];
}

/** Every statement of the inline and managed policies attached to a role of the main stack. */
function statementsOfRole(roleLogicalId: string): Statement[] {
  return [
    ...resourcesOfType(fx, 'AWS::IAM::Policy'),
    ...resourcesOfType(fx, 'AWS::IAM::ManagedPolicy'),
  ]
    .filter(([, policy]) =>
      JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${roleLogicalId}"`),
    )
    .flatMap(([, policy]) => statementsOf(policy));
}

function alarms(): Props[] {
  return resourcesOfType(fx, 'AWS::CloudWatch::Alarm').map(([, r]) => r.Properties as Props);
}

describe('the stacks of an installation', () => {
  it('has a main stack and one shard stack per shard something hashes to, nothing else', () => {
    const names = Object.keys(fx.templates).sort();
    expect(names[0]).toBe('Zonecron');
    for (const name of names.slice(1)) expect(name).toMatch(/^Zonecron-jobs-\d\d$/);
    // 7 schedules and 2 invoke configs over 64 shards: between 1 and 9 shards.
    expect(names.length - 1).toBeGreaterThan(0);
    expect(names.length - 1).toBeLessThanOrEqual(9);
  });

  it('puts every schedule, invoke config and dedicated alarm in a shard, and none in the main stack', () => {
    const inMain = Object.values(fx.json.Resources);
    expect(inMain.filter((r) => r.Type === 'AWS::Scheduler::Schedule')).toHaveLength(1);
    // The main stack's invoke configs are the dispatcher's and the recorder's own (by Ref).
    const targetConfigs = inMain.filter(
      (r) =>
        r.Type === 'AWS::Lambda::EventInvokeConfig' &&
        typeof r.Properties?.FunctionName === 'string',
    );
    expect(targetConfigs).toEqual([]);
    const dedicated = inMain.filter((r) => String(r.Properties?.AlarmName).includes('-job-'));
    expect(dedicated).toEqual([]);
    const sweep = Object.values(fx.json.Resources).find(
      (r) => r.Type === 'AWS::Scheduler::Schedule',
    );
    expect(sweep?.Properties?.Name).toBe('zonecron.sweep');
  });

  it('passes every AWS limit a deploy meets, as the synth check finds it', () => {
    expect(fx.check.violations).toEqual([]);
  });
});

describe('resource counts follow the jobs file', () => {
  it('has one schedule per enabled job plus the sweep, and none for the disabled job', () => {
    const names = resourcesOfType(fx, 'AWS::Scheduler::Schedule').map(
      ([, r]) => r.Properties?.Name,
    );
    expect(names.sort()).toEqual([...ENABLED_IDS, 'zonecron.sweep'].sort());
    expect(fx.config.jobs.some((job) => job.id === 'retired-job' && !job.enabled)).toBe(true);
  });

  it('counts the alarms: 17 for the stack, 5 for the dedicated sqs job, 6 for the dedicated stepfunctions job', () => {
    expect(alarms()).toHaveLength(17 + 5 + 6);
  });

  it('has one topic subscription per alarms.email entry', () => {
    fx.template.resourceCountIs('AWS::SNS::Subscription', 2);
    fx.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'platform@example.com',
      TopicArn: { Ref: ids.topic },
    });
  });

  it('has exactly one ledger table, queue, group, dashboard, insight rule and key, and two functions', () => {
    fx.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    fx.template.resourceCountIs('AWS::SQS::Queue', 1);
    fx.template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    fx.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    fx.template.resourceCountIs('AWS::CloudWatch::InsightRule', 1);
    fx.template.resourceCountIs('AWS::KMS::Key', 1);
    fx.template.resourceCountIs('AWS::Lambda::Function', 2);
  });

  it('prints a ticks-per-run row for every enabled job', () => {
    const table = coveringTable(fx.installation.coverings).split('\n');
    expect(table).toHaveLength(1 + ENABLED_IDS.length);
    const berlin = table.find((line) => line.startsWith('berlin-report '));
    expect(berlin).toMatch(/cron\(30 0,1 \* \* \? \*\)\s+2\.00/);
  });
});

describe('schedules', () => {
  it('evaluates every schedule in UTC, with no flexible window, a retry policy and the DLQ', () => {
    const schedules = resourcesOfType(fx, 'AWS::Scheduler::Schedule');
    expect(schedules.length).toBe(8);
    for (const [, schedule] of schedules) {
      const p = schedule.Properties as Props;
      expect(p.ScheduleExpressionTimezone).toBe('UTC');
      expect(p.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
      expect(p.State).toBe('ENABLED');
      expect(p.GroupName).toEqual({ Ref: ids.group });
      expect(p.Target.Arn).toEqual({ 'Fn::GetAtt': [ids.dispatcher, 'Arn'] });
      expect(p.Target.RoleArn).toEqual({ 'Fn::GetAtt': [ids.schedulerRole, 'Arn'] });
      expect(p.Target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } });
      expect(p.Target.RetryPolicy.MaximumRetryAttempts).toBe(3);
      expect(p.Target.RetryPolicy.MaximumEventAgeInSeconds).toBeGreaterThanOrEqual(60);
    }
  });

  it.each(ENABLED_IDS)(
    'gives %s well-formed JSON input with every placeholder quoted, and its covering expression',
    (jobId) => {
      const job = fx.config.jobs.find((j) => j.id === jobId);
      if (!job) throw new Error(`fixture lost job ${jobId}`);
      const [, schedule] =
        resourcesOfType(fx, 'AWS::Scheduler::Schedule').find(
          ([, r]) => r.Properties?.Name === jobId,
        ) ?? [];
      const p = schedule?.Properties as Props;
      expect(p.ScheduleExpression).toBe(coveringSchedule(job, SYNTH_TIME).awsExpression);
      expect(p.Target.Input).toBe(
        `{"jobId":"${jobId}","scheduledTime":"<aws.scheduler.scheduled-time>","executionId":"<aws.scheduler.execution-id>","attempt":"<aws.scheduler.attempt-number>"}`,
      );
      expect(JSON.parse(p.Target.Input)).toMatchObject({
        jobId,
        attempt: '<aws.scheduler.attempt-number>',
      });
      // The fixture's default catch-up window is 2 h: an older tick could not deliver anyway.
      expect(p.Target.RetryPolicy).toEqual({
        MaximumRetryAttempts: 3,
        MaximumEventAgeInSeconds: 7200,
      });
    },
  );

  it('runs the sweep every minute in UTC with the sweep input', () => {
    fx.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'zonecron.sweep',
      ScheduleExpression: 'cron(* * * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      GroupName: { Ref: ids.group },
      Target: Match.objectLike({
        Input: '{"sweep":true,"scheduledTime":"<aws.scheduler.scheduled-time>"}',
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 60 },
      }),
    });
  });

  it('lets CloudFormation name the schedule group and deletes it with the stack, so a redeploy under the same name cannot collide', () => {
    const group = fx.json.Resources[ids.group];
    expect(group?.Properties?.Name).toBeUndefined();
    expect(group?.DeletionPolicy).toBe('Delete');
  });
});

describe('ledger table', () => {
  it('mirrors the dispatcher key schema and both indexes, on demand, with TTL and PITR', () => {
    fx.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byJob',
          KeySchema: [
            { AttributeName: 'jobId', KeyType: 'HASH' },
            { AttributeName: 'at', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'byOpen',
          KeySchema: [
            { AttributeName: 'openShard', KeyType: 'HASH' },
            { AttributeName: 'checkAtEpochMs', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'openShard', AttributeType: 'S' },
        { AttributeName: 'checkAtEpochMs', AttributeType: 'N' },
      ]),
      TimeToLiveSpecification: { AttributeName: 'ttlEpochSec', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // SSEEnabled without a key: the AWS-managed key alias/aws/dynamodb.
      SSESpecification: { SSEEnabled: true, KMSMasterKeyId: Match.absent() },
      DeletionProtectionEnabled: true,
    });
  });

  it('is retained when the stack is deleted or the table replaced', () => {
    fx.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('dead-letter queue', () => {
  it('is SSE-encrypted and keeps messages 14 days', () => {
    fx.template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('is retained when the stack is deleted, dead letters and all', () => {
    expect(fx.json.Resources[ids.queue]?.DeletionPolicy).toBe('Retain');
    expect(fx.json.Resources[ids.queue]?.UpdateReplacePolicy).toBe('Retain');
  });

  it('denies every request without TLS', () => {
    fx.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sqs:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('dispatcher function', () => {
  it('runs the newest Node.js runtime aws-cdk-lib offers, on arm64, with its environment', () => {
    const newest = Object.values(lambda.Runtime)
      .filter((r): r is lambda.Runtime => r instanceof lambda.Runtime)
      .map((r) => /^nodejs(\d+)\.x$/.exec(r.name)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number)
      .sort((a, b) => b - a)[0];
    fx.template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: `nodejs${newest}.x`,
      Architectures: ['arm64'],
      Timeout: 60,
      MemorySize: 512,
      Environment: {
        Variables: Match.objectLike({
          LEDGER_TABLE_NAME: { Ref: ids.table },
          DLQ_URL: { Ref: ids.queue },
          RETENTION_DAYS: '20',
          LEASE_SECONDS: '90',
          STACK_NAME: 'Zonecron',
          NOTIFY_TOPIC_ARN: { Ref: ids.topic },
          POWERTOOLS_SERVICE_NAME: 'zonecron-dispatcher',
          POWERTOOLS_METRICS_NAMESPACE: 'zonecron',
        }),
      },
    });
  });

  it('logs to its own log group with a retention', () => {
    const fn = fx.json.Resources[ids.dispatcher]?.Properties as Props;
    const logGroupId = fn.LoggingConfig.LogGroup.Ref as string;
    expect(fx.json.Resources[logGroupId]?.Type).toBe('AWS::Logs::LogGroup');
    expect(fx.json.Resources[logGroupId]?.Properties?.RetentionInDays).toBe(30);
  });

  it("ships every configured job beside the bundled handler as jobs.json, with this machine's zone data, fingerprints and zone offsets", () => {
    const staging = fx.installation.main.dispatcher.node
      .findAll()
      .find((c): c is AssetStaging => c instanceof AssetStaging);
    if (!staging) throw new Error('no asset staging under the dispatcher');
    const dir = staging.absoluteStagedPath;
    const files = readdirSync(dir);
    expect(files).toEqual(expect.arrayContaining(['index.mjs', 'index.mjs.map', 'jobs.json']));
    expect(files.filter((file) => /^chunk-\w+\.mjs$/.test(file)).length).toBeGreaterThan(0);
    const bundle = JSON.parse(readFileSync(join(dir, 'jobs.json'), 'utf8'));
    expect(bundle.version).toBe(2);
    expect(bundle.jobs.map((job: { id: string }) => job.id)).toEqual(
      fx.config.jobs.map((job) => job.id),
    );
    expect(bundle.jobs.map((job: { id: string }) => job.id)).toContain('retired-job');
    expect(bundle.zoneDataVersion).toBe(process.versions.tz);
    const record = recordSchedules(fx.config.jobs, SYNTH_TIME);
    expect(bundle.synthesizedAt).toBe(record.synthesizedAt);
    expect(bundle.zones).toEqual(JSON.parse(JSON.stringify(record.zones)));
    expect(unpackFingerprints(fx.config.jobs, bundle.fingerprints)).toEqual(record.fingerprints);
    expect(Object.keys(record.fingerprints).sort()).toEqual(
      fx.config.jobs
        .filter((job) => job.enabled)
        .map((job) => job.id)
        .sort(),
    );
    expect(bundle.platform).toEqual({ node: process.version, icu: process.versions.icu });
  });

  it('retries a failed asynchronous invocation twice, then sends it to the DLQ', () => {
    fx.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.dispatcher },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [ids.queue, 'Arn'] } } },
    });
  });
});

describe('least privilege', () => {
  it('lets the dispatcher reach exactly the enabled targets, one action per type, through managed policies', () => {
    const deliver = statementsOfRole(ids.dispatcherRole).filter((s) =>
      s.Sid?.startsWith('Deliver'),
    );
    expect(deliver.map((s) => ({ action: s.Action, resources: [s.Resource].flat() }))).toEqual([
      {
        action: 'events:PutEvents',
        resources: ['arn:aws:events:eu-west-1:111111111111:event-bus/storefront'],
      },
      {
        action: 'lambda:InvokeFunction',
        resources: [
          'arn:aws:lambda:eu-west-1:111111111111:function:report',
          'arn:aws:lambda:eu-west-1:111111111111:function:report:live',
        ],
      },
      { action: 'sns:Publish', resources: ['arn:aws:sns:eu-west-1:111111111111:month-end'] },
      { action: 'sqs:SendMessage', resources: ['arn:aws:sqs:eu-west-1:111111111111:billing.fifo'] },
      {
        action: 'states:StartExecution',
        resources: ['arn:aws:states:eu-west-1:111111111111:stateMachine:etl:prod'],
      },
    ]);
    expect(fx.installation.main.dispatcher.targetPolicies.grants.widened).toEqual([]);
  });

  it('grants nothing for the disabled job', () => {
    expect(JSON.stringify(fx.allResources)).not.toContain('function:retired');
  });

  it('lets the dispatcher make exactly GetItem, UpdateItem, BatchGetItem and Query, on the table and on byOpen by name (not byJob)', () => {
    const ledger = statementsOfRole(ids.dispatcherRole).filter((s) =>
      JSON.stringify(s.Action).includes('dynamodb:'),
    );
    expect(ledger).toHaveLength(1);
    expect([ledger[0]?.Action].flat().sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const tableArn = { 'Fn::GetAtt': [ids.table, 'Arn'] };
    expect(ledger[0]?.Resource).toEqual([
      tableArn,
      { 'Fn::Join': ['', [tableArn, '/index/byOpen']] },
    ]);
  });

  it('lets the recorder make exactly GetItem and UpdateItem, on the table: run items and their recorder attributes, job slots, nothing returned whole', () => {
    const ledger = statementsOfRole(ids.recorderRole).filter((s) =>
      JSON.stringify(s.Action).includes('dynamodb:'),
    );
    const table = { 'Fn::GetAtt': [ids.table, 'Arn'] };
    const noWholeItem = {
      'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
      'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'],
    };
    expect(ledger.map((s) => [[s.Action].flat().sort(), s.Resource, s.Condition])).toEqual([
      [
        ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        table,
        {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['?'.repeat(64)] },
          'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['*#*'] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...RECORDER_RUN_ATTRIBUTES] },
          StringEqualsIfExists: noWholeItem,
        },
      ],
      [
        ['dynamodb:UpdateItem'],
        table,
        {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['job#*'] },
          'ForAllValues:StringEquals': {
            'dynamodb:Attributes': ['pk', 'runningKey', 'runningUntilEpochMs'],
          },
          StringEqualsIfExists: noWholeItem,
        },
      ],
    ]);
    // The grant names every attribute a completion touches, the table's and indexes' keys too.
    expect(RECORDER_RUN_ATTRIBUTES).toEqual(
      expect.arrayContaining(['pk', 'jobId', 'at', 'openShard', 'checkAtEpochMs', 'secretHashes']),
    );
  });

  it('lets both functions publish to the on-call topic and use its key for that, nothing more', () => {
    for (const role of [ids.dispatcherRole, ids.recorderRole]) {
      const statements = statementsOfRole(role);
      expect(statements).toContainEqual(
        expect.objectContaining({ Action: 'sns:Publish', Resource: { Ref: ids.topic } }),
      );
      const kms = statements.filter((s) => JSON.stringify(s.Action).includes('kms:'));
      expect(kms.map((s) => [s.Action].flat().sort())).toEqual([
        ['kms:Decrypt', 'kms:GenerateDataKey'],
      ]);
    }
  });

  it('never uses a * resource in an IAM identity policy (a KMS key policy\'s "*" means the key itself)', () => {
    const policies = [
      ...resourcesOfType(fx, 'AWS::IAM::Policy'),
      ...resourcesOfType(fx, 'AWS::IAM::ManagedPolicy'),
    ];
    expect(policies.length).toBeGreaterThan(0);
    for (const [, policy] of policies) {
      for (const s of statementsOf(policy)) expect([s.Resource].flat()).not.toContain('*');
    }
  });

  it('lets Scheduler invoke only the dispatcher and send only to the DLQ', () => {
    const statements = statementsOfRole(ids.schedulerRole);
    expect(statements.map((s) => [s.Action, s.Resource])).toEqual([
      ['lambda:InvokeFunction', { 'Fn::GetAtt': [ids.dispatcher, 'Arn'] }],
      ['sqs:SendMessage', { 'Fn::GetAtt': [ids.queue, 'Arn'] }],
    ]);
  });

  it('trusts Scheduler only for schedules of this account and this group', () => {
    const role = fx.json.Resources[ids.schedulerRole]?.Properties as Props;
    const [trust] = role.AssumeRolePolicyDocument.Statement;
    expect(trust.Principal).toEqual({ Service: 'scheduler.amazonaws.com' });
    expect(trust.Condition.StringEquals).toEqual({
      'aws:SourceAccount': { Ref: 'AWS::AccountId' },
    });
    expect(JSON.stringify(trust.Condition.ArnLike)).toContain(
      `:schedule/","${ids.group}`.replace('","', '",{"Ref":"'),
    );
  });
});

describe('completion tracking', () => {
  it('points both destinations of each distinct target function and qualifier at the default event bus', () => {
    const configs = resourcesOfType(fx, 'AWS::Lambda::EventInvokeConfig')
      .filter(([id]) => id.startsWith('Zonecron-jobs-'))
      .map(([, r]) => r.Properties as Props);
    expect(
      configs.map((p) => [p.FunctionName, p.Qualifier, p.MaximumRetryAttempts]).sort(),
    ).toEqual([
      // berlin-report (maxAttempts 2 → 1 retry) and tokyo-report (5 → capped 2): smallest wins.
      ['arn:aws:lambda:eu-west-1:111111111111:function:report', '$LATEST', 1],
      ['arn:aws:lambda:eu-west-1:111111111111:function:report', 'live', 2],
    ]);
    for (const p of configs) {
      expect(p.DestinationConfig).toEqual({
        OnSuccess: { Destination: DEFAULT_BUS },
        OnFailure: { Destination: DEFAULT_BUS },
      });
    }
  });

  it('takes lambda results of this account whose run envelope names this stack, whatever the function, to the recorder', () => {
    fx.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['lambda'],
        account: [ACCOUNT],
        'detail-type': [
          'Lambda Function Invocation Result - Success',
          'Lambda Function Invocation Result - Failure',
        ],
        detail: { requestPayload: { stack: ['Zonecron'] } },
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [ids.recorder, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
          RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 21600 },
        }),
      ],
    });
  });

  it('takes terminal executions of this account named with this stack’s prefix, whatever the state machine, to the recorder', () => {
    fx.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.states'],
        account: [ACCOUNT],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: {
          status: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
          name: [{ prefix: 'zc4804dd9a-' }],
        },
      },
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [ids.recorder, 'Arn'] } })],
    });
    fx.template.resourceCountIs('AWS::Events::Rule', 2);
  });

  it('lets EventBridge invoke the recorder only from those rules', () => {
    const permissions = resourcesOfType(fx, 'AWS::Lambda::Permission').map(
      ([, r]) => r.Properties as Props,
    );
    expect(permissions).toHaveLength(2);
    for (const p of permissions) {
      expect(p.FunctionName).toEqual({ 'Fn::GetAtt': [ids.recorder, 'Arn'] });
      expect(p.Principal).toBe('events.amazonaws.com');
      expect(p.SourceArn).toMatchObject({ 'Fn::GetAtt': [expect.any(String), 'Arn'] });
    }
  });

  it('gives the recorder a generated name, the ledger, the DLQ and its environment', () => {
    const recorder = fx.json.Resources[ids.recorder]?.Properties as Props;
    expect(recorder.FunctionName).toBeUndefined();
    expect(recorder.Environment.Variables).toMatchObject({
      LEDGER_TABLE_NAME: { Ref: ids.table },
      DLQ_URL: { Ref: ids.queue },
      STACK_NAME: 'Zonecron',
      NOTIFY_TOPIC_ARN: { Ref: ids.topic },
    });
  });

  it('offers a managed policy that allows putting lambda invocation records on the default bus and nothing else', () => {
    fx.template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      PolicyDocument: {
        Statement: [
          {
            Sid: 'PutInvocationRecords',
            Effect: 'Allow',
            Action: 'events:PutEvents',
            Resource: DEFAULT_BUS,
            Condition: {
              'ForAllValues:StringEquals': {
                'events:source': ['lambda'],
                'events:detail-type': [
                  'Lambda Function Invocation Result - Success',
                  'Lambda Function Invocation Result - Failure',
                ],
              },
              Null: { 'events:source': 'false' },
            },
          },
        ],
      },
    });
    expect(Object.keys(fx.json.Outputs ?? {})).toContain('TargetDestinationPolicyArn');
  });
});

describe('alarms', () => {
  const topicArnOf = (alarm: Props) => alarm.AlarmActions;

  it('sends every stack alarm and its recovery to the on-call topic, with what to do', () => {
    const main = Object.values(fx.json.Resources)
      .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
      .map((r) => r.Properties as Props);
    expect(main).toHaveLength(17);
    for (const a of main) {
      expect(a.AlarmActions).toEqual([{ Ref: ids.topic }]);
      expect(a.OKActions).toEqual([{ Ref: ids.topic }]);
      expect(a.AlarmDescription).toContain('What to do');
      expect(a.AlarmName).toMatch(/^Zonecron-/);
    }
  });

  it('has the ten machinery alarms and one per run signal on the {Stack} metric, deadline-missed among them', () => {
    const names = alarms()
      .map((a) => a.AlarmName as string)
      .filter((name) => !name.startsWith('Zonecron-job-'))
      .map((name) => name.replace(/^Zonecron-/, ''))
      .sort();
    expect(names).toEqual(
      [
        'DeadLetterQueueNotEmpty',
        'DispatcherDurationNearTimeout',
        'DispatcherErrors',
        'DispatcherThrottles',
        'RecorderErrors',
        'SchedulerDeadLetterFailures',
        'SchedulerInvocationsDropped',
        'NotificationFailures',
        'ForgedCompletions',
        'ZoneDataDrift',
        'DeliveryFailures',
        'DeadLettered',
        'MissedRuns',
        'LateRuns',
        'StuckRuns',
        'DeadlineMissedRuns',
        'RunFailed',
      ].sort(),
    );
    for (const signal of [
      'DeliveryFailures',
      'DeadLettered',
      'MissedRuns',
      'LateRuns',
      'StuckRuns',
      'DeadlineMissedRuns',
      'RunFailed',
    ]) {
      expect(alarms().find((a) => a.AlarmName === `Zonecron-${signal}`)).toMatchObject({
        Namespace: 'zonecron',
        MetricName: signal,
        Dimensions: [{ Name: 'Stack', Value: 'Zonecron' }],
        Statistic: 'Sum',
        Period: 60,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    }
  });

  it.each([
    ['ny-queue', ['DeadLettered', 'DeliveryFailures', 'LateRuns', 'MissedRuns', 'StuckRuns']],
    [
      'sydney-etl',
      ['DeadLettered', 'DeliveryFailures', 'LateRuns', 'MissedRuns', 'RunFailed', 'StuckRuns'],
    ],
  ])(
    'gives dedicated job %s its own alarms on {Stack, JobId}, in its shard stack',
    (jobId, signals) => {
      const own = resourcesOfType(fx, 'AWS::CloudWatch::Alarm').filter(([, r]) =>
        String(r.Properties?.AlarmName).startsWith(`Zonecron-job-${jobId}-`),
      );
      expect(own.map(([, r]) => r.Properties?.MetricName).sort()).toEqual(signals);
      const stacks = new Set(own.map(([key]) => key.split('/')[0]));
      const schedule = resourcesOfType(fx, 'AWS::Scheduler::Schedule').find(
        ([, r]) => r.Properties?.Name === jobId,
      );
      expect([...stacks]).toEqual([schedule?.[0].split('/')[0]]);
      for (const [, r] of own) {
        expect(r.Properties?.Dimensions).toEqual([
          { Name: 'JobId', Value: jobId },
          { Name: 'Stack', Value: 'Zonecron' },
        ]);
        // The shard names the main stack's topic by its fixed name, without an import.
        expect(JSON.stringify(topicArnOf(r.Properties as Props))).toContain(':Zonecron-oncall');
      }
      expect(fx.json.Resources[ids.topic]?.Properties?.TopicName).toBe('Zonecron-oncall');
    },
  );

  it('has no alarm of its own for jobs without alarm.dedicated, nor for the disabled job', () => {
    const names = alarms().map((a) => String(a.AlarmName));
    for (const id of ['berlin-report', 'tokyo-report', 'london-bus', 'retired-job']) {
      expect(names.some((name) => name.includes(`-job-${id}-`))).toBe(false);
    }
  });

  it('alarms on dispatcher errors, throttles, and duration above 80% of its 60 s timeout', () => {
    const fnDims = [{ Name: 'FunctionName', Value: { Ref: ids.dispatcher } }];
    const of = (metric: string) =>
      alarms().find(
        (a) => a.MetricName === metric && JSON.stringify(a.Dimensions) === JSON.stringify(fnDims),
      );
    expect(of('Errors')).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(of('Throttles')).toMatchObject({
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(of('Duration')).toMatchObject({
      Threshold: 48_000,
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it.each(['InvocationDroppedCount', 'InvocationsFailedToBeSentToDeadLetterCount'])(
    'alarms on Scheduler %s > 0 for the schedule group',
    (metric) => {
      expect(alarms().find((a) => a.MetricName === metric)).toMatchObject({
        Namespace: 'AWS/Scheduler',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        Dimensions: [{ Name: 'ScheduleGroup', Value: { Ref: ids.group } }],
      });
    },
  );

  it('publishes through an encrypted topic that refuses non-TLS publishing', () => {
    fx.template.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }),
    });
    fx.template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    fx.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
          }),
        ]),
      },
    });
  });
});

describe('dashboard and outputs', () => {
  function body(): { widgets: Props[] } {
    const [[, dashboard] = ['', { Type: '' }]] = resourcesOfType(fx, 'AWS::CloudWatch::Dashboard');
    const joined = dashboard.Properties?.DashboardBody['Fn::Join'][1] as unknown[];
    return JSON.parse(joined.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join(''));
  }

  it('graphs the {Stack} metrics, with no search over per-job metrics', () => {
    const text = JSON.stringify(body());
    expect(text).not.toContain('SEARCH');
    for (const metric of [
      'Dispatched',
      'DispatchLagSeconds',
      'DeliveryFailures',
      'RunFailed',
      'MissedRuns',
    ]) {
      expect(text).toContain(`"zonecron","${metric}","Stack","Zonecron"`);
    }
  });

  it('has Logs Insights tables of the top jobs by failures, lag and misses, and a Contributor Insights graph', () => {
    const widgets = body().widgets;
    const logs = widgets.filter((w) => w.type === 'log').map((w) => w.properties.title);
    expect(logs).toEqual([
      'Top jobs by failures',
      'Top jobs by dispatch lag',
      'Top jobs by missed, late, stuck',
      'Top jobs by failed runs (recorder)',
    ]);
    expect(
      widgets.some((w) => w.properties?.insightRule?.ruleName === 'Zonecron-failing-jobs'),
    ).toBe(true);
    fx.template.hasResourceProperties('AWS::CloudWatch::InsightRule', {
      RuleName: 'Zonecron-failing-jobs',
    });
  });

  it('shows the state of the 17 stack alarms in one alarm widget', () => {
    const alarmWidgets = body().widgets.filter((w) => w.type === 'alarm');
    expect(alarmWidgets).toHaveLength(1);
    expect(alarmWidgets[0]?.properties.alarms).toHaveLength(17);
  });

  it('outputs what the CLI and the lambda targets’ owners need', () => {
    expect(Object.keys(fx.json.Outputs ?? {})).toEqual(
      expect.arrayContaining([
        'LedgerTableName',
        'DeadLetterQueueUrl',
        'DispatcherFunctionName',
        'AlarmTopicArn',
        'ScheduleGroupName',
        'DashboardName',
        'RecorderFunctionName',
        'TargetDestinationPolicyArn',
      ]),
    );
  });
});

describe('deploying to the wrong account or region', () => {
  it('is refused by a template rule before anything is created: the targets are in 111111111111, eu-west-1', () => {
    const rule = fx.json.Rules?.DeployWhereTheTargetsAre;
    expect(rule?.Assertions.map((a: Props) => a.Assert)).toEqual([
      { 'Fn::Equals': [{ Ref: 'AWS::AccountId' }, '111111111111'] },
      { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] },
    ]);
    expect(rule?.Assertions[0].AssertDescription).toContain("job 'berlin-report'");
  });
});

describe('the zonecron stacks under AwsSolutions', () => {
  it('has no unacknowledged finding, warning or error', () => {
    expect(nagViolations(fx.built.nag, fx.built.app)).toEqual([]);
  });

  it('acknowledges only the dead-letter queue having no dead-letter queue of its own', () => {
    const acks = nagAcknowledgements(fx.built.app).map(({ path, id }) => [path, id]);
    expect(acks).toEqual([['Zonecron/DeadLetters/Queue', 'AwsSolutions-SQS3']]);
  });
});
