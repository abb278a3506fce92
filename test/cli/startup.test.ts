import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './run-cli.ts';

const RECORD_IMPORTS = new URL('./fixtures/record-imports.mjs', import.meta.url);
const NEXT = ['next', '30 2 * * *', '--tz', 'Europe/Berlin', '--after', '2027-03-26T00:00Z'];
/** Packages only some commands need, when they run: none may load to start the command. */
const HEAVY = [
  '@aws-sdk',
  '@aws-lambda-powertools',
  'aws-cdk-lib',
  'constructs',
  'dynalite',
  'yaml',
  'zod',
  'cli-progress',
  'tsx',
];

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

/** The packages under node_modules a `zonecron` run loaded, by name. */
async function packagesLoaded(args: readonly string[]): Promise<string[]> {
  const log = join(tempDir('zonecron-imports-'), 'imports.log');
  const result = await runCli(args, {
    env: { NODE_OPTIONS: `--import ${RECORD_IMPORTS.href}`, ZONECRON_IMPORT_LOG: log },
  });
  expect(result.code).toBe(0);
  const names = readFileSync(log, 'utf8')
    .split('\n')
    .map((line) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

describe('zonecron start-up', () => {
  it.each([
    ['--help', ['--help']],
    ['next', NEXT],
  ])('loads commander but no AWS SDK, CDK, dynalite, yaml, zod or tsx for %s', async (_, args) => {
    const loaded = await packagesLoaded(args);
    expect(loaded).toContain('commander');
    expect(loaded.filter((name) => HEAVY.some((heavy) => name.startsWith(heavy)))).toEqual([]);
  });

  it('runs the bundle in dist/cli when it matches the sources', async () => {
    const result = await runCli(['--version'], { env: { ZONECRON_DEBUG: '1' } });
    expect(result.stderr).toBe(
      `zonecron: running the build ${join(REPO_ROOT, 'dist/cli/zonecron.mjs')}\n`,
    );
    expect(result.code).toBe(0);
  });

  it('prints the version of package.json from the bundle and from the sources', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
    const bundled = await runCli(['--version']);
    const fromSource = await runCli(['--version'], { env: { ZONECRON_FROM_SOURCE: '1' } });
    expect(bundled.stdout).toBe(`${version}\n`);
    expect(fromSource.stdout).toBe(`${version}\n`);
  });

  it('runs the sources through tsx with ZONECRON_FROM_SOURCE=1, printing what the bundle prints', async () => {
    const bundled = await runCli([...NEXT, '-n', '3']);
    const fromSource = await runCli([...NEXT, '-n', '3'], {
      env: { ZONECRON_FROM_SOURCE: '1', ZONECRON_DEBUG: '1' },
    });
    expect(fromSource.stderr).toBe(
      'zonecron: running the sources through tsx: ZONECRON_FROM_SOURCE=1\n',
    );
    expect(fromSource.stdout).toBe(bundled.stdout);
    expect(bundled.stdout).toContain('02:30 does not exist on 2027-03-28 in Europe/Berlin');
  });

  it('names the TypeScript sources in stack traces from the bundle under ZONECRON_DEBUG', async () => {
    const result = await runCli(['next', '61 9 * * *', '--tz', 'UTC'], {
      env: { ZONECRON_DEBUG: '1' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('running the build');
    const frames = result.stderr.split('\n').filter((line) => /^ {4}at /.test(line));
    const ours = frames.filter((frame) => !frame.includes('node_modules') && frame.includes('/'));
    expect(ours.length).toBeGreaterThan(0);
    for (const frame of ours)
      expect(frame).toMatch(/\/(cli|functions|infra)\/[\w/.-]+\.ts:\d+:\d+\)?$/);
  });
});

const exec = promisify(execFile);

/** A copy of the parts of the checkout the command is built from, sharing node_modules. */
function copyOfCheckout(): string {
  const dir = tempDir('zonecron-checkout-');
  for (const part of ['bin', 'cli', 'functions', 'infra', 'scripts']) {
    cpSync(join(REPO_ROOT, part), join(dir, part), { recursive: true });
  }
  for (const file of ['package.json', 'tsconfig.json']) {
    cpSync(join(REPO_ROOT, file), join(dir, file));
  }
  symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules')), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Runs the copy's `zonecron`, choosing between bundle and sources by itself. */
function runCopy(dir: string, args: readonly string[], fromSource = '') {
  return runCli(args, {
    cwd: dir,
    bin: join(dir, 'bin/zonecron.mjs'),
    env: { ZONECRON_FROM_SOURCE: fromSource, ZONECRON_DEBUG: '1' },
  });
}

describe('zonecron with a missing or stale build', () => {
  it('runs the sources through tsx when there is no build', async () => {
    const dir = copyOfCheckout();
    const result = await runCopy(dir, ['--version']);
    expect(result.stderr).toBe('zonecron: running the sources through tsx: no build in dist/cli\n');
    expect(result.code).toBe(0);
  });

  it('runs the edited sources, not the old bundle, once a bundled file changed', async () => {
    const dir = copyOfCheckout();
    await exec(process.execPath, [join(dir, 'scripts/build-cli.mjs')]);
    expect((await runCopy(dir, ['--help'])).stderr).toContain('running the build');

    const main = join(dir, 'cli/main.ts');
    const edited = readFileSync(main, 'utf8').replace(
      "'serverless cron on AWS that gets daylight saving time right'",
      "'edited after the build'",
    );
    writeFileSync(main, edited);
    const result = await runCopy(dir, ['--help']);
    expect(result.stderr).toBe(
      'zonecron: running the sources through tsx: cli/main.ts changed since the build\n',
    );
    expect(result.stdout).toContain('edited after the build');
    expect(result.code).toBe(0);
  });

  it('refuses to start on a stale build with ZONECRON_FROM_SOURCE=0, with exit code 1', async () => {
    const dir = copyOfCheckout();
    await exec(process.execPath, [join(dir, 'scripts/build-cli.mjs')]);
    writeFileSync(join(dir, 'cli/errors.ts'), '\n', { flag: 'a' });
    const result = await runCopy(dir, ['--version'], '0');
    expect(result.stderr).toBe(
      'zonecron: error: cannot start: ZONECRON_FROM_SOURCE=0 but cli/errors.ts changed since' +
        ' the build (run npm run build:cli)\n',
    );
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
  });
});
