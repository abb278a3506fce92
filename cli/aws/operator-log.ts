import { randomBytes } from 'node:crypto';
import { av, type Item } from '#shared/ledger-item.ts';
import type { LedgerStore } from '#shared/ledger-store.ts';
import {
  LEDGER_BY_JOB_INDEX,
  LEDGER_BY_JOB_PARTITION_KEY,
  LEDGER_BY_JOB_SORT_KEY,
  LEDGER_PARTITION_KEY,
  LEDGER_TTL_ATTRIBUTE,
} from '#shared/ledger-table.ts';
import { UpdateExpression } from '#shared/update-expression.ts';

/** What an operator did to a job by hand. */
export type OperatorAction = 'paused' | 'resumed' | 'backfilled' | 'discarded';

const ACTIONS: ReadonlySet<string> = new Set<OperatorAction>([
  'paused',
  'resumed',
  'backfilled',
  'discarded',
]);

/** One operator action on a job, as the ledger keeps it (shown by `zonecron history`). */
export interface OperatorEvent {
  readonly jobId: string;
  readonly action: OperatorAction;
  /** UTC ISO instant of the action. */
  readonly at: string;
  /** Who: the caller's AWS identity ARN, or `user@host` against the sandbox. */
  readonly by: string;
  /** Why, as the operator said (`--reason`). */
  readonly reason?: string;
  /** A pause's end (`--until`), UTC ISO. */
  readonly until?: string;
  /** The run the action concerns (a discarded dead letter). */
  readonly runKey?: string;
  /** One line of facts: what a backfill delivered, what a resume caught up. */
  readonly detail?: string;
}

/**
 * Prefix of operator event items: their partition key, and their `jobId` in the `byJob` index.
 *
 * In `byJob` the events sit under `ops#<jobId>`, never under the job's own id, so whatever
 * reads a job's runs from the index (history, the future `describe`) never meets them there.
 */
export const OPERATOR_EVENT_PREFIX = 'ops#';

/** How long the ledger keeps an operator event unless told: as long as a run. */
const DEFAULT_EVENT_RETENTION_DAYS = 35;

/** The operator events of the ledger table: written by the operating commands, read by history. */
export interface OperatorLog {
  /** Records one event (a new item, never overwritten). */
  record(event: OperatorEvent, options?: { readonly retentionDays?: number }): Promise<void>;
  /** A job's events at or after `since`, newest first, at most `limit`. */
  read(jobId: string, since: Date, limit: number): Promise<OperatorEvent[]>;
}

function optionalText(item: Item, name: string): string | undefined {
  const v = item[name];
  return v && 'S' in v && v.S !== undefined ? v.S : undefined;
}

/** Decodes an operator event item; undefined for an item of another shape. */
function decodeEvent(item: Item): OperatorEvent | undefined {
  const indexed = optionalText(item, LEDGER_BY_JOB_PARTITION_KEY);
  const action = optionalText(item, 'action');
  const at = optionalText(item, LEDGER_BY_JOB_SORT_KEY);
  if (!indexed?.startsWith(OPERATOR_EVENT_PREFIX) || !action || !ACTIONS.has(action) || !at) {
    return undefined;
  }
  const optional = (name: keyof OperatorEvent) => {
    const value = optionalText(item, name);
    return value === undefined ? {} : { [name]: value };
  };
  return {
    jobId: indexed.slice(OPERATOR_EVENT_PREFIX.length),
    action: action as OperatorAction,
    at,
    by: optionalText(item, 'by') ?? 'unknown',
    ...optional('reason'),
    ...optional('until'),
    ...optional('runKey'),
    ...optional('detail'),
  };
}

/**
 * The operator log on the ledger table: one item per action, in the `byJob` index under
 * `ops#<jobId>`, expiring with the table's TTL like a run.
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
      const key = `${OPERATOR_EVENT_PREFIX}${event.jobId}#${event.at}#${event.action}#${nonce}`;
      const retentionDays = options.retentionDays ?? DEFAULT_EVENT_RETENTION_DAYS;
      const u = new UpdateExpression()
        .set(LEDGER_BY_JOB_PARTITION_KEY, av.s(`${OPERATOR_EVENT_PREFIX}${event.jobId}`))
        .set(LEDGER_BY_JOB_SORT_KEY, av.s(event.at))
        .set('action', av.s(event.action))
        .set('by', av.s(event.by))
        .set(
          LEDGER_TTL_ATTRIBUTE,
          av.n(Math.floor(Date.parse(event.at) / 1000) + retentionDays * 86_400),
        );
      for (const name of ['reason', 'until', 'runKey', 'detail'] as const) {
        const value = event[name];
        if (value !== undefined) u.set(name, av.s(value));
      }
      const condition = `attribute_not_exists(${u.name(LEDGER_PARTITION_KEY)})`;
      const { update, names, values } = u.build();
      await store.update({ key, update, condition, names, values });
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
      return items.map(decodeEvent).filter((e): e is OperatorEvent => e !== undefined);
    },
  };
}
