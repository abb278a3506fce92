import { createHash } from 'node:crypto';
import { av, jobStateKey } from './ledger-item.ts';
import type { LedgerStore } from './ledger-store.ts';
import { UpdateExpression } from './update-expression.ts';

/**
 * Items the roster is spread over: 10,000 job ids of up to 64 characters are 640 KB, over
 * DynamoDB's item size limit of 400 KB (DynamoDB Developer Guide, "Service, account, and table
 * quotas": item size); eight shards keep each under 100 KB.
 */
export const ROSTER_SHARDS = 8;

/** Prefix of a roster shard's partition key. */
export const ROSTER_KEY_PREFIX = 'roster#';

/** The partition key of the item that records the jobs bundle in force and when it took effect. */
export const DEPLOY_KEY = 'deploy';

/** The roster shard a job id belongs to. */
export function rosterShardOf(jobId: string): number {
  return (createHash('sha256').update(jobId).digest()[0] ?? 0) % ROSTER_SHARDS;
}

/**
 * The ids of every job the ledger has known since its last deploy: what lets the first sweep of
 * a deploy find the jobs that deploy removed (they are on the roster and not in its bundle), and
 * end them, so a job listed again later starts afresh instead of replaying its absence. A job
 * gets on it by a sweep's roll call, and whenever the dispatcher starts it: before a tick writes
 * its first state, and before a tick or sweep starts a removed job again. So a job whose deploy
 * never completed a roll call is on it too.
 *
 * ```
 *   deploy A: jobs {a, b}   first sweep: roster := {a, b}
 *   deploy B: jobs {a}      first sweep: b on the roster, not in B → b's state removedAt, off the roster
 *   deploy C: jobs {a, b}   b's first tick: removedAt → b back on the roster, restarts at that tick
 * ```
 */
export interface RosterLedger {
  /** Every job id on the roster (one batched read of its shards). */
  readRoster(): Promise<Set<string>>;
  /** Puts the ids on the roster (one write per shard that gains any). */
  enrol(jobIds: readonly string[]): Promise<void>;
  /**
   * Ends a job a deploy no longer lists: stamps its state `removedAt` (if it has a state and is
   * not stamped yet) and takes it off the roster. True when this call stamped it.
   */
  retire(jobId: string, at: Date): Promise<boolean>;
  /**
   * The deploy instant of the jobs bundle `bundleId`: `at` when this is the first dispatcher
   * to run with it (the ledger named another bundle, or none), else the instant the first one
   * recorded. One conditional write.
   */
  deployInstant(bundleId: string, at: Date): Promise<Date>;
}

/** The roster on the ledger table. */
export function createRosterLedger(store: LedgerStore): RosterLedger {
  const keyOf = (shard: number) => `${ROSTER_KEY_PREFIX}${shard}`;
  return {
    async readRoster() {
      const keys = Array.from({ length: ROSTER_SHARDS }, (_, shard) => keyOf(shard));
      const items = await store.batchGet(keys, true);
      const ids = new Set<string>();
      for (const item of items.values()) {
        const v = item.ids;
        for (const id of v && 'SS' in v ? (v.SS ?? []) : []) ids.add(id);
      }
      return ids;
    },
    async enrol(jobIds) {
      const byShard = new Map<number, string[]>();
      for (const id of jobIds) {
        const shard = rosterShardOf(id);
        byShard.set(shard, [...(byShard.get(shard) ?? []), id]);
      }
      for (const [shard, ids] of byShard) {
        const add = new UpdateExpression().add('ids', av.ss(ids)).build();
        await store.update({ key: keyOf(shard), ...add });
      }
    },
    async retire(jobId, at) {
      const stamp = new UpdateExpression().set('removedAt', av.s(at.toISOString())).build();
      const stamped = await store.update({
        key: jobStateKey(jobId),
        ...stamp,
        condition: 'attribute_exists(pk) AND attribute_not_exists(#removedAt)',
        names: { ...stamp.names, '#removedAt': 'removedAt' },
      });
      const off = new UpdateExpression().delete('ids', av.ss([jobId])).build();
      await store.update({ key: keyOf(rosterShardOf(jobId)), ...off });
      return stamped.applied;
    },
    async deployInstant(bundleId, at) {
      const u = new UpdateExpression()
        .set('bundleId', av.s(bundleId))
        .set('deployedAt', av.s(at.toISOString()));
      const b = u.name('bundleId');
      const condition = `attribute_not_exists(${b}) OR ${b} <> ${u.value('b', av.s(bundleId))}`;
      const result = await store.update({ key: DEPLOY_KEY, ...u.build(), condition });
      if (result.applied) return at;
      const recorded = result.current?.deployedAt;
      return recorded && 'S' in recorded && recorded.S ? new Date(recorded.S) : at;
    },
  };
}
