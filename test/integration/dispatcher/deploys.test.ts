import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { periodBucket } from '../../../functions/schedule/index.ts';
import { updating } from '../../support/ddb-faults.ts';
import { RecordingDeadLetters, RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepMinutes, tickEvent } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// A deploy that changes a job's schedule takes effect at its deploy instant, the first event a
// dispatcher with the new bundle handles: the new schedule's runs at or before it are not runs,
// the later ones no tick decided are a gap (docs/semantics.md, "The life of a job"). Found by a
// fault search: an hourly job redeployed as */5 replayed the new schedule's runs since the old
// watermark as missed.

const hourly = makeJob({ id: 'recut', schedule: '0 * * * *', timezone: 'UTC' });
const fiveMinutely = { ...hourly, schedule: '*/5 * * * *' };

/**
 * A ledger on which the hourly job (beside `others`) ran at 10:00, and a dispatcher for each
 * bundle deployed after, sharing its clock and targets.
 */
async function ranAtTen(tableId: string, others: readonly JobDefinition[] = []) {
  const { client, tableName } = await faultableLedgerTable(tableId);
  const clock = new TestClock('2023-06-01T10:00:02Z');
  const targets = new RecordingTargets();
  const deploy = (jobs: JobDefinition[]) => harness({ client, tableName, clock, jobs, targets });
  const before = deploy([hourly, ...others]);
  await before.dispatcher.handle(tickEvent(hourly.id, '2023-06-01T10:00:00Z'));
  return { clock, targets, before, deploy };
}

describe('a schedule change', () => {
  it('replays none of the new schedule’s runs before its first tick, and calls none missed', async () => {
    const { clock, targets, deploy } = await ranAtTen('deploy1');
    // Redeployed at 10:20 as */5; its first tick is 10:25.
    clock.set('2023-06-01T10:25:01Z');
    const after = deploy([fiveMinutely]);
    await after.dispatcher.handle(tickEvent(fiveMinutely.id, '2023-06-01T10:25:00Z'));
    await sweepMinutes(after, clock, '2023-06-01T10:26:00Z', '2023-06-01T10:31:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z', '2023-06-01T10:25:00.000Z']);
    expect(after.metrics.count(hourly.id, 'MissedRuns')).toBe(0);
    expect(after.notifier.sent).toEqual([]);
  });

  it('replays nothing when a cold container’s first sweep meets the new schedule before any tick', async () => {
    const { clock, targets, before, deploy } = await ranAtTen('deploy2');
    await sweepMinutes(before, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:19:00Z');
    // Redeployed at 10:19:30 as */5: the new container's first sweep comes before any tick.
    const after = deploy([fiveMinutely]);
    for (const minute of ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '30', '31']) {
      await sweepMinutes(
        after,
        clock,
        `2023-06-01T10:${minute}:00Z`,
        `2023-06-01T10:${minute}:00Z`,
      );
      if (minute === '20' || minute === '25' || minute === '30') {
        clock.set(`2023-06-01T10:${minute}:01Z`);
        await after.dispatcher.handle(tickEvent(fiveMinutely.id, `2023-06-01T10:${minute}:00Z`));
      }
    }
    expect(targets.instants()).toEqual([
      '2023-06-01T10:00:00.000Z',
      '2023-06-01T10:20:00.000Z',
      '2023-06-01T10:25:00.000Z',
      '2023-06-01T10:30:00.000Z',
    ]);
    expect(after.metrics.count(hourly.id, 'MissedRuns')).toBe(0);
    expect(after.notifier.sent).toEqual([]);
  });

  it('catches up the new schedule’s runs lost after its deploy instant, and calls them missed', async () => {
    const { clock, targets, deploy } = await ranAtTen('deploy-gap');
    // Redeployed at 10:19:30 as */10: the new bundle's first event is the 10:20 sweep, which
    // has no run of the job due; its deploy instant is just before 10:20.
    const tenMinutely = { ...hourly, schedule: '*/10 * * * *' };
    const after = deploy([tenMinutely]);
    await sweepMinutes(after, clock, '2023-06-01T10:20:00Z', '2023-06-01T10:20:00Z');
    // Then nothing reaches the dispatcher until the 10:40 tick: 10:20 and 10:30 are lost.
    clock.set('2023-06-01T10:40:01Z');
    await after.dispatcher.handle(tickEvent(tenMinutely.id, '2023-06-01T10:40:00Z'));
    expect(targets.instants()).toEqual([
      '2023-06-01T10:00:00.000Z',
      '2023-06-01T10:20:00.000Z',
      '2023-06-01T10:30:00.000Z',
      '2023-06-01T10:40:00.000Z',
    ]);
    expect(after.metrics.count(hourly.id, 'MissedRuns')).toBe(2);
    expect(after.notifier.sent).toMatchObject([
      { signal: 'missed', jobId: hourly.id, runs: 2, first: '2023-06-01T10:20:00.000Z' },
    ]);
  });

  it('catches up the new schedule’s runs after its deploy instant when a later deploy comes before the job’s next event', async () => {
    const other = makeJob({ id: 'other', schedule: '0 3 * * *', timezone: 'UTC' });
    const { clock, targets, deploy } = await ranAtTen('deploy-twice', [other]);
    // Deploy A at 10:19:30 recuts the job as */10: its first event is the 10:20 sweep.
    const tenMinutely = { ...hourly, schedule: '*/10 * * * *' };
    const a = deploy([tenMinutely, other]);
    await sweepMinutes(a, clock, '2023-06-01T10:20:00Z', '2023-06-01T10:20:00Z');
    // Then nothing reaches the dispatcher; deploy B changes only the other job, and its first
    // event is the job's 10:50 tick: 10:20, 10:30 and 10:40 are A's schedule's, a gap.
    const moved = { ...other, schedule: '0 4 * * *' };
    const b = deploy([tenMinutely, moved]);
    clock.set('2023-06-01T10:50:01Z');
    await b.dispatcher.handle(tickEvent(tenMinutely.id, '2023-06-01T10:50:00Z'));
    expect(targets.instants()).toEqual([
      '2023-06-01T10:00:00.000Z',
      '2023-06-01T10:20:00.000Z',
      '2023-06-01T10:30:00.000Z',
      '2023-06-01T10:40:00.000Z',
      '2023-06-01T10:50:00.000Z',
    ]);
    expect(b.notifier.sent).toMatchObject([
      { signal: 'missed', jobId: hourly.id, runs: 3, first: '2023-06-01T10:20:00.000Z' },
    ]);
  });

  it('keeps catching up under the same schedule when a deploy changes only the target', async () => {
    const { client, tableName } = await faultableLedgerTable('deploy3');
    const clock = new TestClock('2023-06-01T08:00:02Z');
    const targets = new RecordingTargets();
    const before = harness({ client, tableName, clock, jobs: [hourly], targets });
    await before.dispatcher.handle(tickEvent(hourly.id, '2023-06-01T08:00:00Z'));
    const moved = {
      ...hourly,
      target: { type: 'sqs' as const, arn: 'arn:aws:sqs:us-east-1:000000000000:other' },
    };
    clock.set('2023-06-01T10:00:02Z');
    const after = harness({ client, tableName, clock, jobs: [moved], targets });
    await after.dispatcher.handle(tickEvent(moved.id, '2023-06-01T10:00:00Z'));
    expect(targets.instants()).toEqual([
      '2023-06-01T08:00:00.000Z',
      '2023-06-01T09:00:00.000Z',
      '2023-06-01T10:00:00.000Z',
    ]);
  });
});

describe('a job removed from jobs.yaml', () => {
  it('replays nothing of its absence when a later deploy lists it again', async () => {
    const { client, tableName } = await faultableLedgerTable('deploy4');
    const job = makeJob({ id: 'comes-back', schedule: '*/15 * * * *', timezone: 'UTC' });
    const other = makeJob({ id: 'stays', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    const first = harness({ client, tableName, clock, jobs: [job, other], targets });
    await first.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    await sweepMinutes(first, clock, '2023-06-01T10:01:00Z', '2023-06-01T10:02:00Z');
    // A deploy removes the job; its first sweep ends it.
    const without = harness({ client, tableName, clock, jobs: [other], targets });
    await sweepMinutes(without, clock, '2023-06-01T10:10:00Z', '2023-06-01T10:11:00Z');
    expect((await without.ledger.getJobState(job.id))?.removedAt).toBeDefined();
    // Seven days later a deploy lists it again; its first tick runs, nothing before it.
    clock.set('2023-06-08T10:00:02Z');
    const again = harness({ client, tableName, clock, jobs: [job, other], targets });
    await again.dispatcher.handle(tickEvent(job.id, '2023-06-08T10:00:00Z'));
    await sweepMinutes(again, clock, '2023-06-08T10:01:00Z', '2023-06-08T10:08:00Z');
    expect(targets.instants()).toEqual(['2023-06-01T10:00:00.000Z', '2023-06-08T10:00:00.000Z']);
    expect(again.metrics.count(job.id, 'MissedRuns')).toBe(0);
    expect(again.notifier.sent).toEqual([]);
  });

  it('dead-letters a run its dying tick left claimed when the next deploy drops the job', async () => {
    const { client, faults, tableName } = await faultableLedgerTable('deploy7');
    const job = makeJob({
      id: 'dropped-mid-run',
      schedule: '*/30 * * * *',
      timezone: 'UTC',
      retry: { maxAttempts: 2 },
    });
    const other = makeJob({ id: 'stays', schedule: '0 * * * *', timezone: 'UTC' });
    const clock = new TestClock('2023-06-01T10:30:00Z');
    const targets = new RecordingTargets();
    const deadLetters = new RecordingDeadLetters();
    const first = harness({ client, tableName, clock, jobs: [job, other], targets, deadLetters });
    await first.ledger.createJobState(job.id, new Date('2023-06-01T10:00:00Z'));
    // The claim reaches DynamoDB; the dispatcher dies before it hears back.
    faults.fail(updating('leaseUntilEpochMs'), { when: 'after', error: () => new Error('OOM') });
    await expect(
      first.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:30:00Z')),
    ).rejects.toThrow('OOM');
    // A deploy drops the job; its sweeps find the claim's lease over and nothing to retry it with.
    const without = harness({ client, tableName, clock, jobs: [other], targets, deadLetters });
    await sweepMinutes(without, clock, '2023-06-01T10:32:00Z', '2023-06-01T10:37:00Z');
    const key = periodBucket(job.id, new Date('2023-06-01T10:30:00Z'));
    expect(await without.ledger.getRun(key)).toMatchObject({
      status: 'failed',
      failure: 'delivery',
      attempts: 1,
    });
    expect(deadLetters.messages.map((m) => m.key)).toEqual([key]);
    expect(targets.instants()).toEqual([]);
  });
});

// A job gets on the roster by a sweep's roll call, and by the tick that starts it: a deploy
// whose sweeps never ran (or always failed) before the next deploy dropped the job still had
// the job's state written by its first tick, and the dropping deploy's first sweep must end it.
describe('a job dropped before any sweep of the deploy that listed it', () => {
  const job = makeJob({ id: 'short-lived', schedule: '*/15 * * * *', timezone: 'UTC' });
  const other = makeJob({ id: 'stays', schedule: '0 * * * *', timezone: 'UTC' });

  /** One ledger, clock and target; `deploy(jobs)` is a dispatcher running with those jobs. */
  async function stack(tableId: string) {
    const { client, tableName } = await faultableLedgerTable(tableId);
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const targets = new RecordingTargets();
    const deploy = (jobs: JobDefinition[]) => harness({ client, tableName, clock, jobs, targets });
    return { clock, targets, deploy };
  }
  type Stack = Awaited<ReturnType<typeof stack>>;

  /** The job's first tick at 10:00 of `day`, by a deploy that lists it; that deploy. */
  async function firstTick({ clock, deploy }: Stack, day: string) {
    clock.set(`${day}T10:00:02Z`);
    const listing = deploy([job, other]);
    await listing.dispatcher.handle(tickEvent(job.id, `${day}T10:00:00Z`));
    return listing;
  }

  /** A deploy without the job, whose sweeps run at 10:10 and 10:11 of `day`: it must end it. */
  async function dropped({ clock, deploy }: Stack, day: string) {
    const without = deploy([other]);
    await sweepMinutes(without, clock, `${day}T10:10:00Z`, `${day}T10:11:00Z`);
    expect((await without.ledger.getJobState(job.id))?.removedAt).toBeDefined();
  }

  /** Listed again on `day`: its first tick delivers its run and replays nothing. */
  async function listedAgain(s: Stack, day: string) {
    const again = await firstTick(s, day);
    expect(again.metrics.count(job.id, 'MissedRuns')).toBe(0);
    expect(again.notifier.sent).toEqual([]);
  }

  it('is ended by the dropping deploy’s first sweep when only its first tick ran', async () => {
    const s = await stack('deploy5');
    await firstTick(s, '2023-06-01');
    // Redeployed without the job at 10:09:30, before any sweep of the first deploy.
    await dropped(s, '2023-06-01');
    await listedAgain(s, '2023-06-08');
    expect(s.targets.instants()).toEqual(['2023-06-01T10:00:00.000Z', '2023-06-08T10:00:00.000Z']);
  });

  it('is ended again when the deploy that listed it again ran only its first tick', async () => {
    const s = await stack('deploy6');
    await firstTick(s, '2023-06-01');
    await sweepMinutes(
      s.deploy([job, other]),
      s.clock,
      '2023-06-01T10:01:00Z',
      '2023-06-01T10:02:00Z',
    );
    await dropped(s, '2023-06-01');
    // Listed again on 06-08; its first tick runs, and the next deploy drops it before any sweep.
    await firstTick(s, '2023-06-08');
    await dropped(s, '2023-06-08');
    await listedAgain(s, '2023-06-15');
    expect(s.targets.instants()).toEqual([
      '2023-06-01T10:00:00.000Z',
      '2023-06-08T10:00:00.000Z',
      '2023-06-15T10:00:00.000Z',
    ]);
  });
});
