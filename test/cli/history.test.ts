import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { createDynamoLedger, createLedgerStore } from '#ledger/index.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { RecordingTargets, TestClock } from '../support/doubles.ts';
import { harness, sweepMinutes, tickEvent } from '../support/harness.ts';
import { createLedgerTable, localDynamoClient } from '../support/ledger.ts';
import { overlongLines, runCli } from './run-cli.ts';

// A minutely job ticked at 07:00, paused 07:10-07:20, unreachable until 10:01: the real
// dispatcher decides the 180-run gap at the 10:01 tick, delivering 2 (maxRuns), recording the
// newest 100 skipped runs one by one and the 78 before them (07:01-08:18) as one skip range,
// outside-window before 07:31 (10:01 - 150m), max-runs after, paused 07:10-07:20.
const JOBS = `jobs:
  - id: minutely
    description: a minutely export
    schedule: '* * * * *'
    timezone: UTC
    catchup: { policy: all, window: 150m, maxRuns: 2 }
    alarm: { grace: 1m }
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:000000000000:export' }
`;
const ENV = { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: 'us-east-1' };
const ALICE = 'alice@vm';

let dir: string;
let config: string;
let connection: string[];

async function decideLongGap(job: JobDefinition, tableName: string): Promise<void> {
  const client = localDynamoClient(inject('dynamoEndpoint'));
  const clock = new TestClock('2023-06-01T07:00:02Z');
  const h = harness({ client, tableName, clock, jobs: [job], targets: new RecordingTargets() });
  await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T07:00:00Z'));
  await sweepMinutes(h, clock, '2023-06-01T07:01:00Z', '2023-06-01T07:01:00Z');
  await h.ledger.pause(job.id, { at: new Date('2023-06-01T07:10:00Z'), by: ALICE, reason: 'db' });
  await h.ledger.resume(job.id, { at: new Date('2023-06-01T07:20:00Z') });
  clock.set('2023-06-01T10:01:02Z');
  await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:01:00Z'));
  client.destroy();
}

beforeAll(async () => {
  const client = localDynamoClient(inject('dynamoEndpoint'));
  const table = await createLedgerTable(client, 'history');
  client.destroy();
  const job = parseJobsConfig(JOBS, 'jobs.yaml').jobs[0] as JobDefinition;
  await decideLongGap(job, table);
  dir = mkdtempSync(join(tmpdir(), 'zonecron-history-'));
  config = join(dir, 'jobs.yaml');
  writeFileSync(config, JOBS);
  connection = ['--table', table, '--endpoint-url', `dynamodb=${inject('dynamoEndpoint')}`];
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const history = (args: string[]) =>
  runCli(['history', 'minutely', ...args, ...connection], { env: ENV });

describe('zonecron history shows the skip range of a long gap among the runs', () => {
  it('prints the range as one wrapped line below the oldest run its gap recorded one by one, with its reasons and counts', async () => {
    const result = await history(['--since', '2023-06-01T00:00Z', '--limit', '500']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('minutely: 104 runs since 2023-06-01T00:00:00.000Z (newest first)');
    expect(lines[1]).toBe("and 78 skipped runs recorded as 1 skip range (a long gap's older runs)");
    const oldestRecorded = lines.findIndex((l) => l.startsWith('2023-06-01 08:19 '));
    expect(lines[oldestRecorded]).toMatch(/ max-runs +skipped +0 /);
    expect(lines.slice(oldestRecorded + 1, oldestRecorded + 4).join('\n')).toBe(
      'after 2023-06-01 07:00 through 08:18: skipped ×78 (outside-window before\n' +
        '  07:10, paused from 07:10, outside-window from 07:20, max-runs from 07:31;\n' +
        '  paused ×10), decided 2023-06-01 10:01',
    );
    expect(lines[oldestRecorded + 4]).toMatch(/^2023-06-01 07:00 +2023-06-01T07:00 +dispatched /);
    expect(overlongLines(result.stdout)).toEqual([]);
  });

  it('--json gives the range in a ranges array with its ends, counts, reasons and decision, beside the runs', async () => {
    const result = await history(['--since', '2023-06-01T00:00Z', '--json']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(Object.keys(doc)).toEqual([
      'jobId',
      'since',
      'pause',
      'runs',
      'ranges',
      'events',
      'calendarSkipped',
    ]);
    expect(doc.runs).toHaveLength(50);
    expect(doc.ranges).toEqual([
      {
        after: '2023-06-01T07:00:00.000Z',
        before: '2023-06-01T08:18:00.001Z',
        runs: 78,
        pausedRuns: 10,
        countedFrom: expect.any(String),
        reasons: [
          {
            from: '2023-06-01T07:00:00.000Z',
            to: '2023-06-01T07:10:00.000Z',
            reason: 'outside-window',
          },
          { from: '2023-06-01T07:10:00.000Z', to: '2023-06-01T07:20:00.000Z', reason: 'paused' },
          {
            from: '2023-06-01T07:20:00.000Z',
            to: '2023-06-01T07:31:00.000Z',
            reason: 'outside-window',
          },
          { from: '2023-06-01T07:31:00.000Z', to: '2023-06-01T08:18:00.001Z', reason: 'max-runs' },
        ],
        decidedAt: '2023-06-01T10:01:02.000Z',
      },
    ]);
  });

  it('shows no range that ended before --since', async () => {
    const doc = JSON.parse((await history(['--since', '2023-06-01T08:19Z', '--json'])).stdout);
    expect(doc.ranges).toEqual([]);
  });
});

describe('zonecron history --at answers for one run', () => {
  const at = (instant: string, ...more: string[]) =>
    history(['--at', instant, '--config', config, ...more]);

  it('says a run inside the range was skipped for its reason, one of the 78 of the gap, exit 0', async () => {
    const result = await at('2023-06-01T07:45Z');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.replace(/\s+/g, ' ')).toContain(
      'minutely run at 2023-06-01T07:45:00.000Z (nominal 2023-06-01T07:45): skipped (max-runs) — one of 78 runs of a gap decided at 2023-06-01T10:01:02.000Z, recorded as a range',
    );
    expect(overlongLines(result.stdout)).toEqual([]);
  });

  it('--json gives the fate of a paused run inside the range with source range', async () => {
    const result = await at('2023-06-01T07:15:00Z', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      jobId: 'minutely',
      at: '2023-06-01T07:15:00.000Z',
      status: 'skipped',
      reason: 'paused',
      source: 'range',
      range: { after: '2023-06-01T07:00:00.000Z', before: '2023-06-01T08:18:00.001Z', runs: 78 },
    });
    const early = JSON.parse((await at('2023-06-01T07:05Z', '--json')).stdout);
    expect(early).toMatchObject({ reason: 'outside-window', source: 'range' });
  });

  it('gives a run with an item of its own from its item, as a history row', async () => {
    const result = await at('2023-06-01T08:19Z', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'skipped',
      reason: 'max-runs',
      source: 'item',
      run: { at: '2023-06-01T08:19:00.000Z', status: 'skipped' },
    });
    const text = (await at('2023-06-01T08:19Z')).stdout.split('\n');
    expect(text[0]).toBe(
      'minutely run at 2023-06-01T08:19:00.000Z: skipped (max-runs), by its own item',
    );
    expect(text[3]).toMatch(/^2023-06-01 08:19 +2023-06-01T08:19 +max-runs +skipped +0 /);
  });

  it('says a run of the job with no record has none, exit 0', async () => {
    const result = await at('2023-06-01T11:00Z', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      jobId: 'minutely',
      at: '2023-06-01T11:00:00.000Z',
      nominal: '2023-06-01T11:00',
      status: null,
      reason: null,
      source: 'none',
    });
    const text = await at('2023-06-01T11:00Z');
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      'no record in the ledger (not decided yet, or older than retention.days, 35)',
    );
  });

  it('refuses an instant that is no run of the job with exit 1, naming the runs either side', async () => {
    const result = await at('2023-06-01T07:45:30Z');
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "zonecron: error: 2023-06-01T07:45:30.000Z is no run of 'minutely' (* * * * * in UTC); its runs nearest it: 2023-06-01T07:45:00.000Z and 2023-06-01T07:46:00.000Z\n",
    );
    expect(result.code).toBe(1);
  });
});

describe('zonecron history refuses a job id it cannot know', () => {
  it('exits 2 with a did-you-mean for a typo of a job in the jobs file', async () => {
    const result = await runCli(['history', 'minutly', '--config', config, ...connection], {
      env: ENV,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^zonecron: error: unknown job 'minutly' in .*jobs\.yaml; did you mean 'minutely'\?/,
    );
  });

  it('exits 2 for an id neither the jobs file nor the ledger knows, and shows a job the file no longer has from the ledger', async () => {
    const typo = await runCli(['history', 'nope-job', ...connection], { env: ENV });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^zonecron: error: unknown job 'nope-job' in jobs\.yaml/);
    // The repository's jobs.yaml has no 'minutely': the ledger's runs of it are its history.
    const removed = await history(['--since', '2023-06-01T00:00Z']);
    expect(removed.code).toBe(0);
  });
});

const CALENDAR_JOBS = `calendars:
  office:
    timezone: Europe/Berlin
    closed:
      - { date: "2026-11-11", reason: "Office party" }
jobs:
  - id: weekday-export
    description: an export on the office's business days
    schedule: '0 6 * * *'
    timezone: Europe/Berlin
    calendar: office
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:000000000000:export' }
  - id: campaign
    description: a campaign from 2026-11-16 until 2026-11-20
    schedule: '0 10 * * *'
    timezone: Europe/Berlin
    from: '2026-11-16'
    until: '2026-11-20'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:000000000000:export' }
  - id: invoices
    description: invoices at 09:00 on the 11th, moved to the next business day
    schedule: '0 9 11 * *'
    timezone: Europe/Berlin
    calendar: { name: office, onClosed: following }
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:000000000000:export' }
  - id: greeting
    description: one run at 18:00 on 2026-11-12
    at: '2026-11-12T18:00'
    timezone: Europe/Berlin
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:000000000000:export' }
`;

/**
 * A run of weekday-export at 06:00 on Sunday 2026-11-15, a day its calendar closes, claimed by
 * its tick under its own key: as if delivered before a deploy gave the job its calendar.
 */
async function claimRunOnSunday(tableName: string): Promise<void> {
  await claimRun(tableName, {
    key: periodBucket('weekday-export', new Date('2026-11-15T05:00:00Z')),
    jobId: 'weekday-export',
    at: new Date('2026-11-15T05:00:00Z'),
    nominal: '2026-11-15T06:00',
  });
}

/**
 * The invoices run of 2026-11-11 09:00 (the office party), moved to Thursday 2026-11-12 09:00,
 * claimed under the key of its nominal instant (`keyInstantOf`).
 */
async function claimMovedRunUnderNominalKey(tableName: string): Promise<void> {
  await claimRun(tableName, {
    key: periodBucket('invoices', new Date('2026-11-11T08:00:00Z')),
    jobId: 'invoices',
    at: new Date('2026-11-12T08:00:00Z'),
    nominal: '2026-11-12T09:00',
  });
}

async function claimRun(
  tableName: string,
  run: { key: string; jobId: string; at: Date; nominal: string },
): Promise<void> {
  const client = localDynamoClient(inject('dynamoEndpoint'));
  const ledger = createDynamoLedger(createLedgerStore({ client, tableName }));
  const now = run.at.getTime() + 2_000;
  await ledger.claim({
    ...run,
    dst: 'none',
    manual: false,
    origin: 'tick',
    target: 'arn:aws:sqs:us-east-1:000000000000:export',
    secretHash: 'a'.repeat(64),
    mode: 'create',
    maxAttempts: 3,
    nowEpochMs: now,
    leaseUntilEpochMs: now + 60_000,
    ttlEpochSec: Math.floor(now / 1000) + 86_400,
    missed: false,
  });
  client.destroy();
}

describe('zonecron history shows the runs a calendar skipped, computed with the engine', () => {
  let calendarConfig: string;
  beforeAll(async () => {
    calendarConfig = join(dir, 'calendar-jobs.yaml');
    writeFileSync(calendarConfig, CALENDAR_JOBS);
    await claimRunOnSunday(connection[1] as string);
    await claimMovedRunUnderNominalKey(connection[1] as string);
  });
  const calendarHistory = (args: string[]) =>
    runCli(
      [
        'history',
        'weekday-export',
        ...['--config', calendarConfig, '--since', '2026-11-09T00:00Z'],
        ...args,
        ...connection,
      ],
      { env: ENV },
    );

  it('lists a closed date and a weekend as decided skipped runs with reason calendar and the detail, marked computed from the file, leaving out a closed instant with an item', async () => {
    const result = await calendarHistory(['--json']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      runs: unknown[];
      calendarSkipped: {
        computed: boolean;
        source: string;
        calendar: string;
        runs: { at: string; nominal: string; status: string; reason: string; detail: string }[];
      };
    };
    // The run on Sunday 2026-11-15 has its own item: listed as a run, not as a skip.
    expect(doc.runs.map((r) => (r as { at: string }).at)).toEqual(['2026-11-15T05:00:00.000Z']);
    expect(doc.calendarSkipped.runs.map((r) => r.at)).not.toContain('2026-11-15T05:00:00.000Z');
    expect(doc.calendarSkipped).toMatchObject({
      computed: true,
      source: 'file',
      calendar: 'office',
    });
    const oldest = [...doc.calendarSkipped.runs].reverse().slice(0, 2);
    expect(oldest).toEqual([
      {
        at: '2026-11-11T05:00:00.000Z',
        nominal: '2026-11-11T06:00',
        status: 'skipped',
        reason: 'calendar',
        detail: 'Office party',
      },
      {
        at: '2026-11-14T05:00:00.000Z',
        nominal: '2026-11-14T06:00',
        status: 'skipped',
        reason: 'calendar',
        detail: 'Saturday',
      },
    ]);
  });

  it('prints them under the ledger runs, saying they are computed and not in the ledger', async () => {
    const result = await calendarHistory([]);
    expect(result.code).toBe(0);
    const text = result.stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(
      /skipped by calendar office \(decided; computed from the file definition, not in the ledger\)/,
    );
    expect(text).toContain('2026-11-11 05:00 2026-11-11T06:00 skipped calendar: Office party');
  });

  const fateOf = (jobId: string, at: string, ...more: string[]) =>
    runCli(['history', jobId, '--at', at, '--config', calendarConfig, ...more, ...connection], {
      env: ENV,
    });

  it('--at answers for a run the calendar skipped: skipped, reason calendar, the detail, source calendar', async () => {
    const result = await fateOf('weekday-export', '2026-11-11T05:00Z', '--json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      jobId: 'weekday-export',
      at: '2026-11-11T05:00:00.000Z',
      nominal: '2026-11-11T06:00',
      status: 'skipped',
      reason: 'calendar',
      source: 'calendar',
      detail: 'Office party',
      calendar: 'office',
      definition: 'file',
    });
    const text = await fateOf('weekday-export', '2026-11-11T05:00Z');
    expect(text.code).toBe(0);
    expect(text.stdout.replace(/\s+/g, ' ')).toBe(
      'weekday-export run at 2026-11-11T05:00:00.000Z (nominal 2026-11-11T06:00): skipped (calendar: Office party) — decided by calendar office; computed from the file definition, not in the ledger (the dispatcher writes no item for it) ',
    );
    expect(overlongLines(text.stdout)).toEqual([]);
  });

  it('--at gives the item a run at a closed instant has, not the calendar', async () => {
    const result = await fateOf('weekday-export', '2026-11-15T05:00Z', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'claimed',
      reason: null,
      source: 'item',
      run: { at: '2026-11-15T05:00:00.000Z', origin: 'tick' },
    });
  });

  it('--at refuses an instant before from with exit 1, naming the bound', async () => {
    const result = await fateOf('campaign', '2026-11-15T09:00Z');
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "zonecron: error: 2026-11-15T09:00:00.000Z is no run of 'campaign' (0 10 * * * in Europe/Berlin): before from (2026-11-15T23:00:00.000Z); its runs nearest it: 2026-11-16T09:00:00.000Z\n",
    );
    expect(result.code).toBe(1);
  });

  it('--at refuses an instant at until with exit 1, naming the bound, in the --json error document too', async () => {
    const result = await fateOf('campaign', '2026-11-20T09:00Z', '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      error: {
        message:
          "2026-11-20T09:00:00.000Z is no run of 'campaign' (0 10 * * * in Europe/Berlin): at or after until (2026-11-19T23:00:00.000Z); its runs nearest it: 2026-11-19T09:00:00.000Z",
        exitCode: 1,
      },
    });
  });

  it('--at names a run its calendar moved by the instant the schedule named: its item, delivered at its new instant', async () => {
    const result = await fateOf('invoices', '2026-11-11T08:00Z', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      at: '2026-11-11T08:00:00.000Z',
      status: 'claimed',
      source: 'item',
      run: { at: '2026-11-12T08:00:00.000Z' },
    });
  });

  it('--at refuses the new instant of a moved run with exit 1, naming the instant that names it', async () => {
    const result = await fateOf('invoices', '2026-11-12T08:00Z');
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "zonecron: error: 2026-11-12T08:00:00.000Z is no run of 'invoices' (0 9 11 * * in Europe/Berlin): a run its calendar moved is due here, named by the instant the schedule named (2026-11-11T08:00:00.000Z); its runs nearest it: 2026-10-12T07:00:00.000Z and 2026-11-12T08:00:00.000Z\n",
    );
    expect(result.code).toBe(1);
  });

  it("--at says an instant of an at job's date in another year is after its one run", async () => {
    const result = await fateOf('greeting', '2027-11-12T17:00Z');
    expect(result.stderr).toBe(
      "zonecron: error: 2027-11-12T17:00:00.000Z is no run of 'greeting' (once at 2026-11-12T18:00 in Europe/Berlin): after its one run; its one run: 2026-11-12T17:00:00.000Z\n",
    );
    expect(result.code).toBe(1);
  });

  it('adds nothing for a job without a calendar', async () => {
    const result = await history(['--config', config, '--json']);
    expect((JSON.parse(result.stdout) as { calendarSkipped: unknown }).calendarSkipped).toBeNull();
    expect((await history(['--config', config])).stdout).not.toContain('skipped by calendar');
  });
});
