/**
 * The limits of single resources (and of the roles their policies attach to), for
 * `check-assembly.ts`.
 */
import { existsSync, statSync } from 'node:fs';
import { withSampleContext } from '../constructs/schedule-inputs.ts';
import { AWS_LIMITS } from './aws-limits.ts';
import { checkDashboard } from './dashboard-checks.ts';
import { jsonCharsForSize, resolveForSize, stringCharsForSize } from './intrinsics.ts';
import type { CfnResource, ResourceContext } from './resource-context.ts';
import { schedulerExpressionProblem } from './scheduler-expression.ts';
import { directoryBytes, LAMBDA_HANDLER_ALLOWANCE_BYTES, over } from './violation.ts';

type Check = (id: string, properties: Record<string, unknown>, context: ResourceContext) => void;

const CHECKS: Readonly<Record<string, Check>> = {
  'AWS::IAM::Role': checkRole,
  'AWS::IAM::ManagedPolicy': (id, p, c) =>
    limit(c, id, 'managedPolicyChars', jsonCharsForSize(p.PolicyDocument)),
  'AWS::Events::Rule': (id, p, c) =>
    limit(c, id, 'eventPatternChars', jsonCharsForSize(p.EventPattern)),
  'AWS::CloudWatch::Dashboard': (id, p, c) => checkDashboard(id, p.DashboardBody, c),
  'AWS::CloudWatch::Alarm': checkAlarm,
  'AWS::CloudWatch::InsightRule': (id, p, c) =>
    limit(c, id, 'insightRuleNameChars', stringCharsForSize(p.RuleName)),
  'AWS::Scheduler::Schedule': checkSchedule,
  'AWS::Lambda::Function': checkFunction,
  'AWS::Lambda::EventInvokeConfig': checkInvokeConfig,
};

/** Runs the checks of a resource's type, if it has any. */
export function checkResource(id: string, resource: CfnResource, context: ResourceContext): void {
  CHECKS[resource.Type]?.(id, resource.Properties ?? {}, context);
}

function limit(
  context: ResourceContext,
  where: string,
  name: keyof typeof AWS_LIMITS,
  actual: number,
): void {
  if (actual > AWS_LIMITS[name].max) context.report(over(context.file, where, name, actual));
}

function syntax(context: ResourceContext, where: string, message: string): void {
  context.report({
    template: context.file,
    where,
    limit: 'syntax',
    message: `${context.file}: ${where}: ${message}`,
  });
}

/** Whether a `Roles` list of a policy names the role with this logical id. */
function attaches(roles: unknown, roleId: string): boolean {
  return (
    Array.isArray(roles) &&
    roles.some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId }))
  );
}

/** Trust policy, inline policies together, number of managed policies. */
function checkRole(
  id: string,
  properties: Record<string, unknown>,
  context: ResourceContext,
): void {
  limit(context, id, 'trustPolicyChars', jsonCharsForSize(properties.AssumeRolePolicyDocument));
  const own = Array.isArray(properties.Policies) ? properties.Policies : [];
  let inlineChars = own.reduce(
    (sum: number, policy) =>
      sum + jsonCharsForSize((policy as { PolicyDocument?: unknown }).PolicyDocument),
    0,
  );
  let managed = Array.isArray(properties.ManagedPolicyArns)
    ? properties.ManagedPolicyArns.length
    : 0;
  for (const resource of Object.values(context.template)) {
    const roles = resource.Properties?.Roles;
    if (resource.Type === 'AWS::IAM::Policy' && attaches(roles, id)) {
      inlineChars += jsonCharsForSize(resource.Properties?.PolicyDocument);
    }
    if (resource.Type === 'AWS::IAM::ManagedPolicy' && attaches(roles, id)) managed += 1;
  }
  limit(context, id, 'rolePolicyChars', inlineChars);
  limit(context, id, 'managedPoliciesPerRole', managed);
}

function checkAlarm(
  id: string,
  properties: Record<string, unknown>,
  context: ResourceContext,
): void {
  limit(context, id, 'alarmNameChars', stringCharsForSize(properties.AlarmName ?? ''));
  limit(
    context,
    id,
    'alarmDescriptionChars',
    stringCharsForSize(properties.AlarmDescription ?? ''),
  );
  for (const key of ['AlarmActions', 'OKActions', 'InsufficientDataActions']) {
    const actions = properties[key];
    if (Array.isArray(actions)) limit(context, `${id} ${key}`, 'alarmActions', actions.length);
  }
}

/** Name, description, expression syntax, input that is JSON once Scheduler fills it in. */
function checkSchedule(
  id: string,
  properties: Record<string, unknown>,
  context: ResourceContext,
): void {
  const name = String(properties.Name ?? '');
  limit(context, id, 'scheduleNameChars', name.length);
  if (!/^[0-9a-zA-Z-_.]+$/.test(name)) {
    syntax(
      context,
      id,
      `schedule name '${name}' has characters other than 0-9, a-z, A-Z, -, _ and .`,
    );
  }
  limit(context, id, 'scheduleDescriptionChars', stringCharsForSize(properties.Description ?? ''));
  const expression = String(properties.ScheduleExpression ?? '');
  const problem = schedulerExpressionProblem(expression);
  if (problem) {
    syntax(
      context,
      id,
      `schedule expression '${expression}' is not EventBridge Scheduler syntax: ${problem} (EventBridge Scheduler User Guide, "Schedule types on EventBridge Scheduler")`,
    );
  }
  const input = (properties.Target as { Input?: unknown } | undefined)?.Input;
  if (input !== undefined) checkScheduleInput(id, String(resolveForSize(input)), context);
  const group = JSON.stringify(properties.GroupName ?? 'default');
  unique(
    context,
    id,
    `schedule ${appWide(properties.GroupName ?? 'default', context)} ${name}`,
    `schedule '${name}' of group ${group}`,
    'Schedule names are unique within a group (EventBridge Scheduler API Reference, "CreateSchedule")',
  );
}

/**
 * A templated Lambda target's input must be well-formed JSON as written, placeholders and all
 * (EventBridge Scheduler API Reference, "Target": Input), and stay JSON once Scheduler fills
 * them in, so the dispatcher can read it.
 */
function checkScheduleInput(id: string, text: string, context: ResourceContext): void {
  const attempts: [string, string][] = [
    [text, 'as written'],
    [withSampleContext(text), 'once Scheduler fills in its placeholders'],
  ];
  for (const [candidate, when] of attempts) {
    try {
      JSON.parse(candidate);
    } catch (error) {
      syntax(
        context,
        id,
        `target input is not well-formed JSON ${when} (${(error as Error).message}): ${text} (EventBridge Scheduler API Reference, "Target": Input must be well-formed JSON for a templated Lambda target)`,
      );
      return;
    }
  }
}

/** Environment variables, and the deployment package unzipped. */
function checkFunction(
  id: string,
  properties: Record<string, unknown>,
  context: ResourceContext,
): void {
  const variables =
    (properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
    {};
  const environmentBytes = Object.entries(variables).reduce(
    (sum, [key, value]) => sum + key.length + stringCharsForSize(value),
    0,
  );
  limit(context, id, 'lambdaEnvironmentBytes', environmentBytes);
  const key = (properties.Code as { S3Key?: unknown } | undefined)?.S3Key;
  const hash = typeof key === 'string' ? /^([0-9a-f]{64})\.zip$/.exec(key)?.[1] : undefined;
  if (hash === undefined) return;
  if (context.lambdaCode.kind === 'estimated') {
    limit(
      context,
      id,
      'lambdaUnzippedBytes',
      context.lambdaCode.jobsJsonBytes + LAMBDA_HANDLER_ALLOWANCE_BYTES,
    );
    return;
  }
  const path = context.assetPath(hash);
  if (path === undefined || !existsSync(path) || !statSync(path).isDirectory()) return;
  const { total, jobsJson } = directoryBytes(path);
  limit(context, id, 'lambdaUnzippedBytes', total);
  if (total - jobsJson > LAMBDA_HANDLER_ALLOWANCE_BYTES) {
    syntax(
      context,
      id,
      `the bundled handler takes ${total - jobsJson} bytes without jobs.json, more than the ${LAMBDA_HANDLER_ALLOWANCE_BYTES} bytes zonecron validate assumes; raise LAMBDA_HANDLER_ALLOWANCE_BYTES in infra/limits/check-assembly.ts`,
    );
  }
}

/** One invoke config per function and qualifier in the whole app. */
function checkInvokeConfig(
  id: string,
  properties: Record<string, unknown>,
  context: ResourceContext,
): void {
  const fn = JSON.stringify(properties.FunctionName);
  const qualifier = JSON.stringify(properties.Qualifier);
  unique(
    context,
    id,
    `invoke-config ${appWide(properties.FunctionName, context)} ${qualifier}`,
    `the asynchronous invoke config of ${fn}, qualifier ${qualifier}`,
    'Lambda allows one per function and qualifier (AWS Lambda API Reference, "PutFunctionEventInvokeConfig"); let one stack create it and list the function under completion.existingInvokeConfigs in the jobs file of the other (docs/deploy.md, "Completion of lambda targets")',
  );
}

/**
 * A value as a key that means the same thing in every template: a literal or an import is
 * the same everywhere, a `Ref` or `Fn::GetAtt` only within its own template.
 */
function appWide(value: unknown, context: ResourceContext): string {
  const json = JSON.stringify(value);
  return /"(Ref|Fn::GetAtt)"/.test(json) ? `${context.file}|${json}` : json;
}

function unique(
  context: ResourceContext,
  id: string,
  key: string,
  what: string,
  rule: string,
): void {
  const first = context.seen.get(key);
  if (first === undefined) {
    context.seen.set(key, `${context.file}: ${id}`);
    return;
  }
  context.report({
    template: context.file,
    where: id,
    limit: 'duplicate',
    message: `${context.file}: ${id}: ${what} is also created by ${first}: ${rule}`,
  });
}
