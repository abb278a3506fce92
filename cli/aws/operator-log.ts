import { randomBytes } from 'node:crypto';
import {
  av,
  decodeOperatorEvent,
  encodeOperatorEvent,
  LEDGER_BY_JOB_INDEX,
  LEDGER_BY_JOB_PARTITION_KEY,
  LEDGER_BY_JOB_SORT_KEY,
  type LedgerStore,
  OPERATOR_EVENT_PREFIX,
  type OperatorEvent,
} from '#ledger/index.ts';

/** How long the ledger keeps an operator event unless told: as long as a run. */
const DEFAULT_EVENT_RETENTION_DAYS = 35;

/** The operator events of the ledger table: written by the operating commands, read by history. */
export interface OperatorLog {
  /** Records one event (a new item, never overwritten). */
  record(event: OperatorEvent, options?: { readonly retentionDays?: number }): Promise<void>;
  /** A job's events at or after `since`, newest first, at most `limit`. */
  read(jobId: string, since: Date, limit: number): Promise<OperatorEvent[]>;
}

/**
 * The operator log on the ledger table: one item per action, in the `byJob` index under
 * `ops#<jobId>`, expiring with the table's TTL like a run. The item's codec is the ledger's
 * (functions/ledger/operator-event.ts).
 *
 * @example
 * const log = createOperatorLog(createLedgerStore({ client, tableName: 'ledger' }));
 * await log.record({ jobId: 'nightly', action: 'paused', at: new Date().toISOString(),
 *   by: 'arn:aws:sts::123456789012:assumed-role/oncall/alice', reason: 'db migration' });
 * await log.read('nightly', new Date(0), 10) //=> [{ action: 'paused', by: '…', … }]
 */
export function createOperatorLog(store: LedgerStore): OperatorLog {
  return {
    async record(event, options = {}) {
      const nonce = randomBytes(4).toString('hex');
      const retentionDays = options.retentionDays ?? DEFAULT_EVENT_RETENTION_DAYS;
      await store.update(encodeOperatorEvent(event, { nonce, retentionDays }));
    },

    async read(jobId, since, limit) {
      const items = await store.query({
        index: LEDGER_BY_JOB_INDEX,
        keyCondition: '#job = :job AND #at >= :since',
        names: { '#job': LEDGER_BY_JOB_PARTITION_KEY, '#at': LEDGER_BY_JOB_SORT_KEY },
        values: {
          ':job': av.s(`${OPERATOR_EVENT_PREFIX}${jobId}`),
          ':since': av.s(since.toISOString()),
        },
        limit,
        newestFirst: true,
      });
      return items.map(decodeOperatorEvent).filter((e): e is OperatorEvent => e !== undefined);
    },
  };
}

/** One operator action as a command reports it: the log adds who and when. */
export type OperatorActionRecord = Omit<OperatorEvent, 'at' | 'by'> & {
  /** Days the ledger keeps the event (`retention.days`). */
  readonly retentionDays?: number;
};

/**
 * Records an action of the command now, by the caller's identity (the AWS ARN, or `user@host`
 * against the sandbox): what `run`, `backfill` and `dlq redrive` call once they acted.
 *
 * @example
 * await recordOperatorAction(access.log, connection, { jobId: 'nightly', action: 'ran',
 *   runKey: outcome.key, detail: 'dispatched' });
 */
export async function recordOperatorAction(
  log: OperatorLog,
  connection: { readonly local: boolean; readonly region: string | undefined },
  record: OperatorActionRecord,
): Promise<OperatorEvent> {
  const { callerIdentity } = await import('./caller-identity.ts');
  const { retentionDays, ...rest } = record;
  const event: OperatorEvent = {
    ...rest,
    at: new Date().toISOString(),
    by: await callerIdentity(connection),
  };
  await log.record(event, retentionDays === undefined ? {} : { retentionDays });
  return event;
}
