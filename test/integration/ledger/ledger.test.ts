import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  type ClaimRequest,
  type CompletionWrite,
  createDynamoLedger,
  createRecorderLedger,
  createZoneDriftLedger,
  type Ledger,
  openShardOf,
  type RecorderLedger,
  type ZoneDriftClaim,
  type ZoneDriftLedger,
} from '#ledger/index.ts';
import { startContractStores } from '../../support/ledger-stores.ts';

// One contract, two stores: DynamoDB Local (what the tests trust) and dynalite (the CLI
// simulation's and the sandbox's store). Every expression the ledger writes runs on both.
const contract = await startContractStores(inject('dynamoEndpoint'));
afterAll(() => contract.stop());

const stores = contract.stores.map(([name, openStore]): [string, () => Promise<Ledger>] => [
  name,
  async () => createDynamoLedger(await openStore()),
]);

const AT = new Date('2023-10-29T00:30:00.000Z');
const T = 1_700_000_000_000;
const KEY = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const claim = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
  key: KEY,
  jobId: 'job',
  at: AT,
  nominal: '2023-10-29T02:30',
  dst: 'overlap',
  manual: false,
  origin: 'tick',
  target: 'arn:aws:sqs:us-east-1:000000000000:q',
  secretHash: 'a'.repeat(64),
  mode: 'any',
  maxAttempts: 3,
  nowEpochMs: T,
  leaseUntilEpochMs: T + 90_000,
  ttlEpochSec: 1_800_000_000,
  missed: false,
  ...over,
});
const delivered = (over = {}) => ({
  dispatchedAt: new Date(T + 1000),
  deliveryId: 'd-1',
  stuckCheckAtEpochMs: undefined,
  late: false,
  outboxLeaseUntilEpochMs: T + 120_000,
  ...over,
});
const shard = openShardOf(KEY);

describe.each(stores)('the ledger on %s', (_name, open) => {
  describe('runs', () => {
    it('admits a key once, returns the stored item to the refused claim, and lists it open until its lease ends', async () => {
      const ledger = await open();
      const first = await ledger.claim(claim());
      const second = await ledger.claim(claim({ nowEpochMs: T + 1 }));
      expect(first).toMatchObject({
        claimed: true,
        item: { status: 'claimed', attempts: 1, roundAttempts: 1, leaseUntilEpochMs: T + 90_000 },
      });
      expect(second).toMatchObject({
        claimed: false,
        existing: { status: 'claimed', attempts: 1 },
      });
      expect(await ledger.findDue(shard, T + 89_999, 10)).toEqual([]);
      expect((await ledger.findDue(shard, T + 90_000, 10)).map((r) => r.key)).toEqual([KEY]);
    });

    it('lets a reclaim take over an expired lease, counting the attempt, and fences the old holder out', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      expect((await ledger.claim(claim({ mode: 'reclaim', nowEpochMs: T + 60_000 }))).claimed).toBe(
        false,
      );
      const taken = await ledger.claim(claim({ mode: 'reclaim', nowEpochMs: T + 91_000 }));
      expect(taken).toMatchObject({ claimed: true, item: { attempts: 2, roundAttempts: 2 } });
      expect(await ledger.markDispatched(KEY, 1, delivered())).toBe(false);
      expect(await ledger.markDispatched(KEY, 2, delivered())).toBe(true);
    });

    it('creates only with mode create, and raises missed with its notification owed', async () => {
      const ledger = await open();
      const created = await ledger.claim(claim({ mode: 'create', missed: true }));
      expect(created).toMatchObject({
        claimed: true,
        item: {
          signals: ['missed'],
          outbox: ['notify:missed'],
          outboxLeaseUntilEpochMs: T + 90_000,
        },
      });
      expect((await ledger.claim(claim({ mode: 'create' }))).claimed).toBe(false);
    });

    it('takes a dispatched queue run out of the open index, and keeps a tracked one until maxRuntime', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      await ledger.markDispatched(KEY, 1, delivered());
      expect(await ledger.getRun(KEY)).toMatchObject({ status: 'dispatched', deliveryId: 'd-1' });
      expect(await ledger.findDue(shard, T + 10_000_000, 10)).toEqual([]);

      const tracked = await open();
      await tracked.claim(claim());
      await tracked.markDispatched(KEY, 1, delivered({ stuckCheckAtEpochMs: T + 3_600_000 }));
      expect(await tracked.findDue(shard, T + 3_599_999, 10)).toEqual([]);
      expect(await tracked.findDue(shard, T + 3_600_000, 10)).toHaveLength(1);
    });

    it('keeps a dispatched or skipped run in the open index while a missed notification is owed, and lets it go once confirmed', async () => {
      for (const end of ['dispatched', 'skipped'] as const) {
        const ledger = await open();
        await ledger.claim(claim({ mode: 'create', missed: true }));
        if (end === 'dispatched') await ledger.markDispatched(KEY, 1, delivered());
        else await ledger.markSkipped(KEY, 1, 'overlap', 'previous run still running');
        expect(await ledger.getRun(KEY)).toMatchObject({ status: end, outbox: ['notify:missed'] });
        expect(await ledger.findDue(shard, T + 90_000, 10)).toHaveLength(1);
        await ledger.confirmOutbox(KEY, ['notify:missed']);
        expect(await ledger.closeOpen(KEY, { status: end, checkAtEpochMs: T + 90_000 })).toBe(true);
        expect(await ledger.findDue(shard, T + 10_000_000, 10)).toEqual([]);
      }
    });

    it('refuses to dispatch or skip a run whose claim was taken over, outbox owed or not', async () => {
      const ledger = await open();
      await ledger.claim(claim({ mode: 'create', missed: true }));
      expect(await ledger.markDispatched(KEY, 2, delivered())).toBe(false);
      expect(await ledger.markSkipped(KEY, 2, 'overlap', 'x')).toBe(false);
      expect(await ledger.getRun(KEY)).toMatchObject({ status: 'claimed', attempts: 1 });
    });

    it('records lateness with its notification owed, once', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      await ledger.markDispatched(KEY, 1, delivered({ late: true }));
      expect(await ledger.getRun(KEY)).toMatchObject({
        signals: ['late'],
        outbox: ['notify:late'],
        checkAtEpochMs: T + 120_000,
      });
    });

    it('re-admits a failed attempt until the round is used, at its retry time', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      await ledger.releaseFailed(KEY, 1, { lastError: 'boom', retryAtEpochMs: T + 60_000 });
      expect(await ledger.getRun(KEY)).toMatchObject({
        status: 'delivery-failed',
        lastError: 'boom',
        checkAtEpochMs: T + 60_000,
      });
      expect((await ledger.findDue(shard, T + 60_000, 10)).map((r) => r.status)).toEqual([
        'delivery-failed',
      ]);
      for (const attempt of [2, 3]) {
        const again = await ledger.claim(claim({ mode: 'reclaim', nowEpochMs: T + attempt }));
        expect(again).toMatchObject({ claimed: true, item: { attempts: attempt } });
        await ledger.releaseFailed(KEY, attempt, { lastError: 'boom', retryAtEpochMs: T });
      }
      expect((await ledger.claim(claim({ mode: 'reclaim' }))).claimed).toBe(false);
    });

    it('keeps the origin of the first claim when a retry or a redrive claims the run again', async () => {
      const ledger = await open();
      await ledger.claim(claim({ origin: 'sweep', mode: 'create' }));
      await ledger.releaseFailed(KEY, 1, { lastError: 'boom', retryAtEpochMs: T });
      const retried = await ledger.claim(claim({ origin: 'retry', mode: 'reclaim' }));
      expect(retried).toMatchObject({ claimed: true, item: { attempts: 2, origin: 'sweep' } });
      await ledger.releaseFailed(KEY, 2, { lastError: 'boom', retryAtEpochMs: T });
      await ledger.resetForRedrive(KEY, T + 1);
      const redriven = await ledger.claim(claim({ origin: 'redrive', mode: 'reclaim' }));
      expect(redriven).toMatchObject({ claimed: true, item: { attempts: 3, origin: 'sweep' } });
      expect((await ledger.getRun(KEY))?.origin).toBe('sweep');
    });

    it('records what each claim took the run over from: nothing, a failed attempt, an expired claim', async () => {
      const ledger = await open();
      const fresh = await ledger.claim(claim());
      expect(fresh).toMatchObject({ claimed: true, item: { previousStatus: 'new' } });
      await ledger.releaseFailed(KEY, 1, { lastError: 'boom', retryAtEpochMs: T });
      const retry = await ledger.claim(claim({ mode: 'reclaim', nowEpochMs: T + 1 }));
      expect(retry).toMatchObject({ claimed: true, item: { previousStatus: 'delivery-failed' } });
      const takeover = await ledger.claim(claim({ mode: 'any', nowEpochMs: T + 90_001 }));
      expect(takeover).toMatchObject({
        claimed: true,
        item: { status: 'claimed', attempts: 3, previousStatus: 'claimed' },
      });
    });

    it('fails a delivery for good once, owing one dead letter and its notification', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      const failure = {
        lastError: 'gone',
        failedAt: new Date(T + 5_000),
        outboxLeaseUntilEpochMs: T + 125_000,
      };
      expect(await ledger.failDelivery(KEY, 1, failure)).toBe(true);
      expect(await ledger.failDelivery(KEY, 1, failure)).toBe(false);
      expect(await ledger.getRun(KEY)).toMatchObject({
        status: 'failed',
        failure: 'delivery',
        signals: ['dead-lettered'],
        outbox: ['dead-letter', 'notify:dead-lettered'],
        completedAt: new Date(T + 5_000).toISOString(),
      });
    });

    it('hands the outbox to one taker at a time and forgets what was confirmed', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      await ledger.failDelivery(KEY, 1, {
        lastError: 'gone',
        failedAt: new Date(T),
        outboxLeaseUntilEpochMs: T + 120_000,
      });
      expect(await ledger.takeOutbox(KEY, T + 119_000, T + 240_000)).toBeUndefined();
      const taken = await ledger.takeOutbox(KEY, T + 121_000, T + 240_000);
      expect(taken?.outbox).toEqual(['dead-letter', 'notify:dead-lettered']);
      expect(await ledger.takeOutbox(KEY, T + 122_000, T + 240_000)).toBeUndefined();
      await ledger.confirmOutbox(KEY, ['dead-letter'], new Date(T + 122_000));
      expect(await ledger.getRun(KEY)).toMatchObject({
        outbox: ['notify:dead-lettered'],
        deadLetteredAt: new Date(T + 122_000).toISOString(),
      });
      await ledger.confirmOutbox(KEY, ['notify:dead-lettered']);
      expect((await ledger.getRun(KEY))?.outbox).toEqual([]);
      expect(await ledger.closeOpen(KEY, { status: 'failed', checkAtEpochMs: T + 240_000 })).toBe(
        true,
      );
      expect(await ledger.findDue(shard, T + 10_000_000, 10)).toEqual([]);
    });

    it('closes an open run only as the caller saw it', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      await ledger.markDispatched(KEY, 1, delivered({ stuckCheckAtEpochMs: T + 60_000 }));
      expect(await ledger.closeOpen(KEY, { status: 'dispatched', checkAtEpochMs: T + 1 })).toBe(
        false,
      );
      expect(await ledger.closeOpen(KEY, { status: 'claimed', checkAtEpochMs: T + 60_000 })).toBe(
        false,
      );
      expect(
        await ledger.closeOpen(
          KEY,
          { status: 'dispatched', checkAtEpochMs: T + 60_000 },
          T + 99_000,
        ),
      ).toBe(true);
      expect((await ledger.getRun(KEY))?.checkAtEpochMs).toBe(T + 99_000);
    });

    it('raises stuck on a dispatched run once', async () => {
      const ledger = await open();
      await ledger.claim(claim());
      await ledger.markDispatched(KEY, 1, delivered({ stuckCheckAtEpochMs: T + 60_000 }));
      expect(await ledger.markStuck(KEY, T + 200_000)).toBe(true);
      expect(await ledger.markStuck(KEY, T + 200_000)).toBe(false);
      expect(await ledger.getRun(KEY)).toMatchObject({
        signals: ['stuck'],
        outbox: ['notify:stuck'],
      });
    });

    it('raises deadline-missed once on a run past its stored deadline, owing its notification, and never before it', async () => {
      const ledger = await open();
      await ledger.claim(claim({ deadlineAtEpochMs: T + 60_000 }));
      expect(await ledger.markDeadlineMissed(KEY, T + 60_000, T + 180_000)).toBe(false);
      expect(await ledger.markDeadlineMissed(KEY, T + 60_001, T + 180_000)).toBe(true);
      expect(await ledger.markDeadlineMissed(KEY, T + 70_000, T + 190_000)).toBe(false);
      expect(await ledger.getRun(KEY)).toMatchObject({
        status: 'claimed',
        deadlineAtEpochMs: T + 60_000,
        signals: ['deadline-missed'],
        outbox: ['notify:deadline-missed'],
        outboxLeaseUntilEpochMs: T + 180_000,
        checkAtEpochMs: T + 180_000,
      });
    });

    it("clears a run's deadline when an operator's claim takes it (a backfill of a skipped run)", async () => {
      const ledger = await open();
      await ledger.claim(claim({ deadlineAtEpochMs: T + 60_000 }));
      await ledger.markSkipped(KEY, 1, 'overlap', 'previous run still running');
      const backfill = claim({ mode: 'backfill', origin: 'backfill', nowEpochMs: T + 120_000 });
      const taken = await ledger.claim(backfill);
      expect(taken.claimed && taken.item.deadlineAtEpochMs).toBeUndefined();
      expect(await ledger.markDeadlineMissed(KEY, T + 130_000, T + 250_000)).toBe(false);
    });

    it('raises no deadline-missed on a run without a deadline or a skipped one', async () => {
      const none = await open();
      await none.claim(claim());
      expect(await none.markDeadlineMissed(KEY, T + 10_000_000, T + 10_120_000)).toBe(false);
      const skipped = await open();
      await skipped.claim(claim({ deadlineAtEpochMs: T + 60_000 }));
      await skipped.markSkipped(KEY, 1, 'overlap', 'previous run still running');
      expect(await skipped.markDeadlineMissed(KEY, T + 70_000, T + 190_000)).toBe(false);
      expect((await skipped.getRun(KEY))?.signals).toEqual([]);
    });

    it('looks at a retried run at its deadline before its retry, keeps the deadline across claims, and drops it for a redrive', async () => {
      const ledger = await open();
      await ledger.claim(claim({ deadlineAtEpochMs: T + 60_000 }));
      await ledger.releaseFailed(KEY, 1, {
        lastError: 'boom',
        retryAtEpochMs: T + 300_000,
        checkAtEpochMs: T + 60_000,
      });
      expect(await ledger.getRun(KEY)).toMatchObject({
        status: 'delivery-failed',
        retryAtEpochMs: T + 300_000,
        checkAtEpochMs: T + 60_000,
      });
      // Raised before the retry: the sweep looks again at the retry, before the outbox lease ends.
      expect(await ledger.markDeadlineMissed(KEY, T + 61_000, T + 400_000, T + 300_000)).toBe(true);
      expect((await ledger.getRun(KEY))?.checkAtEpochMs).toBe(T + 300_000);
      await ledger.confirmOutbox(KEY, ['notify:deadline-missed']);
      const retried = await ledger.claim(claim({ mode: 'reclaim', nowEpochMs: T + 300_000 }));
      expect(retried).toMatchObject({ claimed: true, item: { deadlineAtEpochMs: T + 60_000 } });
      expect(retried.claimed && retried.item.retryAtEpochMs).toBeUndefined();
      await ledger.failDelivery(KEY, 2, {
        lastError: 'boom',
        failedAt: new Date(T + 301_000),
        outboxLeaseUntilEpochMs: T + 421_000,
      });
      await ledger.confirmOutbox(KEY, ['dead-letter', 'notify:dead-lettered']);
      const reset = await ledger.resetForRedrive(KEY, T + 500_000);
      expect(reset.item?.deadlineAtEpochMs).toBeUndefined();
      expect(reset.item?.signals).toEqual(['dead-lettered', 'deadline-missed']);
    });

    it('records a skipped run once, with its reason, and a missed one owing its notification', async () => {
      const ledger = await open();
      const record = {
        key: KEY,
        jobId: 'job',
        at: AT,
        nominal: '2023-10-29T02:30',
        dst: 'overlap',
        origin: 'sweep' as const,
        reason: 'catch-up-latest' as const,
        detail: 'catchup.policy latest',
        missed: true,
        nowEpochMs: T,
        outboxLeaseUntilEpochMs: T + 120_000,
        ttlEpochSec: 1_800_000_000,
      };
      expect(await ledger.recordSkipped(record)).toEqual({ recorded: true });
      expect(await ledger.recordSkipped(record)).toMatchObject({
        recorded: false,
        existing: { status: 'skipped', origin: 'sweep' },
      });
      expect(await ledger.getRun(KEY)).toMatchObject({
        status: 'skipped',
        skipReason: 'catch-up-latest',
        attempts: 0,
        signals: ['missed'],
        outbox: ['notify:missed'],
      });
      expect((await ledger.claim(claim())).claimed).toBe(false);
      expect((await ledger.claim(claim({ mode: 'backfill' }))).claimed).toBe(true);
    });

    it('redrives a failed run with a new round due when the redriver says, attempts counting on and its dead-lettered signal kept, but not a delivered one', async () => {
      const ledger = await open();
      await ledger.claim(claim({ maxAttempts: 1 }));
      await ledger.failDelivery(KEY, 1, {
        lastError: 'x',
        failedAt: new Date(T),
        outboxLeaseUntilEpochMs: T,
      });
      expect((await ledger.resetForRedrive(KEY, T + 5)).reset).toBe(false); // outbox still owed
      await ledger.confirmOutbox(KEY, ['dead-letter', 'notify:dead-lettered'], new Date(T));
      const reset = await ledger.resetForRedrive(KEY, T + 10);
      expect(reset).toMatchObject({
        reset: true,
        item: {
          status: 'delivery-failed',
          roundAttempts: 0,
          attempts: 1,
          generation: 1,
          signals: ['dead-lettered'],
          deadLetteredAt: new Date(T).toISOString(),
        },
      });
      // Due for the sweep only at the time the redriver gave, not before.
      expect(await ledger.findDue(shard, T + 9, 10)).toEqual([]);
      expect(await ledger.findDue(shard, T + 10, 10)).toHaveLength(1);
      const again = await ledger.claim(claim({ mode: 'reclaim', maxAttempts: 1 }));
      expect(again).toMatchObject({ claimed: true, item: { attempts: 2, roundAttempts: 1 } });
      await ledger.markDispatched(KEY, 2, delivered());
      expect(await ledger.resetForRedrive(KEY, T + 20)).toMatchObject({
        reset: false,
        item: { status: 'dispatched' },
      });
    });

    it("fails a redrive's attempt again owing nothing, out of the open index, its one dead letter still on record", async () => {
      const ledger = await open();
      await ledger.claim(claim({ maxAttempts: 1 }));
      const failure = { lastError: 'x', failedAt: new Date(T), outboxLeaseUntilEpochMs: T };
      await ledger.failDelivery(KEY, 1, failure);
      await ledger.confirmOutbox(KEY, ['dead-letter', 'notify:dead-lettered'], new Date(T));
      await ledger.resetForRedrive(KEY, T + 10);
      await ledger.claim(claim({ mode: 'reclaim', origin: 'redrive', nowEpochMs: T + 10 }));
      const again = {
        lastError: 'still down',
        failedAt: new Date(T + 20),
        outboxLeaseUntilEpochMs: T + 20,
      };
      expect(await ledger.failDelivery(KEY, 2, { ...again, raise: false })).toBe(true);
      expect(await ledger.getRun(KEY)).toMatchObject({
        status: 'failed',
        failure: 'delivery',
        lastError: 'still down',
        attempts: 2,
        signals: ['dead-lettered'],
        outbox: [],
        deadLetteredAt: new Date(T).toISOString(),
      });
      expect(await ledger.findDue(shard, T + 1_000_000, 10)).toEqual([]);
    });

    it("admits one claim in a redrive's round whatever maxAttempts says, a redrive's first claim of a run included", async () => {
      const ledger = await open();
      await ledger.claim(claim({ maxAttempts: 1 }));
      const failure = { lastError: 'x', failedAt: new Date(T), outboxLeaseUntilEpochMs: T };
      await ledger.failDelivery(KEY, 1, failure);
      await ledger.confirmOutbox(KEY, ['dead-letter', 'notify:dead-lettered'], new Date(T));
      await ledger.resetForRedrive(KEY, T + 10);
      const redriven = claim({ mode: 'reclaim', origin: 'redrive', nowEpochMs: T + 10 });
      expect((await ledger.claim(redriven)).claimed).toBe(true);
      // Its claim expired (the redriver died), and then its attempt failed: no second one.
      const late = T + 100_000;
      expect(await ledger.claim(claim({ nowEpochMs: late }))).toMatchObject({
        claimed: false,
        existing: { status: 'claimed', roundAttempts: 1, generation: 1 },
      });
      await ledger.releaseFailed(KEY, 2, { lastError: 'x', retryAtEpochMs: T });
      expect((await ledger.claim(claim({ mode: 'reclaim', nowEpochMs: late }))).claimed).toBe(
        false,
      );
      // A redrive of a run the ledger had no item for: its first claim is the round's one.
      const other = `8${KEY.slice(1)}`;
      await ledger.claim(claim({ key: other, origin: 'redrive' }));
      expect((await ledger.claim(claim({ key: other, nowEpochMs: late }))).claimed).toBe(false);
    });

    it('reads many keys in batches of 100', async () => {
      const ledger = await open();
      const keys = Array.from(
        { length: 150 },
        (_, i) => `${String(i).padStart(4, '0')}${KEY.slice(4)}`,
      );
      for (const key of keys.slice(0, 120)) await ledger.claim(claim({ key }));
      expect((await ledger.getRuns(keys)).size).toBe(120);
    });
  });

  describe('job state', () => {
    it('swaps the watermark only when it stands at or after the previous run and the job is not paused', async () => {
      const ledger = await open();
      const s = new Date('2023-06-01T10:00:00Z');
      const p = new Date('2023-06-01T09:00:00Z');
      expect(await ledger.swapWatermark('j', { previous: p, scheduledAt: s })).toEqual({
        swapped: false,
        state: undefined,
      });
      expect(await ledger.createJobState('j', p)).toBe(true);
      expect(await ledger.createJobState('j', s)).toBe(false);
      expect(await ledger.swapWatermark('j', { previous: p, scheduledAt: s })).toEqual({
        swapped: true,
      });
      // The swap names S its tick's: an orphan left at W is that tick's own run.
      expect(await ledger.getJobState('j')).toMatchObject({ swappedAt: s.toISOString() });
      const later = new Date('2023-06-01T12:00:00Z');
      const behind = await ledger.swapWatermark('j', {
        previous: new Date('2023-06-01T11:00:00Z'),
        scheduledAt: later,
      });
      expect(behind).toMatchObject({ swapped: false, state: { watermarkAt: s.toISOString() } });
      await ledger.pause('j', { at: s, by: 'ops', reason: 'maintenance' });
      expect(await ledger.swapWatermark('j', { previous: s, scheduledAt: later })).toMatchObject({
        swapped: false,
        state: { pausedAt: s.toISOString(), pausedBy: 'ops', pauseReason: 'maintenance' },
      });
    });

    it('does not swap onto a run inside the last pause: its tick arrived after the resume', async () => {
      const ledger = await open();
      const p = new Date('2023-06-01T09:00:00Z');
      const inside = new Date('2023-06-01T09:15:00Z');
      const after = new Date('2023-06-01T09:30:00Z');
      await ledger.createJobState('j', p);
      await ledger.pause('j', { at: new Date('2023-06-01T09:08:00Z'), by: 'ops', reason: 'fix' });
      expect(await ledger.resume('j', { at: new Date('2023-06-01T09:23:00Z') })).toBe(true);
      expect(await ledger.swapWatermark('j', { previous: p, scheduledAt: inside })).toMatchObject({
        swapped: false,
        state: { watermarkAt: p.toISOString(), lastPauseTo: '2023-06-01T09:23:00.000Z' },
      });
      expect(await ledger.swapWatermark('j', { previous: p, scheduledAt: after })).toEqual({
        swapped: true,
      });
    });

    it('moves the watermark forward only, and remembers the first run', async () => {
      const ledger = await open();
      const a = new Date('2023-06-01T10:00:00Z');
      const b = new Date('2023-06-01T11:00:00Z');
      expect(await ledger.advanceWatermark('j', b)).toBe(true);
      expect(await ledger.advanceWatermark('j', a)).toBe(false);
      expect(await ledger.getJobState('j')).toEqual({
        jobId: 'j',
        watermarkAt: b.toISOString(),
        sinceAt: b.toISOString(),
      });
    });

    it('lends the catch-up lease to one holder, and moves W on and records the gap budget spent when it is given back', async () => {
      const ledger = await open();
      const w = new Date('2023-06-01T10:00:00Z');
      expect(await ledger.acquireCatchup('j', T, T + 60_000)).toBeUndefined(); // never ran
      await ledger.createJobState('j', w);
      expect(await ledger.acquireCatchup('j', T, T + 60_000)).toMatchObject({
        watermarkAt: w.toISOString(),
      });
      expect(await ledger.acquireCatchup('j', T + 1, T + 60_001)).toBeUndefined();
      const upTo = new Date('2023-06-01T12:00:00Z');
      await ledger.finishCatchup('j', T + 60_000, { upTo, gapCaughtUp: 2 });
      expect(await ledger.getJobState('j')).toEqual({
        jobId: 'j',
        watermarkAt: upTo.toISOString(),
        sinceAt: w.toISOString(),
        gapCaughtUp: 2,
      });
      expect(await ledger.acquireCatchup('j', T + 2, T + 60_002)).toBeDefined();
      await ledger.finishCatchup('j', T + 60_002, { upTo: w, gapCaughtUp: 0 }); // W never moves back
      expect((await ledger.getJobState('j'))?.watermarkAt).toBe(upTo.toISOString());
      // The fast path's swap keeps the budget and says so; the tick's claim of its own run
      // ends the gap, while W still stands at that run.
      const next = new Date('2023-06-01T13:00:00Z');
      expect(await ledger.swapWatermark('j', { previous: upTo, scheduledAt: next })).toEqual({
        swapped: true,
        gapCaughtUp: 2,
      });
      expect((await ledger.getJobState('j'))?.gapCaughtUp).toBe(2);
      expect(await ledger.endGap('j', upTo)).toBe(false);
      expect(await ledger.endGap('j', next)).toBe(true);
      expect((await ledger.getJobState('j'))?.gapCaughtUp).toBeUndefined();
      expect(await ledger.endGap('j', next)).toBe(false);
    });

    it('records a catch-up budget when a tick moved W to the catch-up upTo while it decided', async () => {
      const ledger = await open();
      const w = new Date('2023-06-01T10:00:00Z');
      const upTo = new Date('2023-06-01T11:00:00Z');
      await ledger.createJobState('j', w);
      await ledger.acquireCatchup('j', T, T + 60_000);
      await ledger.swapWatermark('j', { previous: w, scheduledAt: upTo });
      await ledger.finishCatchup('j', T + 60_000, { upTo, gapCaughtUp: 1 });
      expect(await ledger.getJobState('j')).toEqual({
        jobId: 'j',
        watermarkAt: upTo.toISOString(),
        sinceAt: w.toISOString(),
        gapCaughtUp: 1,
        swappedAt: upTo.toISOString(),
      });
    });

    it('holds the forbid slot for one run until released or expired', async () => {
      const ledger = await open();
      expect(await ledger.acquireSlot('j', 'run-a', T, T + 1_000)).toEqual({ acquired: true });
      expect(await ledger.acquireSlot('j', 'run-a', T, T + 2_000)).toEqual({ acquired: true });
      expect(await ledger.acquireSlot('j', 'run-b', T + 10, T + 3_000)).toEqual({
        acquired: false,
        runningKey: 'run-a',
      });
      expect(await ledger.releaseSlot('j', 'run-b')).toBe(false);
      expect(await ledger.acquireSlot('j', 'run-b', T + 2_001, T + 3_000)).toEqual({
        acquired: true,
      });
      expect(await ledger.releaseSlot('j', 'run-b')).toBe(true);
      expect((await ledger.getJobState('j'))?.runningKey).toBeUndefined();
    });

    it('hands the forbid slot over before its hold ends only from the run the caller names', async () => {
      const ledger = await open();
      await ledger.acquireSlot('j', 'run-a', T, T + 10_000);
      expect(await ledger.acquireSlot('j', 'run-b', T + 1_000, T + 5_000, 'run-x')).toEqual({
        acquired: false,
        runningKey: 'run-a',
      });
      expect(await ledger.acquireSlot('j', 'run-b', T + 1_000, T + 5_000, 'run-a')).toEqual({
        acquired: true,
      });
      expect((await ledger.getJobState('j'))?.runningKey).toBe('run-b');
    });

    it('counts an overlap incident once per run, the second by key, until another run takes the slot', async () => {
      const ledger = await open();
      const at = (minutes: number) => new Date(T + minutes * 60_000);
      await ledger.acquireSlot('j', 'run-a', T, T + 3_600_000);
      const count = (key: string, minutes: number) =>
        ledger.countOverlapSkip('j', { key, at: at(minutes) });
      const since = at(5).toISOString();
      expect(await count('run-b', 5)).toEqual({ skips: 1, since, raises: false });
      expect(await count('run-b', 5)).toEqual({ skips: 1, since, raises: false });
      expect(await count('run-c', 10)).toEqual({ skips: 2, since, raises: true });
      expect(await count('run-c', 10)).toEqual({ skips: 2, since, raises: true });
      expect(await count('run-d', 15)).toEqual({ skips: 3, since, raises: false });
      // The holder taking its slot again (a retry) does not end the incident.
      expect(await ledger.acquireSlot('j', 'run-a', T + 1, T + 3_600_000)).toEqual({
        acquired: true,
      });
      expect(await count('run-e', 20)).toEqual({ skips: 4, since, raises: false });
      expect(await ledger.getJobState('j')).toMatchObject({
        overlapSince: since,
        overlapSkips: 4,
        overlapFirstKey: 'run-b',
        overlapSecondKey: 'run-c',
      });
      // Another run takes the expired slot: a new incident starts with the next skip.
      expect(await ledger.acquireSlot('j', 'run-f', T + 3_600_001, T + 7_200_000)).toEqual({
        acquired: true,
      });
      const state = await ledger.getJobState('j');
      expect(state?.overlapSkips).toBeUndefined();
      expect(state?.overlapFirstKey).toBeUndefined();
      expect(await count('run-g', 65)).toEqual({
        skips: 1,
        since: at(65).toISOString(),
        raises: false,
      });
      expect(await count('run-h', 70)).toMatchObject({ skips: 2, raises: true });
    });

    it('resumes leaving W where it was, and remembers the last pause only', async () => {
      const ledger = await open();
      const from = new Date('2023-06-01T10:00:00Z');
      const to = new Date('2023-06-03T10:00:00Z');
      await ledger.createJobState('j', new Date('2023-05-01T00:00:00Z'));
      expect(await ledger.resume('j', { at: to })).toBe(false);
      await ledger.pause('j', { at: from, by: 'ops', reason: 'db migration', until: to });
      await ledger.pause('j', { at: to, by: 'ops', reason: 'still migrating' });
      expect(await ledger.getJobState('j')).toMatchObject({
        pausedAt: from.toISOString(),
        pauseReason: 'still migrating',
      });
      expect((await ledger.getJobState('j'))?.pausedUntil).toBeUndefined();
      expect(await ledger.resume('j', { at: to })).toBe(true);
      const resumed = {
        jobId: 'j',
        watermarkAt: '2023-05-01T00:00:00.000Z',
        sinceAt: '2023-05-01T00:00:00.000Z',
        lastPauseFrom: from.toISOString(),
        lastPauseTo: to.toISOString(),
      };
      expect(await ledger.getJobState('j')).toEqual(resumed);
      const later = new Date('2023-06-04T10:00:00Z');
      await ledger.pause('j', { at: to, by: 'ops', reason: 'again' });
      expect(await ledger.resume('j', { at: later })).toBe(true);
      expect(await ledger.getJobState('j')).toEqual({
        ...resumed,
        lastPauseFrom: to.toISOString(),
        lastPauseTo: later.toISOString(),
      });
    });

    it('keeps the sweep cursor moving forward only', async () => {
      const ledger = await open();
      expect(await ledger.getSweepCursor()).toBeUndefined();
      await ledger.advanceSweepCursor(new Date('2023-06-01T10:05:00Z'));
      await ledger.advanceSweepCursor(new Date('2023-06-01T10:01:00Z'));
      expect(await ledger.getSweepCursor()).toEqual(new Date('2023-06-01T10:05:00Z'));
    });
  });

  describe('deploys', () => {
    it('keeps the first instant recorded for a jobs bundle, and takes a new one for the next bundle', async () => {
      const ledger = await open();
      const first = new Date('2023-06-01T10:19:59.999Z');
      expect(await ledger.deployInstant('bundle-a', first)).toEqual(first);
      // A later container of the same bundle reads the instant the first one recorded.
      expect(await ledger.deployInstant('bundle-a', new Date('2023-06-01T10:25:00Z'))).toEqual(
        first,
      );
      const next = new Date('2023-06-02T08:00:00Z');
      expect(await ledger.deployInstant('bundle-b', next)).toEqual(next);
      expect(await ledger.deployInstant('bundle-b', new Date('2023-06-02T09:00:00Z'))).toEqual(
        next,
      );
    });
  });
});

const completions = contract.stores.map(
  ([name, openStore]): [string, () => Promise<{ runs: Ledger; recorder: RecorderLedger }>] => [
    name,
    async () => {
      const store = await openStore();
      return { runs: createDynamoLedger(store), recorder: createRecorderLedger(store) };
    },
  ],
);

const FUNCTION = 'arn:aws:lambda:us-east-1:000000000000:function:f';
const completion = (over: Partial<CompletionWrite> = {}): CompletionWrite => ({
  key: KEY,
  jobId: 'job',
  attempt: 1,
  completionId: 'req-1',
  secretHash: 'a'.repeat(64),
  target: FUNCTION,
  status: 'succeeded',
  completedAt: new Date(T + 5_000),
  startedAt: undefined,
  lastError: undefined,
  effects: [],
  signals: [],
  outboxLeaseUntilEpochMs: T + 120_000,
  ...over,
});

describe.each(completions)('completions on %s', (_name, open) => {
  it("records a completion only with one of the run's secret hashes and its stored target, reading its own attributes", async () => {
    const { runs, recorder } = await open();
    await runs.claim(claim({ target: FUNCTION }));
    await runs.claim(
      claim({
        target: FUNCTION,
        mode: 'reclaim',
        nowEpochMs: T + 91_000,
        secretHash: 'b'.repeat(64),
      }),
    );
    expect(await recorder.getRun(KEY)).toMatchObject({
      status: 'claimed',
      attempts: 2,
      target: FUNCTION,
      secretHashes: ['a'.repeat(64), 'b'.repeat(64)],
    });
    for (const forged of [{ secretHash: 'c'.repeat(64) }, { target: `${FUNCTION}2` }]) {
      expect(await recorder.recordCompletion(completion({ attempt: 2, ...forged }))).toMatchObject({
        recorded: false,
        item: { status: 'claimed', attempts: 2 },
      });
    }
    // Attempt 1's secret is still the run's, but attempt 1 no longer holds it.
    expect(await recorder.recordCompletion(completion())).toMatchObject({ recorded: false });
    expect(
      await recorder.recordCompletion(completion({ attempt: 2, secretHash: 'b'.repeat(64) })),
    ).toEqual({
      recorded: true,
      deadlineRaised: false,
    });
    expect(await runs.getRun(KEY)).toMatchObject({ status: 'succeeded', completionId: 'req-1' });
  });

  it('raises late once on a run the recorder ended first, and tells that from a lost claim', async () => {
    const { runs, recorder } = await open();
    await runs.claim(claim({ target: FUNCTION }));
    await recorder.recordCompletion(completion());
    expect(await runs.markDispatched(KEY, 1, delivered({ late: true }))).toBe(false);
    const late = { raise: true, outboxLeaseUntilEpochMs: T + 120_000 };
    expect(await runs.settleCompletedFirst(KEY, 1, late)).toMatchObject({
      completed: { status: 'succeeded', signals: ['late'], outbox: ['notify:late'] },
      lateRaised: true,
    });
    expect(await runs.settleCompletedFirst(KEY, 1, late)).toMatchObject({
      completed: { status: 'succeeded' },
      lateRaised: false,
    });
    // Attempt 2 never held this run: its refused write is a lost claim, not a completion.
    expect(await runs.settleCompletedFirst(KEY, 2, late)).toEqual({
      completed: undefined,
      lateRaised: false,
    });
    expect((await runs.getRun(KEY))?.signals).toEqual(['late']);
  });

  it('raises deadline-missed in the write of an end recorded past the deadline, once, and records the end alone when the sweep raised it first', async () => {
    const { runs, recorder } = await open();
    await runs.claim(claim({ target: FUNCTION, deadlineAtEpochMs: T + 3_000 }));
    await runs.markDispatched(KEY, 1, delivered({ stuckCheckAtEpochMs: T + 3_000 }));
    expect(await recorder.getRun(KEY)).toMatchObject({ deadlineAtEpochMs: T + 3_000 });
    const late = completion({ completionId: 'd-1', deadlineMissed: true });
    expect(await recorder.recordCompletion(late)).toEqual({ recorded: true, deadlineRaised: true });
    expect(await runs.getRun(KEY)).toMatchObject({
      status: 'succeeded',
      signals: ['deadline-missed'],
      outbox: ['notify:deadline-missed'],
    });

    const raced = await open();
    await raced.runs.claim(claim({ target: FUNCTION, deadlineAtEpochMs: T + 3_000 }));
    await raced.runs.markDispatched(KEY, 1, delivered({ stuckCheckAtEpochMs: T + 3_000 }));
    expect(await raced.runs.markDeadlineMissed(KEY, T + 4_000, T + 124_000)).toBe(true);
    await raced.runs.confirmOutbox(KEY, ['notify:deadline-missed']);
    expect(await raced.recorder.recordCompletion(late)).toEqual({
      recorded: true,
      deadlineRaised: false,
    });
    expect(await raced.runs.getRun(KEY)).toMatchObject({
      status: 'succeeded',
      signals: ['deadline-missed'],
      outbox: [],
    });
  });

  it('raises no deadline-missed on a run whose success was recorded, even past its deadline', async () => {
    const { runs, recorder } = await open();
    await runs.claim(claim({ target: FUNCTION, deadlineAtEpochMs: T + 60_000 }));
    await runs.markDispatched(KEY, 1, delivered({ stuckCheckAtEpochMs: T + 60_000 }));
    await recorder.recordCompletion(completion({ completionId: 'd-1' }));
    expect(await runs.markDeadlineMissed(KEY, T + 61_000, T + 181_000)).toBe(false);
    expect(await runs.getRun(KEY)).toMatchObject({ status: 'succeeded', signals: [] });
  });

  it('leaves run-failed and stuck to the redriven delivery to raise again, keeping the other signals', async () => {
    const { runs, recorder } = await open();
    await runs.claim(claim({ target: FUNCTION }));
    await runs.markDispatched(KEY, 1, delivered({ late: true }));
    await runs.markStuck(KEY, T + 120_000);
    const failed = {
      status: 'failed',
      lastError: 'boom',
      effects: ['notify:run-failed'],
      signals: ['run-failed'],
      completionId: 'd-1',
    } as const;
    expect(await recorder.recordCompletion(completion(failed))).toEqual({
      recorded: true,
      deadlineRaised: false,
    });
    await runs.confirmOutbox(KEY, ['notify:late', 'notify:stuck', 'notify:run-failed']);
    const reset = await runs.resetForRedrive(KEY, T + 10);
    expect(reset).toMatchObject({ reset: true, item: { signals: ['late'] } });
  });
});

const notices = contract.stores.map(
  ([name, openStore]): [string, () => Promise<ZoneDriftLedger>] => [
    name,
    async () => createZoneDriftLedger(await openStore()),
  ],
);

const NOTICE = {
  synthesizedAt: '2026-11-30T15:00:00.000Z',
  runtimeZoneData: '2026d',
  jobId: 'nightly',
};
const noticeClaim = (over: Partial<ZoneDriftClaim> = {}): ZoneDriftClaim => ({
  ...NOTICE,
  timezone: 'America/Vancouver',
  synthZoneData: '2025c',
  firstDisagreementAt: '2026-11-01T09:00:00.000Z',
  nowEpochMs: T,
  leaseUntilEpochMs: T + 300_000,
  ttlEpochSec: 1_800_000_000,
  ...over,
});

describe.each(notices)('zone-drift notices on %s', (_name, open) => {
  it('lets one claimer notify, another only after the lease ends, and nobody once it was sent', async () => {
    const ledger = await open();
    expect(await ledger.claimNotice(noticeClaim())).toBe(true);
    expect(await ledger.claimNotice(noticeClaim({ nowEpochMs: T + 299_999 }))).toBe(false);
    expect(
      await ledger.claimNotice(
        noticeClaim({ nowEpochMs: T + 300_001, leaseUntilEpochMs: T + 600_001 }),
      ),
    ).toBe(true);
    await ledger.confirmNotice(NOTICE, new Date(T + 1000));
    expect(await ledger.claimNotice(noticeClaim({ nowEpochMs: T + 10_000_000 }))).toBe(false);
  });

  it('reads notices back decoded, keyed by their item key, and leaves absent ones out', async () => {
    const ledger = await open();
    await ledger.claimNotice(noticeClaim());
    await ledger.claimNotice(noticeClaim({ jobId: 'other', nowEpochMs: T + 5 }));
    await ledger.confirmNotice(NOTICE, new Date(T + 1000));
    const found = await ledger.getNotices([
      NOTICE,
      { ...NOTICE, jobId: 'other' },
      { ...NOTICE, jobId: 'none' },
    ]);
    expect([...found.keys()].sort()).toEqual([
      'zone-drift#2026-11-30T15:00:00.000Z#2026d#nightly',
      'zone-drift#2026-11-30T15:00:00.000Z#2026d#other',
    ]);
    expect(found.get('zone-drift#2026-11-30T15:00:00.000Z#2026d#nightly')).toEqual({
      ...NOTICE,
      timezone: 'America/Vancouver',
      synthZoneData: '2025c',
      firstDisagreementAt: '2026-11-01T09:00:00.000Z',
      detectedAt: new Date(T).toISOString(),
      notifiedAt: new Date(T + 1000).toISOString(),
      ttlEpochSec: 1_800_000_000,
    });
    expect(found.get('zone-drift#2026-11-30T15:00:00.000Z#2026d#other')).toMatchObject({
      jobId: 'other',
      detectedAt: new Date(T + 5).toISOString(),
      noticeLeaseUntilEpochMs: T + 300_000,
    });
  });

  it('keeps the first detection time when a notice is claimed again', async () => {
    const ledger = await open();
    await ledger.claimNotice(noticeClaim());
    await ledger.claimNotice(
      noticeClaim({ nowEpochMs: T + 400_000, leaseUntilEpochMs: T + 700_000 }),
    );
    const [notice] = (await ledger.getNotices([NOTICE])).values();
    expect(notice).toMatchObject({
      detectedAt: new Date(T).toISOString(),
      noticeLeaseUntilEpochMs: T + 700_000,
    });
  });
});
