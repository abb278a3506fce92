import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, runCli } from './run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'zonecron-sandbox-'));
const config = join(dir, 'jobs.yaml');
writeFileSync(
  config,
  `jobs:
  - id: report
    description: a report to an SQS queue
    schedule: '0 9 * * *'
    timezone: Europe/Berlin
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:report-target
`,
);
let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `zonecron sandbox` and waits for it to say it is ready; its stdout so far. */
function startSandboxProcess(): Promise<{ process: ChildProcess; stdout: string }> {
  const started = spawn(process.execPath, [BIN, 'sandbox', '--config', config], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ZONECRON_FROM_SOURCE: '0' },
  });
  child = started;
  let stdout = '';
  let stderr = '';
  started.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  return new Promise((resolve, reject) => {
    started.stderr?.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('ready')) resolve({ process: started, stdout });
    });
    started.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
}

/** The variables the `export NAME=value` lines set. */
function exported(stdout: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line);
    if (match?.[1] && match[2] !== undefined) vars[match[1]] = match[2];
  }
  return vars;
}

function portIsClosed(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('zonecron sandbox', () => {
  it('prints export lines the operating commands and --stack Zonecron run on, and on Ctrl-C frees its ports and exits with 130', async () => {
    const { process: sandbox, stdout } = await startSandboxProcess();
    expect(stdout).toContain('unset ZONECRON_STACK\n');
    const env = exported(stdout);
    expect(Object.keys(env).sort()).toEqual([
      'AWS_ACCESS_KEY_ID',
      'AWS_ENDPOINT_URL_CLOUDFORMATION',
      'AWS_ENDPOINT_URL_DYNAMODB',
      'AWS_ENDPOINT_URL_EVENTBRIDGE',
      'AWS_ENDPOINT_URL_LAMBDA',
      'AWS_ENDPOINT_URL_SCHEDULER',
      'AWS_ENDPOINT_URL_SFN',
      'AWS_ENDPOINT_URL_SNS',
      'AWS_ENDPOINT_URL_SQS',
      'AWS_REGION',
      'AWS_SECRET_ACCESS_KEY',
      'ZONECRON_DLQ_URL',
      'ZONECRON_SANDBOX_URL',
      'ZONECRON_TABLE',
    ]);

    const run = await runCli(['run', 'report', '--at', '2026-11-29T08:00Z', '--config', config], {
      env,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^dispatched run [0-9a-f]{7} of 'report' at 2026-11-29T08:00:00\.000Z/,
    );
    const history = await runCli(['history', 'report', '--since', '2026-11-29T00:00Z', '--json'], {
      env,
    });
    expect(JSON.parse(history.stdout).runs).toMatchObject([{ status: 'dispatched', manual: true }]);
    const described = await runCli(['describe', 'report', '--stack', 'Zonecron', '--json'], {
      cwd: dir,
      env,
    });
    expect(described.stderr).toBe('');
    expect(JSON.parse(described.stdout)).toMatchObject({
      file: "the jobs deployed in stack 'Zonecron'",
      deployment: { stack: 'Zonecron', scheduleGroup: 'zonecron-schedules' },
      deployedSchedule: { state: 'ENABLED' },
      drift: [],
    });

    const failing = await runCli(['sandbox', 'fail', 'report'], { env });
    expect(failing.stdout).toBe(
      "the sandbox's target of 'report' now fails (before: succeeds); zonecron sandbox heal report undoes it\n",
    );
    const typo = await runCli(['sandbox', 'hang', 'reprot'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      "zonecron: error: the sandbox runs no job 'reprot'; did you mean 'report'? (jobs: report)\n",
    );

    const exit = new Promise<number | null>((resolve) => sandbox.once('exit', resolve));
    sandbox.kill('SIGINT');
    expect(await exit).toBe(130);
    expect(await portIsClosed(env.AWS_ENDPOINT_URL_DYNAMODB ?? '')).toBe(true);
    expect(await portIsClosed(env.AWS_ENDPOINT_URL_SQS ?? '')).toBe(true);
  });

  it('says where the sandbox is missing when sandbox fail runs in a shell without its export lines (exit 1)', async () => {
    const result = await runCli(['sandbox', 'heal', 'report']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "zonecron: error: ZONECRON_SANDBOX_URL is not set: run the export lines 'zonecron sandbox' printed in this shell first\n",
    );
  });

  it('refuses a sandbox command it does not have, with the closest one (exit 2)', async () => {
    const result = await runCli(['sandbox', 'fial', 'report']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "zonecron: error: unknown sandbox command 'fial'; did you mean 'fail'? (commands: fail, hang, heal)\n",
    );
  });

  it('refuses --fail of a job the jobs file does not have, before starting anything (exit 2)', async () => {
    const result = await runCli(['sandbox', '--config', config, '--fail', 'reprot']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "--fail names no job of the jobs file: 'reprot' (jobs: report)",
    );
  });
});
