import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { createLedgerStore } from '#ledger/index.ts';
import { tableLedgers } from '../../../cli/local-world/index.ts';
import type { SandboxTimers } from '../../../cli/sandbox/local-scheduler.ts';
import type { TargetBehaviour } from '../../../cli/sandbox/local-targets.ts';
import { type SandboxStack, startSandboxStack } from '../../../cli/sandbox/sandbox-stack.ts';
import { createTargetBehaviours } from '../../../cli/sandbox/target-behaviours.ts';
import { runCli } from '../../cli/run-cli.ts';
import { type SandboxCli, sandboxClients, startSandboxCli } from '../../cli/sandbox-cli.ts';
import { queueBodies } from '../../support/fauxqs.ts';

const JOBS = `
defaults:
  timezone: UTC
  retry:
    maxAttempts: 3
jobs:
  - id: report
    description: every five minutes to a queue
    schedule: '*/5 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:report-target' }
  - id: digest
    description: every ten minutes to a topic
    schedule: '*/10 * * * *'
    target: { type: sns, arn: 'arn:aws:sns:us-east-1:123456789012:digest-topic' }
  - id: audit
    description: every ten minutes to a bus
    schedule: '*/10 * * * *'
    target: { type: eventbridge, arn: 'arn:aws:events:us-east-1:123456789012:event-bus/ops' }
  - id: export
    description: every ten minutes to a state machine
    schedule: '*/10 * * * *'
    target: { type: stepfunctions, arn: 'arn:aws:states:us-east-1:123456789012:stateMachine:export' }
  - id: nightly
    description: every fifteen minutes to a function that fails
    schedule: '*/15 * * * *'
    target: { type: lambda, arn: 'arn:aws:lambda:us-east-1:123456789012:function:nightly' }
  - id: billing
    description: every minute to a queue, paused for maintenance
    schedule: '* * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:billing-target' }
  - id: slow
    description: every half hour to a function that never finishes
    schedule: '*/30 * * * *'
    maxRuntime: 10m
    target: { type: lambda, arn: 'arn:aws:lambda:us-east-1:123456789012:function:slow' }
  - id: refused
    description: every half hour to a queue that refuses deliveries
    schedule: '*/30 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:refused-target' }
`;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Timers on a clock the test owns: every wait is over at once, up to `end`, then the loop idles. */
function virtualTimers(start: Date, end: Date) {
  let nowMs = start.getTime();
  let reachEnd = () => {};
  const reachedEnd = new Promise<void>((resolve) => {
    reachEnd = resolve;
  });
  const timers: SandboxTimers = {
    now: () => new Date(nowMs),
    sleepUntil(at, signal) {
      if (at.getTime() > end.getTime()) {
        reachEnd();
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve()));
      }
      nowMs = Math.max(nowMs, at.getTime());
      return Promise.resolve();
    },
  };
  return { timers, reachedEnd };
}

const BEHAVIOUR: Record<string, TargetBehaviour> = {
  nightly: 'fail',
  refused: 'fail',
  slow: 'hang',
};

describe('the sandbox stack, on a clock the test moves', () => {
  let env: SandboxCli;
  let stack: SandboxStack;
  const lines: string[] = [];
  // The next full hour: the test's clock starts after the wall clock `pause --until` is read on.
  const start = new Date((Math.floor(Date.now() / HOUR_MS) + 1) * HOUR_MS);
  const end = new Date(start.getTime() + 70 * MINUTE_MS);
  const pauseEnd = new Date(start.getTime() + 10 * MINUTE_MS);

  beforeAll(async () => {
    env = await startSandboxCli(JOBS);
    const paused = await env.cli([
      'pause',
      'billing',
      '--until',
      pauseEnd.toISOString(),
      '--reason',
      'billing maintenance',
      '--config',
      env.config,
    ]);
    expect(paused.stderr).toBe('');
    const { timers, reachedEnd } = virtualTimers(start, end);
    stack = await startSandboxStack({
      sandbox: env.sandbox,
      jobs: env.jobs,
      timers,
      print: (line) => lines.push(line),
      behaviours: createTargetBehaviours(
        env.jobs.map((job) => job.id),
        BEHAVIOUR,
      ),
      synthTime: start,
    });
    await reachedEnd;
    await stack.stop();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await env?.stop();
  });

  it('fires a job on its own and delivers each run to its queue', () => {
    const runs = queueBodies<RunEnvelope>(env.sandbox.queues, 'report-target') ?? [];
    expect(runs.map((run) => run.scheduledAt)).toEqual(minutesAfter(start, 5, 14));
  });

  it('delivers SNS, EventBridge and Step Functions targets locally', async () => {
    expect(stack.targets.busEvents.map((e) => e.detail.scheduledAt)).toEqual(
      minutesAfter(start, 10, 7),
    );
    expect(await statuses(env, 'digest')).toEqual(Array(7).fill('dispatched'));
    expect(await statuses(env, 'export')).toEqual(Array(7).fill('succeeded'));
  });

  it('ends a pause at its --until by itself, and delivers the runs after it', async () => {
    const state = await ledgerOf(env).getJobState('billing');
    expect(state?.pausedAt).toBeUndefined();
    const runs = queueBodies<RunEnvelope>(env.sandbox.queues, 'billing-target') ?? [];
    expect(runs[0]?.scheduledAt).toBe(pauseEnd.toISOString());
  });

  it('dead-letters a failing Lambda run after its retries, with a notification printed', () => {
    const dead = (queueBodies<DeadLetterMessage>(env.sandbox.queues, 'zonecron-dlq') ?? []).filter(
      (m) => m.jobId === 'nightly',
    );
    expect(dead).toHaveLength(4);
    // One delivery; the function failed on it and on Lambda's two retries of its own.
    expect(dead[0]).toMatchObject({ reason: 'execution-failed', attempts: 1 });
    expect(dead[0]?.lastError).toMatch(/^lambda RetriesExhausted after 3 attempt\(s\)/);
    expect(lines).toContainEqual(expect.stringMatching(/^notification run-failed: job 'nightly' /));
    expect(lines).toContainEqual(
      expect.stringMatching(/^dead letter: job 'nightly' .*execution-failed/),
    );
  });

  it('reports a run that never finishes stuck after its maxRuntime, with a notification printed', async () => {
    const stuck = lines.filter((line) => line.startsWith("notification stuck: job 'slow' "));
    expect(stuck.map((line) => / at (\S+):/.exec(line)?.[1])).toEqual(minutesAfter(start, 30, 2));
    // Stuck is a signal: the run stays open, for a late completion to close.
    expect(await statuses(env, 'slow')).toEqual(['dispatched', 'dispatched']);
  });

  it('retries a refused delivery at the sweeps, then dead-letters it', () => {
    const dead = (queueBodies<DeadLetterMessage>(env.sandbox.queues, 'zonecron-dlq') ?? []).filter(
      (m) => m.jobId === 'refused',
    );
    expect(dead).toMatchObject([
      { reason: 'delivery-failed', attempts: 3 },
      { reason: 'delivery-failed', attempts: 3 },
    ]);
    expect(lines).toContainEqual(
      expect.stringMatching(/^dead letter: job 'refused' .*delivery-failed after 3 attempt/),
    );
  });
});

/** The first `count` instants after `start` on a multiple of `everyMinutes`. */
describe("the sandbox's endpoint for the other shell's commands", () => {
  it('answers Lambda, Step Functions and EventBridge deliveries of zonecron run locally', async () => {
    const env = await startSandboxCli(JOBS);
    const start = new Date();
    const { timers } = virtualTimers(start, start);
    const stack = await startSandboxStack({
      sandbox: env.sandbox,
      jobs: env.jobs,
      timers,
      print() {},
    });
    try {
      const shell = { ...env.sandbox.env, ...stack.env, USER: 'tester' };
      for (const jobId of ['audit', 'export', 'nightly']) {
        const run = await runCli(['run', jobId, '--config', env.config], { env: shell });
        expect(run.stdout, run.stderr).toMatch(
          new RegExp(`^dispatched run [0-9a-f]{7} of '${jobId}'`),
        );
      }
      expect(stack.targets.busEvents.map((e) => e.detail.jobId)).toEqual(['audit']);
      expect(stack.targets.takeCompletions()).toMatchObject([
        { source: 'aws.states', detail: { status: 'SUCCEEDED' } },
        { source: 'lambda', 'detail-type': 'Lambda Function Invocation Result - Success' },
      ]);
    } finally {
      await stack.stop();
      await env.stop();
    }
  }, 60_000);
});

function minutesAfter(start: Date, everyMinutes: number, count: number): string[] {
  const stepMs = everyMinutes * MINUTE_MS;
  const firstMs = Math.floor(start.getTime() / stepMs) * stepMs + stepMs;
  return Array.from({ length: count }, (_, i) => new Date(firstMs + i * stepMs).toISOString());
}

/** The statuses of a job's runs in the sandbox's ledger, as `history --json` shows them. */
async function statuses(env: SandboxCli, jobId: string): Promise<string[]> {
  const since = new Date(Date.now() - HOUR_MS).toISOString();
  const history = await env.cli(['history', jobId, '--since', since, '--json']);
  return (JSON.parse(history.stdout) as { runs: { status: string }[] }).runs.map((r) => r.status);
}

function ledgerOf(env: SandboxCli) {
  const clients = sandboxClients(env.sandbox);
  return tableLedgers(
    createLedgerStore({ client: clients.dynamodb, tableName: env.sandbox.tableName }),
  ).dispatcher;
}
