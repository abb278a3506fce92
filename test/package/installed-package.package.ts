/**
 * zonecron as a team uses it, from the tarball `npm pack` makes and nothing of this
 * repository's sources: installed offline from npm's cache, `zonecron init` of a repository,
 * `zonecron validate`, `cdk synth` of the scaffolded app, `zonecron next`, the programmatic
 * entry and the type declarations. `npm run test:package` runs it (.ci/run too): packing,
 * installing and two synths take minutes, too long for `npm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { installOffline } from './offline-install.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENV = {
  ...process.env,
  CDK_DISABLE_VERSION_CHECK: '1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  npm_config_update_notifier: 'false',
};

let work: string;
let tarball: string;
let packedFiles: string[];
let team: string;

function run(command: string, args: readonly string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, env: ENV, encoding: 'utf8' });
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** `npm pack` of this repository (prepack builds dist/lib and dist/types) into `work`. */
function pack(): { tarball: string; files: string[] } {
  const out = execFileSync(
    'npm',
    ['pack', '--json', '--pack-destination', work, '--loglevel=error'],
    { cwd: REPO_ROOT, env: ENV, encoding: 'utf8' },
  );
  const [report] = JSON.parse(out.slice(out.indexOf('['))) as {
    filename: string;
    size: number;
    files: { path: string }[];
  }[];
  if (report === undefined) throw new Error(`npm pack said nothing: ${out}`);
  const path = join(work, report.filename);
  process.stdout.write(
    `package: ${report.filename}, ${report.size} bytes packed, ${report.files.length} files\n`,
  );
  return { tarball: path, files: report.files.map((f) => f.path) };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zonecron-package-'));
  ({ tarball, files: packedFiles } = pack());
  // The tool a team first runs `zonecron init` with (as `npx zonecron init` would fetch it).
  const tool = join(work, 'tool');
  mkdirSync(tool);
  writeFileSync(join(tool, 'package.json'), '{ "name": "tool", "private": true }\n');
  installOffline({ dir: tool, tarball, repoRoot: REPO_ROOT });
  const init = run(join(tool, 'node_modules/.bin/zonecron'), ['init', 'payments-jobs'], tool);
  if (init.code !== 0) throw new Error(`zonecron init failed: ${init.stderr}`);
  team = join(tool, 'payments-jobs');
  // The team's own install, from the package.json init wrote: what the tool has already is
  // moved over, and `npm install` adds the rest (the CDK CLI).
  renameSync(join(tool, 'node_modules'), join(team, 'node_modules'));
  installOffline({ dir: team, tarball, repoRoot: REPO_ROOT, command: 'install' });
}, 900_000);

describe('the packed package', () => {
  it('holds the CLI bundle, the CDK library, the Lambda sources and the docs, no tests or maps', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'bin/zonecron.mjs',
        'dist/cli/zonecron.mjs',
        'dist/lib/index.mjs',
        'dist/lib/cdk.mjs',
        'dist/types/infra/app/add-zonecron.d.ts',
        'functions/dispatcher/handler.ts',
        'functions/recorder/handler.ts',
        'docs/jobs.md',
        'package.json',
      ]),
    );
    const unwanted = packedFiles.filter(
      (f) =>
        f.startsWith('test/') ||
        f.startsWith('infra/') ||
        f.startsWith('cli/') ||
        f.endsWith('.map') ||
        f === 'jobs.yaml',
    );
    expect(unwanted).toEqual([]);
    expect(statSync(tarball).size).toBeLessThan(1_500_000);
  });
});

describe('a team repository made by zonecron init from the installed package', () => {
  it('has the scaffold, and zonecron installed from the tarball rather than linked', () => {
    for (const file of ['package.json', 'cdk.json', 'bin/app.ts', 'jobs.yaml', 'README.md']) {
      expect(existsSync(join(team, file)), file).toBe(true);
    }
    expect(existsSync(join(team, '.github/workflows/zonecron-validate.yml'))).toBe(true);
    const installed = join(team, 'node_modules/zonecron');
    expect(statSync(installed).isDirectory()).toBe(true);
    expect(existsSync(join(installed, 'cli'))).toBe(false);
    expect(readdirSync(join(installed, 'dist/cli')).some((f) => f.endsWith('.map'))).toBe(false);
  });

  it('validates its jobs.yaml with the installed zonecron', () => {
    const result = run('npx', ['zonecron', 'validate', 'jobs.yaml'], team);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('every AWS limit a deploy meets is met');
  });

  it('previews the next runs with zonecron next, DST gap included', () => {
    const result = run(
      'npx',
      [
        'zonecron',
        'next',
        '--config',
        'jobs.yaml',
        '--after',
        '2027-03-27T12:00:00Z',
        '-n',
        '2',
        '--json',
      ],
      team,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('2027-03-28T01:30:00.000Z');
    expect(result.stdout).toContain('2027-03-29T00:30:00.000Z');
  });

  it("answers from the programmatic entry: import { previewRuns } from 'zonecron'", () => {
    const script = `import { previewRuns } from 'zonecron';
const p = previewRuns({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, new Date('2027-03-27T12:00Z'), 1);
process.stdout.write(p.runs[0].at.toISOString());`;
    const result = run('node', ['--input-type=module', '-e', script], team);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('2027-03-28T01:30:00.000Z');
  });

  it("type-checks bin/app.ts and a script of the team's against the package's declarations", () => {
    writeFileSync(
      join(team, 'bin/next-runs.ts'),
      `import { loadJobsFile, previewRuns, type RunPreview } from 'zonecron';
const [job] = loadJobsFile('jobs.yaml').jobs;
if (job !== undefined) {
  const preview: RunPreview = previewRuns({ cron: job.schedule, timezone: job.timezone }, new Date(), 3);
  console.log(preview.runs.map((run) => run.at.toISOString()));
}
`,
    );
    writeFileSync(
      join(team, 'tsconfig.check.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['bin/app.ts', 'bin/next-runs.ts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    const result = run(process.execPath, [tsc, '-p', 'tsconfig.check.json'], team);
    expect(result.code, result.stdout).toBe(0);
  });

  it("synthesizes with cdk synth the same templates as this repository's app for its jobs.yaml", () => {
    const teamOut = join(work, 'team.out');
    const teamSynth = run('npx', ['cdk', 'synth', '--quiet', '-o', teamOut], team);
    expect(teamSynth.code, teamSynth.stderr).toBe(0);
    const repoOut = join(work, 'repo.out');
    const repoSynth = run(
      'npx',
      ['cdk', 'synth', '--quiet', '-c', `jobs=${join(team, 'jobs.yaml')}`, '-o', repoOut],
      REPO_ROOT,
    );
    expect(repoSynth.code, repoSynth.stderr).toBe(0);
    expect(templatesOf(teamOut)).toEqual(templatesOf(repoOut));
    expect(templatesOf(teamOut).size).toBe(2);
    expect(lambdaCodeOf(teamOut)).toEqual(lambdaCodeOf(repoOut));
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const assets = readdirSync(teamOut).filter((d) => d.startsWith('asset.'));
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const jobs = JSON.parse(readFileSync(join(teamOut, asset, 'jobs.json'), 'utf8')) as {
        zonecronVersion?: string;
      };
      expect(jobs.zonecronVersion).toBe(version);
    }
  });
});

/**
 * Every template by file name, asset hashes masked: a hash covers the bundle's source maps
 * (paths relative to where synth ran) and jobs.json (the synth instant), never the same twice.
 */
function templatesOf(dir: string): Map<string, string> {
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.template.json'))
      .map((f) => [f, readFileSync(join(dir, f), 'utf8').replace(/[0-9a-f]{64}/g, '<hash>')]),
  );
}

/**
 * Each Lambda package's jobs.json without what depends on the synth instant, and a digest of
 * its JavaScript with esbuild's chunk names masked (they hash the source maps too).
 */
function lambdaCodeOf(dir: string): string[] {
  return readdirSync(dir)
    .filter((d) => d.startsWith('asset.'))
    .map((d) => {
      const asset = join(dir, d);
      const code = readdirSync(asset)
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => readFileSync(join(asset, f), 'utf8').replace(/chunk-[A-Z0-9]{8}/g, 'chunk'))
        .sort()
        .join('\n');
      const {
        synthesizedAt: _at,
        fingerprints: _f,
        ...jobs
      } = JSON.parse(readFileSync(join(asset, 'jobs.json'), 'utf8')) as Record<string, unknown>;
      // A digest: a difference in megabytes of minified code is unreadable in a report anyway.
      const codeDigest = createHash('sha256').update(code).digest('hex');
      return `${JSON.stringify(jobs)} code ${codeDigest}`;
    })
    .sort();
}
