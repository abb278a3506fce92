import { createDynamoLedger, type Ledger } from '../../functions/dispatcher/ledger.ts';
import { createLedgerStore, type LedgerStore } from '../../functions/shared/ledger-store.ts';
import type { OperateConnection } from './connection.ts';
import { createOperatorLog, type OperatorLog } from './operator-log.ts';

/** The ledger table as the operating commands reach it. */
export interface LedgerAccess {
  readonly tableName: string;
  readonly store: LedgerStore;
  /** Runs, job states, the sweep cursor: the dispatcher's own ledger code. */
  readonly ledger: Ledger;
  /** Who paused, resumed, backfilled or discarded what. */
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
