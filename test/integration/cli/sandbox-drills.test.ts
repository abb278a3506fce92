/**
 * The runbook's drills (docs/runbook.md, "Drills in the sandbox"), walked step by step against
 * the sandbox: its real dispatcher and recorder, woken by its local scheduler on a clock this
 * test moves minute by minute (or makes jump, as a suspended sandbox does), and the real
 * `zonecron` commands of the second shell, run as a user runs them after pasting the export
 * lines. Each drill checks what the runbook promises: the lines the sandbox prints, what
 * `history` and `dlq list` show, and that every run is delivered exactly once.
 */

import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { SandboxTimers } from '../../../cli/sandbox/local-scheduler.ts';
import { type SandboxStack, startSandboxStack } from '../../../cli/sandbox/sandbox-stack.ts';
import type { CliResult } from '../../cli/run-cli.ts';
import { runCli } from '../../cli/run-cli.ts';
import { type SandboxCli, startSandboxCli } from '../../cli/sandbox-cli.ts';
import { queueBodies } from '../../support/fauxqs.ts';

const JOBS = `
defaults:
  timezone: UTC
  retry:
    maxAttempts: 3
jobs:
  - id: nightly
    description: a report function, every ten minutes
    schedule: '*/10 * * * *'
    target: { type: lambda, arn: 'arn:aws:lambda:us-east-1:123456789012:function:nightly' }
  - id: report
    description: an export to a queue, every ten minutes
    schedule: '*/10 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:report-target' }
  - id: billing
    description: a billing sync to a queue, every five minutes
    schedule: '*/5 * * * *'
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:billing-target' }
  - id: slow
    description: a state machine that should finish within five minutes, every quarter hour
    schedule: '*/15 * * * *'
    maxRuntime: 5m
    target: { type: stepfunctions, arn: 'arn:aws:states:us-east-1:123456789012:stateMachine:slow' }
`;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Timers on a clock the test moves: the scheduler sleeps until the test lets it wake, so every
 * minute's fires are handled, one minute after another, before the test goes on.
 */
function steppedClock(start: Date) {
  let nowMs = start.getTime();
  let wake: { readonly atMs: number; readonly resolve: () => void } | undefined;
  let asleep: (() => void) | undefined;
  const timers: SandboxTimers = {
    now: () => new Date(nowMs),
    sleepUntil(at, signal) {
      return new Promise((resolve) => {
        const done = () => {
          wake = undefined;
          resolve();
        };
        if (signal.aborted) return resolve();
        const onAbort = () => done();
        signal.addEventListener('abort', onAbort, { once: true });
        wake = {
          atMs: at.getTime(),
          resolve: () => {
            signal.removeEventListener('abort', onAbort);
            done();
          },
        };
        asleep?.();
      });
    },
  };
  /** Wakes the scheduler and waits until it handled what was due and sleeps again. */
  async function wakeScheduler(): Promise<void> {
    const sleptAgain = new Promise<void>((resolve) => {
      asleep = resolve;
    });
    wake?.resolve();
    await sleptAgain;
  }
  return {
    timers,
    now: () => new Date(nowMs),
    /** Moves the clock to `at` minute by minute; each minute's ticks and sweep run on time. */
    async advanceTo(at: Date): Promise<void> {
      while (wake && wake.atMs <= at.getTime()) {
        nowMs = Math.max(nowMs, wake.atMs);
        await wakeScheduler();
      }
      nowMs = Math.max(nowMs, at.getTime());
    },
    /** The sandbox was suspended until `at` (Ctrl-Z, then `fg`): one wake, the clock jumped. */
    async resumeAt(at: Date): Promise<void> {
      nowMs = at.getTime();
      if (wake && wake.atMs <= nowMs) await wakeScheduler();
    },
  };
}

/** The ISO instant `minutes` after `from`. */
function plusMinutes(from: Date, minutes: number): Date {
  return new Date(from.getTime() + minutes * MINUTE_MS);
}

/** The next instant after `from` on a multiple of `everyMinutes`. */
function nextRun(from: Date, everyMinutes: number): Date {
  const stepMs = everyMinutes * MINUTE_MS;
  return new Date(Math.floor(from.getTime() / stepMs) * stepMs + stepMs);
}

interface HistoryRun {
  readonly key: string;
  readonly at: string;
  readonly status: string;
  readonly skipReason?: string;
  readonly signals: readonly string[];
}

interface HistoryJson {
  readonly runs: readonly HistoryRun[];
  readonly pause: { readonly paused: boolean };
  readonly events: readonly { readonly action: string; readonly runKey?: string }[];
}

describe('the runbook drills, walked against the sandbox', () => {
  let env: SandboxCli;
  let stack: SandboxStack;
  let clock: ReturnType<typeof steppedClock>;
  const lines: string[] = [];
  // The next full hour: the sandbox's clock runs ahead of the second shell's wall clock, so
  // an instant of the sandbox is never in the past for the commands that read the wall clock.
  const start = new Date((Math.floor(Date.now() / HOUR_MS) + 1) * HOUR_MS);
  const since = new Date(Date.now() - 3 * HOUR_MS).toISOString();

  /** `zonecron …` in the second shell: beside the jobs file, with the export lines pasted. */
  function shell(args: readonly string[]): Promise<CliResult> {
    return runCli(args, {
      cwd: dirname(env.config),
      env: { ...env.sandbox.env, ...stack.env, USER: 'tester' },
    });
  }
  async function history(jobId: string): Promise<HistoryJson> {
    const out = await shell(['history', jobId, '--since', since, '--json']);
    expect(out.stderr).toBe('');
    return JSON.parse(out.stdout) as HistoryJson;
  }
  /** The lines the sandbox printed from the `from`th on. */
  const printedSince = (from: number) => lines.slice(from);
  /** Envelopes delivered to a target queue, by run key. */
  function deliveredKeys(queue: string): string[] {
    return (queueBodies<RunEnvelope>(env.sandbox.queues, queue) ?? []).map((e) => e.key);
  }

  beforeAll(async () => {
    env = await startSandboxCli(JOBS);
    clock = steppedClock(start);
    stack = await startSandboxStack({
      sandbox: env.sandbox,
      jobs: env.jobs,
      timers: clock.timers,
      print: (line) => lines.push(line),
      synthTime: start,
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await env?.stop();
  });

  it('a failed night: run-failed and its dead letter are printed; history and dlq list show the run; redriven after a fix, it succeeds', async () => {
    const failing = await shell(['sandbox', 'fail', 'nightly']);
    expect(failing.stdout).toBe(
      "the sandbox's target of 'nightly' now fails (before: succeeds); zonecron sandbox heal nightly undoes it\n",
    );
    const from = lines.length;
    const run = nextRun(clock.now(), 10);
    await clock.advanceTo(run);

    const key = (await history('nightly')).runs.find((r) => r.at === run.toISOString())?.key;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const short = key?.slice(0, 7);
    expect(printedSince(from)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^dead letter: job 'nightly' run ${short} at ${run.toISOString()}, execution-failed after 1 attempt\\(s\\): lambda RetriesExhausted .*\\(in the second shell: zonecron dlq list; zonecron dlq redrive --key ${key}\\)$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^notification run-failed: job 'nightly' run ${short} at ${run.toISOString()}: .*\\(in the second shell: zonecron history nightly --since ${run.toISOString()}; zonecron dlq redrive --key ${key}\\)$`,
        ),
      ),
    ]);
    expect((await history('nightly')).runs[0]).toMatchObject({ key, status: 'failed' });
    const listed = await shell(['dlq', 'list']);
    expect(listed.stdout).toMatch(
      new RegExp(`^${short}  nightly +${run.toISOString().slice(0, 16).replace('T', ' ')}`, 'm'),
    );

    await shell(['sandbox', 'heal', 'nightly']);
    const redriven = await shell(['dlq', 'redrive', '--key', key ?? '']);
    expect(redriven.stdout).toContain('1 of 1 run redriven');
    // The function's report reaches the sandbox's recorder at its next minute.
    await clock.advanceTo(plusMinutes(clock.now(), 1));
    expect((await history('nightly')).runs.find((r) => r.key === key)?.status).toBe('succeeded');
    expect((await shell(['dlq', 'list'])).stdout).not.toContain(short);
  }, 120_000);

  it('a dead letter: the sweep retries a refused delivery, then dead-letters it; one redrive delivers it exactly once', async () => {
    await shell(['sandbox', 'fail', 'report']);
    const from = lines.length;
    const run = nextRun(clock.now(), 10);
    await clock.advanceTo(run);
    const key = (await history('report')).runs.find((r) => r.at === run.toISOString())?.key ?? '';
    expect((await history('report')).runs[0]).toMatchObject({ key, status: 'delivery-failed' });
    // Not yet dead: the sweep retries it.
    expect(printedSince(from).filter((l) => l.includes(key.slice(0, 7)))).toEqual([]);

    await clock.advanceTo(plusMinutes(run, 9));
    expect(printedSince(from)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^dead letter: job 'report' run ${key.slice(0, 7)} at ${run.toISOString()}, delivery-failed after 3 attempt\\(s\\)`,
        ),
      ),
    );
    expect((await history('report')).runs.find((r) => r.key === key)?.status).toBe('failed');
    expect((await shell(['dlq', 'list'])).stdout).toMatch(
      new RegExp(`^${key.slice(0, 7)}  report`, 'm'),
    );
    expect(deliveredKeys('report-target')).not.toContain(key);

    await shell(['sandbox', 'heal', 'report']);
    const redriven = await shell(['dlq', 'redrive', '--key', key.slice(0, 7)]);
    expect(redriven.stdout).toContain('1 of 1 run redriven');
    // The message is gone with the delivery: a second redrive has nothing to deliver.
    const again = await shell(['dlq', 'redrive', '--key', key.slice(0, 7)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no dead-lettered run with key ${key.slice(0, 7)}`);
    await clock.advanceTo(plusMinutes(clock.now(), 2));
    expect(deliveredKeys('report-target').filter((k) => k === key)).toHaveLength(1);
    const redriveEvents = (await history('report')).events.filter((e) => e.action === 'redriven');
    expect(redriveEvents).toMatchObject([{ runKey: key }]);
  }, 120_000);

  it('a maintenance pause until: the runs are skipped (paused) without a notification, and the job resumes by itself at the end', async () => {
    const from = lines.length;
    const end = plusMinutes(nextRun(clock.now(), 5), 10);
    const paused = await shell([
      'pause',
      'billing',
      '--until',
      end.toISOString(),
      '--reason',
      'drill: billing maintenance',
    ]);
    expect(paused.code, paused.stderr).toBe(0);
    const pausedFrom = nextRun(clock.now(), 5);
    await clock.advanceTo(plusMinutes(end, 5));

    const runs = (await history('billing')).runs;
    const byAt = (at: Date) => runs.find((r) => r.at === at.toISOString());
    expect(byAt(pausedFrom)).toMatchObject({ status: 'skipped', skipReason: 'paused' });
    expect(byAt(plusMinutes(pausedFrom, 5))).toMatchObject({
      status: 'skipped',
      skipReason: 'paused',
    });
    expect(byAt(end)?.status).toBe('dispatched');
    expect(byAt(plusMinutes(end, 5))?.status).toBe('dispatched');
    expect((await history('billing')).pause.paused).toBe(false);
    expect(printedSince(from).filter((l) => l.includes("'billing'"))).toEqual([]);
    const delivered = (queueBodies<RunEnvelope>(env.sandbox.queues, 'billing-target') ?? []).map(
      (e) => e.scheduledAt,
    );
    expect(delivered).not.toContain(pausedFrom.toISOString());
    expect(delivered.filter((at) => at === end.toISOString())).toHaveLength(1);
  }, 120_000);

  it('a backfill: --dry-run delivers nothing, the backfill delivers each run once, a second one none', async () => {
    // A past range of the second shell's wall clock, before the sandbox ran the job.
    const to = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS);
    const from = plusMinutes(to, -30);
    const range = ['--from', from.toISOString(), '--to', to.toISOString()];
    const before = deliveredKeys('report-target').length;
    const dry = await shell(['backfill', 'report', ...range, '--dry-run']);
    expect(dry.stdout, dry.stderr).toContain(
      'dry run: 4 would be delivered, 0 already in the ledger',
    );
    expect(deliveredKeys('report-target')).toHaveLength(before);

    const real = await shell(['backfill', 'report', ...range]);
    expect(real.stdout).toContain('4 delivered, 0 already in the ledger');
    const second = await shell(['backfill', 'report', ...range]);
    expect(second.stdout).toContain('0 delivered, 4 already in the ledger');
    const backfilled = (queueBodies<RunEnvelope>(env.sandbox.queues, 'report-target') ?? [])
      .slice(before)
      .map((e) => e.scheduledAt);
    expect(backfilled).toEqual([0, 10, 20, 30].map((m) => plusMinutes(from, m).toISOString()));
  }, 120_000);

  it('a stuck run: hanging the target while the sandbox runs, stuck is printed after maxRuntime and the run stays open', async () => {
    const hanging = await shell(['sandbox', 'hang', 'slow']);
    expect(hanging.stdout).toContain("the sandbox's target of 'slow' now hangs (before: succeeds)");
    const from = lines.length;
    const run = nextRun(clock.now(), 15);
    await clock.advanceTo(plusMinutes(run, 4));
    expect(printedSince(from).filter((l) => l.includes("'slow'"))).toEqual([]);
    await clock.advanceTo(plusMinutes(run, 6));
    const stuck = printedSince(from).filter((l) => l.startsWith('notification stuck:'));
    expect(stuck).toEqual([
      expect.stringMatching(
        new RegExp(
          `^notification stuck: job 'slow' run [0-9a-f]{7} at ${run.toISOString()}: .*\\(in the second shell: zonecron history slow --since ${run.toISOString()}\\)$`,
        ),
      ),
    ]);
    expect(printedSince(from).filter((l) => l.includes('error'))).toEqual([]);
    const item = (await history('slow')).runs.find((r) => r.at === run.toISOString());
    expect(item).toMatchObject({ status: 'dispatched', signals: ['stuck'] });

    await shell(['sandbox', 'heal', 'slow']);
    const next = plusMinutes(run, 15);
    await clock.advanceTo(next);
    expect((await history('slow')).runs.find((r) => r.at === next.toISOString())?.status).toBe(
      'succeeded',
    );
  }, 120_000);

  it('missed and late runs: after a suspend, the ticks Scheduler still delivers are late, the older runs missed, each run delivered once', async () => {
    const from = lines.length;
    const suspended = clock.now();
    const back = plusMinutes(suspended, 95);
    await clock.resumeAt(back);
    const runs = (await history('billing')).runs.filter(
      (r) => r.at > suspended.toISOString() && r.at <= back.toISOString(),
    );
    // Every billing run of the suspend: delivered, none twice.
    expect(runs.length).toBe(19);
    expect(runs.every((r) => r.status === 'dispatched')).toBe(true);
    const delivered = deliveredKeys('billing-target');
    for (const r of runs) expect(delivered.filter((k) => k === r.key)).toHaveLength(1);

    const printed = printedSince(from).filter((l) => l.includes("job 'billing'"));
    const signalOf = (r: HistoryRun) => r.signals.join(',');
    const lateRuns = runs.filter((r) => signalOf(r) === 'late');
    const missedRuns = runs.filter((r) => signalOf(r) === 'missed');
    // Ticks older than the replayed hour were never sent: the first tick back decides them.
    expect(missedRuns.length).toBeGreaterThan(0);
    expect(lateRuns.length).toBeGreaterThan(0);
    expect(missedRuns.length + lateRuns.length).toBe(
      runs.filter((r) => Date.parse(r.at) < back.getTime() - 5 * MINUTE_MS).length,
    );
    expect(printed.filter((l) => l.startsWith('notification late:'))).toHaveLength(lateRuns.length);
    // One missed notification for the gap, however many runs it had.
    expect(printed.filter((l) => l.startsWith('notification missed:'))).toEqual([
      expect.stringContaining(`${missedRuns.length} runs from`),
    ]);
    expect(printedSince(from).filter((l) => l.includes('error'))).toEqual([]);
  }, 300_000);
});
