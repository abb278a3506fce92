import { hostname } from 'node:os';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsClients } from '#shared/aws-clients.ts';
import { queueBodies } from '../support/fauxqs.ts';
import { type SandboxCli, sandboxClients, startSandboxCli, TEST_USER } from './sandbox-cli.ts';

// The target queue does not exist at first: every delivery fails and is dead-lettered at once.
const JOBS = `jobs:
  - id: flaky
    description: delivered to a queue that is created only later
    schedule: '30 2 * * *'
    timezone: Europe/Berlin
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:flaky-target
    retry:
      maxAttempts: 1
`;
const OPERATOR = `${TEST_USER}@${hostname()}`;

let env: SandboxCli;
let clients: AwsClients;
beforeAll(async () => {
  env = await startSandboxCli(JOBS, { withoutQueues: ['flaky'] });
  clients = sandboxClients(env.sandbox);
});
afterAll(async () => {
  clients.destroy();
  await env.stop();
});

/** Every message of the DLQ, visible or not, as bodies. */
function deadLetters(): { key: string }[] {
  return queueBodies<{ key: string }>(env.sandbox.queues, env.sandbox.queueName) ?? [];
}

async function failedRun(at: string): Promise<string> {
  const run = await env.cli(['run', 'flaky', '--at', at, '--config', env.config, '--json']);
  expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'dead-lettered' });
  return JSON.parse(run.stdout).key;
}

async function history() {
  const result = await env.cli(['history', 'flaky', '--since', '2026-11-01T00:00Z', '--json']);
  return JSON.parse(result.stdout);
}

describe('zonecron dlq on the sandbox', () => {
  it('redrive to a target that still fails keeps the one message and adds none; discard removes it on purpose and leaves the run failed', async () => {
    const key = await failedRun('2026-11-29T10:00Z');
    expect(deadLetters().map((m) => m.key)).toEqual([key]);

    const redrive = await env.cli([
      'dlq',
      'redrive',
      '--key',
      key.slice(0, 7),
      '--config',
      env.config,
      '--json',
    ]);
    expect(redrive.code).toBe(1);
    expect(JSON.parse(redrive.stdout).runs).toMatchObject([{ key, result: 'failed' }]);
    expect(JSON.parse(redrive.stdout).runs[0].detail).toContain(
      'the run is failed again and its message stays in the queue (no second one was sent)',
    );
    expect(deadLetters().map((m) => m.key)).toEqual([key]);

    const discard = await env.cli([
      'dlq',
      'discard',
      '--key',
      key.slice(0, 7),
      '--reason',
      're-run by hand',
    ]);
    expect(discard.stderr).toBe('');
    expect(discard.code).toBe(0);
    expect(discard.stdout).toContain('the run is unchanged in the ledger (failed)');
    expect(deadLetters()).toEqual([]);

    const doc = await history();
    expect(doc.runs).toMatchObject([{ key, status: 'failed', attempts: 2 }]);
    expect(doc.events).toMatchObject([
      { action: 'discarded', by: OPERATOR, reason: 're-run by hand', runKey: key },
      { action: 'redriven', by: OPERATOR, runKey: key, detail: expect.stringMatching(/^failed: /) },
      { action: 'ran', by: OPERATOR, runKey: key, detail: expect.stringContaining('dead-letter') },
    ]);
  });

  it('redrive delivers once the target exists, and deletes a stale message of a run delivered meanwhile as handled', async () => {
    const key = await failedRun('2026-11-29T11:00Z');
    const stale = env.sandbox.queues.inspectQueue('zonecron-dlq')?.messages.ready[0]?.body ?? '';
    env.sandbox.queues.createQueue('flaky-target');

    const redriven = await env.cli(['dlq', 'redrive', '--all', '--config', env.config]);
    expect(redriven.code).toBe(0);
    expect(redriven.stdout).toContain('1 of 1 run redriven');
    expect(env.delivered('flaky-target').map((e) => e.key)).toEqual([key]);

    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: env.sandbox.dlqUrl, MessageBody: stale }),
    );
    const again = await env.cli(['dlq', 'redrive', '--all', '--config', env.config, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).runs).toMatchObject([{ key, result: 'already-delivered' }]);
    expect(deadLetters()).toEqual([]);
    expect(env.delivered('flaky-target')).toHaveLength(1);

    const doc = await history();
    const run = doc.runs.find((r: { key: string }) => r.key === key);
    expect(run).toMatchObject({ status: 'dispatched', generation: 1 });
    expect(
      doc.events
        .filter((e: { runKey?: string }) => e.runKey === key)
        .map((e: { action: string; detail: string }) => [e.action, e.detail.split(':')[0]]),
    ).toEqual([
      ['redriven', 'already-delivered'],
      ['redriven', 'redriven'],
      ['ran', expect.any(String)],
    ]);
    const text = await env.cli(['history', 'flaky', '--since', '2026-11-01T00:00Z']);
    expect(text.stdout).toMatch(
      new RegExp(
        `  ${key.slice(0, 7)}: now dispatched \\(redrive 1\\); earlier: QueueDoesNotExist`,
      ),
    );
  });
});
