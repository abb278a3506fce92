/**
 * cdk-nag wiring: the AwsSolutions rule pack on every synth, and a checked way to acknowledge
 * a finding.
 *
 * cdk-nag 3 runs as a CDK policy-validation plugin: `app.synth()` throws when any finding is
 * left unacknowledged, so a new violation fails `cdk synth` (and the test suite) instead of
 * scrolling past as a warning. Acknowledgements are recorded with CDK's own
 * `Validations.of(scope).acknowledge()`, on the narrowest construct that needs them.
 */
import { type PolicyViolation, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** `AwsSolutions-IAM5` or a single finding of a granular rule, `AwsSolutions-IAM5[Resource::…]`. */
const NAG_ID = /^AwsSolutions-[A-Z]+[0-9]+(\[[^\]]+\])?$/;

/** Shortest reason we accept: "n/a" or "ok" is not a reason. */
const MIN_REASON_LENGTH = 40;

/** Thrown when an acknowledgement is malformed; a programming error, caught at synth. */
export class NagAcknowledgementError extends Error {
  readonly id: string;

  constructor(message: string, id: string) {
    super(message);
    this.name = new.target.name;
    this.id = id;
  }
}

/**
 * Registers the AwsSolutions pack on an app (or stage) and returns it.
 *
 * For a test's app of zonecron's stacks alone; an installation in a team's app registers the
 * pack on zonecron's stacks only (`addScopedNagChecks` in infra/app/zonecron-app.ts), so the
 * team's own stacks are not judged. The returned pack can also be run directly with
 * {@link nagViolations}.
 */
export function addNagChecks(app: IConstruct): AwsSolutionsChecks {
  const pack = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(pack);
  return pack;
}

/**
 * Runs the pack over a construct tree without synthesizing it.
 *
 * Returns the unacknowledged findings (warnings and errors alike; synth fails on both).
 */
export function nagViolations(pack: AwsSolutionsChecks, scope: IConstruct): PolicyViolation[] {
  return [...pack.validateScope(scope).violations];
}

/**
 * Acknowledges one cdk-nag finding on one construct, with a reason a reviewer can check.
 *
 * The id must name the finding exactly (`AwsSolutions-SQS3`, or one finding of a granular
 * rule such as `AwsSolutions-IAM5[Resource::<LedgerTable.Arn>/index/*]`); cdk-nag 3 has no
 * prefix matching, so a typo would silently acknowledge nothing and synth would fail.
 */
export function acknowledgeNag(scope: IConstruct, id: string, reason: string): void {
  if (!NAG_ID.test(id)) {
    throw new NagAcknowledgementError(
      `invalid cdk-nag finding id '${id}' (allowed: AwsSolutions-XXX1 or AwsSolutions-XXX1[finding])`,
      id,
    );
  }
  if (reason.trim().length < MIN_REASON_LENGTH) {
    throw new NagAcknowledgementError(
      `reason for '${id}' is too short (${reason.trim().length} characters, at least ${MIN_REASON_LENGTH} allowed)`,
      id,
    );
  }
  Validations.of(scope).acknowledge({ id, reason });
}

/**
 * Every acknowledgement recorded under a scope, as `{ path, id, reason }`.
 *
 * Used by the tests and printed in the docs, so the list of exceptions is reviewable.
 */
export function nagAcknowledgements(
  scope: IConstruct,
): { path: string; id: string; reason: string }[] {
  const found: { path: string; id: string; reason: string }[] = [];
  for (const node of scope.node.findAll()) {
    for (const entry of node.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY || !entry.data) continue;
      for (const [key, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.push({ path: node.node.path, id: key.replace(/^annotation::/i, ''), reason });
      }
    }
  }
  return found;
}
