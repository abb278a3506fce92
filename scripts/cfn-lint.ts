/**
 * Lints the synthesized app with cfn-lint, AWS's CloudFormation linter (every resource against
 * the CloudFormation resource schemas), and fails on any error or warning it reports. `.ci/run`
 * runs it, as `npm run lint:cfn`.
 *
 *   npm run lint:cfn                                   # the example jobs.yaml
 *   npm run lint:cfn -- -c jobs=other.yaml             # cdk synth's own -c options
 *   npm run lint:cfn -- --assembly cdk.out             # an assembly already synthesized
 *
 * Synth is `cdk synth` offline, as `npm run synth` runs it (cdk.json keeps notices and
 * telemetry off; the version check is off here), into a temporary folder. A finding the project
 * accepts is acknowledged on its resource (`Metadata: cfn-lint: config: ignore_checks`), with the
 * reason in a comment beside it, and listed in docs/deploy.md; nothing is ignored app-wide.
 * Without cfn-lint on the PATH the step is skipped, saying so, and exits 0.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** cfn-lint's version line (`cfn-lint 1.51.0`), or undefined when it is not installed. */
export function cfnLintVersion(): string | undefined {
  const result = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  if (result.error !== undefined || result.status !== 0) return undefined;
  return result.stdout.trim();
}

/**
 * Runs `cdk synth --quiet -o <outdir> ...cdkArgs` offline; returns the milliseconds it took.
 * Throws with synth's own output when it fails.
 */
export function synthesize(outdir: string, cdkArgs: readonly string[] = []): number {
  const started = performance.now();
  const result = spawnSync('npx', ['cdk', 'synth', '--quiet', '-o', outdir, ...cdkArgs], {
    encoding: 'utf8',
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`cdk synth failed (exit ${result.status}):\n${result.stderr}${result.stdout}`);
  }
  return performance.now() - started;
}

/** One cfn-lint run over an assembly. */
export interface CfnLintRun {
  /** cfn-lint's exit status. */
  readonly status: number;
  /** What it printed. */
  readonly output: string;
  /** How many templates it read. */
  readonly templates: number;
  readonly ms: number;
}

/**
 * Lints every template of a cloud assembly in one cfn-lint run. Returns its exit status
 * (0: nothing found; cfn-lint adds 2 for errors, 4 for warnings, 8 for informational
 * findings), what it printed, the templates linted and the milliseconds it took.
 */
export function lintAssembly(directory: string): CfnLintRun {
  const templates = readdirSync(directory)
    .filter((file) => file.endsWith('.template.json'))
    .sort()
    .map((file) => join(directory, file));
  if (templates.length === 0) throw new Error(`no template in ${directory}`);
  const started = performance.now();
  const result = spawnSync('cfn-lint', ['--', ...templates], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  const status = result.error === undefined ? (result.status ?? 1) : 1;
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error?.message ?? ''}`;
  return { status, output, templates: templates.length, ms };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function main(args: readonly string[]): number {
  const version = cfnLintVersion();
  if (version === undefined) {
    console.log(
      'cfn-lint: not installed, so the synthesized templates are not linted (skipped; pip install cfn-lint to run this step)',
    );
    return 0;
  }
  const at = args.indexOf('--assembly');
  const given = at === -1 ? undefined : args[at + 1];
  const cdkArgs = at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
  const directory = given === undefined ? mkdtempSync(join(tmpdir(), 'zonecron-lint-')) : given;
  try {
    const synthMs = given === undefined ? synthesize(directory, cdkArgs) : undefined;
    const lint = lintAssembly(resolve(directory));
    const took = `${synthMs === undefined ? '' : `synth ${seconds(synthMs)}, `}lint ${seconds(lint.ms)}`;
    if (lint.status !== 0) {
      process.stdout.write(lint.output);
      console.error(
        `${version}: errors or warnings in the ${lint.templates} templates linted (exit ${lint.status}; ${took}); fix each, or acknowledge it on its resource with the reason (see scripts/cfn-lint.ts)`,
      );
      return 1;
    }
    console.log(`${version}: ${lint.templates} templates, no error or warning (${took})`);
    return 0;
  } finally {
    if (given === undefined) rmSync(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exit(main(process.argv.slice(2)));
}
