import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoLedger, createLedgerStore } from '#ledger/index.ts';
import type { AwsClients } from '#shared/aws-clients.ts';
import { createTargetDelivery } from '../../functions/dispatcher/targets/index.ts';
import { queueUrlViaGetQueueUrl } from '../../functions/dispatcher/targets/sqs.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import { TestClock } from '../support/doubles.ts';
import { harness } from '../support/harness.ts';
import {
  minuteOf,
  type SandboxCli,
  sandboxClients,
  startSandboxCli,
  TEST_USER,
} from './sandbox-cli.ts';

const JOBS = `jobs:
  - id: minutely
    description: every minute, catching up everything it missed
    schedule: '* * * * *'
    timezone: UTC
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:minutely-target
  - id: latest-only
    description: every minute, catching up only the newest run it missed
    schedule: '* * * * *'
    timezone: UTC
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:latest-target
    catchup:
      policy: latest
  - id: maintained
    description: hourly, paused for maintenance by the tests of run and backfill
    schedule: '0 * * * *'
    timezone: UTC
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:maintained-target
  - id: ny-sync
    description: a New York job, paused until a date
    schedule: '0 9 * * *'
    timezone: America/New_York
    target:
      type: sqs
      arn: arn:aws:sqs:us-east-1:000000000000:ny-sync-target
`;
const OPERATOR = `${TEST_USER}@${hostname()}`;

let env: SandboxCli;
let clients: AwsClients;

beforeAll(async () => {
  env = await startSandboxCli(JOBS);
  clients = sandboxClients(env.sandbox);
});

afterAll(async () => {
  clients.destroy();
  await env.stop();
});

/** The real dispatcher core on the sandbox's ledger and queues, at a clock the test sets. */
function dispatcherAt(iso: string) {
  const clock = new TestClock(iso);
  const h = harness({
    client: clients.dynamodb,
    tableName: env.sandbox.tableName,
    clock,
    jobs: env.jobs,
    targets: createTargetDelivery(clients, {
      resolveQueueUrl: queueUrlViaGetQueueUrl(clients.sqs),
    }),
  });
  return { ...h, clock };
}

const tick = (jobId: string, at: Date) => ({
  jobId,
  scheduledTime: at.toISOString(),
  executionId: `e-${at.getTime()}`,
  attempt: '1',
});

/** The first minute at or after `iso`. */
const minuteAtOrAfter = (iso: string) => minuteOf(new Date(Date.parse(iso) + 59_999));

describe('zonecron pause and resume on the sandbox', () => {
  it('pause: the next tick records its run skipped (paused) without a notification; resume: the next run is delivered and nothing paused is replayed', async () => {
    const paused = await env.cli([
      'pause',
      'minutely',
      '--reason',
      'db migration',
      '--config',
      env.config,
      '--json',
    ]);
    expect(paused.stderr).toBe('');
    expect(paused.code).toBe(0);
    const pause = JSON.parse(paused.stdout);
    expect(pause).toMatchObject({
      jobId: 'minutely',
      paused: true,
      pausedBy: OPERATOR,
      reason: 'db migration',
    });

    const duringPause = minuteOf(pause.pausedAt);
    const d = dispatcherAt(duringPause.toISOString());
    const skipped = await d.dispatcher.handle(tick('minutely', duringPause));
    expect(skipped).toMatchObject({
      outcomes: [
        { outcome: 'skipped', reason: 'paused', detail: `paused by ${OPERATOR}: db migration` },
      ],
    });
    expect(d.notifier.sent).toEqual([]);

    const resumed = await env.cli(['resume', 'minutely', '--config', env.config, '--json']);
    expect(resumed.code).toBe(0);
    const resume = JSON.parse(resumed.stdout);
    expect(resume).toMatchObject({ resumed: true, pause: { pausedBy: OPERATOR }, caughtUp: null });

    const afterResume = minuteAtOrAfter(resume.at);
    d.clock.set(afterResume.toISOString());
    const delivered = await d.dispatcher.handle(tick('minutely', afterResume));
    expect(delivered).toMatchObject({ outcomes: [{ outcome: 'dispatched' }] });
    expect(env.delivered('minutely-target').map((e) => e.scheduledAt)).toEqual([
      afterResume.toISOString(),
    ]);
    expect(await d.ledger.getRun(periodBucket('minutely', duringPause))).toMatchObject({
      status: 'skipped',
      skipReason: 'paused',
    });
    expect(d.notifier.sent).toEqual([]);

    const history = await env.cli(['history', 'minutely', '--since', '1h', '--json']);
    const doc = JSON.parse(history.stdout);
    expect(doc.pause).toMatchObject({
      paused: false,
      lastPause: { from: pause.pausedAt, to: resume.at },
    });
    expect(doc.events.map((e: { action: string; by: string }) => [e.action, e.by])).toEqual([
      ['resumed', OPERATOR],
      ['paused', OPERATOR],
    ]);
    expect(
      doc.runs.map((r: { skipReason?: string; status: string }) => r.skipReason ?? r.status),
    ).toEqual(['dispatched', 'paused']);
  });

  it("resume --catch-up delivers the paused runs the job's policy picks: under latest, only the newest", async () => {
    const store = createLedgerStore({ client: clients.dynamodb, tableName: env.sandbox.tableName });
    const pausedAt = new Date(Date.now() - 5 * 60_000);
    await createDynamoLedger(store).pause('latest-only', {
      at: pausedAt,
      by: OPERATOR,
      reason: 'earlier',
    });
    const d = dispatcherAt(pausedAt.toISOString());
    const duringPause = minuteAtOrAfter(pausedAt.toISOString());
    await d.dispatcher.handle(tick('latest-only', duringPause));

    const resumed = await env.cli([
      'resume',
      'latest-only',
      '--catch-up',
      '--config',
      env.config,
      '--json',
    ]);
    expect(resumed.code).toBe(0);
    const resume = JSON.parse(resumed.stdout);
    const newestPaused = minuteOf(resume.at).toISOString();
    expect(resume.caughtUp.outcomes).toMatchObject([{ outcome: 'dispatched', at: newestPaused }]);
    expect(env.delivered('latest-target').map((e) => e.scheduledAt)).toEqual([newestPaused]);
    expect(await d.ledger.getRun(periodBucket('latest-only', duringPause))).toMatchObject({
      skipReason: 'paused',
    });
  });

  it("reads a date-only --until as midnight in the job's zone, or in --tz", async () => {
    const config = ['--config', env.config];
    const pausedUntil = async (...args: string[]) => {
      const result = await env.cli(['pause', 'ny-sync', ...args, '--json', ...config]);
      await env.cli(['resume', 'ny-sync', ...config]);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout).until;
    };
    expect(await pausedUntil('--until', '2099-12-02')).toBe('2099-12-02T05:00:00.000Z');
    expect(await pausedUntil('--until', '2099-12-02', '--tz', 'Europe/Berlin')).toBe(
      '2099-12-01T23:00:00.000Z',
    );
  });

  it('refuses --until in the past with exit code 2 and says why', async () => {
    const result = await env.cli([
      'pause',
      'minutely',
      '--until',
      '2020-01-01T00:00Z',
      '--config',
      env.config,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^zonecron: error: --until 2020-01-01T00:00:00.000Z is not in the future/,
    );
  });
});

describe('a re-pause keeps what it was not told to change; looking never mutates', () => {
  const pause = (...args: string[]) =>
    env.cli(['pause', 'latest-only', '--config', env.config, ...args]);

  it('a bare pause (and pause --json) of a paused job changes nothing: the end and the reason stay, nothing is recorded', async () => {
    const first = JSON.parse((await pause('--until', '4h', '--reason', 'INC-42', '--json')).stdout);
    expect(first).toMatchObject({ change: 'paused', reason: 'INC-42', until: expect.any(String) });

    const bare = await pause();
    expect(bare.code).toBe(0);
    const said = bare.stdout.replace(/\s+/g, ' ');
    expect(said).toContain(
      `latest-only is already paused since ${first.pausedAt} until ${first.until}`,
    );
    expect(said).toContain('nothing changed: --reason or --until changes the pause');
    const looked = JSON.parse((await pause('--json')).stdout);
    expect(looked).toMatchObject({
      change: 'none',
      paused: true,
      pausedAt: first.pausedAt,
      reason: 'INC-42',
      until: first.until,
    });

    const described = await env.cli(['describe', 'latest-only', '--config', env.config]);
    expect(described.stdout.replace(/\s+/g, ' ')).toContain(
      `PAUSED since ${first.pausedAt} until ${first.until} by ${OPERATOR}: INC-42`,
    );

    const reasoned = JSON.parse((await pause('--reason', 'INC-42: runs late', '--json')).stdout);
    expect(reasoned).toMatchObject({ change: 'updated', until: first.until });
    expect(reasoned.detail).toContain(`until kept (${first.until})`);

    const open = JSON.parse((await pause('--no-until', '--json')).stdout);
    expect(open).toMatchObject({ change: 'updated', reason: 'INC-42: runs late' });
    expect(open.until).toBeUndefined();

    // Since this pause: the catch-up test above resumed the same job moments before.
    const since = ['--since', first.pausedAt];
    const history = await env.cli(['history', 'latest-only', ...since, '--json']);
    const events = JSON.parse(history.stdout).events;
    expect(events.map((e: { action: string; detail: string }) => e.detail)).toEqual([
      expect.stringContaining(`until ${first.until} → none`),
      expect.stringContaining('reason INC-42 → INC-42: runs late'),
      'new pause',
    ]);
    await env.cli(['resume', 'latest-only', '--config', env.config]);
  });
});

describe('run and backfill honour a pause unless --force, and the operator log records it', () => {
  const withConfig = (...args: string[]) => env.cli([...args, '--config', env.config]);

  it('refuses a run of a paused job with exit code 1, delivering nothing; --force delivers and history says it was forced', async () => {
    await withConfig('pause', 'maintained', '--reason', 'billing maintenance', '--until', '2h');
    const refused = await withConfig('run', 'maintained');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^zonecron: error: 'maintained' is paused \(since .* by .*: billing maintenance\); nothing was delivered: zonecron resume maintained first, or run \.\.\. --force/,
    );
    expect(env.delivered('maintained-target')).toEqual([]);

    const forced = await withConfig('run', 'maintained', '--force', '--reason', 'INC-7', '--json');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ outcome: 'dispatched' });
    expect(env.delivered('maintained-target')).toHaveLength(1);

    const history = await env.cli(['history', 'maintained', '--since', '1h', '--json']);
    const [ran] = JSON.parse(history.stdout).events;
    expect(ran).toMatchObject({
      action: 'ran',
      by: OPERATOR,
      reason: 'INC-7',
      runKey: JSON.parse(forced.stdout).key,
      detail: expect.stringContaining('forced past the pause'),
    });
  });

  it('refuses a backfill of a paused job with exit code 1; a dry run only warns; --force delivers', async () => {
    const ago = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
    const args = ['backfill', 'maintained', '--from', ago(3), '--to', ago(1)];
    const refused = await withConfig(...args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("'maintained' is paused");
    expect(refused.stderr).toContain('backfill ... --force');
    const dry = await withConfig(...args, '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain('warning: without --dry-run this backfill is refused');
    const forced = await withConfig(...args, '--force', '--json');
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout).summary.delivered).toBe(2);
    await withConfig('resume', 'maintained');
  });
});
