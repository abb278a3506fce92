import { av, type Item, type SkipReason } from './ledger-item.ts';
import type { LedgerStore } from './ledger-store.ts';
import { LEDGER_BY_JOB_INDEX } from './ledger-table.ts';
import { UpdateExpression } from './update-expression.ts';

/** Prefix of a skip range's partition key and of its `byJob` partition. */
export const SKIP_RANGE_PREFIX = 'skips#';

/** A half-open interval of instants, `[fromMs, toMs)`, that a pause covered. */
export interface PauseSpan {
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * One item standing for every skipped run of a gap that has no item of its own: the runs in
 * `(afterMs, beforeMs)`.
 *
 * ```
 *   W ──────────── outside-window ───────────[windowStartMs ── policyReason ──) beforeMs
 *        a run inside a pause span: paused, whatever its place
 * ```
 *
 * A run with an item of its own is decided by that item, not by the range.
 */
export interface SkipRange {
  readonly jobId: string;
  /** Exclusive: the watermark the gap started after. */
  readonly afterMs: number;
  /** Exclusive: the oldest run the gap recorded one by one, or delivered. */
  readonly beforeMs: number;
  /** Runs before it are skipped as `outside-window`, at or after it as `policyReason`. */
  readonly windowStartMs: number;
  readonly policyReason: SkipReason;
  readonly pauses: readonly PauseSpan[];
  /** How many runs the range stands for, counted back to `countedFromMs`. */
  readonly runs: number;
  /** How many of them fell in a pause (skipped(paused), never missed). */
  readonly pausedRuns: number;
  /** Runs before this instant were older than the ledger's retention and are not counted. */
  readonly countedFromMs: number;
  readonly decidedAt: string;
}

/**
 * The reason a run inside the range was skipped.
 *
 * @example
 * reasonInRange(range, new Date('2023-06-01T01:00:00Z')) //=> 'outside-window'
 */
export function reasonInRange(range: SkipRange, at: Date): SkipReason | undefined {
  const ms = at.getTime();
  if (ms <= range.afterMs || ms >= range.beforeMs) return undefined;
  if (range.pauses.some((p) => ms >= p.fromMs && ms < p.toMs)) return 'paused';
  return ms < range.windowStartMs ? 'outside-window' : range.policyReason;
}

/** The skip ranges of the ledger. */
export interface SkipRangeLedger {
  /** Writes a gap's range (once: a second write of the same range changes nothing). */
  recordSkipRange(range: SkipRange, ttlEpochSec: number): Promise<void>;
  /** The range of `jobId` that covers `at`, if any. */
  findSkipRange(jobId: string, at: Date): Promise<SkipRange | undefined>;
}

/** The skip-range ledger on the ledger table. */
export function createSkipRangeLedger(store: LedgerStore): SkipRangeLedger {
  return {
    recordSkipRange: (range, ttlEpochSec) => recordSkipRange(store, range, ttlEpochSec),
    findSkipRange: (jobId, at) => findSkipRange(store, jobId, at),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

async function recordSkipRange(store: LedgerStore, range: SkipRange, ttlEpochSec: number) {
  const u = new UpdateExpression()
    .set('jobId', av.s(`${SKIP_RANGE_PREFIX}${range.jobId}`))
    .set('at', av.s(iso(range.beforeMs)))
    .set('afterAt', av.s(iso(range.afterMs)))
    .set('windowStartAt', av.s(iso(range.windowStartMs)))
    .set('policyReason', av.s(range.policyReason))
    .set('pauses', av.s(JSON.stringify(range.pauses.map((p) => [iso(p.fromMs), iso(p.toMs)]))))
    .set('runs', av.n(range.runs))
    .set('pausedRuns', av.n(range.pausedRuns))
    .set('countedFromAt', av.s(iso(range.countedFromMs)))
    .set('decidedAt', av.s(range.decidedAt))
    .set('ttlEpochSec', av.n(ttlEpochSec));
  await store.update({
    key: `${SKIP_RANGE_PREFIX}${range.jobId}#${iso(range.beforeMs)}`,
    ...u.build(),
    condition: 'attribute_not_exists(pk)',
  });
}

async function findSkipRange(
  store: LedgerStore,
  jobId: string,
  at: Date,
): Promise<SkipRange | undefined> {
  const items = await store.query({
    index: LEDGER_BY_JOB_INDEX,
    keyCondition: '#job = :job AND #at > :at',
    names: { '#job': 'jobId', '#at': 'at' },
    values: { ':job': av.s(`${SKIP_RANGE_PREFIX}${jobId}`), ':at': av.s(at.toISOString()) },
    limit: 1,
  });
  const range = items[0] && decodeSkipRange(jobId, items[0]);
  return range && reasonInRange(range, at) ? range : undefined;
}

function str(item: Item, name: string): string {
  const v = item[name];
  return v && 'S' in v && v.S !== undefined ? v.S : '';
}

/** A stored skip range, as {@link SkipRange}. */
export function decodeSkipRange(jobId: string, item: Item): SkipRange {
  const pauses = JSON.parse(str(item, 'pauses') || '[]') as [string, string][];
  const num = (name: string) => {
    const v = item[name];
    return v && 'N' in v ? Number(v.N) : 0;
  };
  return {
    jobId,
    afterMs: Date.parse(str(item, 'afterAt')),
    beforeMs: Date.parse(str(item, 'at')),
    windowStartMs: Date.parse(str(item, 'windowStartAt')),
    policyReason: str(item, 'policyReason') as SkipReason,
    pauses: pauses.map(([from, to]) => ({ fromMs: Date.parse(from), toMs: Date.parse(to) })),
    runs: num('runs'),
    pausedRuns: num('pausedRuns'),
    countedFromMs: Date.parse(str(item, 'countedFromAt')),
    decidedAt: str(item, 'decidedAt'),
  };
}
