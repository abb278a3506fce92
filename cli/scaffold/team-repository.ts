/**
 * The files `zonecron init` writes: a team's own repository that installs zonecron from npm,
 * holds its `jobs.yaml`, and adds zonecron's stacks to a CDK app of its own. Pure: the command
 * (`cli/commands/init.ts`) does the file system.
 */

/** The versions the scaffold pins, read from the running package's package.json. */
export interface ScaffoldVersions {
  /** The running zonecron. */
  readonly zonecron: string;
  readonly awsCdkLib: string;
  readonly constructs: string;
  /** The CDK CLI. */
  readonly awsCdk: string;
  /** Runs `bin/app.ts` for `cdk synth` (cdk.json's `app`). */
  readonly tsx: string;
}

/** One file of the scaffold, its path relative to the repository's root. */
export interface ScaffoldFile {
  readonly path: string;
  readonly text: string;
}

/**
 * The name a package.json may have, from a folder's name: lowercase letters, digits, `-`, `.`
 * and `_`, not starting with `.` or `_`.
 *
 * @example
 * packageNameOf('Payments Jobs') //=> 'payments-jobs'
 */
export function packageNameOf(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name === '' ? 'zonecron-jobs' : name.slice(0, 214);
}

function packageJson(name: string, v: ScaffoldVersions): string {
  const pkg = {
    name,
    private: true,
    type: 'module',
    scripts: {
      validate: 'zonecron validate jobs.yaml',
      next: 'zonecron next --config jobs.yaml -n 3',
      synth: 'CDK_DISABLE_VERSION_CHECK=1 cdk synth',
      deploy: 'CDK_DISABLE_VERSION_CHECK=1 cdk deploy --all',
    },
    dependencies: {
      'aws-cdk-lib': v.awsCdkLib,
      constructs: v.constructs,
      zonecron: v.zonecron,
    },
    devDependencies: {
      'aws-cdk': v.awsCdk,
      tsx: v.tsx,
    },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** As this repository's cdk.json: no telemetry, no notices; the version check is off in the scripts. */
const CDK_JSON = `${JSON.stringify(
  {
    app: 'npx tsx bin/app.ts',
    notices: false,
    watch: { include: ['bin/**', 'jobs.yaml'] },
    context: { 'cli-telemetry': false },
  },
  null,
  2,
)}\n`;

/** Five lines: the team's app, where its own stacks, tags and aspects go too. */
const APP_TS = `import { App } from 'aws-cdk-lib';
import { addZonecron } from 'zonecron/cdk';

const app = new App();
addZonecron(app, { jobsFile: 'jobs.yaml' });
`;

const JOBS_YAML = `# zonecron jobs: each job runs on a cron schedule read in its own time zone, and zonecron
# decides what happens when daylight saving time moves the clock.
#
# Preview:   npx zonecron next --config jobs.yaml -n 3   (the next runs, with DST notes)
# Check:     npx zonecron validate jobs.yaml             (every problem, with line and column)
# Deploy:    npx cdk deploy --all                        (the main stack and its shard stacks)
# Reference: node_modules/zonecron/docs/jobs.md

jobs:
  # 02:30 does not exist in Berlin on the last Sunday of March and happens twice on the last
  # Sunday of October. By default the job runs at 03:30 CEST on the first night (dst.gap:
  # shift) and once, at the first 02:30, on the second (dst.overlap: first).
  - id: nightly-report
    description: Nightly sales report
    schedule: "30 2 * * *"
    timezone: Europe/Berlin
    target:
      # lambda, sqs, sns, stepfunctions or eventbridge; the ARN of your own target here.
      type: sqs
      arn: arn:aws:sqs:eu-west-1:123456789012:nightly-report
    payload: # sent to the target inside the run envelope
      report: sales
`;

function readme(name: string, v: ScaffoldVersions): string {
  return `# ${name}

Scheduled jobs on AWS with [zonecron](https://www.npmjs.com/package/zonecron) ${v.zonecron}:
the jobs are in \`jobs.yaml\`, zonecron comes from npm, and \`bin/app.ts\` adds its stacks to
this repository's CDK app.

\`\`\`sh
npm install
npx zonecron validate jobs.yaml   # what CI runs on every pull request
npx zonecron next --config jobs.yaml -n 3
npx cdk deploy --all              # with AWS credentials for the target account
\`\`\`

## Adding a job

Add an entry under \`jobs:\` in \`jobs.yaml\` (every field: \`node_modules/zonecron/docs/jobs.md\`),
then check it and preview its runs before you open the pull request:

\`\`\`sh
npx zonecron validate jobs.yaml
npx zonecron next --config jobs.yaml --job-id <id> -n 5
\`\`\`

A merged change is deployed with \`npx cdk deploy --all\`: a job's schedule lives in a shard
stack (\`Zonecron-jobs-NN\`), and the main stack carries the jobs file to the Lambdas.

## Upgrading zonecron

zonecron is pinned to one version in \`package.json\`. An upgrade is a version bump, reviewed
like any change:

\`\`\`sh
npm install zonecron@<version>
npx zonecron validate jobs.yaml
npx cdk diff                      # what the new version changes in the stacks
npx cdk deploy --all
\`\`\`

To roll back, put the previous version back in \`package.json\`, \`npm install\`, and deploy
again. \`npx zonecron list --stack Zonecron\` says which version is deployed.
What a version bump changes, and what to read before one:
\`node_modules/zonecron/docs/deploy.md\` ("Upgrading").
`;
}

/** Runs `zonecron validate` on every pull request (GitHub Actions). */
const CI_WORKFLOW = `# Checks jobs.yaml on every pull request: every problem with its line and column, the
# same checks cdk synth makes (cdk-nag, AWS limits), without AWS credentials.
name: zonecron validate
on:
  pull_request:
jobs:
  validate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci --no-audit --no-fund
      - run: npx zonecron validate jobs.yaml
`;

const GITIGNORE = `node_modules/
cdk.out/
`;

/**
 * Every file of a team's repository, in the order they are listed.
 *
 * @example
 * scaffoldFiles('payments-jobs', versions).map((f) => f.path)
 * //=> ['package.json', 'cdk.json', 'bin/app.ts', 'jobs.yaml', 'README.md',
 * //    '.github/workflows/zonecron-validate.yml', '.gitignore']
 */
export function scaffoldFiles(name: string, versions: ScaffoldVersions): ScaffoldFile[] {
  return [
    { path: 'package.json', text: packageJson(name, versions) },
    { path: 'cdk.json', text: CDK_JSON },
    { path: 'bin/app.ts', text: APP_TS },
    { path: 'jobs.yaml', text: JOBS_YAML },
    { path: 'README.md', text: readme(name, versions) },
    { path: '.github/workflows/zonecron-validate.yml', text: CI_WORKFLOW },
    { path: '.gitignore', text: GITIGNORE },
  ];
}
