import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { key, lambdaTarget, tablePerCase } from '../../support/dispatcher-cases.ts';
import { TestClock } from '../../support/doubles.ts';
import {
  type Lifecycle,
  lifecycle,
  sweepMinutes,
  tickEvent as tick,
} from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';

// Finish-by deadlines (docs/semantics.md §6, "Deadlines"), on the recorder's side: a run whose
// end is recorded after its deadline, and that no sweep caught still running at it, raises
// `deadline-missed` in the recorder's own write, once. The dispatcher and the recorder against
// DynamoDB Local.

let client: DynamoDBClient;
let tableName: string;

const job = makeJob({
  id: 'export',
  schedule: '0 * * * *',
  timezone: 'America/New_York',
  target: lambdaTarget('export'),
  maxRuntimeSeconds: 3600,
  deadline: { afterSeconds: 600 },
});
const RUN = '2023-06-01T10:00:00Z';

/** The run delivered on time by its tick; its delivery. */
async function delivered(clock: TestClock): Promise<{ life: Lifecycle; envelope: Received }> {
  const life = lifecycle({ client, tableName, clock, jobs: [job] });
  await life.dispatch.dispatcher.handle(tick(job.id, RUN));
  const [delivery] = life.targets.received;
  if (!delivery) throw new Error('the run was not delivered');
  return { life, envelope: delivery.envelope };
}
type Received = Lifecycle['targets']['received'][number]['envelope'];

describe('deadline-missed raised by the recorder', () => {
  tablePerCase('recorder-deadlines', {}, (tables) => {
    ({ client, tableName } = tables);
  });

  it('raises deadline-missed once when a success is recorded after the deadline and no sweep looked first', async () => {
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const { life, envelope } = await delivered(clock);
    clock.set('2023-06-01T10:10:30Z');
    expect(await life.complete(envelope, new Date('2023-06-01T10:10:29Z'))).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
      effects: ['notify:deadline-missed'],
    });
    // The report again: a duplicate, nothing more.
    await life.complete(envelope, new Date('2023-06-01T10:10:29Z'));
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:11:00Z', '2023-06-01T10:14:00Z');
    const runKey = key(job, RUN);
    expect(life.notifier.count(runKey, 'deadline-missed')).toBe(1);
    expect(life.recorderMetrics.count(job.id, 'DeadlineMissedRuns')).toBe(1);
    expect(life.dispatch.metrics.count(job.id, 'DeadlineMissedRuns')).toBe(0);
    expect(life.notifier.sent[0]).toMatchObject({
      status: 'succeeded',
      local: '2023-06-01 06:00 -04:00 EDT (America/New_York)',
      deadlineLocal: '2023-06-01 06:10 -04:00 EDT (America/New_York)',
      deadlineAt: '2023-06-01T10:10:00.000Z',
    });
    expect(life.notifier.sent[0]?.summary).toMatch(/; it succeeded after the deadline$/);
    expect(await life.dispatch.ledger.getRun(runKey)).toMatchObject({
      status: 'succeeded',
      signals: ['deadline-missed'],
      outbox: [],
    });
  });

  it('raises deadline-missed beside run-failed when a failure is recorded after the deadline', async () => {
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const { life, envelope } = await delivered(clock);
    clock.set('2023-06-01T10:10:30Z');
    await life.complete(envelope, new Date('2023-06-01T10:10:29Z'), 'RetriesExhausted');
    const runKey = key(job, RUN);
    expect(life.notifier.count(runKey, 'run-failed')).toBe(1);
    expect(life.notifier.count(runKey, 'deadline-missed')).toBe(1);
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:11:00Z', '2023-06-01T10:15:00Z');
    expect(life.notifier.count(runKey, 'deadline-missed')).toBe(1);
  });

  it('raises no second deadline-missed for a success recorded after the sweep raised it', async () => {
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const { life, envelope } = await delivered(clock);
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:10:00Z', '2023-06-01T10:11:00Z');
    const runKey = key(job, RUN);
    expect(life.notifier.count(runKey, 'deadline-missed')).toBe(1);
    clock.set('2023-06-01T10:12:00Z');
    expect(await life.complete(envelope, new Date('2023-06-01T10:11:59Z'))).toMatchObject({
      outcome: 'recorded',
      effects: [],
    });
    expect(life.notifier.count(runKey, 'deadline-missed')).toBe(1);
    expect(life.recorderMetrics.count(job.id, 'DeadlineMissedRuns')).toBe(0);
  });

  it('raises nothing when the success is recorded at the deadline itself', async () => {
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const { life, envelope } = await delivered(clock);
    clock.set('2023-06-01T10:10:00Z');
    await life.complete(envelope, new Date('2023-06-01T10:09:59Z'));
    await sweepMinutes(life.dispatch, clock, '2023-06-01T10:10:00Z', '2023-06-01T10:13:00Z');
    expect(life.notifier.sent).toEqual([]);
  });
});
