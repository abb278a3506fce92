import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { packageRoot } from '../../infra/packaging/package-root.ts';
import { usageError } from '../errors.ts';
import {
  packageNameOf,
  type ScaffoldFile,
  type ScaffoldVersions,
  scaffoldFiles,
} from '../scaffold/team-repository.ts';

interface InitOptions {
  json?: boolean;
}

const EXAMPLE = `
Example:
  $ zonecron init payments-jobs
  writes package.json (zonecron, aws-cdk-lib, aws-cdk), cdk.json, bin/app.ts
  (five lines: addZonecron from zonecron/cdk), a commented jobs.yaml with one
  job, a README on adding jobs and upgrading, and a GitHub Actions workflow
  that runs zonecron validate on every pull request. Then:
  $ cd payments-jobs && npm install && npx zonecron validate jobs.yaml
  It writes nothing when any of those files exists already (exit code 2).`;

/**
 * `zonecron init [dir]`: scaffolds a team's own repository that installs zonecron from npm
 * (docs/cli.md, "zonecron init"). It refuses to overwrite anything: when one of its files
 * exists, it names them all and writes none.
 */
export function registerInit(program: Command): void {
  program
    .command('init')
    .description("scaffold a repository of one's own: jobs.yaml, a CDK app, CI")
    .argument('[dir]', 'where to write it, created if missing (default: the current directory)')
    .option('--json', 'print one JSON document')
    .addHelpText('after', EXAMPLE)
    .action(runInit);
}

/** The running package's package.json: its version and the versions it is built with. */
function runningVersions(): ScaffoldVersions {
  const file = join(packageRoot(import.meta.url), 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const pinned = (name: string): string => {
    const version = pkg.devDependencies?.[name] ?? pkg.dependencies?.[name];
    if (version === undefined) throw new Error(`internal: ${file} names no version of ${name}`);
    return version;
  };
  return {
    zonecron: pkg.version,
    awsCdkLib: pinned('aws-cdk-lib'),
    constructs: pinned('constructs'),
    awsCdk: pinned('aws-cdk'),
    tsx: pinned('tsx'),
  };
}

/** The scaffold's files that exist in `dir` already, as paths relative to it. */
function existing(dir: string, files: readonly ScaffoldFile[]): string[] {
  return files
    .map((file) => file.path)
    .filter((path) => statSync(join(dir, path), { throwIfNoEntry: false }) !== undefined);
}

function runInit(dirArgument: string | undefined, options: InitOptions): void {
  const shown = dirArgument ?? '.';
  const dir = resolve(shown);
  const versions = runningVersions();
  const files = scaffoldFiles(packageNameOf(basename(dir)), versions);
  const taken = existing(dir, files);
  if (taken.length > 0) {
    throw usageError(
      `${shown} already has ${taken.join(', ')}; zonecron init writes none of its files over existing ones (nothing was written)`,
    );
  }
  for (const file of files) {
    const path = join(dir, file.path);
    mkdirSync(dirname(path), { recursive: true });
    // 'wx': a file that appeared since the check is refused, never overwritten.
    writeFileSync(path, file.text, { flag: 'wx' });
  }
  const next = [
    ...(shown === '.' ? [] : [`cd ${shown}`]),
    'npm install',
    'npx zonecron validate jobs.yaml',
    'npx cdk synth',
  ];
  if (options.json) {
    const doc = { dir, zonecronVersion: versions.zonecron, files: files.map((f) => f.path), next };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    [
      `created ${files.length} files in ${shown} for zonecron ${versions.zonecron}:`,
      ...files.map((f) => `  ${f.path}`),
      'next:',
      ...next.map((line) => `  ${line}`),
      '',
    ].join('\n'),
  );
}
