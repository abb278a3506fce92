import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { Sender } from '#shared/aws-clients.ts';
import { failingAs } from '../errors.ts';
import {
  type ConnectionOptions,
  connect,
  namesDeployment,
  type OperateConnection,
} from './connection.ts';
import { type LedgerAccess, onLedgerTable, openLedger } from './ledger-access.ts';

/** What `list` and `describe` read the deployed state through. */
export interface Deployment {
  readonly connection: OperateConnection;
  readonly ledger: LedgerAccess;
  /** The schedule group (stack output `ScheduleGroupName`); undefined without a stack. */
  readonly scheduleGroup: string | undefined;
  /** What is not read and how to read it. */
  readonly notes: readonly string[];
}

/**
 * What `list` and `describe` take from outside the command line: the environment
 * (`ZONECRON_STACK`, `ZONECRON_TABLE`, `AWS_ENDPOINT_URL…`) and the clock's reading, which the
 * next runs, pauses and open runs are judged against.
 */
export interface ReadContext {
  readonly env: NodeJS.ProcessEnv;
  readonly now: Date;
}

/** Why `list` and `describe` show the jobs file alone, and how to connect them. */
export const OFFLINE_NOTE =
  'offline: from the jobs file alone, without pauses, last runs or the deployed schedules;' +
  ' name the stack (--stack <name> or ZONECRON_STACK) to read them, or try them on zonecron' +
  ' sandbox';

/** Why the schedules are not compared when only a table is named. */
export const NO_STACK_NOTE =
  'the deployed schedules are not compared: no stack named, and its output ScheduleGroupName' +
  ' names their group (--stack <name> or ZONECRON_STACK)';

/**
 * Connects `list` and `describe` to the deployment the command line or the environment names
 * (`--stack`, `--table`, `ZONECRON_STACK`, `ZONECRON_TABLE`, through `connect()`), or returns
 * undefined: offline, from the jobs file alone ({@link OFFLINE_NOTE}). With a table but no
 * stack the ledger is read and the schedules are not ({@link NO_STACK_NOTE}).
 *
 * @example
 * const deployment = await openDeployment({ stack: 'Zonecron' });
 * deployment?.scheduleGroup //=> 'Zonecron-SchedulingGroup-1A2B3C'
 * deployment?.connection.destroy();
 */
export async function openDeployment(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Deployment | undefined> {
  if (!namesDeployment(options, env)) return undefined;
  const connection = await connect(options, env);
  try {
    const ledger = openLedger(connection);
    const scheduleGroup = connection.stack ? connection.output('ScheduleGroupName') : undefined;
    return { connection, ledger, scheduleGroup, notes: scheduleGroup ? [] : [NO_STACK_NOTE] };
  } catch (error) {
    connection.destroy();
    throw error;
  }
}

/**
 * Reads the ledger table, any failure one line naming the table (`onLedgerTable`).
 *
 * @example
 * await readLedger(deployment, (ledger) => ledger.ledger.getJobState('nightly'));
 */
export function readLedger<T>(
  deployment: Deployment,
  step: (ledger: LedgerAccess) => Promise<T>,
): Promise<T> {
  const { ledger, connection } = deployment;
  return onLedgerTable(ledger.tableName, connection.clients, 'read', () => step(ledger));
}

/**
 * Reads the schedule group with EventBridge Scheduler, any failure one line naming the group;
 * undefined when no stack names the group.
 *
 * @example
 * await readScheduleGroup(deployment, (scheduler, group) => listDeployedSchedules(scheduler, group));
 */
export async function readScheduleGroup<T>(
  deployment: Deployment,
  step: (scheduler: Sender<SchedulerClient>, group: string) => Promise<T>,
): Promise<T | undefined> {
  const group = deployment.scheduleGroup;
  if (group === undefined) return undefined;
  const { connection } = deployment;
  return failingAs(`read the schedule group '${group}'`, connection.clients, async () =>
    step(await connection.scheduler(), group),
  );
}
