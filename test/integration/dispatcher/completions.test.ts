import { describe, expect, it } from 'vitest';
import { lambdaTarget } from '../../support/dispatcher-cases.ts';
import { TestClock } from '../../support/doubles.ts';
import { type Lifecycle, lambdaResult, lifecycle, tickEvent } from '../../support/harness.ts';
import { makeJob } from '../../support/jobs.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Completions: what the recorder does with a report that is stale or not from the target.
//
// The dispatcher core (and recorder) against DynamoDB Local, faults injected at the exact
// request where they bite; test/support/dispatcher-cases.ts says what "found by" means.

describe('completions', () => {
  // Found by a fault search against DynamoDB Local.
  it('records a late completion of a delivery before a redrive as stale, not against the redriven one', async () => {
    const { client, tableName } = await faultableLedgerTable('f5');
    const job = makeJob({
      id: 'redriven',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: lambdaTarget('r'),
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.ledger.createJobState(job.id, new Date('2023-06-01T09:00:00Z'));
    await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    const first = life.targets.received[0]
      ?.envelope as Lifecycle['targets']['received'][0]['envelope'];
    clock.set('2023-06-01T10:05:00Z');
    await life.complete(first, new Date('2023-06-01T10:05:00Z'), 'RetriesExhausted');
    clock.set('2023-06-01T10:20:00Z');
    await life.dispatch.dispatcher.redrive({ jobId: job.id, at: new Date('2023-06-01T10:00:00Z') });
    const second = life.targets.received[1]?.envelope as typeof first;
    expect(second.attempt).toBe(2);
    // Lambda delivers the failure record of the first invocation once more, late.
    const stale = await life.complete(first, new Date('2023-06-01T10:05:00Z'), 'RetriesExhausted');
    expect(stale).toMatchObject({ outcome: 'ignored', reason: 'stale-attempt:1-of-2' });
    expect(await life.complete(second, new Date('2023-06-01T10:21:00Z'))).toMatchObject({
      outcome: 'recorded',
      status: 'succeeded',
    });
    expect((await life.dispatch.ledger.getRun(first.key))?.status).toBe('succeeded');
    expect(life.deadLetters.messages).toHaveLength(1);
  });

  // Found by a fault search against DynamoDB Local.
  it("ignores a completion reported by a function that is not the job's target", async () => {
    const { client, tableName } = await faultableLedgerTable('f12');
    const job = makeJob({
      id: 'own-target',
      schedule: '0 * * * *',
      timezone: 'UTC',
      target: lambdaTarget('mine'),
    });
    const clock = new TestClock('2023-06-01T10:00:02Z');
    const life = lifecycle({ client, tableName, clock, jobs: [job] });
    await life.dispatch.dispatcher.handle(tickEvent(job.id, '2023-06-01T10:00:00Z'));
    const delivery = life.targets.received[0];
    if (!delivery) throw new Error('not delivered');
    const foreign = lambdaResult(
      'arn:aws:lambda:us-east-1:000000000000:function:someone-else',
      delivery.deliveryId,
      delivery.envelope,
      new Date('2023-06-01T10:01:00Z'),
    );
    expect(await life.recorder.handle(foreign)).toMatchObject({ outcome: 'ignored' });
    expect((await life.dispatch.ledger.getRun(delivery.envelope.key))?.status).toBe('dispatched');
  });
});
