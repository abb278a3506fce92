import { describe, expect, it } from 'vitest';
import { fiveMinutely } from '../../support/dispatcher-cases.ts';
import { RecordingTargets, TestClock } from '../../support/doubles.ts';
import { harness, sweepMinutes, tickEvent } from '../../support/harness.ts';
import { faultableLedgerTable } from '../../support/ledger.ts';

// Pauses: runs of a pause are skipped, and a pause ends when it says.
//
// The dispatcher core (and recorder) against DynamoDB Local, faults injected at the exact
// request where they bite; test/support/dispatcher-cases.ts says what "found by" means.

describe('pauses', () => {
  // Found by the seeded chaos simulation.
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
});

describe('a pause with --until', () => {
  // Found by the seeded chaos simulation.
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
