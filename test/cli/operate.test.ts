import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import { type LocalSqs, startLocalSqs } from '../support/fauxqs.ts';
import { createLedgerTable, localDynamoClient } from '../support/ledger.ts';
import { runCli } from './run-cli.ts';

const JOB = 'ops-report';
const AT = '2026-11-29T10:00:00.000Z';
const MANUAL_KEY = periodBucket(`manual:${JOB}`, new Date(AT));
const ENV = { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: 'us-east-1' };

let local: LocalSqs;
let dir: string;
let table: string;
let dlqUrl: string;
let connection: string[];

beforeAll(async () => {
  local = await startLocalSqs();
  dlqUrl = local.createQueue('ops-dlq').queueUrl;
  const client = localDynamoClient(inject('dynamoEndpoint'));
  table = await createLedgerTable(client, 'cli');
  client.destroy();
  dir = mkdtempSync(join(tmpdir(), 'zonecron-cli-'));
  // The target queue is created only later: until then every delivery fails.
  writeFileSync(
    join(dir, 'jobs.yaml'),
    [
      'jobs:',
      `  - id: ${JOB}`,
      '    description: a report delivered to an SQS queue',
      "    schedule: '30 2 * * *'",
      '    timezone: Europe/Berlin',
      '    target:',
      '      type: sqs',
      '      arn: arn:aws:sqs:us-east-1:000000000000:ops-target',
      '    retry:',
      '      maxAttempts: 1',
      '',
    ].join('\n'),
  );
  connection = [
    '--endpoint-url',
    `dynamodb=${inject('dynamoEndpoint')}`,
    '--endpoint-url',
    `sqs=${local.endpoint}`,
  ];
});

afterAll(async () => {
  await local.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { env: ENV });
const jobs = () => ['--config', join(dir, 'jobs.yaml')];

describe('operating a stack: run, dlq list, dlq redrive, history', () => {
  it('dead-letters a failed manual run, lists it, redrives it under its original key, and shows the history', async () => {
    const failed = await cli([
      'run',
      JOB,
      '--at',
      AT,
      '--table',
      table,
      '--dlq-url',
      dlqUrl,
      ...jobs(),
      ...connection,
      '--json',
    ]);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      outcome: 'dead-lettered',
      key: MANUAL_KEY,
      jobId: JOB,
      at: AT,
      attempt: 1,
    });

    const listed = await cli(['dlq', 'list', '--dlq-url', dlqUrl, ...connection, '--json']);
    expect(listed.code).toBe(0);
    const list = JSON.parse(listed.stdout) as { messages: Record<string, unknown>[] };
    expect(list.messages).toHaveLength(1);
    expect(list.messages[0]).toMatchObject({
      key: MANUAL_KEY,
      jobId: JOB,
      scheduledAt: AT,
      reason: 'delivery-failed',
      attempts: 1,
    });
    expect(String(list.messages[0]?.lastError)).toContain('QueueDoesNotExist');
    // Listing does not consume: the message is still there, visible again.
    expect(local.server.inspectQueue('ops-dlq')?.messages.ready).toHaveLength(1);

    const before = await cli([
      'history',
      JOB,
      '--since',
      '2026-11-29T00:00Z',
      '--table',
      table,
      ...connection,
      '--json',
    ]);
    expect(JSON.parse(before.stdout).runs).toMatchObject([
      { key: MANUAL_KEY, at: AT, status: 'failed', attempts: 1, manual: true, lagMs: null },
    ]);

    local.createQueue('ops-target');
    const redriven = await cli([
      'dlq',
      'redrive',
      '--key',
      MANUAL_KEY.slice(0, 7),
      '--table',
      table,
      '--dlq-url',
      dlqUrl,
      ...jobs(),
      ...connection,
    ]);
    expect(redriven.stderr).toBe('');
    expect(redriven.code).toBe(0);
    expect(redriven.stdout).toContain('1 of 1 run redriven');
    const delivered = local.messages<RunEnvelope>('ops-target');
    expect(delivered.map((e) => [e.key, e.jobId, e.scheduledAt])).toEqual([[MANUAL_KEY, JOB, AT]]);
    expect(local.server.inspectQueue('ops-dlq')?.messages.ready).toHaveLength(0);
    expect(local.server.inspectQueue('ops-dlq')?.messages.inflight).toHaveLength(0);

    const after = await cli([
      'history',
      JOB,
      '--since',
      '2026-11-29T00:00Z',
      '--table',
      table,
      ...connection,
    ]);
    expect(after.code).toBe(0);
    // Attempts count on across a redrive: the redriven delivery is attempt 2.
    expect(after.stdout).toMatch(
      new RegExp(
        `2026-11-29 10:00 +2026-11-29T11:00 +manual +dispatched +2 +\\S+ +${MANUAL_KEY.slice(0, 7)}`,
      ),
    );
  });

  it('runs a job by hand once per minute: the same minute again is refused', async () => {
    const at = '2026-11-29T12:00:00Z';
    const args = [
      'run',
      JOB,
      '--at',
      at,
      '--table',
      table,
      '--dlq-url',
      dlqUrl,
      ...jobs(),
      ...connection,
    ];
    const first = await cli(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^dispatched run [0-9a-f]{7} of 'ops-report' at 2026-11-29T12:00:00\.000Z/,
    );
    const second = await cli(args);
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(
      /^refused run [0-9a-f]{7} of 'ops-report' .*\(status dispatched/s,
    );
    const key = periodBucket(`manual:${JOB}`, new Date(at));
    expect(local.messages<RunEnvelope>('ops-target').filter((e) => e.key === key)).toHaveLength(1);
  });
});
