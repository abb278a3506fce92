/**
 * The CDK app: `cdk synth` / `cdk deploy` run this (cdk.json).
 *
 * Reads the jobs file named by `-c jobs=path` (default `jobs.yaml`) and the stack name from
 * `-c stackName=Name` (default `Zonecron`; one stack per jobs file), validates it with the
 * loader, builds the stack with cdk-nag registered, prints the per-job covering table to
 * stderr and synthesizes. Any problem — a bad job, a covering expression that cannot be
 * computed, an unacknowledged cdk-nag finding — prints what and where, and exits non-zero
 * before a template is written, so a half-valid stack can never be deployed.
 */
import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { DEFAULT_JOBS_FILE, isConfigError, loadJobsFile } from './config/load-jobs.ts';
import {
  CoveringError,
  coveringTable,
  createZonecronApp,
  DEFAULT_STACK_NAME,
} from './zonecron-stack.ts';

function fail(lines: string[]): never {
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(1);
}

function main(): void {
  const app = new App();
  const jobsContext: unknown = app.node.tryGetContext('jobs');
  const jobsFile =
    typeof jobsContext === 'string' && jobsContext !== '' ? jobsContext : DEFAULT_JOBS_FILE;

  const stackContext: unknown = app.node.tryGetContext('stackName');
  const stackName =
    typeof stackContext === 'string' && stackContext !== '' ? stackContext : DEFAULT_STACK_NAME;

  let built: ReturnType<typeof createZonecronApp>;
  try {
    const config = loadJobsFile(resolve(jobsFile));
    built = createZonecronApp({ app, config, synthTime: new Date(), stackName });
  } catch (error) {
    if (isConfigError(error)) {
      fail([
        `zonecron: ${jobsFile} is invalid (${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}); nothing was synthesized:`,
        ...error.message.split('\n').map((line) => `  ${line}`),
      ]);
    }
    if (error instanceof CoveringError) {
      fail([`zonecron: ${jobsFile}: ${error.message}; nothing was synthesized`]);
    }
    throw error;
  }

  process.stderr.write(
    `zonecron: ${built.stack.coverings.length} enabled job(s) from ${jobsFile}\n${coveringTable(built.stack.coverings)}\n`,
  );

  try {
    app.synth();
  } catch (error) {
    const violations = built.nag.validateScope(app).violations;
    if (violations.length > 0) {
      fail([
        `zonecron: cdk-nag found ${violations.length} unacknowledged finding(s); fix them or acknowledge each with a reason (infra/nag.ts):`,
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
}

main();
