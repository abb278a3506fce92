/**
 * The CDK app: `cdk synth` / `cdk deploy` run this (cdk.json).
 *
 * Reads the jobs file named by `-c jobs=path` (default `jobs.yaml`) and the main stack's name
 * from `-c stackName=Name` (default `Zonecron`; one installation per jobs file), validates it
 * with the loader, builds the installation's stacks with cdk-nag registered, prints the
 * covering table (or its summary) and the notes a reviewer should read to stderr, synthesizes,
 * and checks every template of the result against the AWS limits a deploy would meet
 * (`infra/limits/`). Any problem — a bad job, a covering expression that cannot be computed, an
 * unacknowledged cdk-nag finding, a limit exceeded — prints what and where and exits non-zero,
 * so a half-valid app can never be deployed.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { DEFAULT_JOBS_FILE, isConfigError, loadJobsFile } from '../config/load-jobs.ts';
import { isInfraError } from '../errors/infra-error.ts';
import { checkCloudAssembly } from '../limits/check-assembly.ts';
import { installationNotes, violationLines } from './synth-report.ts';
import { coveringTable, createZonecronApp, DEFAULT_STACK_NAME } from './zonecron-app.ts';

/** Above this many enabled jobs, synth prints a summary instead of one row per job. */
const MAX_TABLE_ROWS = 200;

function fail(lines: string[]): never {
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(1);
}

function contextString(app: App, key: string, fallback: string): string {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function build(app: App, jobsFile: string, stackName: string) {
  try {
    const config = loadJobsFile(resolve(jobsFile));
    return createZonecronApp({
      app,
      synthTime: new Date(),
      installations: [{ config, stackName }],
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

/**
 * Everything `cdk synth` runs, on an app the caller made (the CLI's context lives on it):
 * load, build, report, synthesize, check. Exits the process on any problem.
 *
 * Returns the cloud assembly's directory; `npm run bench:synth` times this.
 */
export function synthesizeApp(app: App): string {
  const jobsFile = contextString(app, 'jobs', DEFAULT_JOBS_FILE);
  const stackName = contextString(app, 'stackName', DEFAULT_STACK_NAME);
  const built = build(app, jobsFile, stackName);
  const [installation] = built.installations;
  if (installation === undefined) throw new Error('internal: no installation was built');

  const { coverings } = installation;
  process.stderr.write(
    coverings.length <= MAX_TABLE_ROWS
      ? `zonecron: ${coverings.length} enabled job(s) from ${jobsFile}\n${coveringTable(coverings)}\n`
      : `zonecron: ${coverings.length} enabled jobs from ${jobsFile}; each job's UTC covering expression: npx zonecron validate ${jobsFile}\n`,
  );
  for (const note of installationNotes(installation)) process.stderr.write(`zonecron: ${note}\n`);

  let directory: string;
  try {
    directory = app.synth().directory;
  } catch (error) {
    const violations = built.nag.validateScope(app).violations;
    if (violations.length > 0) {
      fail([
        `zonecron: cdk-nag found ${violations.length} unacknowledged finding(s); fix them or acknowledge each with a reason (infra/constructs/nag.ts):`,
        ...violations.flatMap((violation) =>
          violation.violatingResources.map(
            (resource) =>
              `  ${violation.ruleName} at ${resource.constructPath}: ${violation.description}`,
          ),
        ),
      ]);
    }
    throw error;
  }

  const { violations } = checkCloudAssembly(directory, { kind: 'staged' });
  if (violations.length > 0) {
    // Nothing may be deployed from an assembly a deploy would refuse part of.
    rmSync(join(directory, 'manifest.json'), { force: true });
    fail([...violationLines(violations), 'zonecron: the cloud assembly was not kept']);
  }
  return directory;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  synthesizeApp(new App());
}
