import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { JobDefinition } from '#jobs/job.ts';
import { MAX_TARGET_POLICIES, type TargetGrants, targetGrants } from '../targets/target-grants.ts';
import { acknowledgeNag } from './nag.ts';

/** Properties of {@link TargetPolicies}. */
export interface TargetPoliciesProps {
  /** Every configured job; only enabled jobs' targets are granted. */
  readonly jobs: readonly JobDefinition[];
  /** The role that delivers runs: the dispatcher's. */
  readonly role: iam.IRole;
}

/**
 * The dispatcher role's permission to deliver runs: managed policies (at most
 * `MAX_TARGET_POLICIES`), one action per target type, on exactly the configured targets of
 * enabled jobs while they fit, else with the largest groups widened to one wildcard per type,
 * account and region (`infra/targets/target-grants.ts`).
 *
 * Managed rather than inline: a role's inline policies share 10,240 characters, a managed
 * policy has 6,144 of its own (AWS IAM User Guide, "IAM and AWS STS quotas").
 *
 * Targets encrypted with a customer-managed KMS key (SQS queues, SNS topics) also need
 * `kms:GenerateDataKey`/`kms:Decrypt` on that key; the key's ARN is not in `jobs.yaml`, so
 * that grant belongs in the key policy, owned by the target's team (docs/deploy.md, "What the
 * stack cannot grant").
 */
export class TargetPolicies extends Construct {
  /** The managed policies, in order. */
  readonly policies: readonly iam.ManagedPolicy[];
  /** What was granted, and which groups were widened. */
  readonly grants: TargetGrants;

  constructor(scope: Construct, id: string, props: TargetPoliciesProps) {
    super(scope, id);
    this.grants = targetGrants(props.jobs);
    this.policies = this.grants.policies.map((statements, index) => {
      const policy = new iam.ManagedPolicy(this, `Targets${index + 1}`, {
        description: `zonecron dispatcher: deliver runs to the jobs' targets (${index + 1} of ${this.grants.policies.length}, at most ${MAX_TARGET_POLICIES})`,
        roles: [props.role],
        statements: statements.map(
          (statement) =>
            new iam.PolicyStatement({
              sid: statement.sid,
              actions: [statement.action],
              resources: [...statement.resources],
            }),
        ),
      });
      for (const resource of statements.flatMap((s) => s.resources)) {
        const group = this.grants.widened.find((g) => g.wildcard === resource);
        if (group === undefined) continue;
        acknowledgeNag(
          policy,
          `AwsSolutions-IAM5[Resource::${group.wildcard}]`,
          `jobs.yaml names ${group.arns.length} ${group.type} targets in account ${group.account}, region ${group.region}: listed one by one, the dispatcher's target grants exceed ${MAX_TARGET_POLICIES} managed policies of 6,144 characters (AWS IAM User Guide, "IAM and AWS STS quotas"), so this largest group is granted by one wildcard; the dispatcher only ever delivers to the targets in its jobs.json.`,
        );
      }
      return policy;
    });
  }
}
