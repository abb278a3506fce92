/**
 * The ledger: zonecron's DynamoDB table and everything that reads or writes its items (runs,
 * job states, the outbox, zone-drift notices, operator events), and the on-call notifications
 * the outbox sends. docs/architecture.md §5 is its contract.
 *
 * Everything outside functions/ledger imports the ledger from here (`#ledger/index.ts`; a unit
 * test of one module may import that module); the files in this folder import each other
 * directly. The ledger may import only the rooms below it: the engine, functions/text,
 * functions/shared, functions/jobs and functions/zone-drift (not its runtime check)
 * (test/unit/import-layers.test.ts).
 */

export {
  type CompletionResult,
  type CompletionWrite,
  createRecorderLedger,
  RECORDER_RUN_ATTRIBUTES,
  type RecorderLedger,
} from './completion-ledger.ts';
export { isLedgerError, LedgerError } from './errors.ts';
export {
  createJobStateLedger,
  type JobStateLedger,
  type OverlapCount,
  type PauseRequest,
  SLOT_ATTRIBUTES,
  type SwapOutcome,
} from './job-state-ledger.ts';
export {
  av,
  decodeRun,
  type Item,
  inLastPause,
  isTerminal,
  type JobStateItem,
  jobStateKey,
  LedgerItemError,
  type MissedIncident,
  type OutboxEffect,
  openShardOf,
  openShards,
  pendingDeadline,
  type RunItem,
  type RunOrigin,
  type RunStatus,
  type Signal,
  type SkipReason,
  zoneDriftKey,
} from './ledger-item.ts';
export {
  type ConditionalUpdate,
  createLedgerStore,
  type LedgerStore,
  type LedgerStoreOptions,
  LedgerThrottledError,
  type UpdateResult,
} from './ledger-store.ts';
export {
  LEDGER_BY_JOB_INDEX,
  LEDGER_BY_JOB_PARTITION_KEY,
  LEDGER_BY_JOB_SORT_KEY,
  LEDGER_OPEN_INDEX,
  LEDGER_OPEN_PARTITION_KEY,
  LEDGER_OPEN_SORT_KEY,
  LEDGER_PARTITION_KEY,
  LEDGER_TTL_ATTRIBUTE,
  ledgerTableDefinition,
} from './ledger-table.ts';
export {
  buildZoneDriftNotification,
  createSnsNotifier,
  type Notifier,
  RecordingNotifier,
  type RunNotification,
  type ZoneDriftNotification,
  type ZoneDriftNotifier,
} from './notifications.ts';
export {
  decodeOperatorEvent,
  encodeOperatorEvent,
  OPERATOR_EVENT_PREFIX,
  type OperatorAction,
  type OperatorEvent,
} from './operator-event.ts';
export { type OutboxDeps, type OutboxLedger, performOutbox } from './outbox.ts';
export {
  createRosterLedger,
  DEPLOY_KEY,
  ROSTER_KEY_PREFIX,
  ROSTER_SHARDS,
  type RosterLedger,
  rosterShardOf,
} from './roster.ts';
export {
  type ClaimMode,
  type ClaimOutcome,
  type ClaimRequest,
  createDynamoLedger,
  type Ledger,
  LedgerConflictError,
  type OverlapNotice,
  type RunLedger,
  type SkipRecord,
} from './run-ledger.ts';
export {
  createSkipRangeLedger,
  decodeSkipRange,
  type PauseSpan,
  reasonInRange,
  SKIP_RANGE_PREFIX,
  type SkipRange,
  type SkipRangeLedger,
} from './skip-range.ts';
export { type BuiltUpdate, type UpdateAction, UpdateExpression } from './update-expression.ts';
export {
  createZoneDriftLedger,
  type ZoneDriftClaim,
  type ZoneDriftLedger,
  type ZoneDriftNoticeId,
} from './zone-drift-ledger.ts';
