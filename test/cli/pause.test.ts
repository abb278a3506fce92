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
