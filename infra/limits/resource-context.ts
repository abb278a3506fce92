/**
 * What a per-resource limit check is given: the resource as a template holds it and its
 * context in the assembly.
 *
 * In a file of its own because both `resource-checks.ts` and `dashboard-checks.ts` (which
 * `resource-checks.ts` calls) take it, and `check-assembly.ts` builds it.
 */
import type { LambdaCodeCheck, LimitViolation } from './violation.ts';

/** A resource as a template holds it. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

/** What the per-resource checks need from the template and the assembly. */
export interface ResourceContext {
  readonly file: string;
  readonly template: Readonly<Record<string, CfnResource>>;
  readonly lambdaCode: LambdaCodeCheck;
  /** Resources that must be unique in the whole app, by key → the template that has one. */
  readonly seen: Map<string, string>;
  readonly assetPath: (hash: string) => string | undefined;
  readonly report: (violation: LimitViolation) => void;
}
