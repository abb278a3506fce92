import {
  createDynamoLedger,
  createLedgerStore,
  type Ledger,
  type LedgerStore,
} from '#ledger/index.ts';
import { failingAs } from '../errors.ts';
import type { OperateConnection } from './connection.ts';
import { createOperatorLog, type OperatorLog } from './operator-log.ts';

/** The ledger table as the operating commands reach it. */
export interface LedgerAccess {
  readonly tableName: string;
  readonly store: LedgerStore;
  /** Runs, job states, the sweep cursor: the dispatcher's own ledger code. */
  readonly ledger: Ledger;
  /** Who paused, resumed, ran, backfilled, redrove or discarded what. */
  readonly log: OperatorLog;
}

/**
 * Opens the connection's ledger table with the dispatcher's ledger code and the operator log.
 *
 * @example
 * const { ledger, log } = openLedger(await connect(options));
 * await ledger.getJobState('nightly') //=> { jobId: 'nightly', watermarkAt: '…', … }
 */
export function openLedger(connection: OperateConnection): LedgerAccess {
  const tableName = connection.tableName();
  const store = createLedgerStore({ client: connection.clients.dynamodb, tableName });
  return { tableName, store, ledger: createDynamoLedger(store), log: createOperatorLog(store) };
}

/**
 * Runs one step on the ledger table, turning an SDK failure into one line that names the
 * table and what could not be done (`read` or `update`); a `CliError` passes as it is.
 *
 * @example
 * await onLedgerTable('ledger', clients, 'read', () => ledger.getJobState('nightly'));
 * // unreachable: CliError "cannot read the ledger table 'ledger': cannot reach … (ECONNREFUSED)"
 */
export async function onLedgerTable<T>(
  table: string,
  endpoint: { readonly endpoint?: string },
  verb: 'read' | 'update',
  step: () => Promise<T>,
): Promise<T> {
  return failingAs(`${verb} the ledger table '${table}'`, endpoint, step);
}
