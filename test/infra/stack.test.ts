/**
 * The template built from test/fixtures/stack/all-targets.yaml: every target type, two jobs on
 * one function, an alias, a qualified state machine and a disabled job.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssetStaging } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import { nagAcknowledgements, nagViolations } from '../../infra/nag.ts';
import { coveringTable } from '../../infra/zonecron-stack.ts';
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
  const s = fx.built.stack;
  ids = {
    dispatcher: logicalIdOf(fx, s.dispatcher.lambda.function),
    dispatcherRole: logicalIdOf(fx, s.dispatcher.lambda.role),
    recorder: logicalIdOf(fx, s.recorder.lambda.function),
    recorderRole: logicalIdOf(fx, s.recorder.lambda.role),
    queue: logicalIdOf(fx, s.deadLetterQueue.queue),
    table: logicalIdOf(fx, s.ledger.table),
    schedulerRole: logicalIdOf(fx, s.schedules.role),
    topic: logicalIdOf(fx, s.alarms.topic),
    group: logicalIdOf(fx, s.schedules.group),
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

/** The schedule group's generated name, as the schedules and the alarms use it. */
function groupName(): string {
  return fx.json.Resources[ids.group]?.Properties?.Name as string;
}

/** The statements of an IAM policy resource. */
function statementsOf(policy: { Properties?: Props }): Statement[] {
  const document = policy.Properties?.PolicyDocument as { Statement: Statement[] } | undefined;
  return document?.Statement ?? [];
}

type Statement = { Sid?: string; Effect: string; Action: string | string[]; Resource: unknown };

function statementsOfRole(roleLogicalId: string): Statement[] {
  return resourcesOfType(fx, 'AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties?.Roles).includes(`"${roleLogicalId}"`))
    .flatMap(([, policy]) => statementsOf(policy));
}

describe('resource counts follow the jobs file', () => {
  it('has one schedule per enabled job plus the sweep, and none for the disabled job', () => {
    const names = resourcesOfType(fx, 'AWS::Scheduler::Schedule').map(
      ([, r]) => r.Properties?.Name,
    );
    expect(names.sort()).toEqual([...ENABLED_IDS, 'zonecron.sweep'].sort());
    expect(fx.config.jobs.some((job) => job.id === 'retired-job' && !job.enabled)).toBe(true);
  });

  it('counts the alarms: 7 for the machinery, 5 per enabled job, RunFailed for lambda and stepfunctions jobs', () => {
    // 4 enabled jobs target lambda (3) or stepfunctions (1).
    expect(resourcesOfType(fx, 'AWS::CloudWatch::Alarm')).toHaveLength(7 + 5 * 7 + 4);
  });

  it('puts the per-job alarms into one nested stack (60 jobs per nested stack)', () => {
    const nested = Object.values(fx.nested);
    expect(nested).toHaveLength(1);
    const alarmsInNested = Object.values(nested[0]?.Resources ?? {}).filter(
      (r) => r.Type === 'AWS::CloudWatch::Alarm',
    );
    expect(alarmsInNested).toHaveLength(5 * 7 + 4);
  });

  it('has one topic subscription per alarms.email entry', () => {
    fx.template.resourceCountIs('AWS::SNS::Subscription', 2);
    fx.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'platform@example.com',
    });
  });

  it('has exactly one ledger table, one queue, one group, one dashboard, two functions', () => {
    fx.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    fx.template.resourceCountIs('AWS::SQS::Queue', 1);
    fx.template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    fx.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    fx.template.resourceCountIs('AWS::Lambda::Function', 2);
  });

  it('prints a ticks-per-run row for every enabled job', () => {
    const table = coveringTable(fx.built.stack.coverings).split('\n');
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
      expect(p.GroupName).toBe(groupName());
      expect(schedule.DependsOn).toContain(ids.group);
      expect(p.Target.Arn).toEqual({ 'Fn::GetAtt': [ids.dispatcher, 'Arn'] });
      expect(p.Target.RoleArn).toEqual({ 'Fn::GetAtt': [ids.schedulerRole, 'Arn'] });
      expect(p.Target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } });
      expect(p.Target.RetryPolicy.MaximumRetryAttempts).toBe(3);
      expect(p.Target.RetryPolicy.MaximumEventAgeInSeconds).toBeGreaterThanOrEqual(60);
    }
  });

  it.each(ENABLED_IDS)('gives %s the event-contract input and its covering expression', (jobId) => {
    const job = fx.config.jobs.find((j) => j.id === jobId);
    if (!job) throw new Error(`fixture lost job ${jobId}`);
    fx.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: jobId,
      ScheduleExpression: coveringSchedule(job, SYNTH_TIME).awsExpression,
      Target: Match.objectLike({
        Input: `{"jobId":"${jobId}","scheduledTime":"<aws.scheduler.scheduled-time>","executionId":"<aws.scheduler.execution-id>","attempt":<aws.scheduler.attempt-number>}`,
        // The fixture's default catch-up window is 2 h: an older tick could not deliver anyway.
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 7200 },
      }),
    });
  });

  it('runs the sweep every minute in UTC with the sweep input', () => {
    fx.template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'zonecron.sweep',
      ScheduleExpression: 'cron(* * * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      Target: Match.objectLike({
        Input: '{"sweep":true,"scheduledTime":"<aws.scheduler.scheduled-time>"}',
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 60 },
      }),
    });
  });
});

describe('ledger table', () => {
  it('mirrors the dispatcher key schema and index, on demand, with TTL and PITR', () => {
    fx.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        Match.objectLike({
          IndexName: 'byJob',
          KeySchema: [
            { AttributeName: 'jobId', KeyType: 'HASH' },
            { AttributeName: 'at', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ],
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
  it('runs the newest Node.js runtime aws-cdk-lib offers, on arm64', () => {
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

  it('ships every configured job beside the bundled handler as jobs.json', () => {
    const staging = fx.built.stack.dispatcher.node
      .findAll()
      .find((c): c is AssetStaging => c instanceof AssetStaging);
    if (!staging) throw new Error('no asset staging under the dispatcher');
    const dir = staging.absoluteStagedPath;
    expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'index.mjs.map', 'jobs.json']);
    const bundle = JSON.parse(readFileSync(join(dir, 'jobs.json'), 'utf8'));
    expect(bundle.version).toBe(1);
    expect(bundle.jobs.map((job: { id: string }) => job.id)).toEqual(
      fx.config.jobs.map((job) => job.id),
    );
    expect(bundle.jobs.map((job: { id: string }) => job.id)).toContain('retired-job');
    expect(bundle.zoneDataVersion).toBe(process.versions.tz);
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
  it('lets the dispatcher reach exactly the enabled targets, one action per type', () => {
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
  });

  it('grants nothing for the disabled job', () => {
    expect(JSON.stringify(fx.allResources)).not.toContain('function:retired');
  });

  it('gives the dispatcher the ledger table and its index, and the DLQ, nothing else', () => {
    const others = statementsOfRole(ids.dispatcherRole).filter(
      (s) => !s.Sid?.startsWith('Deliver'),
    );
    const resources = JSON.stringify(others.map((s) => s.Resource));
    for (const s of others) {
      const text = JSON.stringify(s.Resource);
      expect(
        text.includes(ids.table) || text.includes(ids.queue) || text.includes('LogGroup'),
      ).toBe(true);
    }
    expect(resources).toContain(
      `{"Fn::Join":["",[{"Fn::GetAtt":["${ids.table}","Arn"]},"/index/*"]]}`,
    );
  });

  it('never uses a * resource in an IAM policy', () => {
    const policies = [
      ...resourcesOfType(fx, 'AWS::IAM::Policy'),
      ...resourcesOfType(fx, 'AWS::IAM::ManagedPolicy'),
    ];
    expect(policies.length).toBeGreaterThan(0);
    for (const [, policy] of policies) {
      for (const s of statementsOf(policy)) {
        expect([s.Resource].flat()).not.toContain('*');
      }
    }
  });

  it('lets Scheduler invoke only the dispatcher and send only to the DLQ', () => {
    const statements = statementsOfRole(ids.schedulerRole);
    expect(statements.map((s) => [s.Action, s.Resource])).toEqual([
      ['lambda:InvokeFunction', { 'Fn::GetAtt': [ids.dispatcher, 'Arn'] }],
      ['sqs:SendMessage', { 'Fn::GetAtt': [ids.queue, 'Arn'] }],
    ]);
  });

  it('trusts Scheduler only for schedules of this account', () => {
    const role = fx.json.Resources[ids.schedulerRole]?.Properties as Props;
    const [trust] = role.AssumeRolePolicyDocument.Statement;
    expect(trust.Principal).toEqual({ Service: 'scheduler.amazonaws.com' });
    expect(trust.Condition.StringEquals).toEqual({
      'aws:SourceAccount': { Ref: 'AWS::AccountId' },
    });
    expect(JSON.stringify(trust.Condition.ArnLike)).toContain(':schedule/');
  });
});

describe('completion tracking', () => {
  it('points both destinations of each distinct target function and qualifier at the recorder', () => {
    const recorderArn = { 'Fn::GetAtt': [ids.recorder, 'Arn'] };
    const configs = resourcesOfType(fx, 'AWS::Lambda::EventInvokeConfig')
      .map(([, r]) => r.Properties as Props)
      .filter((p) => typeof p.FunctionName === 'string');
    expect(
      configs.map((p) => [p.FunctionName, p.Qualifier, p.MaximumRetryAttempts]).sort(),
    ).toEqual([
      // berlin-report (maxAttempts 2 → 1 retry) and tokyo-report (5 → capped 2): smallest wins.
      ['arn:aws:lambda:eu-west-1:111111111111:function:report', '$LATEST', 1],
      ['arn:aws:lambda:eu-west-1:111111111111:function:report', 'live', 2],
    ]);
    for (const p of configs) {
      expect(p.DestinationConfig).toEqual({
        OnSuccess: { Destination: recorderArn },
        OnFailure: { Destination: recorderArn },
      });
    }
  });

  it('sends terminal executions of the configured state machines to the recorder', () => {
    fx.template.resourceCountIs('AWS::Events::Rule', 1);
    fx.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: {
          stateMachineArn: ['arn:aws:states:eu-west-1:111111111111:stateMachine:etl'],
          status: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
        },
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [ids.recorder, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
        }),
      ],
    });
  });

  it('lets EventBridge invoke the recorder only from that rule', () => {
    fx.template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [ids.recorder, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: Match.objectLike({ 'Fn::GetAtt': Match.arrayWith(['Arn']) }),
    });
  });

  it('gives the recorder a predictable name, the ledger, the DLQ and its environment', () => {
    fx.template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'Zonecron-recorder',
      Environment: {
        Variables: Match.objectLike({
          LEDGER_TABLE_NAME: { Ref: ids.table },
          DLQ_URL: { Ref: ids.queue },
        }),
      },
    });
    const resources = JSON.stringify(statementsOfRole(ids.recorderRole).map((s) => s.Resource));
    expect(resources).toContain(ids.table);
    expect(resources).toContain(ids.queue);
  });

  it('offers a managed policy that allows invoking the recorder and nothing else', () => {
    fx.template.hasResourceProperties('AWS::IAM::ManagedPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Action: 'lambda:InvokeFunction',
            Resource: { 'Fn::GetAtt': [ids.recorder, 'Arn'] },
          }),
        ],
      },
    });
  });
});

describe('alarms', () => {
  type Alarm = Props;
  const alarms = () =>
    resourcesOfType(fx, 'AWS::CloudWatch::Alarm').map(([, r]) => r.Properties as Alarm);
  const jobAlarm = (jobId: string, metricName: string) =>
    alarms().find(
      (a) =>
        a.Namespace === 'zonecron' &&
        a.MetricName === metricName &&
        JSON.stringify(a.Dimensions) ===
          JSON.stringify([
            { Name: 'JobId', Value: jobId },
            { Name: 'Stack', Value: 'Zonecron' },
          ]),
    );

  it('sends every alarm and its recovery to the on-call topic, with a description of what to do', () => {
    for (const a of alarms()) {
      expect(a.AlarmActions).toEqual([{ Ref: ids.topic }]);
      expect(a.OKActions).toEqual([{ Ref: ids.topic }]);
      expect(a.AlarmDescription).toContain('What to do');
      expect(a.AlarmDescription.length).toBeLessThanOrEqual(1024);
    }
  });

  it.each(
    ENABLED_IDS.flatMap((id) =>
      ['DeliveryFailures', 'DeadLettered', 'MissedRuns', 'LateRuns', 'StuckRuns'].map((m) => [
        id,
        m,
      ]),
    ),
  )('alarms when %s has %s > 0 in a minute, treating no data as fine', (jobId, metric) => {
    const alarm = jobAlarm(jobId, metric);
    expect(alarm).toMatchObject({
      Statistic: 'Sum',
      Period: 60,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm?.AlarmDescription).toContain(jobId);
  });

  it('alarms on RunFailed only for lambda and stepfunctions jobs', () => {
    const withRunFailed = ENABLED_IDS.filter((id) => jobAlarm(id, 'RunFailed') !== undefined);
    expect(withRunFailed.sort()).toEqual(
      ['berlin-report', 'berlin-report-live', 'tokyo-report', 'sydney-etl'].sort(),
    );
  });

  it('has the seven machinery alarms besides the per-job ones', () => {
    const machinery = [...fx.built.stack.alarms.alarms.keys()].filter(
      (key) => !key.startsWith('job-'),
    );
    expect(machinery.sort()).toEqual([
      'DeadLetterQueueNotEmpty',
      'DispatcherDurationNearTimeout',
      'DispatcherErrors',
      'DispatcherThrottles',
      'RecorderErrors',
      'SchedulerDeadLetterFailures',
      'SchedulerInvocationsDropped',
    ]);
  });

  it('has no alarm for the disabled job', () => {
    expect(JSON.stringify(alarms())).not.toContain('retired-job');
  });

  it('alarms on any dead letter waiting', () => {
    const alarm = alarms().find((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible');
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
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
      const alarm = alarms().find((a) => a.MetricName === metric);
      expect(alarm).toMatchObject({
        Namespace: 'AWS/Scheduler',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        Dimensions: [{ Name: 'ScheduleGroup', Value: groupName() }],
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
  it('graphs runs, lag, duplicates and failures of every job by search', () => {
    const [[, dashboard] = ['', { Type: '' }]] = resourcesOfType(fx, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties?.DashboardBody);
    for (const metric of [
      'Dispatched',
      'DispatchLagSeconds',
      'DuplicatesSuppressed',
      'DeliveryFailures',
      'DeadLettered',
      'RunFailed',
    ]) {
      expect(body).toContain(`MetricName=\\\\\\"${metric}\\\\\\"`);
    }
  });

  it('outputs what the CLI needs', () => {
    expect(Object.keys(fx.json.Outputs)).toEqual(
      expect.arrayContaining([
        'LedgerTableName',
        'DeadLetterQueueUrl',
        'DispatcherFunctionName',
        'AlarmTopicArn',
        'ScheduleGroupName',
        'DashboardName',
      ]),
    );
  });
});

describe('the zonecron stack under AwsSolutions', () => {
  it('has no unacknowledged finding, warning or error', () => {
    expect(nagViolations(fx.built.nag, fx.built.app)).toEqual([]);
  });

  it('acknowledges only the three reviewed findings, each on the narrowest construct', () => {
    const tableId = fx.built.stack.getLogicalId(
      fx.built.stack.ledger.table.node.defaultChild as Parameters<
        typeof fx.built.stack.getLogicalId
      >[0],
    );
    const acks = nagAcknowledgements(fx.built.app).map(({ path, id }) => [path, id]);
    expect(acks.sort()).toEqual(
      [
        ['Zonecron/DeadLetters/Queue', 'AwsSolutions-SQS3'],
        [
          'Zonecron/Dispatcher/Lambda/Role',
          `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
        ],
        ['Zonecron/Recorder/Lambda/Role', `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`],
      ].sort(),
    );
    for (const ack of nagAcknowledgements(fx.built.app)) {
      expect(ack.reason.length).toBeGreaterThanOrEqual(40);
    }
  });
});
