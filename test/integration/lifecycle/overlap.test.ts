import { beforeEach, describe, expect, inject, it } from 'vitest';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { TestClock } from '../../support/doubles.ts';
import { lifecycle, sweepEvent, tickEvent } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../../support/ledger.ts';

// A job whose target "finishes late": its run stays `dispatched` until the recorder hears
// back from Lambda. Every five minutes, UTC, so each tick stands for exactly one run.
const client = localDynamoClient(inject('dynamoEndpoint'));
let tableName: string;

// The sweep looks at every open run of its table: each test gets a table of its own.
beforeEach(async () => {
  tableName = await createLedgerTable(client, 'overlap');
});

const T0 = Date.parse('2026-06-01T10:00:00.000Z');
const minute = 60_000;
const at = (minutes: number) => new Date(T0 + minutes * minute);
const iso = (minutes: number) => at(minutes).toISOString();
/** Ticks arrive two seconds after their scheduled time. */
const LAG_MS = 2_000;

function setup(id: string, overrides: Omit<Parameters<typeof makeJob>[0], 'id'>) {
  const clock = new TestClock(iso(0));
  const job = makeJob({
    schedule: '*/5 * * * *',
    timezone: 'UTC',
    target: { type: 'lambda', arn: `arn:aws:lambda:us-east-1:000000000000:function:${id}` },
    ...overrides,
    id,
  });
  const life = lifecycle({ client, tableName, clock, jobs: [job] });
  async function tickAt(minutes: number) {
    clock.set(new Date(at(minutes).getTime() + LAG_MS).toISOString());
    return life.dispatch.dispatcher.handle(tickEvent(id, at(minutes)));
  }
  async function status(minutes: number) {
    return (await life.dispatch.ledger.getRun(periodBucket(id, at(minutes))))?.status;
  }
  return { clock, job, life, tickAt, status };
}

describe('concurrency: forbid', () => {
  it('skips the next run while the previous one has not finished, then runs again once it has', async () => {
    const { clock, life, tickAt, status } = setup('forbid-late', { concurrency: 'forbid' });

    await tickAt(0);
    expect(await status(0)).toBe('dispatched');

    const second = await tickAt(5);
    expect(second).toMatchObject({
      kind: 'tick',
      outcomes: [
        {
          outcome: 'skipped',
          reason: 'overlap',
          at: iso(5),
          detail: `previous run ${periodBucket('forbid-late', at(0))} is still running`,
        },
      ],
    });
    expect(await status(5)).toBe('skipped');
    expect(life.dispatch.metrics.count('forbid-late', 'SkippedOverlap')).toBe(1);
    const skipped = life.dispatch.logger.entries.filter(
      (e) => e.fields.decision === 'skipped-overlap',
    );
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.fields).toMatchObject({
      jobId: 'forbid-late',
      at: iso(5),
      runningKey: periodBucket('forbid-late', at(0)),
    });

    // Lambda reports the first run finished at 10:07 (its invocation result, through the bus).
    const first = life.targets.received[0]?.envelope;
    if (!first) throw new Error('first run was not delivered');
    clock.set(iso(7));
    expect(await life.complete(first, at(7))).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
    });
    expect(await status(0)).toBe('succeeded');

    await tickAt(10);
    expect(await status(10)).toBe('dispatched');
    expect(life.targets.instants('forbid-late')).toEqual([iso(0), iso(10)]);
    expect(life.dispatch.metrics.count('forbid-late', 'SkippedOverlap')).toBe(1);
  });

  it('does not call a skipped run missed', async () => {
    const { clock, life, tickAt } = setup('forbid-swept', { concurrency: 'forbid' });
    await tickAt(0);
    await tickAt(5);
    // Sweeps every minute until the skipped 10:05 run is well past grace (5 min) + lookback.
    for (let m = 1; m <= 13; m++) {
      clock.set(new Date(at(m).getTime() + LAG_MS).toISOString());
      if (m === 10) await tickAt(10);
      await life.dispatch.dispatcher.handle(sweepEvent(at(m)));
    }
    expect(life.dispatch.metrics.count('forbid-swept', 'MissedRuns')).toBe(0);
    expect(life.dispatch.metrics.count('forbid-swept', 'SkippedOverlap')).toBe(2);
    expect(life.targets.instants('forbid-swept')).toEqual([iso(0)]);
  });

  it('runs again once the unfinished previous run is older than maxRuntime', async () => {
    const { life, tickAt, status } = setup('forbid-timeout', {
      concurrency: 'forbid',
      maxRuntimeSeconds: 420,
    });
    await tickAt(0);
    await tickAt(5); // 10:00 run dispatched 5 min ago, maxRuntime 7 min: still "running"
    await tickAt(10); // 10 min ago: past maxRuntime, no longer blocks
    expect(await status(0)).toBe('dispatched');
    expect(await status(5)).toBe('skipped');
    expect(await status(10)).toBe('dispatched');
    expect(life.targets.instants('forbid-timeout')).toEqual([iso(0), iso(10)]);
  });
});

describe('concurrency: allow (the default)', () => {
  it('runs the next run while the previous one is still running', async () => {
    const { life, tickAt, status } = setup('allow-late', {});
    await tickAt(0);
    await tickAt(5);
    await tickAt(10);
    expect(await status(0)).toBe('dispatched');
    expect(await status(5)).toBe('dispatched');
    expect(life.targets.instants('allow-late')).toEqual([iso(0), iso(5), iso(10)]);
    expect(life.dispatch.metrics.count('allow-late', 'SkippedOverlap')).toBe(0);
  });
});
