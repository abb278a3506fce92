import { av, type Item } from './ledger-item.ts';
import type { ConditionalUpdate } from './ledger-store.ts';
import {
  LEDGER_BY_JOB_PARTITION_KEY,
  LEDGER_BY_JOB_SORT_KEY,
  LEDGER_PARTITION_KEY,
  LEDGER_TTL_ATTRIBUTE,
} from './ledger-table.ts';
import { UpdateExpression } from './update-expression.ts';

/**
 * What an operator did to a job by hand: every command that changes a job's state or delivers
 * one of its runs (`pause`, `resume`, `run`, `backfill`, `dlq redrive`, `dlq discard`).
 */
export type OperatorAction = 'paused' | 'resumed' | 'ran' | 'backfilled' | 'redriven' | 'discarded';

const ACTIONS: ReadonlySet<string> = new Set<OperatorAction>([
  'paused',
  'resumed',
  'ran',
  'backfilled',
  'redriven',
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
  /** The range a backfill covered, UTC ISO (inclusive): `history` shows its runs in its window. */
  readonly from?: string;
  readonly to?: string;
  /** The run the action concerns (a manual run, a redriven or discarded dead letter). */
  readonly runKey?: string;
  /**
   * One line of facts, what the action changed: what a pause kept, what a run or backfill
   * delivered, what a resume caught up, what a guard `--force` overrode.
   */
  readonly detail?: string;
}

/**
 * Prefix of operator event items: their partition key, and their `jobId` in the `byJob` index.
 *
 * In `byJob` the events sit under `ops#<jobId>`, never under the job's own id, so whatever
 * reads a job's runs from the index (history, the future `describe`) never meets them there.
 */
export const OPERATOR_EVENT_PREFIX = 'ops#';

/**
 * The write of one operator event as a new item, never overwritten: key
 * `ops#<jobId>#<at>#<action>#<nonce>`, in the `byJob` index under `ops#<jobId>` at the event's
 * instant, expiring `retentionDays` after it.
 *
 * @example
 * encodeOperatorEvent({ jobId: 'nightly', action: 'paused', at: '2027-03-28T01:30:00.000Z',
 *   by: 'alice@host' }, { nonce: '9f5b0c1d', retentionDays: 35 }).key
 * //=> 'ops#nightly#2027-03-28T01:30:00.000Z#paused#9f5b0c1d'
 */
export function encodeOperatorEvent(
  event: OperatorEvent,
  options: { readonly nonce: string; readonly retentionDays: number },
): ConditionalUpdate {
  const key = `${OPERATOR_EVENT_PREFIX}${event.jobId}#${event.at}#${event.action}#${options.nonce}`;
  const u = new UpdateExpression()
    .set(LEDGER_BY_JOB_PARTITION_KEY, av.s(`${OPERATOR_EVENT_PREFIX}${event.jobId}`))
    .set(LEDGER_BY_JOB_SORT_KEY, av.s(event.at))
    .set('action', av.s(event.action))
    .set('by', av.s(event.by))
    .set(
      LEDGER_TTL_ATTRIBUTE,
      av.n(Math.floor(Date.parse(event.at) / 1000) + options.retentionDays * 86_400),
    );
  for (const name of ['reason', 'until', 'from', 'to', 'runKey', 'detail'] as const) {
    const value = event[name];
    if (value !== undefined) u.set(name, av.s(value));
  }
  const condition = `attribute_not_exists(${u.name(LEDGER_PARTITION_KEY)})`;
  return { key, ...u.build(), condition };
}

function optionalText(item: Item, name: string): string | undefined {
  const v = item[name];
  return v && 'S' in v && v.S !== undefined ? v.S : undefined;
}

/** Decodes an operator event item; undefined for an item of another shape. */
export function decodeOperatorEvent(item: Item): OperatorEvent | undefined {
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
    ...optional('from'),
    ...optional('to'),
    ...optional('runKey'),
    ...optional('detail'),
  };
}
