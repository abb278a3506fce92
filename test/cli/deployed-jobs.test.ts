// Operating what is deployed: the commands read the jobs bundle the stack's dispatcher runs
// with (Lambda GetFunction, stubbed: no emulator here; its package from a local range-serving
// server), warn when the local jobs file differs, and work without one.
import { readFileSync } from 'node:fs';
import { GetFunctionCommand } from '@aws-sdk/client-lambda';
import { Command } from 'commander';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { connect } from '../../cli/aws/connection.ts';
import { loadOperatedJob } from '../../cli/aws/operated-job.ts';
import { buildDescription } from '../../cli/commands/describe.ts';
import { registerHistory } from '../../cli/commands/history.ts';
import { buildJobList } from '../../cli/commands/list.ts';
import { registerRun } from '../../cli/commands/run.ts';
import { CliError } from '../../cli/errors.ts';
import { startLocalSqs } from '../support/fauxqs.ts';
import { type FakeStack, startFakeStack } from './fake-stack.ts';

const job = (target: string, payload: string, maxAttempts: number) =>
  [
    '  - id: ops-report',
    '    description: a report delivered to an SQS queue',
    "    schedule: '30 2 * * *'",
    '    timezone: Europe/Berlin',
    '    target:',
    '      type: sqs',
    `      arn: arn:aws:sqs:us-east-1:000000000000:${target}`,
    `    payload: ${payload}`,
    '    retry:',
    `      maxAttempts: ${maxAttempts}`,
  ].join('\n');

const DEPLOYED = ['jobs:', job('deployed-target', '{ report: v2 }', 1), ''].join('\n');
const LOCAL = ['jobs:', job('old-target', '{ report: v1 }', 1), ''].join('\n');
const NOW = new Date('2026-12-02T12:00:00Z');

let stack: FakeStack | undefined;
afterEach(() => {
  stack?.stop();
  stack = undefined;
  vi.restoreAllMocks();
});

/** What the command wrote to stderr while `step` ran. */
async function stderrOf(step: () => Promise<unknown>): Promise<string> {
  const written: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
    written.push(String(text));
    return true;
  });
  try {
    await step();
  } finally {
    vi.mocked(process.stderr.write).mockRestore();
  }
  return written.join('');
}

describe('the deployed definition of a job', () => {
  it("is read from the dispatcher's package with two range requests, and acted on", async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), LOCAL, [], { jobsYaml: DEPLOYED });
    const connection = await connect(stack.options, {});
    const warnings: string[] = [];
    try {
      const { config, job } = await loadOperatedJob(connection, stack.config, 'ops-report', (w) =>
        warnings.push(w),
      );
      expect(config.source).toBe('deployed');
      expect(job.target.arn).toBe('arn:aws:sqs:us-east-1:000000000000:deployed-target');
      expect(job.payload).toEqual({ report: 'v2' });
    } finally {
      connection.destroy();
    }
    expect(stack.dispatcher?.lambda.commandCalls(GetFunctionCommand)).toHaveLength(1);
    expect(stack.dispatcher?.package.ranges).toEqual([
      'bytes=-131072',
      expect.stringMatching(/^bytes=\d+-\d+$/),
    ]);
    expect(warnings).toEqual([
      `${stack.config} differs from the jobs deployed in stack 'Prod-Zonecron' for 'ops-report'` +
        ' in target.arn, payload; acting on the deployed definition',
    ]);
  });

  it('names no field when the file agrees, and refuses a job the stack does not run', async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), DEPLOYED, [], { jobsYaml: DEPLOYED });
    const connection = await connect(stack.options, {});
    const warnings: string[] = [];
    try {
      await loadOperatedJob(connection, stack.config, 'ops-report', (w) => warnings.push(w));
      const unknown = await loadOperatedJob(connection, stack.config, 'ops-reprot').catch(
        (error: unknown) => error,
      );
      expect(unknown).toBeInstanceOf(CliError);
      expect(unknown).toMatchObject({ exitCode: 2 });
      expect((unknown as Error).message).toMatch(
        /^unknown job 'ops-reprot' in the jobs deployed in stack 'Prod-Zonecron'; did you mean 'ops-report'\?/,
      );
    } finally {
      connection.destroy();
    }
    expect(warnings).toEqual([]);
  });

  it('falls back to the jobs file with a warning when GetFunction is denied, and fails without one', async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), LOCAL, [], { jobsYaml: DEPLOYED });
    const denied = Object.assign(new Error('not authorized to perform: lambda:GetFunction'), {
      name: 'AccessDeniedException',
      $metadata: {},
    });
    stack.dispatcher?.lambda.on(GetFunctionCommand).rejects(denied);
    const connection = await connect(stack.options, {});
    const warnings: string[] = [];
    try {
      const { job } = await loadOperatedJob(connection, stack.config, 'ops-report', (w) =>
        warnings.push(w),
      );
      expect(job.target.arn).toContain(':old-target');
      const failure = await loadOperatedJob(
        connection,
        `${stack.config}.absent`,
        'ops-report',
      ).catch((error: unknown) => error);
      expect((failure as Error).message).toMatch(
        /^cannot read the jobs deployed in stack 'Prod-Zonecron': AccessDeniedException: .*lambda:GetFunction on the stack's dispatcher function/,
      );
    } finally {
      connection.destroy();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/AccessDeniedException.*; acting on .*jobs\.yaml unchecked$/);
  });
});

describe('list and describe against a stack', () => {
  it('list works from the deployed jobs without a local jobs file, and warns of nothing', async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), null, [], { jobsYaml: DEPLOYED });
    const options = { ...stack.options, config: stack.config };
    let ids: string[] = [];
    const stderr = await stderrOf(async () => {
      const list = await buildJobList(options, { env: {}, now: NOW });
      ids = list.jobs.map((j) => j.id);
    });
    expect(ids).toEqual(['ops-report']);
    expect(stderr).toBe('');
  });

  it('list names the differing jobs and fields; describe shows the deployed definition', async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), LOCAL, [], { jobsYaml: DEPLOYED });
    const options = { ...stack.options, config: stack.config };
    const listed = await stderrOf(() => buildJobList(options, { env: {}, now: NOW }));
    expect(listed.replace(/\s+/g, ' ')).toContain(
      "differs from the jobs deployed in stack 'Prod-Zonecron' in 1 job: ops-report" +
        ' (target.arn, payload); listing the deployed jobs',
    );
    let target = '';
    const described = await stderrOf(async () => {
      const d = await buildDescription(
        'ops-report',
        { ...options, count: 1, last: 1 },
        {
          env: {},
          now: NOW,
        },
      );
      target = d.input.job.target.arn;
    });
    expect(target).toContain(':deployed-target');
    expect(described.replace(/\s+/g, ' ')).toContain('in target.arn, payload');
  });
});

describe('the zonecron version a stack was deployed with', () => {
  const { version: running } = JSON.parse(readFileSync('package.json', 'utf8')) as {
    version: string;
  };

  it("list and describe name the version in the dispatcher's jobs.json beside their own", async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), null, [], {
      jobsYaml: DEPLOYED,
      zonecronVersion: '0.0.9',
    });
    const options = { ...stack.options, config: stack.config };
    const note = `stack 'Prod-Zonecron' was deployed with zonecron 0.0.9; this command is zonecron ${running}`;
    const list = await buildJobList(options, { env: {}, now: NOW });
    expect(list.input.deployment.notes).toContain(note);
    const described = await buildDescription(
      'ops-report',
      { ...options, count: 1, last: 1 },
      { env: {}, now: NOW },
    );
    expect(described.input.deployment.notes).toContain(note);
  });

  it('say nothing of a version when the deployed jobs.json records none (an older bundle)', async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), null, [], { jobsYaml: DEPLOYED });
    const options = { ...stack.options, config: stack.config };
    const list = await buildJobList(options, { env: {}, now: NOW });
    expect(list.input.deployment.notes.filter((n) => n.includes('deployed with zonecron'))).toEqual(
      [],
    );
  });
});

describe('run against a stack', () => {
  it('delivers to the deployed target with the deployed payload, warning of the file', async () => {
    const sqs = await startLocalSqs();
    try {
      sqs.createQueue('deployed-target');
      sqs.createQueue('old-target');
      stack = await startFakeStack(inject('dynamoEndpoint'), LOCAL, [], { jobsYaml: DEPLOYED });
      const program = new Command().exitOverride();
      registerRun(program);
      const args = ['run', 'ops-report', '--at', '2026-12-02T10:00Z', '--config', stack.config];
      const endpoints = [...stack.options.endpointUrl, `sqs=${sqs.endpoint}`];
      const flags = [
        '--stack',
        stack.options.stack,
        ...endpoints.flatMap((e) => ['--endpoint-url', e]),
      ];
      vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      const stderr = await stderrOf(() =>
        program.parseAsync([...args, ...flags], { from: 'user' }),
      );
      expect(stderr.replace(/\s+/g, ' ')).toContain(
        'in target.arn, payload; acting on the deployed definition',
      );
      const delivered = sqs.messages<RunEnvelope>('deployed-target');
      expect(delivered.map((e) => [e.jobId, e.payload])).toEqual([
        ['ops-report', { report: 'v2' }],
      ]);
      expect(sqs.messages('old-target')).toEqual([]);
    } finally {
      await sqs.stop();
    }
  });
});

describe('history against a stack', () => {
  it("reads a date-only --since in the deployed job's zone, and warns once", async () => {
    const moved = DEPLOYED.replace('Europe/Berlin', 'America/New_York');
    stack = await startFakeStack(inject('dynamoEndpoint'), LOCAL, [], { jobsYaml: moved });
    const program = new Command().exitOverride();
    registerHistory(program);
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((text) => {
      out.push(String(text));
      return true;
    });
    const args = ['history', 'ops-report', '--since', '2026-12-01', '--json'];
    const flags = ['--stack', stack.options.stack, '--config', stack.config];
    const endpoints = stack.options.endpointUrl.flatMap((e) => ['--endpoint-url', e]);
    const stderr = await stderrOf(() =>
      program.parseAsync([...args, ...flags, ...endpoints], { from: 'user' }),
    );
    expect(JSON.parse(out.join(''))).toMatchObject({ since: '2026-12-01T05:00:00.000Z' });
    expect(stderr.match(/warning:/g)).toHaveLength(1);
    expect(stderr.replace(/\s+/g, ' ')).toContain('in timezone, target.arn, payload;');
    expect(stack.dispatcher?.lambda.commandCalls(GetFunctionCommand)).toHaveLength(1);
  });
});
