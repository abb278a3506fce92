import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  type GetScheduleCommandOutput,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJobsBundle, serializeJobsBundle } from '#jobs/jobs-bundle.ts';
import { findZipEntry, readZipEntry } from '../../cli/deployed/zip-entry.ts';
import type { SandboxTimers } from '../../cli/sandbox/local-scheduler.ts';
import { type SandboxStack, startSandboxStack } from '../../cli/sandbox/sandbox-stack.ts';
import { tickInput } from '../../infra/constructs/schedule-inputs.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import { createJobsBundle } from '../../infra/packaging/jobs-bundle-file.ts';
import { type CliResult, runCli } from './run-cli.ts';
import { type SandboxCli, startSandboxCli, TEST_USER } from './sandbox-cli.ts';

const PACKAGE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

const JOBS = `
defaults:
  timezone: UTC
retention:
  days: 20
jobs:
  - id: report
    description: every five minutes to a queue
    schedule: '*/5 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:report-target' }
  - id: nightly
    description: Berlin's night, to a function
    schedule: '30 2 * * *'
    timezone: Europe/Berlin
    target: { type: lambda, arn: 'arn:aws:lambda:us-east-1:123456789012:function:nightly' }
  - id: digest
    description: hourly to a topic
    schedule: '0 * * * *'
    target: { type: sns, arn: 'arn:aws:sns:us-east-1:123456789012:digest-topic' }
  - id: retired
    description: no longer runs
    enabled: false
    schedule: '0 6 * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:report-target' }
`;

/** Timers whose clock stands still at `now`: the schedules never fire. */
function standingTimers(now: Date): SandboxTimers {
  return {
    now: () => now,
    sleepUntil: (_at, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
  };
}

/** The group's name and the client of the sandbox's Scheduler API, as the AWS CLI would reach it. */
function schedulerOf(stack: SandboxStack) {
  return new SchedulerClient({
    endpoint: stack.env.AWS_ENDPOINT_URL_SCHEDULER ?? '',
    region: 'us-east-1',
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
  });
}

const GROUP = 'zonecron-schedules';

/** `UpdateSchedule` keeping the schedule's target, as `aws scheduler update-schedule` is used. */
async function updateSchedule(
  scheduler: SchedulerClient,
  name: string,
  change: { readonly expression?: string; readonly state?: 'ENABLED' | 'DISABLED' },
): Promise<void> {
  const old: GetScheduleCommandOutput = await scheduler.send(
    new GetScheduleCommand({ GroupName: GROUP, Name: name }),
  );
  await scheduler.send(
    new UpdateScheduleCommand({
      GroupName: GROUP,
      Name: name,
      ScheduleExpression: change.expression ?? old.ScheduleExpression,
      ScheduleExpressionTimezone: old.ScheduleExpressionTimezone,
      State: change.state ?? old.State,
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: old.Target?.Arn, RoleArn: old.Target?.RoleArn, Input: old.Target?.Input },
    }),
  );
}

interface ListedJob {
  readonly id: string;
  readonly deployedSchedule: string | null;
  readonly drift: readonly { readonly kind: string; readonly text: string }[] | null;
}

describe('list and describe --stack against the sandbox', () => {
  let env: SandboxCli;
  let stack: SandboxStack;
  let scheduler: SchedulerClient;
  const synthTime = new Date();
  // No jobs file here: the jobs come from the stack, as on an on-call laptop.
  const elsewhere = mkdtempSync(join(tmpdir(), 'zonecron-sandbox-stack-'));
  const cli = (args: readonly string[]): Promise<CliResult> =>
    runCli(args, { cwd: elsewhere, env: { ...env.sandbox.env, ...stack.env, USER: TEST_USER } });

  beforeAll(async () => {
    env = await startSandboxCli(JOBS);
    stack = await startSandboxStack({
      sandbox: env.sandbox,
      jobs: env.jobs,
      timers: standingTimers(synthTime),
      print() {},
      synthTime,
      retentionDays: 20,
    });
    scheduler = schedulerOf(stack);
  });
  afterAll(async () => {
    scheduler?.destroy();
    await stack?.stop();
    await env?.stop();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('lists the jobs deployed in the sandbox, each schedule as the jobs need it: no drift', async () => {
    const listed = await cli(['list', '--stack', 'Zonecron', '--json']);
    expect(listed.stderr).toBe('');
    const json = JSON.parse(listed.stdout);
    expect(json.file).toBe("the jobs deployed in stack 'Zonecron'");
    expect(
      json.jobs.map(({ id, deployedSchedule, drift }: ListedJob) => ({
        id,
        deployedSchedule,
        drift,
      })),
    ).toEqual([
      { id: 'report', deployedSchedule: 'ENABLED', drift: [] },
      { id: 'nightly', deployedSchedule: 'ENABLED', drift: [] },
      { id: 'digest', deployedSchedule: 'ENABLED', drift: [] },
      { id: 'retired', deployedSchedule: 'missing', drift: [] },
    ]);
    const text = await cli(['list', '--stack', 'Zonecron']);
    expect(text.stdout).toContain(
      'stack\nZonecron, ledger zonecron-ledger, group zonecron-schedules',
    );
    expect(text.stdout).not.toContain('drift');
  });

  it("describes a job from the sandbox's stack: its covering deployed in the group, as the jobs file says", async () => {
    const described = await cli(['describe', 'nightly', '--stack', 'Zonecron', '--json']);
    expect(described.stderr).toBe('');
    const json = JSON.parse(described.stdout);
    const nightly = env.jobs.find((job) => job.id === 'nightly');
    if (!nightly) throw new Error('no nightly job');
    expect(json.deployment).toEqual({
      stack: 'Zonecron',
      table: 'zonecron-ledger',
      scheduleGroup: GROUP,
      // The sandbox serves the jobs.json synth writes, which names the version that wrote it.
      notes: [`stack 'Zonecron' was deployed with zonecron ${PACKAGE_VERSION}, as this command`],
    });
    expect(json.deployedSchedule).toMatchObject({
      state: 'ENABLED',
      expression: coveringSchedule(nightly, synthTime).awsExpression,
      timezone: 'UTC',
    });
    expect(json.drift).toEqual([]);
    const text = await cli(['describe', 'nightly', '--stack', 'Zonecron']);
    expect(text.stdout).toContain(`deployed schedule nightly in group ${GROUP}`);
    expect(text.stdout).toContain('✓ as the jobs file says');
  });

  it("serves the dispatcher's package: a zip whose jobs.json is the bundle synth writes, in byte ranges", async () => {
    const lambda = new LambdaClient({
      endpoint: stack.env.AWS_ENDPOINT_URL_LAMBDA ?? '',
      region: 'us-east-1',
      credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
    });
    const found = await lambda.send(
      new GetFunctionCommand({ FunctionName: 'zonecron-dispatcher' }),
    );
    lambda.destroy();
    expect(found.Configuration?.Environment?.Variables?.RETENTION_DAYS).toBe('20');
    const location = found.Code?.Location ?? '';
    const whole = Buffer.from(await (await fetch(location)).arrayBuffer());
    const tail = await fetch(location, { headers: { Range: 'bytes=-22' } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(
      `bytes ${whole.length - 22}-${whole.length - 1}/${whole.length}`,
    );
    const entry = findZipEntry(whole, whole.length, 'jobs.json');
    const text = readZipEntry(whole.subarray(entry.startOffset, entry.endOffset), entry).toString();
    expect(text).toBe(serializeJobsBundle(createJobsBundle(env.jobs, { synthTime })));
    expect(parseJobsBundle(Buffer.from(text), 'jobs.json').jobs.map((job) => job.id)).toEqual([
      'report',
      'nightly',
      'digest',
      'retired',
    ]);
  });

  it('refuses --stack of a stack the sandbox does not have, naming it (exit 1)', async () => {
    const result = await cli(['list', '--stack', 'Prod-Zonecron']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no CloudFormation stack 'Prod-Zonecron'");
  });

  it('refuses to change the sweep or to give a schedule an expression it cannot fire', async () => {
    await expect(
      updateSchedule(scheduler, 'zonecron.sweep', { state: 'DISABLED' }),
    ).rejects.toThrow("the sandbox's sweep always runs: it cannot be updated");
    await expect(
      updateSchedule(scheduler, 'report', { expression: 'rate(5 minutes)' }),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      scheduler.send(new GetScheduleCommand({ GroupName: GROUP, Name: 'nope' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  // Last: it changes the group for good.
  it('flags the drift of schedules changed by hand in the sandbox: another expression, disabled, deleted', async () => {
    await updateSchedule(scheduler, 'report', { expression: 'cron(0 * * * ? *)' });
    await updateSchedule(scheduler, 'nightly', { state: 'DISABLED' });
    await scheduler.send(new DeleteScheduleCommand({ GroupName: GROUP, Name: 'digest' }));

    const listed = JSON.parse((await cli(['list', '--stack', 'Zonecron', '--json'])).stdout);
    expect(listed.jobs.map(({ id, drift }: ListedJob) => [id, drift?.map((d) => d.kind)])).toEqual([
      ['report', ['expression']],
      ['nightly', ['disabled']],
      ['digest', ['missing']],
      ['retired', []],
    ]);
    const text = await cli(['list', '--stack', 'Zonecron']);
    expect(text.stdout).toContain("drift (missing): no schedule 'digest' in the schedule group");

    const described = await cli(['describe', 'report', '--stack', 'Zonecron', '--json']);
    expect(JSON.parse(described.stdout).drift).toEqual([
      {
        kind: 'expression',
        text: expect.stringMatching(
          /^schedule fires on cron\(0 \* \* \* \? \*\) in UTC, but the jobs file's covering is cron\(0\/5 \* \* \* \? \*\) in UTC:/,
        ),
      },
    ]);
  });

  // After the drift test: it puts back what that test removed.
  it('takes a schedule created by hand: a deleted one back, and one no job owns flagged as extra', async () => {
    const report = await scheduler.send(
      new GetScheduleCommand({ GroupName: GROUP, Name: 'report' }),
    );
    const digest = env.jobs.find((job) => job.id === 'digest');
    if (!digest) throw new Error('no digest job');
    const create = (name: string, expression: string) =>
      scheduler.send(
        new CreateScheduleCommand({
          GroupName: GROUP,
          Name: name,
          ScheduleExpression: expression,
          FlexibleTimeWindow: { Mode: 'OFF' },
          Target: {
            Arn: report.Target?.Arn,
            RoleArn: report.Target?.RoleArn,
            Input: tickInput(name),
          },
        }),
      );
    await create('digest', coveringSchedule(digest, synthTime).awsExpression);
    await create('old-report', 'cron(0 6 * * ? *)');
    await expect(create('digest', 'cron(0 6 * * ? *)')).rejects.toMatchObject({
      name: 'ConflictException',
    });

    const listed = JSON.parse((await cli(['list', '--stack', 'Zonecron', '--json'])).stdout);
    expect(listed.jobs.find((job: ListedJob) => job.id === 'digest').drift).toEqual([]);
    expect(listed.group).toMatchObject({
      extra: [{ name: 'old-report', state: 'ENABLED' }],
      sweep: 'ENABLED',
    });
  });
});

const FIRING_JOBS = `
defaults:
  timezone: UTC
  catchup: { policy: none }
jobs:
  - id: steady
    description: every ten minutes, its schedule left alone
    schedule: '*/10 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:steady-target' }
  - id: edited
    description: every ten minutes, its schedule edited to fire on the hour and half hour
    schedule: '*/10 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:edited-target' }
  - id: disabled
    description: every ten minutes, its schedule disabled
    schedule: '*/10 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:disabled-target' }
`;

const MINUTE_MS = 60_000;

/**
 * A clock the test moves: every wait is over at once once `gate` settles, up to `end`; then the
 * loop idles until it is stopped.
 */
function gatedTimers(start: Date, end: Date, gate: Promise<void>) {
  let nowMs = start.getTime();
  let reachEnd = () => {};
  const reachedEnd = new Promise<void>((resolve) => {
    reachEnd = resolve;
  });
  const timers: SandboxTimers = {
    now: () => new Date(nowMs),
    async sleepUntil(at, signal) {
      await gate;
      if (at.getTime() > end.getTime()) {
        reachEnd();
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
      }
      nowMs = Math.max(nowMs, at.getTime());
    },
  };
  return { timers, reachedEnd };
}

describe("the sandbox's scheduler fires the schedules its Scheduler API holds", () => {
  it('fires an edited schedule on its new expression and a disabled one not at all (catchup none)', async () => {
    const env = await startSandboxCli(FIRING_JOBS);
    const hour = 60 * MINUTE_MS;
    const start = new Date((Math.floor(Date.now() / hour) + 1) * hour);
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { timers, reachedEnd } = gatedTimers(start, new Date(start.getTime() + hour), gate);
    const stack = await startSandboxStack({
      sandbox: env.sandbox,
      jobs: env.jobs,
      timers,
      print() {},
      synthTime: start,
    });
    const scheduler = schedulerOf(stack);
    try {
      await updateSchedule(scheduler, 'edited', { expression: 'cron(0,30 * * * ? *)' });
      await updateSchedule(scheduler, 'disabled', { state: 'DISABLED' });
      open();
      await reachedEnd;
      const at = (queue: string) => env.delivered(queue).map((run) => run.scheduledAt);
      const minutes = (...offsets: number[]) =>
        offsets.map((m) => new Date(start.getTime() + m * MINUTE_MS).toISOString());
      expect(at('steady-target')).toEqual(minutes(10, 20, 30, 40, 50, 60));
      expect(at('edited-target')).toEqual(minutes(30, 60));
      expect(at('disabled-target')).toEqual([]);
    } finally {
      scheduler.destroy();
      await stack.stop();
      await env.stop();
    }
  });
});
