import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_PARTITION_KEY } from '#ledger/index.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import { type SandboxCli, sandboxClients, startSandboxCli } from './sandbox-cli.ts';

// The ranges are of 2026's spring-forward night: the ledger keeps them for the test to read
// (a backfill older than the retention is refused without --force).
const JOBS = `retention: { days: 3650 }
jobs:
  - id: berlin-nightly
    description: a nightly report in Berlin
    schedule: '30 2 * * *'
    timezone: Europe/Berlin
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:nightly-target
  - id: exclusive
    description: never two runs at once
    schedule: '0 * * * *'
    timezone: UTC
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:exclusive-target
    concurrency: forbid
  - id: ny-daily
    description: every day at 09:00 in New York
    schedule: '0 9 * * *'
    timezone: America/New_York
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:ny-daily-target
`;
// Around the 2026 spring-forward night: 02:30 does not exist on 2026-03-29 in Berlin.
const RANGE = ['--from', '2026-03-28T00:00Z', '--to', '2026-03-30T23:59Z'];
const RUNS = ['2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z'];

let env: SandboxCli;
beforeAll(async () => {
  env = await startSandboxCli(JOBS);
});
afterAll(() => env.stop());

const backfill = (...args: string[]) =>
  env.cli(['backfill', 'berlin-nightly', ...RANGE, '--config', env.config, ...args]);

describe("zonecron backfill reads dates in the job's zone", () => {
  it('gives five runs of a daily job for Monday to Friday, a date-only --to including its day, and echoes the UTC range', async () => {
    const result = await env.cli([
      'backfill',
      'ny-daily',
      '--from',
      '2026-03-23',
      '--to',
      '2026-03-27',
      '--dry-run',
      '--json',
      '--config',
      env.config,
    ]);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect([doc.from, doc.to]).toEqual(['2026-03-23T04:00:00.000Z', '2026-03-28T03:59:59.999Z']);
    expect(doc.runs.map((r: { at: string }) => r.at)).toEqual(
      ['23', '24', '25', '26', '27'].map((day) => `2026-03-${day}T13:00:00.000Z`),
    );
  });

  it('reads them in --tz when given', async () => {
    const result = await env.cli([
      'backfill',
      'ny-daily',
      '--from',
      '2026-03-23',
      '--to',
      '2026-03-27',
      '--tz',
      'UTC',
      '--dry-run',
      '--config',
      env.config,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.replace(/\s+/g, ' ')).toContain(
      '5 runs from 2026-03-23T00:00:00Z to 2026-03-27T23:59:59Z',
    );
  });
});

describe('zonecron backfill --to today', () => {
  it('reaches up to now, not to the end of today, so the runs due so far today are backfilled', async () => {
    const before = Date.now();
    const result = await env.cli([
      'backfill',
      'ny-daily',
      '--from',
      'yesterday',
      '--to',
      'today',
      '--dry-run',
      '--json',
      '--config',
      env.config,
    ]);
    const after = Date.now();
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    const to = Date.parse(doc.to);
    expect(to).toBeGreaterThanOrEqual(before);
    expect(to).toBeLessThanOrEqual(after);
    for (const run of doc.runs) expect(Date.parse(run.at)).toBeLessThanOrEqual(to);
  });
});

describe('zonecron backfill on the sandbox', () => {
  it('lists the runs with their DST notes in a dry run and delivers nothing', async () => {
    const result = await backfill('--dry-run');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '↳ 02:30 does not exist on 2026-03-29 in Europe/Berlin — runs at 03:30 CEST',
    );
    expect(result.stdout).toContain('dry run: 3 would be delivered, 0 already in the ledger');
    expect(env.delivered('nightly-target')).toEqual([]);
  });

  it('delivers each run once under its scheduled key; a second backfill of the range delivers nothing', async () => {
    const first = await backfill('--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const doc = JSON.parse(first.stdout);
    expect(doc.runs.map((r: { at: string; result: string }) => [r.at, r.result])).toEqual(
      RUNS.map((at) => [at, 'delivered']),
    );
    expect(doc.runs.map((r: { key: string }) => r.key)).toEqual(
      RUNS.map((at) => periodBucket('berlin-nightly', new Date(at))),
    );
    expect(doc.summary).toMatchObject({ runs: 3, delivered: 3, already: 0 });

    const second = await backfill();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('0 delivered, 3 already in the ledger (not delivered again)');
    const delivered = env.delivered('nightly-target');
    expect(delivered.map((e) => [e.scheduledAt, e.dst])).toEqual([
      [RUNS[0], 'none'],
      [RUNS[1], 'gap'],
      [RUNS[2], 'none'],
    ]);

    const history = await env.cli([
      'history',
      'berlin-nightly',
      '--since',
      '2026-03-01T00:00Z',
      '--json',
    ]);
    const events = JSON.parse(history.stdout).events;
    expect(events.map((e: { action: string; detail: string }) => [e.action, e.detail])).toEqual([
      [
        'backfilled',
        '2026-03-28T00:00:00.000Z to 2026-03-30T23:59:00.000Z: 0 delivered, 3 already in the ledger',
      ],
      [
        'backfilled',
        '2026-03-28T00:00:00.000Z to 2026-03-30T23:59:00.000Z: 3 delivered, 0 already in the ledger',
      ],
    ]);
  });

  it('honours concurrency forbid: stops at the first run the previous one still blocks, exit code 1, the rest not attempted', async () => {
    const result = await env.cli([
      'backfill',
      'exclusive',
      '--from',
      '2026-03-01T10:00Z',
      '--to',
      '2026-03-01T12:00Z',
      '--config',
      env.config,
      '--json',
    ]);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout);
    expect(doc.runs.map((r: { result: string }) => r.result)).toEqual([
      'delivered',
      'skipped',
      'not-attempted',
    ]);
    expect(doc.stopped).toMatchObject({ reason: 'overlap' });
    expect(env.delivered('exclusive-target')).toHaveLength(1);
  });

  it('refuses a range in the future and one over --max-runs with exit code 2, saying which flag to change', async () => {
    const future = await env.cli([
      'backfill',
      'berlin-nightly',
      '--from',
      '2026-01-01T00:00Z',
      '--to',
      '2999-01-01T00:00Z',
      '--config',
      env.config,
    ]);
    expect(future.code).toBe(2);
    expect(future.stderr).toContain('is in the future');
    const tooMany = await backfill('--max-runs', '2');
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toBe(
      "zonecron: error: the range holds more than 2 runs of 'berlin-nightly'; narrow --from/--to, or raise the limit with --max-runs <n> if you mean it\n",
    );
  });
});

describe("a backfill shows in history as what happened in the window, whatever its runs' instants", () => {
  it('history --since 24h lists the runs of March backfilled today; --scheduled only the runs scheduled in it', async () => {
    const recent = await env.cli(['history', 'berlin-nightly', '--since', '24h', '--json']);
    expect(recent.code).toBe(0);
    const doc = JSON.parse(recent.stdout);
    expect(doc.runs.map((r: { at: string; origin: string }) => [r.at, r.origin])).toEqual(
      [...RUNS].reverse().map((at) => [at, 'backfill']),
    );
    expect(doc.events.map((e: { action: string }) => e.action)).toEqual([
      'backfilled',
      'backfilled',
    ]);
    expect(doc.events[0]).toMatchObject({
      from: '2026-03-28T00:00:00.000Z',
      to: '2026-03-30T23:59:00.000Z',
    });
    const scheduled = await env.cli([
      'history',
      'berlin-nightly',
      '--since',
      '24h',
      '--scheduled',
      '--json',
    ]);
    expect(JSON.parse(scheduled.stdout).runs).toEqual([]);
  });
});

describe('run and backfill with a run of a forbid job still running', () => {
  // The forbid test above left the run of 2026-03-01T10:00 dispatched, within its maxRuntime.
  it('refuses a run by hand with exit code 1 and says how to go ahead; --overlap allow delivers beside it', async () => {
    const refused = await env.cli(['run', 'exclusive', '--config', env.config]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^zonecron: error: run [0-9a-f]{7} at 2026-03-01T10:00:00.000Z is dispatched \(concurrency forbid\); nothing was delivered: wait for it, or pass --overlap allow \(or --force\)/,
    );
    expect(env.delivered('exclusive-target')).toHaveLength(1);
    const allowed = await env.cli([
      'run',
      'exclusive',
      '--overlap',
      'allow',
      '--config',
      env.config,
      '--json',
    ]);
    expect(allowed.code).toBe(0);
    expect(env.delivered('exclusive-target')).toHaveLength(2);
    const history = await env.cli(['history', 'exclusive', '--since', '1h', '--json']);
    expect(JSON.parse(history.stdout).events[0]).toMatchObject({
      action: 'ran',
      detail: expect.stringContaining('(overlap allow)'),
    });
  });

  it('refuses a backfill with exit code 1 before delivering anything; --overlap skip refuses for a job that allows overlap too', async () => {
    const range = ['--from', '2026-03-02T10:00Z', '--to', '2026-03-02T11:00Z'];
    const refused = await env.cli(['backfill', 'exclusive', ...range, '--config', env.config]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is dispatched (concurrency forbid); nothing was delivered');
    expect(env.delivered('exclusive-target')).toHaveLength(2);
    const first = await env.cli(['run', 'berlin-nightly', '--config', env.config]);
    expect(first.code).toBe(0);
    const later = new Date(Date.now() + 120_000).toISOString();
    const skip = await env.cli([
      'run',
      'berlin-nightly',
      '--at',
      later,
      '--overlap',
      'skip',
      '--config',
      env.config,
    ]);
    expect(skip.code).toBe(1);
    expect(skip.stderr).toContain('(concurrency allow, --overlap skip); nothing was delivered');
    const bad = await env.cli([
      'run',
      'exclusive',
      '--overlap',
      'sometimes',
      '--config',
      env.config,
    ]);
    expect(bad.code).toBe(2);
  });
});

describe("a backfill older than the ledger's retention", () => {
  let shortRetention: string;
  beforeAll(() => {
    shortRetention = join(dirname(env.config), 'short-retention.yaml');
    writeFileSync(
      shortRetention,
      JOBS.replace('retention: { days: 3650 }', 'retention: { days: 35 }'),
    );
  });
  const old = (...args: string[]) =>
    env.cli(['backfill', 'berlin-nightly', ...RANGE, '--config', shortRetention, ...args]);

  it("is refused with exit code 2, saying the runs' fates are forgotten and how to go ahead", async () => {
    const refused = await old();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "--from 2026-03-28T00:00:00.000Z is older than the ledger's retention (35 days: runs before",
    );
    expect(refused.stderr).toContain('their fates are forgotten');
    expect(refused.stderr).toContain('--dry-run to look, or --force');
  });

  it('a dry run warns and says forgotten, not would-deliver, for a run the ledger has no item of', async () => {
    const clients = sandboxClients(env.sandbox);
    // As the table's TTL would have done: the first run's item is gone.
    await clients.dynamodb.send(
      new DeleteItemCommand({
        TableName: env.sandbox.tableName,
        Key: {
          [LEDGER_PARTITION_KEY]: {
            S: periodBucket('berlin-nightly', new Date(RUNS[0] as string)),
          },
        },
      }),
    );
    clients.destroy();
    const dry = await old('--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(
      "warning: --from 2026-03-28T00:00:00.000Z is older than the ledger's retention",
    );
    const doc = JSON.parse(dry.stdout);
    expect(doc.runs.map((r: { result: string }) => r.result)).toEqual([
      'forgotten',
      'already',
      'already',
    ]);
    expect(doc.summary).toMatchObject({ forgotten: 1, wouldDeliver: 0 });
    expect(doc.warnings).toHaveLength(1);
  });

  it('--force delivers, warning, and the operator log says the retention was forced', async () => {
    const forced = await old('--force', '--json');
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain('warning: --from');
    expect(JSON.parse(forced.stdout).summary).toMatchObject({ delivered: 1, already: 2 });
    const history = await env.cli(['history', 'berlin-nightly', '--since', '1h', '--json']);
    expect(JSON.parse(history.stdout).events[0].detail).toContain('forced past the retention');
  });
});
