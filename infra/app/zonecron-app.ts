/**
 * The CDK app of one or more zonecron installations: each a main stack (`ZonecronStack`) and
 * the shard stacks of its jobs (`JobShardStack`), with cdk-nag registered. `infra/app/main.ts`,
 * `zonecron validate`, the cost estimate, the benchmark and the tests all build it here.
 */

import {
  App,
  type Environment,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  type PolicyViolation,
  Validations,
} from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { JobDefinition } from '#jobs/job.ts';
import { type LambdaTargetRef, lambdaTargetRef } from '#jobs/target-arn.ts';
import { DEFAULT_STACK_NAME } from '#shared/defaults.ts';
import type { JobsConfig } from '../config/load-jobs.ts';
import { lambdaRetriesOf } from '../constructs/completion-tracking.ts';
import { onCallTopicArn } from '../constructs/on-call-topic.ts';
import { type CoveringDetails, coveringDetails } from '../covering/covering-cron.ts';
import { InfraError } from '../errors/infra-error.ts';
import {
  JobShardStack,
  type OwnedInvokeConfig,
  type ScheduledJob,
} from '../stacks/job-shard-stack.ts';
import { functionShard, jobShard, SHARD_COUNT, shardStackName } from '../stacks/sharding.ts';
import { ZonecronStack } from '../stacks/zonecron-stack.ts';

export { DEFAULT_STACK_NAME } from '#shared/defaults.ts';

/**
 * Longest stack name: the shard stacks add `-jobs-NN`, the Contributor Insights rule
 * `-failing-jobs` (rule names are at most 128 characters), alarm names a job id and a signal.
 */
export const MAX_STACK_NAME_LENGTH = 100;

/** CloudFormation stack names: a letter, then letters, digits and hyphens. */
const STACK_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9-]*$/;

/** One enabled job, its UTC covering schedule, and what the synth table prints. */
export interface JobCovering {
  readonly job: JobDefinition;
  readonly covering: CoveringDetails['schedule'];
  /** The tick and run counts behind `covering.ticksPerRun`. */
  readonly details: CoveringDetails;
}

/** A job whose covering expression could not be computed; names the job. */
export class CoveringError extends InfraError {
  readonly jobId: string;

  constructor(jobId: string, cause: unknown) {
    super(
      `job '${jobId}': cannot compute its UTC covering schedule: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.jobId = jobId;
  }
}

/** A stack name CloudFormation, or the names derived from it, would refuse. */
export class InvalidStackNameError extends InfraError {
  readonly stackName: string;

  constructor(stackName: string, reason: string) {
    super(`invalid stack name '${stackName}': ${reason}`);
    this.stackName = stackName;
  }
}

/** One installation to build. */
export interface ZonecronInstallationOptions {
  readonly config: JobsConfig;
  /** @default DEFAULT_STACK_NAME */
  readonly stackName?: string;
  /**
   * The account and region of the installation's stacks.
   *
   * @default - environment-agnostic
   */
  readonly env?: Environment;
}

/** Options of {@link createZonecronApp}. */
export interface ZonecronAppOptions {
  /** The instant the covering expressions are computed from; the tests pass a fixed one. */
  readonly synthTime: Date;
  /** An existing app (the CDK CLI's context lives on it); a new one otherwise. */
  readonly app?: App;
  /** One entry per installation; each stack name at most once. */
  readonly installations: readonly ZonecronInstallationOptions[];
}

/** What one installation became. */
export interface ZonecronInstallation {
  readonly stackName: string;
  readonly config: JobsConfig;
  readonly main: ZonecronStack;
  /** The shard stacks that have something, by shard number. */
  readonly shards: readonly JobShardStack[];
  /** The enabled jobs in file order with their covering schedules. */
  readonly coverings: readonly JobCovering[];
  /** Invoke configs this installation leaves to another one of the app (`key` → stack). */
  readonly invokeConfigsOwnedElsewhere: ReadonlyMap<string, string>;
}

/**
 * Builds the app the way `cdk synth` does: every installation's stacks, with cdk-nag's
 * AwsSolutions checks registered, so an unacknowledged finding makes `app.synth()` throw.
 *
 * When several installations target the same Lambda function and qualifier, exactly one
 * creates its invoke config: the first by stack name among those that create any, with the
 * fewest retries any of them asks for.
 */
export function createZonecronApp(options: ZonecronAppOptions): {
  app: App;
  installations: ZonecronInstallation[];
  nag: AwsSolutionsChecks;
  /** The unacknowledged cdk-nag findings on zonecron's stacks, those synth fails on. */
  nagViolations: () => PolicyViolation[];
} {
  const app = options.app ?? new App();
  const named = options.installations.map((installation) => ({
    config: installation.config,
    stackName: installation.stackName ?? DEFAULT_STACK_NAME,
    env: installation.env,
  }));
  checkStackNames(named.map((installation) => installation.stackName));
  const owners = invokeConfigOwners(named);
  const installations = named.map(({ config, stackName, env }) =>
    buildInstallation(app, { config, stackName, env }, options.synthTime, owners),
  );
  const stacks = installations.flatMap(({ main, shards }) => [main, ...shards]);
  const nag = new AwsSolutionsChecks(app, { verbose: true });
  const nagViolations = () => stacks.flatMap((stack) => nag.validateScope(stack).violations);
  addScopedNagChecks(app, nag, nagViolations);
  return { app, installations, nag, nagViolations };
}

/**
 * Registers cdk-nag's AwsSolutions `pack` on `app` with the findings of `violations`, those on
 * zonecron's stacks only.
 *
 * A pack registered with `Validations.of(app).addPlugins` walks the whole app: in a team's
 * own app (`addZonecron`) it would judge, and fail the synth of, the team's other stacks too.
 * Here the plugin the app runs at synth checks zonecron's stacks one by one; in an app of
 * zonecron's stacks alone (`infra/app/main.ts`, the tests) it finds exactly what the pack
 * over the whole app finds, and `pack.validateScope(app)` still lists them.
 */
function addScopedNagChecks(
  app: App,
  pack: AwsSolutionsChecks,
  violations: () => PolicyViolation[],
): void {
  const plugin: IPolicyValidationPlugin = {
    name: pack.name,
    ...(pack.version === undefined ? {} : { version: pack.version }),
    ...(pack.ruleIds === undefined ? {} : { ruleIds: pack.ruleIds }),
    validate(): PolicyValidationPluginReport {
      const found = violations();
      return { success: found.length === 0, violations: found };
    },
  };
  Validations.of(app).addPlugins(plugin);
}

function checkStackNames(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (!STACK_NAME_PATTERN.test(name)) {
      throw new InvalidStackNameError(name, 'allowed: a letter, then letters, digits and hyphens');
    }
    if (name.length > MAX_STACK_NAME_LENGTH) {
      throw new InvalidStackNameError(
        name,
        `${name.length} characters, at most ${MAX_STACK_NAME_LENGTH} allowed`,
      );
    }
    if (seen.has(name)) throw new InvalidStackNameError(name, 'two installations have it');
    seen.add(name);
  }
}

/** Per function key: who creates the invoke config, and with how many retries. */
interface InvokeConfigOwner {
  readonly stackName: string;
  readonly target: LambdaTargetRef;
  readonly retries: number;
}

function invokeConfigOwners(
  installations: readonly { config: JobsConfig; stackName: string }[],
): Map<string, InvokeConfigOwner> {
  const owners = new Map<string, InvokeConfigOwner>();
  const retries = new Map<string, number>();
  const byName = [...installations].sort((a, b) => a.stackName.localeCompare(b.stackName));
  for (const { config, stackName } of byName) {
    const elsewhere = new Set(config.completion.existingInvokeConfigs);
    for (const job of config.jobs) {
      if (!job.enabled || job.target.type !== 'lambda') continue;
      const target = lambdaTargetRef(job.target.arn);
      retries.set(target.key, Math.min(retries.get(target.key) ?? 2, lambdaRetriesOf(job)));
      const creates =
        config.completion.lambdaInvokeConfig === 'create' && !elsewhere.has(target.key);
      if (creates && !owners.has(target.key)) {
        owners.set(target.key, { stackName, target, retries: 0 });
      }
    }
  }
  for (const [key, owner] of owners) {
    owners.set(key, { ...owner, retries: retries.get(key) ?? 0 });
  }
  return owners;
}

/** One installation's stacks: its main stack, then the shard stacks that have something. */
function buildInstallation(
  app: App,
  named: { config: JobsConfig; stackName: string; env: Environment | undefined },
  synthTime: Date,
  owners: ReadonlyMap<string, InvokeConfigOwner>,
): ZonecronInstallation {
  const { config, stackName, env } = named;
  const envProp = env === undefined ? {} : { env };
  const coverings = jobCoverings(config, synthTime);
  const main = new ZonecronStack(app, stackName, { config, synthTime, ...envProp });
  const shards = shardStacks(app, { config, stackName, main, coverings, owners, envProp });
  const invokeConfigsOwnedElsewhere = ownedElsewhere(config, stackName, owners);
  return { stackName, config, main, shards, coverings, invokeConfigsOwnedElsewhere };
}

/** The enabled jobs with their UTC covering schedules computed at `synthTime`. */
function jobCoverings(config: JobsConfig, synthTime: Date): JobCovering[] {
  return config.jobs
    .filter((job) => job.enabled)
    .map((job): JobCovering => {
      try {
        const details = coveringDetails(job, synthTime);
        return { job, covering: details.schedule, details };
      } catch (error) {
        throw new CoveringError(job.id, error);
      }
    });
}

/** The shard stacks of an installation: its jobs' schedules and its invoke configs, by shard. */
function shardStacks(
  app: App,
  installation: {
    readonly config: JobsConfig;
    readonly stackName: string;
    readonly main: ZonecronStack;
    readonly coverings: readonly JobCovering[];
    readonly owners: ReadonlyMap<string, InvokeConfigOwner>;
    readonly envProp: { readonly env?: Environment };
  },
): JobShardStack[] {
  const { config, stackName, main, coverings, owners, envProp } = installation;
  const jobsByShard = groupBy(
    coverings.map(
      ({ job, covering }): ScheduledJob => ({
        job,
        awsExpression: covering.awsExpression,
        ...(covering.window === undefined ? {} : { window: covering.window }),
      }),
    ),
    ({ job }) => jobShard(job.id),
  );
  const configsByShard = groupBy(ownedInvokeConfigs(stackName, owners), ({ target }) =>
    functionShard(target.key),
  );
  const shards: JobShardStack[] = [];
  for (let shard = 0; shard < SHARD_COUNT; shard += 1) {
    const jobs = jobsByShard.get(shard) ?? [];
    const invokeConfigs = configsByShard.get(shard) ?? [];
    if (jobs.length === 0 && invokeConfigs.length === 0) continue;
    const name = shardStackName(stackName, shard);
    const stack = new JobShardStack(app, name, {
      stackName: name,
      installation: stackName,
      shard,
      jobs,
      invokeConfigs,
      scheduleRefs: main.scheduling.targetRefs,
      topicArn: onCallTopicArn(stackName, config.alarmTopicArn),
      ...envProp,
    });
    stack.addStackDependency(main, MAIN_STACK_FIRST);
    shards.push(stack);
  }
  return shards;
}

/**
 * Why every shard depends on its main stack, whatever it holds. A shard with schedules already
 * does (it imports the group, role, dispatcher and queue); one with only invoke configs
 * references nothing of the main stack, and CDK would let `cdk deploy --all` deploy it first
 * or beside it. Its configs need the main stack first all the same: Lambda checks at creation
 * that the target's role may put events on the default bus, which a first install grants by
 * attaching the main stack's `TargetDestinationPolicyArn`, and a record put before the main
 * stack's completion rule exists reaches no recorder.
 */
const MAIN_STACK_FIRST =
  "the main stack's destination policy and completion rules come before any invoke config or schedule";

/** The invoke configs installation `stackName` creates, by function key. */
function ownedInvokeConfigs(
  stackName: string,
  owners: ReadonlyMap<string, InvokeConfigOwner>,
): OwnedInvokeConfig[] {
  return [...owners.values()]
    .filter((owner) => owner.stackName === stackName)
    .sort((a, b) => a.target.key.localeCompare(b.target.key))
    .map(
      (owner): OwnedInvokeConfig => ({
        target: owner.target,
        maximumRetryAttempts: owner.retries,
      }),
    );
}

/** The functions an installation's jobs target whose invoke config another one creates. */
function ownedElsewhere(
  config: JobsConfig,
  stackName: string,
  owners: ReadonlyMap<string, InvokeConfigOwner>,
): Map<string, string> {
  const targeted = new Set(
    config.jobs
      .filter((job) => job.enabled && job.target.type === 'lambda')
      .map((job) => lambdaTargetRef(job.target.arn).key),
  );
  const elsewhere = new Map<string, string>();
  for (const [key, owner] of owners) {
    if (targeted.has(key) && owner.stackName !== stackName) elsewhere.set(key, owner.stackName);
  }
  return elsewhere;
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key) ?? [];
    group.push(item);
    groups.set(key, group);
  }
  return groups;
}

/** Renders the per-job table: expression, zone, covering UTC expression, ticks per run. */
export function coveringTable(coverings: readonly JobCovering[]): string {
  const rows = [
    ['job', 'schedule', 'timezone', 'target', 'UTC covering expression', 'ticks/run'],
    ...coverings.map(({ job, covering }) => [
      job.id,
      job.schedule,
      job.timezone,
      job.target.type,
      covering.awsExpression,
      covering.ticksPerRun.toFixed(2),
    ]),
  ];
  const widths = rows[0]?.map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows
    .map((row) => row.map((cell, column) => cell.padEnd(widths?.[column] ?? 0)).join('  '))
    .join('\n');
}
