import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { LedgerStore } from '../../functions/shared/ledger-store.ts';

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

/** The smallest sort key a partition held as of one write generation. */
interface KnownFloor {
  readonly generation: number;
  readonly smallest: number;
}

/**
 * Answers a store's upper-bound queries from what is known to be in the table, exactly.
 *
 * Every simulated minute the sweep asks each open-run partition for the items due by now, and
 * almost always the answer is nothing: four requests a minute, most of a plain simulation's
 * time. The memo learns a partition's smallest sort key with one request (`Limit 1`, no
 * bound) and then answers every query whose bound is below it with the empty page the table
 * would return, as long as nothing was written since: every applied write through any wrapped
 * store starts a new generation, and a floor learnt in an older one is asked again. Queries
 * whose bound reaches the floor go to the table as they are.
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
  const stats: QueryMemoStats = { answered: 0, probed: 0, passed: 0 };
  const floors = new Map<string, KnownFloor>();
  let generation = 0;

  const wrap = (store: LedgerStore): LedgerStore => ({
    ...store,
    async update(request) {
      const result = await store.update(request);
      if (result.applied) generation++;
      return result;
    },
    async query(request) {
      const bounded = upperBounded(request);
      if (!bounded) {
        stats.passed++;
        return store.query(request);
      }
      const floor = await floorOf(store, request, bounded);
      if (bounded.bound < floor) {
        stats.answered++;
        return [];
      }
      stats.passed++;
      return store.query(request);
    },
  });

  async function floorOf(
    store: LedgerStore,
    request: QueryRequest,
    bounded: UpperBounded,
  ): Promise<number> {
    const known = floors.get(bounded.partition);
    if (known?.generation === generation) return known.smallest;
    const asked = generation;
    stats.probed++;
    const [first] = await store.query({
      index: request.index,
      keyCondition: `${bounded.hashName} = ${bounded.hashValue}`,
      names: { [bounded.hashName]: bounded.hashAttribute },
      values: { [bounded.hashValue]: bounded.hashAttributeValue },
      limit: 1,
    });
    const smallest = first ? Number(first[bounded.sortAttribute]?.N) : Number.POSITIVE_INFINITY;
    // A write that landed while the probe was out may or may not be in its answer.
    if (asked === generation) floors.set(bounded.partition, { generation: asked, smallest });
    return smallest;
  }

  return { stats, wrap };
}

type QueryRequest = Parameters<LedgerStore['query']>[0];

/** An upper-bound query taken apart: the partition it reads and its numeric bound. */
interface UpperBounded {
  readonly partition: string;
  readonly hashName: string;
  readonly hashValue: string;
  readonly hashAttribute: string;
  readonly hashAttributeValue: AttributeValue;
  readonly sortAttribute: string;
  readonly bound: number;
}

function upperBounded(request: QueryRequest): UpperBounded | undefined {
  if (request.filter !== undefined) return undefined;
  const match = UPPER_BOUND_QUERY.exec(request.keyCondition);
  if (!match) return undefined;
  const [, hashName = '', hashValue = '', sortName = '', boundValue = ''] = match;
  const hashAttribute = request.names[hashName];
  const hashAttributeValue = request.values[hashValue];
  const sortAttribute = request.names[sortName];
  const bound = Number(request.values[boundValue]?.N);
  if (!hashAttribute || !hashAttributeValue || !sortAttribute || !Number.isFinite(bound)) {
    return undefined;
  }
  const partition = JSON.stringify([
    request.index,
    hashAttribute,
    hashAttributeValue,
    sortAttribute,
  ]);
  return {
    partition,
    hashName,
    hashValue,
    hashAttribute,
    hashAttributeValue,
    sortAttribute,
    bound,
  };
}
