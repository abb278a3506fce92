/**
 * Which targets the dispatcher's role may reach, as IAM policy documents that fit IAM's limits.
 *
 * Exact ARNs while they fit. A role takes at most 10 managed policies of at most 6,144 characters
 * each, whitespace not counted (AWS IAM User Guide, "IAM and AWS STS quotas": "Managed policy
 * size", "Managed policies attached to an IAM role"), filled here to 99 % of that
 * (`TARGET_POLICY_MAX_CHARS`); 10,000 target ARNs are far more. So when the exact lists do not fit
 * in `MAX_TARGET_POLICIES` policies, the largest group of ARNs of one type in one account and
 * region (largest by the characters it costs) is replaced by one wildcard on the resource name
 * (`arn:aws:sqs:eu-west-1:123456789012:*`), then the next largest, until everything fits.
 * Deterministic: the same jobs give the same policies.
 *
 * Pure (no CDK): the stack renders the documents, and `zonecron validate` reports the widened
 * groups before anything is synthesized.
 */

import type { JobDefinition, TargetType } from '#jobs/job.ts';
import { arnParts } from '#jobs/target-arn.ts';
import { InfraError } from '../errors/infra-error.ts';

/** The one IAM action each target type needs to receive a run, and nothing else. */
export const TARGET_ACTIONS: Readonly<Record<TargetType, string>> = {
  lambda: 'lambda:InvokeFunction',
  sqs: 'sqs:SendMessage',
  sns: 'sns:Publish',
  eventbridge: 'events:PutEvents',
  stepfunctions: 'states:StartExecution',
};

/** What replaces a resource name when a group is widened. */
const WILDCARD_RESOURCE: Readonly<Record<TargetType, string>> = {
  lambda: 'function:*',
  sqs: '*',
  sns: '*',
  eventbridge: 'event-bus/*',
  stepfunctions: 'stateMachine:*',
};

/**
 * Largest managed policy document, in characters without whitespace (AWS IAM User Guide, "IAM
 * and AWS STS quotas": managed policy size 6,144 characters).
 */
export const MANAGED_POLICY_MAX_CHARS = 6_144;

/**
 * What a target policy is filled to: IAM's 6,144 characters less a reserve of 1 %, 6,082.
 *
 * Filled to the limit, a 2,000-job app's policies came within a few characters of it: one
 * character more, from a CDK release that renders a statement differently or from IAM counting
 * otherwise than `policyChars`, and CloudFormation rolls the main stack back. The reserve costs
 * 61 characters per policy, less than one ARN.
 */
export const TARGET_POLICY_MAX_CHARS = Math.floor(MANAGED_POLICY_MAX_CHARS * 0.99);

/**
 * Managed policies the dispatcher's role gets for its targets: 8 of the 10 a role may have by
 * default (AWS IAM User Guide, "IAM and AWS STS quotas"), two left for what an operator may
 * need to attach.
 */
export const MAX_TARGET_POLICIES = 8;

/** Every ARN of one target type in one partition, account and region. */
export interface TargetGroup {
  readonly type: TargetType;
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  /** The exact ARNs, sorted. */
  readonly arns: readonly string[];
  /** The ARN that covers every resource of the group. */
  readonly wildcard: string;
}

/** One IAM statement: an action on resources. */
export interface TargetStatement {
  readonly sid: string;
  readonly action: string;
  readonly resources: readonly string[];
}

/** What the dispatcher's role gets. */
export interface TargetGrants {
  /** One entry per managed policy, each a list of statements; at most `MAX_TARGET_POLICIES`. */
  readonly policies: readonly (readonly TargetStatement[])[];
  /** The groups granted by wildcard instead of one ARN at a time, largest first. */
  readonly widened: readonly TargetGroup[];
}

/** Even with every group widened, the grants do not fit: a config this stack cannot hold. */
export class TargetGrantsTooLargeError extends InfraError {
  readonly groups: number;
  constructor(groups: number) {
    super(
      `the dispatcher's target grants do not fit in ${MAX_TARGET_POLICIES} managed policies of ${TARGET_POLICY_MAX_CHARS} characters (IAM's ${MANAGED_POLICY_MAX_CHARS} less a 1 % reserve) even with one wildcard per type, account and region (${groups} groups); split jobs.yaml into stacks with fewer accounts and regions each`,
    );
    this.groups = groups;
  }
}

/**
 * The exact targets of the enabled jobs, grouped by type, partition, region and account, in a
 * stable order.
 */
export function targetGroups(jobs: readonly JobDefinition[]): TargetGroup[] {
  const byKey = new Map<string, { type: TargetType; arns: Set<string> }>();
  for (const job of jobs) {
    if (!job.enabled) continue;
    const { partition, region, account, service } = arnParts(job.target.arn);
    const key = [job.target.type, partition, region, account, service].join(':');
    const group = byKey.get(key) ?? { type: job.target.type, arns: new Set<string>() };
    group.arns.add(job.target.arn);
    byKey.set(key, group);
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, { type, arns }]) => {
      const sorted = [...arns].sort();
      const { partition, region, account, service } = arnParts(sorted[0] ?? '');
      return {
        type,
        partition,
        region,
        account,
        arns: sorted,
        wildcard: `arn:${partition}:${service}:${region}:${account}:${WILDCARD_RESOURCE[type]}`,
      };
    });
}

/**
 * The target grants of the enabled jobs: exact while they fit, widened largest group first
 * until they do.
 *
 * @example
 * targetGrants([sqsJob('arn:aws:sqs:eu-west-1:123456789012:q')]).policies
 * //=> [[{ sid: 'DeliverSqs1', action: 'sqs:SendMessage', resources: ['arn:aws:sqs:eu-west-1:123456789012:q'] }]]
 */
export function targetGrants(jobs: readonly JobDefinition[]): TargetGrants {
  const groups = targetGroups(jobs);
  // Widening the group that costs the most characters saves the most.
  const byCost = [...groups].sort(
    (a, b) => exactCost(b) - exactCost(a) || a.wildcard.localeCompare(b.wildcard),
  );
  const widened = new Set<TargetGroup>();
  for (let next = 0; ; next += 1) {
    const policies = pack(groups, widened);
    if (policies.length <= MAX_TARGET_POLICIES) {
      return { policies, widened: byCost.filter((group) => widened.has(group)) };
    }
    const group = byCost[next];
    if (group === undefined) throw new TargetGrantsTooLargeError(groups.length);
    widened.add(group);
  }
}

function exactCost(group: TargetGroup): number {
  return group.arns.reduce((sum, arn) => sum + arn.length + 3, 0);
}

/** The size IAM counts of a policy document with these statements (JSON, no whitespace). */
export function policyChars(statements: readonly TargetStatement[]): number {
  return JSON.stringify(policyDocument(statements)).length;
}

/** A policy document as IAM stores it. */
export function policyDocument(statements: readonly TargetStatement[]): object {
  return {
    Version: '2012-10-17',
    Statement: statements.map((s) => ({
      Sid: s.sid,
      Effect: 'Allow',
      Action: s.action,
      Resource: s.resources.length === 1 ? s.resources[0] : s.resources,
    })),
  };
}

/**
 * Fills policies in order, each to `TARGET_POLICY_MAX_CHARS`: per action (sorted by type) its
 * resources (sorted), starting a new statement in a new policy when the next resource would not
 * fit. Sizes are tracked as they grow (a document is `{"Version":"2012-10-17","Statement":[…]}` and
 * ARNs need no escaping) and each finished policy is measured once more as JSON.
 */
function pack(
  groups: readonly TargetGroup[],
  widened: ReadonlySet<TargetGroup>,
): TargetStatement[][] {
  const resourcesByType = new Map<TargetType, string[]>();
  for (const group of groups) {
    const list = resourcesByType.get(group.type) ?? [];
    list.push(...(widened.has(group) ? [group.wildcard] : group.arns));
    resourcesByType.set(group.type, list);
  }
  const policies: TargetStatement[][] = [];
  let current: TargetStatement[] = [];
  let currentChars = EMPTY_POLICY_CHARS;
  const close = () => {
    if (current.length === 0) return;
    if (policyChars(current) > TARGET_POLICY_MAX_CHARS) {
      throw new Error(`internal: a packed target policy has ${policyChars(current)} characters`);
    }
    policies.push(current);
    current = [];
    currentChars = EMPTY_POLICY_CHARS;
  };
  for (const [type, resources] of [...resourcesByType].sort(([a], [b]) => a.localeCompare(b))) {
    let statement: { sid: string; action: string; resources: string[] } | undefined;
    let sids = 0;
    for (const resource of [...new Set(resources)].sort()) {
      // A second resource turns "r" into ["r","s"]: brackets, a comma and the quoted ARN.
      const growth = statement?.resources.length === 1 ? resource.length + 5 : resource.length + 3;
      if (statement !== undefined && currentChars + growth <= TARGET_POLICY_MAX_CHARS) {
        statement.resources.push(resource);
        currentChars += growth;
        continue;
      }
      sids += 1;
      const fresh = {
        sid: `Deliver${type.charAt(0).toUpperCase()}${type.slice(1)}${sids}`,
        action: TARGET_ACTIONS[type],
        resources: [resource],
      };
      const cost = singleStatementChars(fresh) + (current.length > 0 ? 1 : 0);
      if (currentChars + cost > TARGET_POLICY_MAX_CHARS) close();
      currentChars += singleStatementChars(fresh) + (current.length > 0 ? 1 : 0);
      current.push(fresh);
      statement = fresh;
    }
  }
  close();
  return policies;
}

const EMPTY_POLICY_CHARS = policyChars([]);

/** Characters of a statement with one resource. */
function singleStatementChars(statement: TargetStatement): number {
  return JSON.stringify((policyDocument([statement]) as { Statement: unknown[] }).Statement[0])
    .length;
}
