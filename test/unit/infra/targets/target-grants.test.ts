import { describe, expect, it } from 'vitest';
import type { JobDefinition, TargetType } from '#jobs/job.ts';
import { targetGrants } from '../../../../infra/targets/target-grants.ts';
import { makeJob } from '../../../support/jobs.ts';

function job(id: string, type: TargetType, arn: string, enabled = true): JobDefinition {
  return makeJob({ id, schedule: '0 3 * * *', enabled, target: { type, arn } });
}

/** `count` jobs of a type in one account and region, names long enough to fill policies. */
function many(
  type: TargetType,
  count: number,
  account: string,
  region = 'eu-west-1',
): JobDefinition[] {
  const service = {
    lambda: 'lambda',
    sqs: 'sqs',
    sns: 'sns',
    eventbridge: 'events',
    stepfunctions: 'states',
  }[type];
  const resource = (i: number) =>
    ({
      lambda: `function:report-generator-${i}`,
      sqs: `orders-queue-${i}`,
      sns: `notifications-topic-${i}`,
      eventbridge: `event-bus/bus-${i}`,
      stepfunctions: `stateMachine:pipeline-${i}`,
    })[type];
  return Array.from({ length: count }, (_, i) =>
    job(`${type}-${account}-${i}`, type, `arn:aws:${service}:${region}:${account}:${resource(i)}`),
  );
}

/** The policy document IAM would store, measured the way IAM counts: JSON without whitespace. */
function iamChars(
  statements: readonly { sid: string; action: string; resources: readonly string[] }[],
): number {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: statements.map((s) => ({
      Sid: s.sid,
      Effect: 'Allow',
      Action: s.action,
      Resource: s.resources.length === 1 ? s.resources[0] : s.resources,
    })),
  }).length;
}

function granted(grants: ReturnType<typeof targetGrants>): { action: string; resource: string }[] {
  return grants.policies
    .flat()
    .flatMap((s) => s.resources.map((resource) => ({ action: s.action, resource })));
}

function allows(grants: ReturnType<typeof targetGrants>, action: string, arn: string): boolean {
  return granted(grants).some(
    (g) =>
      g.action === action &&
      new RegExp(`^${g.resource.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(
        arn,
      ),
  );
}

describe('the dispatcher role’s target grants', () => {
  it('lists every ARN exactly, one action per type, when they fit; disabled jobs and duplicates get nothing more', () => {
    const grants = targetGrants([
      job('a', 'sqs', 'arn:aws:sqs:eu-west-1:123456789012:q'),
      job('b', 'sqs', 'arn:aws:sqs:eu-west-1:123456789012:q'),
      job('c', 'sns', 'arn:aws:sns:eu-west-1:123456789012:off', false),
      job('d', 'lambda', 'arn:aws:lambda:eu-west-1:123456789012:function:f:live'),
    ]);
    expect(grants.widened).toEqual([]);
    expect(grants.policies).toEqual([
      [
        {
          sid: 'DeliverLambda1',
          action: 'lambda:InvokeFunction',
          resources: ['arn:aws:lambda:eu-west-1:123456789012:function:f:live'],
        },
        {
          sid: 'DeliverSqs1',
          action: 'sqs:SendMessage',
          resources: ['arn:aws:sqs:eu-west-1:123456789012:q'],
        },
      ],
    ]);
  });

  it('keeps 600 targets exact, spread over several managed policies of at most 6,144 characters', () => {
    const jobs = [...many('sqs', 300, '111111111111'), ...many('lambda', 300, '111111111111')];
    const grants = targetGrants(jobs);
    expect(grants.widened).toEqual([]);
    expect(grants.policies.length).toBeGreaterThan(1);
    expect(grants.policies.length).toBeLessThanOrEqual(8);
    for (const policy of grants.policies) expect(iamChars(policy)).toBeLessThanOrEqual(6_144);
    expect(granted(grants)).toHaveLength(600);
  });

  it('widens the largest group first when 5,000 targets do not fit, and keeps the small ones exact', () => {
    const jobs = [
      ...many('sqs', 3_000, '111111111111'),
      ...many('sns', 1_800, '222222222222', 'us-east-1'),
      ...many('lambda', 200, '111111111111'),
    ];
    const grants = targetGrants(jobs);
    expect(grants.policies.length).toBeLessThanOrEqual(8);
    for (const policy of grants.policies) expect(iamChars(policy)).toBeLessThanOrEqual(6_144);
    expect(grants.widened.map((g) => g.wildcard)).toEqual([
      'arn:aws:sqs:eu-west-1:111111111111:*',
      'arn:aws:sns:us-east-1:222222222222:*',
    ]);
    const lambdaResources = granted(grants).filter((g) => g.action === 'lambda:InvokeFunction');
    expect(lambdaResources).toHaveLength(200);
    expect(lambdaResources.every((g) => !g.resource.includes('*'))).toBe(true);
  });

  it('lets the dispatcher reach every enabled target, listed or widened, with its type’s action only', () => {
    const jobs = [
      ...many('sqs', 2_500, '111111111111'),
      ...many('eventbridge', 400, '333333333333', 'ap-southeast-2'),
      ...many('stepfunctions', 2_000, '111111111111'),
    ];
    const grants = targetGrants(jobs);
    const actions = {
      sqs: 'sqs:SendMessage',
      eventbridge: 'events:PutEvents',
      stepfunctions: 'states:StartExecution',
    } as const;
    for (const j of jobs) {
      const type = j.target.type as keyof typeof actions;
      expect(allows(grants, actions[type], j.target.arn)).toBe(true);
      expect(allows(grants, 'lambda:InvokeFunction', j.target.arn)).toBe(false);
    }
  });

  it('gives the same policies whatever the order of the jobs', () => {
    const jobs = [...many('sqs', 1_500, '111111111111'), ...many('sns', 900, '222222222222')];
    const reversed = [...jobs].reverse();
    expect(targetGrants(reversed)).toEqual(targetGrants(jobs));
  });
});
