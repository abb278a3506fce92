/**
 * What `cdk synth` and `zonecron validate` say besides "valid": the notes a reviewer should
 * read (widened IAM grants, invoke configs left to someone else, the stacks a deploy touches)
 * and, when a limit is exceeded, what and where.
 */

import type { LimitViolation } from '../limits/violation.ts';
import { MAX_TARGET_POLICIES } from '../targets/target-grants.ts';
import type { ZonecronInstallation } from './zonecron-app.ts';

/**
 * Notes about one installation, one line each.
 *
 * @example
 * installationNotes(installation)[0] //=> 'Zonecron: 1 main stack and 12 shard stacks (npx cdk deploy --all)'
 */
export function installationNotes(installation: ZonecronInstallation): string[] {
  const { stackName, main, shards, config } = installation;
  const notes = [
    `${stackName}: 1 main stack and ${shards.length} shard stack${shards.length === 1 ? '' : 's'} (${stackName}-jobs-NN); deploy them together: npx cdk deploy --all`,
  ];
  for (const group of main.dispatcher.targetPolicies.grants.widened) {
    notes.push(
      `${stackName}: the dispatcher may reach every ${group.type} target in account ${group.account}, region ${group.region} (${group.wildcard}): its ${group.arns.length} targets there do not fit IAM's limits one by one (${MAX_TARGET_POLICIES} managed policies of 6,144 characters)`,
    );
  }
  if (config.completion.lambdaInvokeConfig === 'existing') {
    notes.push(
      `${stackName}: completion.lambdaInvokeConfig is existing: no invoke config is created; each lambda target's on-success and on-failure destinations must be the default event bus (docs/deploy.md, "Completion of lambda targets")`,
    );
  }
  for (const key of config.completion.existingInvokeConfigs) {
    notes.push(
      `${stackName}: the invoke config of ${key} is managed elsewhere (completion.existingInvokeConfigs)`,
    );
  }
  for (const [key, owner] of installation.invokeConfigsOwnedElsewhere) {
    notes.push(
      `${stackName}: the invoke config of ${key} is created by ${owner}, which targets it too`,
    );
  }
  return notes;
}

/** The violations as lines, grouped under one heading. */
export function violationLines(violations: readonly LimitViolation[]): string[] {
  return [
    `zonecron: ${violations.length} AWS limit${violations.length === 1 ? '' : 's'} a deploy would hit:`,
    ...violations.map((violation) => `  ${violation.message}`),
  ];
}
