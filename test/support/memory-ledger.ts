import type { Ledger, RunRecord, RunStatus, Watermark } from '../../functions/dispatcher/ledger.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** An in-memory {@link Ledger} with the DynamoDB ledger's conditions, plus call counters. */
export interface MemoryLedger extends Ledger {
  /** Every item, by key. */
  readonly items: ReadonlyMap<string, RunRecord>;
  /** Calls per method, to assert "no read for a job with nothing due". */
  readonly calls: Record<string, number>;
}

/**
 * A ledger in a `Map`: the same conditional transitions as `createDynamoLedger`, evaluated
 * synchronously, so it is atomic within one process.
 *
 * For unit tests of the core, for the CPU benchmark (the store faked), and for anything that
 * needs a dispatcher without a database. The DynamoDB ledger is the one tested against
 * DynamoDB Local.
 *
 * @example
 * const ledger = createMemoryLedger();
 * const dispatcher = createDispatcher({ ledger, ... });
 * ledger.items.size //=> 0
 */
export function createMemoryLedger(): MemoryLedger {
  const items = new Map<string, Mutable<RunRecord>>();
  const watermarks = new Map<string, Watermark>();
  const calls: Record<string, number> = {};
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const copy = (r: RunRecord): RunRecord => ({ ...r });
  const holds = (key: string, attempts: number) => {
    const item = items.get(key);
    return item?.status === 'claimed' && item.attempts === attempts ? item : undefined;
  };
  const redrivable: ReadonlySet<RunStatus> = new Set([
    'failed',
    'delivery-failed',
    'missed',
    'skipped-overlap',
  ]);

  return {
    items,
    calls,
    async claim(request) {
      count('claim');
      const item = items.get(request.key);
      const ok =
        !item ||
        (item.status === 'claimed' &&
          (item.leaseUntilEpochMs ?? 0) < request.nowEpochMs &&
          item.attempts < request.maxAttempts) ||
        (item.status === 'delivery-failed' && item.attempts < request.maxAttempts);
      if (!ok && item) return { claimed: false, existing: copy(item) };
      const next: Mutable<RunRecord> = {
        ...(item ?? {}),
        key: request.key,
        jobId: request.jobId,
        at: request.at.toISOString(),
        nominal: request.nominal,
        dst: request.dst,
        status: 'claimed',
        attempts: (item?.attempts ?? 0) + 1,
        leaseUntilEpochMs: request.leaseUntilEpochMs,
        manual: request.manual,
        ttlEpochSec: request.ttlEpochSec,
      };
      delete next.failure;
      items.set(request.key, next);
      return { claimed: true, record: copy(next) };
    },
    async markDispatched(key, attempts, delivery) {
      count('markDispatched');
      const item = holds(key, attempts);
      if (!item) return false;
      item.status = 'dispatched';
      item.dispatchedAt = delivery.dispatchedAt.toISOString();
      item.deliveryId = delivery.deliveryId;
      return true;
    },
    async releaseFailed(key, attempts, failure) {
      count('releaseFailed');
      const item = holds(key, attempts);
      if (!item) return false;
      item.status = failure.terminal ? 'failed' : 'delivery-failed';
      item.lastError = failure.lastError;
      delete item.leaseUntilEpochMs;
      if (failure.terminal) {
        item.failure = 'delivery';
        item.completedAt = failure.failedAt.toISOString();
      }
      return true;
    },
    async markSkippedOverlap(key, attempts, reason) {
      count('markSkippedOverlap');
      const item = holds(key, attempts);
      if (!item) return false;
      item.status = 'skipped-overlap';
      item.lastError = reason;
      delete item.leaseUntilEpochMs;
      return true;
    },
    async takeOverAbandoned(key, attempts, nowEpochMs, leaseUntilEpochMs) {
      count('takeOverAbandoned');
      const item = holds(key, attempts);
      if (!item || (item.leaseUntilEpochMs ?? 0) >= nowEpochMs) return false;
      item.leaseUntilEpochMs = leaseUntilEpochMs;
      return true;
    },
    async recordMissed(request) {
      count('recordMissed');
      if (items.has(request.key)) return false;
      items.set(request.key, {
        key: request.key,
        jobId: request.jobId,
        at: request.at.toISOString(),
        nominal: request.nominal,
        dst: request.dst,
        status: 'missed',
        attempts: 0,
        lastError: `no tick claimed this run; sweep at ${request.detectedAt.toISOString()}`,
        ttlEpochSec: request.ttlEpochSec,
      });
      return true;
    },
    async markStuck(key, reportedAt) {
      count('markStuck');
      const item = items.get(key);
      if (item?.status !== 'dispatched' || item.stuckReportedAt) return false;
      item.stuckReportedAt = reportedAt.toISOString();
      return true;
    },
    async resetForRedrive(key) {
      count('resetForRedrive');
      const item = items.get(key);
      if (!item || !redrivable.has(item.status)) return false;
      item.status = 'delivery-failed';
      item.attempts = 0;
      delete item.failure;
      delete item.leaseUntilEpochMs;
      return true;
    },
    async getRun(key) {
      count('getRun');
      const item = items.get(key);
      return item ? copy(item) : undefined;
    },
    async getRuns(keys) {
      count('getRuns');
      const found = new Map<string, RunRecord>();
      for (const key of keys) {
        const item = items.get(key);
        if (item) found.set(key, copy(item));
      }
      return found;
    },
    async getWatermark(jobId) {
      count('getWatermark');
      return watermarks.get(jobId);
    },
    async advanceWatermark(jobId, at) {
      count('advanceWatermark');
      const current = watermarks.get(jobId);
      if (current && current.at >= at) return false;
      watermarks.set(jobId, { at, since: current?.since ?? at });
      return true;
    },
    async findRunning(jobId, from, before) {
      count('findRunning');
      let newest: RunRecord | undefined;
      for (const item of items.values()) {
        if (item.jobId !== jobId || item.status !== 'dispatched') continue;
        const atMs = Date.parse(item.at);
        if (atMs < from.getTime() || atMs >= before.getTime()) continue;
        if (!newest || item.at > newest.at) newest = item;
      }
      return newest ? copy(newest) : undefined;
    },
  };
}
