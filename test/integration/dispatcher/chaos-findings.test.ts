import { describe, expect, it } from 'vitest';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { throttled, updating } from '../../support/ddb-faults.ts';
import { RecordingDeadLetters, RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepEvent, sweepMinutes, tickEvent } from '../../support/harness.ts';
import { type JobOverrides, makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Each scenario here was found by the seeded chaos simulation (`zonecron simulate --faults`,
// test/integration/cli/simulation/run-simulation.test.ts): an invariant failed, and the fault
// that broke it is injected here at the exact request, against DynamoDB Local, with the real
// dispatcher core.

/** The stack's lease: the dispatcher's 60 s timeout plus 30 s. */
const STACK_LEASE_SECONDS = 90;
const fiveMinutely = makeJob({ id: 'every-five', schedule: '*/5 * * * *', timezone: 'UTC' });

/** A job every 15 minutes whose state starts at 10:00, its harness at 10:16:20, and `at(hh:mm)`'s key. */
async function quarterly(tableId: string, catchup: NonNullable<JobOverrides['catchup']>) {
  const { client, faults, tableName } = await faultableLedgerTable(tableId);
  const job = makeJob({
    id: 'quarterly',
    schedule: '*/15 * * * *',
    timezone: 'UTC',
    catchup,
    alarm: { graceSeconds: 60 },
  });
  const clock = new TestClock('2023-06-01T10:16:20Z');
  const targets = new RecordingTargets();
  const options = { leaseSeconds: STACK_LEASE_SECONDS };
  const h = harness({ client, tableName, clock, jobs: [job], targets, options });
  await h.ledger.createJobState(job.id, new Date('2023-06-01T10:00:00Z'));
  const at = (hm: string) => periodBucket(job.id, new Date(`2023-06-01T${hm}:00Z`));
  return { h, faults, clock, targets, job, at };
}
const ALL_ONE = { policy: 'all', windowSeconds: 86_400, maxRuns: 1 } as const;
const LATEST = { policy: 'latest', windowSeconds: 86_400 } as const;

describe('found by the chaos simulation', () => {
  it("keeps the watermark when a late tick's catch-up fails half-way, so the tick's retry catches every run up", async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c1');
    const clock = new TestClock('2023-06-01T10:40:00.200Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [fiveMinutely], targets });
    // Nothing reached the dispatcher from 10:10 to 10:40 (an outage).
    await h.ledger.createJobState(fiveMinutely.id, new Date('2023-06-01T10:05:00Z'));
    // The catch-up's read of the undecided runs is throttled: the invocation fails.
    faults.fail((r) => r.command === 'BatchGetItemCommand');
    await expect(
      h.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:40:00Z')),
    ).rejects.toThrow(/throughput/);
    expect(await h.ledger.getJobState(fiveMinutely.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:05:00.000Z',
    });
    expect((await h.ledger.getJobState(fiveMinutely.id))?.catchupLeaseUntilEpochMs).toBeUndefined();
    // Lambda retries the tick a minute later: it catches up every run since the watermark.
    clock.set('2023-06-01T10:41:00.200Z');
    await h.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:40:00Z'));
    expect(targets.instants()).toEqual(
      ['10:10', '10:15', '10:20', '10:25', '10:30', '10:35', '10:40'].map(
        (hm) => `2023-06-01T${hm}:00.000Z`,
      ),
    );
  });

  it('checks the same minutes again while another dispatcher holds the catch-up lease, and decides the run once it ends', async () => {
    const { client, tableName } = await faultableLedgerTable('c2');
    const clock = new TestClock('2023-06-01T10:09:30Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [fiveMinutely], targets });
    // The 10:05 tick moved the watermark, and its claim never landed (throttled through all
    // of Lambda's retries): the run is undecided at the watermark, for the sweep to find.
    await h.ledger.createJobState(fiveMinutely.id, new Date('2023-06-01T10:00:00Z'));
    await h.ledger.advanceWatermark(fiveMinutely.id, new Date('2023-06-01T10:05:00Z'));
    // A dispatcher took the job's catch-up lease and died holding it: it ends at 10:11:00.
    const now = clock.now().getTime();
    await h.ledger.acquireCatchup(fiveMinutely.id, now, now + STACK_LEASE_SECONDS * 1000);
    const first = await h.dispatcher.handle(sweepEvent('2023-06-01T10:10:00Z'));
    expect(first).toMatchObject({ deferred: [fiveMinutely.id], outcomes: [] });
    await sweepMinutes(h, clock, '2023-06-01T10:11:00Z', '2023-06-01T10:13:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:05:00.000Z']);
    const key = periodBucket(fiveMinutely.id, new Date('2023-06-01T10:05:00Z'));
    expect(await h.ledger.getRun(key)).toMatchObject({ status: 'dispatched', origin: 'sweep' });
  });

  it('skips a run left at the watermark with no item as outside-window, missed, once the sweep finds it older than the window', async () => {
    const { client, tableName } = await faultableLedgerTable('c2b');
    const clock = new TestClock('2023-06-01T10:09:30Z');
    const targets = new RecordingTargets();
    const job = makeJob({ ...fiveMinutely, catchup: { windowSeconds: 60 } });
    const h = harness({ client, tableName, clock, jobs: [job], targets });
    // As above: W at 10:05 and no item for it; a lease held until 10:12:00 defers the sweeps
    // of 10:10 and 10:11, so the sweep that decides the run is that of 10:12, whose window
    // (one minute, ending at 10:12 − 5m grace = 10:07) no longer reaches it.
    await h.ledger.createJobState(job.id, new Date('2023-06-01T10:00:00Z'));
    await h.ledger.advanceWatermark(job.id, new Date('2023-06-01T10:05:00Z'));
    const now = clock.now().getTime();
    await h.ledger.acquireCatchup(job.id, now, now + 150_000);
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:10:00Z'));
    await sweepMinutes(h, clock, '2023-06-01T10:11:00Z', '2023-06-01T10:13:00Z');
    expect(targets.instants()).toEqual([]);
    const key = periodBucket(job.id, new Date('2023-06-01T10:05:00Z'));
    expect(await h.ledger.getRun(key)).toMatchObject({
      status: 'skipped',
      skipReason: 'outside-window',
      origin: 'sweep',
    });
    expect(h.notifier.sent).toMatchObject([
      {
        signal: 'missed',
        runs: 1,
        first: '2023-06-01T10:05:00.000Z',
        last: '2023-06-01T10:05:00.000Z',
      },
    ]);
  });

  it("counts a retried tick's takeover of an expired claim as a possible redelivery", async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c3');
    const job = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:00.200Z');
    const targets = new RecordingTargets();
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job],
      targets,
      options: { leaseSeconds: STACK_LEASE_SECONDS },
    });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    // The target takes the run; the dispatcher dies before it records the delivery.
    faults.fail(updating('dispatchedAt'), { error: () => new Error('Runtime.ExitError') });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      'Runtime.ExitError',
    );
    // Lambda's retries: a minute later the lease still holds; two minutes after that it ended.
    clock.set('2023-06-01T10:01:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    clock.set('2023-06-01T10:03:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(targets.received.map((r) => r.envelope.attempt)).toEqual([1, 2]);
    expect(h.metrics.count(job.id, 'Redelivered')).toBe(1);
    expect(h.logger.withMessage('possible-redelivery')).toHaveLength(1);
  });

  it('sends one dead letter when the write confirming it is throttled once', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c4');
    const job = makeJob({
      id: 'fragile',
      schedule: '0 * * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 1 },
    });
    const clock = new TestClock('2023-06-01T10:00:00.200Z');
    const targets = new RecordingTargets();
    targets.failWith = new Error('target down');
    const deadLetters = new RecordingDeadLetters();
    const h = harness({ client, tableName, clock, jobs: [job], targets, deadLetters });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    // The message went out; the write that takes it off the run's outbox is throttled.
    faults.fail(
      (r) =>
        r.command === 'UpdateItemCommand' && String(r.input.UpdateExpression).includes('DELETE'),
    );
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    // Past the outbox's lease the sweep looks at the run again.
    await sweepMinutes(h, clock, '2023-06-01T10:03:00Z', '2023-06-01T10:05:00Z');
    expect(deadLetters.messages.map((m) => m.key)).toEqual([
      periodBucket(job.id, new Date('2023-06-01T10:00:00Z')),
    ]);
    expect(h.notifier.sent.map((n) => n.signal)).toEqual(['dead-lettered']);
  });

  it('does not call a run late when a retried tick delivers it again after an on-time first delivery', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('c5');
    const job = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });
    // The tick arrives 4 minutes late, inside the job's 5 minutes of grace.
    const clock = new TestClock('2023-06-01T10:04:00.200Z');
    const targets = new RecordingTargets();
    const h = harness({
      client,
      tableName,
      clock,
      jobs: [job],
      targets,
      options: { leaseSeconds: STACK_LEASE_SECONDS },
    });
    await h.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    faults.fail(updating('dispatchedAt'), { error: () => new Error('Runtime.ExitError') });
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'))).rejects.toThrow(
      'Runtime.ExitError',
    );
    // Lambda's last retry takes the expired claim over, 7 minutes after the run was due.
    clock.set('2023-06-01T10:07:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    expect(targets.received.map((r) => r.envelope.attempt)).toEqual([1, 2]);
    expect(h.notifier.sent.map((n) => n.signal)).toEqual([]);
    expect(h.metrics.count(job.id, 'LateRuns')).toBe(0);
  });

  it('records a run of a pause skipped when its late tick arrives after the pause ended', async () => {
    const { client, tableName } = await faultableLedgerTable('c6');
    const clock = new TestClock('2023-06-01T10:20:00Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [fiveMinutely], targets });
    await h.ledger.createJobState(fiveMinutely.id, new Date('2023-06-01T10:15:00Z'));
    await h.ledger.pause(fiveMinutely.id, { at: clock.now(), by: 'ops', reason: 'migration' });
    await h.ledger.resume(fiveMinutely.id, { at: new Date('2023-06-01T10:50:00Z') });
    // The 10:45 tick was held up for 7 minutes: it arrives after the operator resumed.
    clock.set('2023-06-01T10:52:28Z');
    const late = await h.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:45:00Z'));
    expect(late).toMatchObject({ outcomes: [{ outcome: 'skipped', reason: 'paused' }] });
    // The run due the instant the pause ended is live.
    const onTime = await h.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:50:00Z'));
    expect(onTime).toMatchObject({ outcomes: [{ outcome: 'dispatched' }] });
    expect(targets.instants()).toEqual(['2023-06-01T10:50:00.000Z']);
  });

  it("keeps a gap's spent maxRuns when a late tick finds its own run already skipped by a sweep that died before moving the watermark", async () => {
    const { h, faults, clock, targets, job, at } = await quarterly('c7', ALL_ONE);
    // The 10:15 tick is lost: the sweep catches 10:15 up and spends the gap's one run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The ticks of 10:30 and 10:45 are late; the sweeps after them skip each run (max-runs)
    // and die before the write that moves W, so W stays at 10:15.
    const dies = () => new Error('Runtime.ExitError');
    faults.fail(updating('gapCaughtUp'), { times: 2, error: dies });
    for (const minute of ['10:31', '10:46']) {
      clock.set(`2023-06-01T${minute}:20Z`);
      await expect(h.dispatcher.handle(sweepEvent(`2023-06-01T${minute}:00Z`))).rejects.toThrow();
    }
    // The 10:45 tick arrives: W is behind its previous run, so it catches up (W, 10:45], and
    // its own run is already skipped. It delivered nothing of its own: the gap goes on.
    clock.set('2023-06-01T10:50:00Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:45:00Z'));
    expect(await h.ledger.getJobState(job.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:45:00.000Z',
      gapCaughtUp: 1,
    });
    clock.set('2023-06-01T11:01:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T11:01:00Z'));
    expect(await h.ledger.getRun(at('11:00'))).toMatchObject({
      status: 'skipped',
      skipReason: 'max-runs',
    });
    expect(targets.instants()).toEqual(['2023-06-01T10:15:00.000Z']);
  });

  it("keeps a gap's spent maxRuns when a late tick that moves the watermark straight to its run finds the run already skipped by a sweep that died before moving it, and ends the gap at the next run its tick claims", async () => {
    const { h, faults, clock, targets, job, at } = await quarterly('c7b', ALL_ONE);
    // The 10:15 tick is lost: the sweep catches 10:15 up and spends the gap's one run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The 10:30 tick is late; the sweep before it skips 10:30 (max-runs) and dies before the
    // write that moves W, so W stays at 10:15, the run before 10:30.
    faults.fail(updating('gapCaughtUp'), { times: 1, error: () => new Error('Runtime.ExitError') });
    clock.set('2023-06-01T10:31:20Z');
    await expect(h.dispatcher.handle(sweepEvent('2023-06-01T10:31:00Z'))).rejects.toThrow();
    // The 10:30 tick arrives: W is at its previous run, so it moves W straight to 10:30, and
    // its claim finds the run skipped. It delivered nothing of its own: the gap goes on.
    clock.set('2023-06-01T10:32:00Z');
    const late = await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:30:00Z'));
    expect(late).toMatchObject({ outcomes: [{ outcome: 'duplicate' }] });
    expect(await h.ledger.getJobState(job.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:30:00.000Z',
      gapCaughtUp: 1,
    });
    // The 10:45 tick is lost: the sweep finds the gap's budget spent.
    clock.set('2023-06-01T10:46:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:46:00Z'));
    expect(await h.ledger.getRun(at('10:45'))).toMatchObject({
      status: 'skipped',
      skipReason: 'max-runs',
    });
    expect(targets.instants()).toEqual(['2023-06-01T10:15:00.000Z']);
    // The 11:00 tick is on time and claims its own run: that ends the gap.
    clock.set('2023-06-01T11:00:00.200Z');
    await h.dispatcher.handle(tickEvent(job.id, '2023-06-01T11:00:00Z'));
    expect((await h.ledger.getJobState(job.id))?.gapCaughtUp).toBeUndefined();
    expect(targets.instants()).toEqual(['2023-06-01T10:15:00.000Z', '2023-06-01T11:00:00.000Z']);
  });

  it('ends a gap at a run its on-time tick claimed, though the tick died before it cleared the budget', async () => {
    const { h, faults, clock, job, at } = await quarterly('c7c', LATEST);
    // The 10:15 tick is lost: the sweep catches 10:15 up, the gap's one latest run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The 10:30 tick is on time and claims its run; it dies on the write that ends the gap.
    const endsGap = (r: { command: string; input: Record<string, unknown> }) =>
      r.command === 'UpdateItemCommand' && String(r.input.UpdateExpression).startsWith('REMOVE');
    faults.fail(endsGap, { times: 1, error: () => new Error('Runtime.ExitError') });
    clock.set('2023-06-01T10:30:00.200Z');
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:30:00Z'))).rejects.toThrow();
    expect(await h.ledger.getJobState(job.id)).toMatchObject({ gapCaughtUp: 1 });
    // The 10:45 tick is lost: a new gap, with a budget of its own.
    clock.set('2023-06-01T10:46:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:46:00Z'));
    expect(await h.ledger.getRun(at('10:45'))).toMatchObject({
      status: 'dispatched',
      origin: 'sweep',
    });
  });

  it("ends a gap at a run whose on-time tick moved the watermark onto it and died before its claim, the sweep delivering it as the tick's own", async () => {
    const { h, faults, clock, targets, job, at } = await quarterly('c7d', LATEST);
    // The 10:15 tick is lost: the sweep catches 10:15 up, the gap's one latest run.
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:16:00Z'));
    // The 10:30 tick is on time: it moves W onto 10:30, and its claim is throttled.
    faults.fail(updating('secretHashes'), { times: 1, error: throttled });
    clock.set('2023-06-01T10:30:00.200Z');
    await expect(h.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:30:00Z'))).rejects.toThrow();
    expect(await h.ledger.getJobState(job.id)).toMatchObject({
      watermarkAt: '2023-06-01T10:30:00.000Z',
      gapCaughtUp: 1,
    });
    // The sweep finds 10:30 at W with no item, an orphan: the tick's own run, which ends the gap.
    clock.set('2023-06-01T10:31:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:31:00Z'));
    expect(await h.ledger.getRun(at('10:30'))).toMatchObject({
      status: 'dispatched',
      origin: 'tick',
    });
    // Past its grace it is late, as its tick's own run, not missed: only 10:15 was.
    expect(h.notifier.sent.map((n) => [n.signal, n.first])).toEqual([
      ['missed', '2023-06-01T10:15:00.000Z'],
      ['late', '2023-06-01T10:30:00.000Z'],
    ]);
    // The 10:45 tick is lost: a new gap, with a budget of its own.
    clock.set('2023-06-01T10:46:20Z');
    await h.dispatcher.handle(sweepEvent('2023-06-01T10:46:00Z'));
    expect(targets.instants()).toEqual(
      ['10:15', '10:30', '10:45'].map((hm) => `2023-06-01T${hm}:00.000Z`),
    );
  });
});

describe('a pause with --until', () => {
  it('ends at its until instant: a late tick of a run before it is skipped, runs after it are live, even when no tick came in between', async () => {
    const { client, tableName } = await faultableLedgerTable('until');
    const clock = new TestClock('2023-06-01T10:20:00Z');
    const targets = new RecordingTargets();
    const h = harness({ client, tableName, clock, jobs: [fiveMinutely], targets });
    await h.ledger.createJobState(fiveMinutely.id, new Date('2023-06-01T10:15:00Z'));
    await h.ledger.pause(fiveMinutely.id, {
      at: clock.now(),
      by: 'ops',
      reason: 'migration',
      until: new Date('2023-06-01T10:30:00Z'),
    });
    // Nothing reached the dispatcher from 10:20 on; the 10:25 tick arrives at 10:36.
    clock.set('2023-06-01T10:36:00Z');
    const late = await h.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:25:00Z'));
    expect(late).toMatchObject({ outcomes: [{ outcome: 'skipped', reason: 'paused' }] });
    // 10:30 (the instant the pause ended) and 10:35 were due after it: the sweep catches them up.
    await sweepMinutes(h, clock, '2023-06-01T10:41:00Z', '2023-06-01T10:43:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:30:00.000Z', '2023-06-01T10:35:00.000Z']);
  });
});
