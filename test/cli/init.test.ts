import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadJobsFile } from '../../infra/config/load-jobs.ts';
import { REPO_ROOT, runCli } from './run-cli.ts';

const FILES = [
  'package.json',
  'cdk.json',
  'bin/app.ts',
  'jobs.yaml',
  'README.md',
  '.github/workflows/zonecron-validate.yml',
  '.gitignore',
];

const repoPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'zonecron-init-'));
}

function read(dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8');
}

describe('zonecron init', () => {
  it('writes the seven files of a team repository into a new folder and says what to run next', async () => {
    const parent = tempDir();
    const result = await runCli(['init', 'payments-jobs'], { cwd: parent });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const dir = join(parent, 'payments-jobs');
    for (const file of FILES) expect(existsSync(join(dir, file)), file).toBe(true);
    expect(result.stdout).toContain(
      `created 7 files in payments-jobs for zonecron ${repoPackage.version}:`,
    );
    expect(result.stdout).toContain(
      '  cd payments-jobs\n  npm install\n  npx zonecron validate jobs.yaml',
    );
  });

  it('pins zonecron at the running version, and aws-cdk-lib, constructs, aws-cdk and tsx at the versions it is built with', async () => {
    const dir = tempDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const pkg = JSON.parse(read(dir, 'package.json')) as {
      name: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.dependencies).toEqual({
      'aws-cdk-lib': repoPackage.devDependencies['aws-cdk-lib'],
      constructs: repoPackage.devDependencies.constructs,
      zonecron: repoPackage.version,
    });
    expect(pkg.devDependencies).toEqual({
      'aws-cdk': repoPackage.devDependencies['aws-cdk'],
      tsx: repoPackage.dependencies.tsx,
    });
    expect(pkg.name).toMatch(/^zonecron-init-/);
  });

  it('scaffolds a five-line bin/app.ts calling addZonecron from zonecron/cdk, and a cdk.json with telemetry and notices off', async () => {
    const dir = tempDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const app = read(dir, 'bin/app.ts');
    expect(app.trimEnd().split('\n')).toHaveLength(5);
    expect(app).toContain("import { addZonecron } from 'zonecron/cdk';");
    expect(app).toContain("addZonecron(app, { jobsFile: 'jobs.yaml' });");
    const cdk = JSON.parse(read(dir, 'cdk.json')) as {
      app: string;
      notices: boolean;
      context: Record<string, unknown>;
    };
    expect(cdk).toMatchObject({ app: 'npx tsx bin/app.ts', notices: false });
    expect(cdk.context['cli-telemetry']).toBe(false);
  });

  it('scaffolds a commented jobs.yaml with one job that the loader accepts', async () => {
    const dir = tempDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    expect(read(dir, 'jobs.yaml')).toMatch(/^# /);
    const config = loadJobsFile(join(dir, 'jobs.yaml'));
    expect(config.jobs.map((job) => [job.id, job.schedule, job.timezone])).toEqual([
      ['nightly-report', '30 2 * * *', 'Europe/Berlin'],
    ]);
  });

  it('scaffolds a CI workflow that runs zonecron validate on every pull request, and a README on adding jobs and upgrading', async () => {
    const dir = tempDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const workflow = parse(read(dir, '.github/workflows/zonecron-validate.yml')) as {
      on: Record<string, unknown>;
      jobs: Record<string, { steps: { run?: string }[] }>;
    };
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    const runs = Object.values(workflow.jobs).flatMap((job) => job.steps.map((s) => s.run));
    expect(runs).toContain('npx zonecron validate jobs.yaml');
    const readme = read(dir, 'README.md');
    expect(readme).toContain('## Adding a job');
    expect(readme).toContain('## Upgrading zonecron');
  });

  it('refuses with exit code 2 when any of its files exists, names them, and writes none', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'jobs.yaml'), 'jobs: []\n');
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin/app.ts'), '// ours\n');
    const result = await runCli(['init', dir]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `zonecron: error: ${dir} already has bin/app.ts, jobs.yaml; zonecron init writes none of its files over existing ones (nothing was written)\n`,
    );
    expect(read(dir, 'jobs.yaml')).toBe('jobs: []\n');
    expect(FILES.filter((file) => existsSync(join(dir, file)))).toEqual([
      'bin/app.ts',
      'jobs.yaml',
    ]);
  });

  it('prints one JSON document with --json, on success and on a refusal', async () => {
    const dir = tempDir();
    const made = await runCli(['init', dir, '--json']);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({
      dir,
      zonecronVersion: repoPackage.version,
      files: FILES,
      next: [`cd ${dir}`, 'npm install', 'npx zonecron validate jobs.yaml', 'npx cdk synth'],
    });
    const refused = await runCli(['init', dir, '--json']);
    expect(refused.code).toBe(2);
    const doc = JSON.parse(refused.stdout) as { error: { exitCode: number; message: string } };
    expect(doc.error.exitCode).toBe(2);
    expect(doc.error.message).toContain(`${dir} already has package.json, cdk.json`);
  });
});
