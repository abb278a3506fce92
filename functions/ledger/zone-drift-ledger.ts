import { av, decodeZoneDrift, type ZoneDriftItem, zoneDriftKey } from './ledger-item.ts';
import type { LedgerStore } from './ledger-store.ts';
import { LEDGER_PARTITION_KEY, LEDGER_TTL_ATTRIBUTE } from './ledger-table.ts';
import { UpdateExpression } from './update-expression.ts';

/** Which notice: one per deploy, runtime zone data and job. */
export interface ZoneDriftNoticeId {
  /** The deploy: the jobs bundle's `synthesizedAt`. */
  readonly synthesizedAt: string;
  readonly runtimeZoneData: string;
  readonly jobId: string;
}

/** What a claim records: the finding, and the claimer's lease. */
export interface ZoneDriftClaim extends ZoneDriftNoticeId {
  readonly timezone: string;
  readonly synthZoneData: string;
  readonly firstDisagreementAt: string;
  readonly nowEpochMs: number;
  readonly leaseUntilEpochMs: number;
  readonly ttlEpochSec: number;
}

/**
 * The zone-drift notices (`zone-drift#<synthesizedAt>#<runtime tz>#<jobId>`): every container
 * of a deploy finds the same drift, and these items let exactly one of them tell on-call.
 *
 * ```
 *  (none) ──claim──> claimed (lease L) ──sent──> notified      (done: every later claim refused)
 *                        └ sender died or SNS failed: after L, anyone may claim again
 * ```
 */
export interface ZoneDriftLedger {
  /** The notices that exist among these (eventually consistent reads, ≤ 100 a request). */
  getNotices(ids: readonly ZoneDriftNoticeId[]): Promise<Map<string, ZoneDriftItem>>;
  /**
   * Takes the right to notify: true when the notice is new, or unsent with its lease run out.
   */
  claimNotice(claim: ZoneDriftClaim): Promise<boolean>;
  /** Records the notification as sent, which ends the notice's life but for its TTL. */
  confirmNotice(id: ZoneDriftNoticeId, notifiedAt: Date): Promise<void>;
}

/**
 * The zone-drift notices on the ledger table.
 *
 * @example
 * const notices = createZoneDriftLedger(createLedgerStore({ client, tableName }));
 * await notices.claimNotice({ synthesizedAt, runtimeZoneData: '2026d', jobId: 'nightly', … })
 * //=> true (the first container only)
 */
export function createZoneDriftLedger(store: LedgerStore): ZoneDriftLedger {
  const keyOf = (id: ZoneDriftNoticeId) =>
    zoneDriftKey(id.synthesizedAt, id.runtimeZoneData, id.jobId);
  return {
    async getNotices(ids) {
      const items = await store.batchGet(ids.map(keyOf), false);
      const notices = new Map<string, ZoneDriftItem>();
      for (const [key, item] of items) notices.set(key, decodeZoneDrift(item));
      return notices;
    },

    async claimNotice(claim) {
      const u = new UpdateExpression()
        .set('timezone', av.s(claim.timezone))
        .set('synthZoneData', av.s(claim.synthZoneData))
        .set('firstDisagreementAt', av.s(claim.firstDisagreementAt))
        .setIfAbsent('detectedAt', av.s(new Date(claim.nowEpochMs).toISOString()))
        .set('noticeLeaseUntilEpochMs', av.n(claim.leaseUntilEpochMs))
        .set(LEDGER_TTL_ATTRIBUTE, av.n(claim.ttlEpochSec));
      const lease = u.name('noticeLeaseUntilEpochMs');
      const condition = `attribute_not_exists(${u.name(LEDGER_PARTITION_KEY)}) OR (attribute_not_exists(${u.name('notifiedAt')}) AND ${lease} < ${u.value('now', av.n(claim.nowEpochMs))})`;
      const result = await store.update({ key: keyOf(claim), ...u.build(), condition });
      return result.applied;
    },

    async confirmNotice(id, notifiedAt) {
      const u = new UpdateExpression()
        .set('notifiedAt', av.s(notifiedAt.toISOString()))
        .remove('noticeLeaseUntilEpochMs');
      const condition = `attribute_exists(${u.name(LEDGER_PARTITION_KEY)})`;
      await store.update({ key: keyOf(id), ...u.build(), condition });
    },
  };
}
