/**
 * `addZonecron(app, { jobsFile })`: zonecron's stacks in a CDK app of one's own. The package's
 * `zonecron/cdk` entry exports it; this repository's own app (`infra/app/main.ts`) is one
 * caller of it, so a team's app and this one synthesize the same templates from a jobs file.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { App, Environment, PolicyViolation } from 'aws-cdk-lib';
import { isConfigError, loadJobsFile } from '../config/load-jobs.ts';
import { InfraError, isInfraError } from '../errors/infra-error.ts';
import { checkCloudAssembly } from '../limits/check-assembly.ts';
import { installationNotes, violationLines } from './synth-report.ts';
import {
  coveringTable,
  createZonecronApp,
  DEFAULT_STACK_NAME,
  type ZonecronInstallation,
} from './zonecron-app.ts';

/** Above this many enabled jobs, synth prints a summary instead of one row per job. */
const MAX_TABLE_ROWS = 200;

/** Options of {@link addZonecron}. */
export interface AddZonecronOptions {
  /** The jobs file (docs/jobs.md), relative to the working directory `cdk synth` runs in. */
  readonly jobsFile: string;
  /**
   * The main stack's name; the shard stacks are named `<stackName>-jobs-NN`.
   *
   * @default 'Zonecron'
   */
  readonly stackName?: string;
  /**
   * The account and region of every zonecron stack, as for any CDK stack.
   *
   * @default - environment-agnostic: `cdk deploy` takes them from the caller's credentials
   */
  readonly env?: Environment;
  /**
   * The instant the UTC covering expressions and the zone fingerprints are computed from.
   *
   * @default - the time the app runs
   */
  readonly synthTime?: Date;
}

/** Apps that already have zonecron: one installation per app. */
const withZonecron = new WeakSet<App>();

/**
 * A second `addZonecron` on one app.
 *
 * Two installations of one app would each register cdk-nag and decide alone which of them
 * creates the invoke config of a Lambda target both use; `createZonecronApp` builds several
 * installations of one app together for that reason.
 */
export class SecondInstallationError extends InfraError {
  constructor() {
    super('addZonecron was already called on this app: one zonecron installation per app');
  }
}

function fail(lines: readonly string[]): never {
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(1);
}

/**
 * Adds one zonecron installation to `app`: the main stack and the shard stacks of the jobs in
 * `jobsFile`, with cdk-nag's AwsSolutions checks and zonecron's AWS limit checks on synth.
 *
 * The stacks are children of `app`, so whatever the app applies to its tree (`Tags.of(app)`,
 * `PermissionsBoundary.of(app)`, aspects, a default stack synthesizer) applies to them too.
 * Like `cdk synth` of this repository, it refuses a half-valid app: a bad jobs file, a
 * covering expression that cannot be computed, an unacknowledged cdk-nag finding or an AWS
 * limit a deploy would hit prints what and where to stderr and exits with code 1. The limit
 * checks read the synthesized templates, so they run when the app synthesizes (`app.synth()`,
 * which the CDK CLI calls on its own), through a wrapper around that app's `synth`.
 *
 * @example
 * const app = new App();
 * addZonecron(app, { jobsFile: 'jobs.yaml' }).stackName //=> 'Zonecron'
 */
export function addZonecron(app: App, options: AddZonecronOptions): ZonecronInstallation {
  if (withZonecron.has(app)) throw new SecondInstallationError();
  withZonecron.add(app);
  const { jobsFile } = options;
  const built = build(app, options);
  const [installation] = built.installations;
  if (installation === undefined) throw new Error('internal: no installation was built');
  reportInstallation(installation, jobsFile);
  checkOnSynth(app, built.nagViolations);
  return installation;
}

function build(app: App, options: AddZonecronOptions) {
  const { jobsFile } = options;
  try {
    const config = loadJobsFile(resolve(jobsFile));
    return createZonecronApp({
      app,
      synthTime: options.synthTime ?? new Date(),
      installations: [
        {
          config,
          stackName: options.stackName ?? DEFAULT_STACK_NAME,
          ...(options.env === undefined ? {} : { env: options.env }),
        },
      ],
    });
  } catch (error) {
    if (isConfigError(error)) {
      fail([
        `zonecron: ${jobsFile} is invalid (${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}); nothing was synthesized:`,
        ...error.message.split('\n').map((line) => `  ${line}`),
      ]);
    }
    if (isInfraError(error)) {
      fail([`zonecron: ${jobsFile}: ${error.message}; nothing was synthesized`]);
    }
    throw error;
  }
}

/** The covering table (or its summary) and the notes a reviewer should read, to stderr. */
function reportInstallation(installation: ZonecronInstallation, jobsFile: string): void {
  const { coverings } = installation;
  process.stderr.write(
    coverings.length <= MAX_TABLE_ROWS
      ? `zonecron: ${coverings.length} enabled job(s) from ${jobsFile}\n${coveringTable(coverings)}\n`
      : `zonecron: ${coverings.length} enabled jobs from ${jobsFile}; each job's UTC covering expression: npx zonecron validate ${jobsFile}\n`,
  );
  for (const note of installationNotes(installation)) process.stderr.write(`zonecron: ${note}\n`);
}

/**
 * Wraps `app.synth` so that every synthesis of the app is checked: cdk-nag's findings named
 * one by one when they make synthesis throw, then the templates against the AWS limits.
 *
 * Why a wrapper: the CDK calls an app's own `synth` (explicitly, or at process exit under the
 * CDK CLI), and offers no hook after it; the limits are checked on the written templates.
 * An assembly is checked once, however often `synth` returns it.
 */
function checkOnSynth(app: App, nagViolations: () => readonly PolicyViolation[]): void {
  const synth = app.synth.bind(app);
  const checked = new Set<string>();
  app.synth = (synthOptions) => {
    let assembly: ReturnType<typeof synth>;
    try {
      assembly = synth(synthOptions);
    } catch (error) {
      const violations = nagViolations();
      if (violations.length > 0) fail(nagLines(violations));
      throw error;
    }
    const { directory } = assembly;
    if (checked.has(directory)) return assembly;
    checked.add(directory);
    const { violations } = checkCloudAssembly(directory, { kind: 'staged' });
    if (violations.length > 0) {
      // Nothing may be deployed from an assembly a deploy would refuse part of.
      rmSync(join(directory, 'manifest.json'), { force: true });
      fail([...violationLines(violations), 'zonecron: the cloud assembly was not kept']);
    }
    return assembly;
  };
}

function nagLines(violations: readonly PolicyViolation[]): string[] {
  return [
    `zonecron: cdk-nag found ${violations.length} unacknowledged finding(s); fix them or acknowledge each with a reason (infra/constructs/nag.ts):`,
    ...violations.flatMap((violation) =>
      violation.violatingResources.map(
        (resource) =>
          `  ${violation.ruleName} at ${resource.constructPath}: ${violation.description}`,
      ),
    ),
  ];
}

export { DEFAULT_STACK_NAME, type ZonecronInstallation } from './zonecron-app.ts';
