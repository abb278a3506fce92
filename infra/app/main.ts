/**
 * The CDK app: `cdk synth` / `cdk deploy` run this (cdk.json). One caller of `addZonecron`
 * (`add-zonecron.ts`), as a team's own app is another.
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
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App } from 'aws-cdk-lib';
import { DEFAULT_JOBS_FILE } from '../config/load-jobs.ts';
import { addZonecron } from './add-zonecron.ts';
import { DEFAULT_STACK_NAME } from './zonecron-app.ts';

function contextString(app: App, key: string, fallback: string): string {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/**
 * Everything `cdk synth` runs, on an app the caller made (the CLI's context lives on it):
 * load, build, report, synthesize, check (`addZonecron`). Exits the process on any problem.
 *
 * Returns the cloud assembly's directory; `npm run bench:synth` times this.
 */
export function synthesizeApp(app: App): string {
  addZonecron(app, {
    jobsFile: contextString(app, 'jobs', DEFAULT_JOBS_FILE),
    stackName: contextString(app, 'stackName', DEFAULT_STACK_NAME),
  });
  return app.synth().directory;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  synthesizeApp(new App());
}
