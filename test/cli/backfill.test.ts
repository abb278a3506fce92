import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodBucket } from '../../functions/schedule/index.ts';
import { type SandboxCli, startSandboxCli } from './sandbox-cli.ts';

const JOBS = `jobs:
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
