import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { LedgerStore } from '#ledger/index.ts';
import {
  type IndexEffect,
  type IndexKeyAttributes,
  indexEffect,
  type UpdateRequest,
} from './update-effects.ts';

/**
 * A query with an upper bound on the sort key: `#p = :p AND #s <= :bound` (the sweep's
 * `findDue` on the open-run index has exactly this shape).
 */
const UPPER_BOUND_QUERY = /^(#\w+) = (:\w+) AND (#\w+) <= (:\w+)$/;

/** What the memo did, for the curious and the tests. */
export interface QueryMemoStats {
  /** Queries answered empty without a request. */
  answered: number;
  /** Requests for the smallest sort key of a partition. */
  probed: number;
  /** Queries sent as they were (something was due, or another shape). */
  passed: number;
}

/** Shares one memo between every store of one table. */
export interface QueryMemo {
  readonly stats: QueryMemoStats;
  /** The store, with its upper-bound queries answered from the memo where that is exact. */
  wrap(store: LedgerStore): LedgerStore;
}

/**
 * What is known of one index partition: no item in it has a sort key below `floor`; with
 * `exact`, an item has exactly `floor`.
 */
interface KnownFloor {
  floor: number;
  exact: boolean;
}

/** One index partition the memo has seen a query for. */
interface Partition {
  readonly index: string;
  readonly key: IndexKeyAttributes;
  readonly hashValue: AttributeValue;
  known: KnownFloor | undefined;
}

type QueryRequest = Parameters<LedgerStore['query']>[0];

/** An upper-bound query taken apart: the partition it reads and its numeric bound. */
interface UpperBounded {
  readonly id: string;
  readonly index: string;
  readonly key: IndexKeyAttributes;
  readonly hashName: string;
  readonly hashPlaceholder: string;
  readonly hashValue: AttributeValue;
  readonly bound: number;
}

/**
 * Answers a store's upper-bound queries from what is known to be in the table, exactly.
 *
 * Every simulated minute the sweep asks each open-run partition for the items due by now, and
 * almost always the answer is nothing: four requests a minute, most of a plain simulation's
 * time. The memo keeps a lower bound of each partition's sort keys (its floor) and answers
 * every query whose bound is below it with the empty page the table would return. It learns
 * a floor with one request (`Limit 1`, no bound: the smallest sort key, exactly) and keeps it
 * through the writes of every wrapped store, reading the actions each applied update carries
 * (`ConditionalUpdate.actions`, from the ledger's builder; `indexEffect`):
 *
 * ```
 *   write names neither key attribute  → floor kept (most writes: watermarks, the cursor)
 *   write removes a key attribute      → floor kept, no longer exact (the item left)
 *   write sets sort = v (hash = h)     → floor min(floor, v) in h's partition (exact if v is
 *                                        below it), elsewhere kept, no longer exact
 *   anything else (computed, ADD, no   → the index's floors forgotten
 *   actions), or a failed write
 * ```
 *
 * A query whose bound reaches an exact floor goes to the table as it is; one that reaches a
 * floor that is no longer exact asks for the floor again first.
 *
 * Nothing about the dispatcher changes: it still queries every partition every minute; only
 * the simulation's table answers some of those queries without doing the work. Every store of
 * the table must be wrapped by the same memo, or a write it did not see would go unnoticed.
 *
 * @example
 * const memo = createQueryMemo();
 * const store = memo.wrap(createLedgerStore({ client, tableName }));
 * await createDynamoLedger(store).findDue('open#0', Date.now(), 50); //=> [] (one probe)
 * await createDynamoLedger(store).findDue('open#0', Date.now(), 50); //=> [] (no request)
 */
export function createQueryMemo(): QueryMemo {
  const state: MemoState = {
    stats: { answered: 0, probed: 0, passed: 0 },
    partitions: new Map(),
    generation: 0,
  };
  return { stats: state.stats, wrap: (store) => wrapStore(state, store) };
}

/** What one memo knows, shared by the stores it wraps. */
interface MemoState {
  readonly stats: QueryMemoStats;
  readonly partitions: Map<string, Partition>;
  /** Counts the writes that changed what is known: a probe sent before one is not kept. */
  generation: number;
}

function wrapStore(state: MemoState, store: LedgerStore): LedgerStore {
  return {
    ...store,
    async update(request) {
      let result: Awaited<ReturnType<LedgerStore['update']>>;
      try {
        result = await store.update(request);
      } catch (error) {
        afterWrite(state, undefined);
        throw error;
      }
      if (result.applied) afterWrite(state, request);
      return result;
    },
    async query(request) {
      const bounded = upperBounded(request);
      if (bounded && bounded.bound < (await floorOf(state, store, bounded)).floor) {
        state.stats.answered++;
        return [];
      }
      state.stats.passed++;
      return store.query(request);
    },
  };
}

/** After a write (undefined: one that failed, applied or not). */
function afterWrite(state: MemoState, request: UpdateRequest | undefined): void {
  let changed = request === undefined;
  const effects = new Map<string, IndexEffect>();
  for (const partition of state.partitions.values()) {
    if (!request) {
      forget(partition);
      continue;
    }
    const which = `${partition.key.hash}\u0000${partition.key.sort}`;
    const effect = effects.get(which) ?? indexEffect(request, partition.key);
    effects.set(which, effect);
    if (applyWrite(partition, effect)) changed = true;
  }
  if (changed) state.generation++;
}

/** What is known of the query's partition, probed first when that does not settle it. */
async function floorOf(
  state: MemoState,
  store: LedgerStore,
  query: UpperBounded,
): Promise<KnownFloor> {
  const partition = partitionOf(state.partitions, query);
  if (partition.known && (partition.known.exact || query.bound < partition.known.floor)) {
    return partition.known;
  }
  const asked = state.generation;
  state.stats.probed++;
  const floor = await probe(store, query);
  // A write that landed while the probe was out may or may not be in its answer.
  if (asked === state.generation) partition.known = { floor, exact: true };
  return { floor, exact: true };
}

/** The partition a query reads, registered on its first query. */
function partitionOf(partitions: Map<string, Partition>, query: UpperBounded): Partition {
  let partition = partitions.get(query.id);
  if (!partition) {
    partition = {
      index: query.index,
      key: query.key,
      hashValue: query.hashValue,
      known: undefined,
    };
    partitions.set(query.id, partition);
  }
  return partition;
}

/** The smallest sort key in the query's partition, exactly; +∞ when it is empty. */
async function probe(store: LedgerStore, query: UpperBounded): Promise<number> {
  const [first] = await store.query({
    index: query.index,
    keyCondition: `${query.hashName} = ${query.hashPlaceholder}`,
    names: { [query.hashName]: query.key.hash },
    values: { [query.hashPlaceholder]: query.hashValue },
    limit: 1,
  });
  return first ? Number(first[query.key.sort]?.N) : Number.POSITIVE_INFINITY;
}

/**
 * Adjusts what is known of a partition after an applied write. True when the write may have
 * changed the partition (then a probe that was out during it is not kept, known or not).
 */
function applyWrite(partition: Partition, effect: IndexEffect): boolean {
  if (effect.kind === 'untouched') return false;
  const { known } = partition;
  if (!known) return true;
  switch (effect.kind) {
    case 'unknown':
      forget(partition);
      return true;
    case 'left':
      known.exact = false;
      return true;
    case 'placed': {
      const here = effect.hash === undefined || sameValue(effect.hash, partition.hashValue);
      if (here && effect.sort < known.floor) {
        // Moved in below everything else; when the partition is known only as this item's
        // (hash given), that is the floor exactly.
        partition.known = { floor: effect.sort, exact: effect.hash !== undefined };
      } else {
        known.exact = false;
      }
      return true;
    }
  }
}

function forget(partition: Partition): void {
  partition.known = undefined;
}

function sameValue(a: AttributeValue, b: AttributeValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function upperBounded(request: QueryRequest): UpperBounded | undefined {
  if (request.filter !== undefined) return undefined;
  const match = UPPER_BOUND_QUERY.exec(request.keyCondition);
  if (!match) return undefined;
  const [, hashName = '', hashPlaceholder = '', sortName = '', boundPlaceholder = ''] = match;
  const hash = request.names[hashName];
  const hashValue = request.values[hashPlaceholder];
  const sort = request.names[sortName];
  const bound = Number(request.values[boundPlaceholder]?.N);
  if (!hash || !hashValue || !sort || !Number.isFinite(bound)) return undefined;
  return {
    id: JSON.stringify([request.index, hash, hashValue, sort]),
    index: request.index,
    key: { hash, sort },
    hashName,
    hashPlaceholder,
    hashValue,
    bound,
  };
}
