import type { Command } from 'commander';
import type { JobDefinition } from '../../functions/shared/job.ts';
import type { JobsConfig } from '../../infra/config/load-jobs.ts';
import { addConnectionOptions, type ConnectionOptions } from '../aws/connection.ts';
import type { Deployment } from '../aws/deployment.ts';
import { coloursFor } from '../format/colour.ts';
import type { JobListInput } from '../format/job-list.ts';
import { parseInstant } from '../options.ts';

interface ListOptions extends ConnectionOptions {
  after?: Date;
  json?: boolean;
}

const EXAMPLE = `
Examples:
  $ zonecron list                      # offline: jobs.yaml and the next runs
  $ zonecron list --stack Zonecron     # also pauses, last runs, schedule drift
  lists every job: target, schedule and zone, paused or disabled, the next run
  in its zone and in UTC, the last scheduled run and its status in the ledger;
  against a stack, the schedules missing, disabled by hand or owned by no job.`;

/** `zonecron list`: every job of the jobs file, with what the deployment says of it. */
export function registerList(program: Command): void {
  const command = program
    .command('list')
    .description('list every job: state, next run, last run, deployed schedule drift')
    .option('--after <instant>', 'next runs after this ISO instant (default: now)', parseInstant)
    .option('--json', 'print one JSON document');
  addConnectionOptions(command, { table: true, config: true })
    .addHelpText('after', EXAMPLE)
    .action(runList);
}

async function runList(options: ListOptions): Promise<void> {
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const { openDeployment, OFFLINE_NOTE } = await import('../aws/deployment.ts');
  const { jobList, listJson, listText } = await import('../format/job-list.ts');
  const config = loadJobsFile(options.config ?? 'jobs.yaml');
  const now = new Date();
  const after = options.after ?? now;
  const deployment = await openDeployment(options);
  let input: JobListInput;
  try {
    input = deployment
      ? await readJobListInput(deployment, config, { now, after })
      : { ...offlineInput(config, after), deployment: offlineDeployment(OFFLINE_NOTE) };
  } finally {
    deployment?.connection.destroy();
  }
  const list = jobList(input);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(listJson(list), null, 2)}\n`);
    return;
  }
  process.stdout.write(`${listText(list, coloursFor(process.stdout))}\n`);
}

function offlineInput(config: JobsConfig, after: Date) {
  return { file: config.file, jobs: config.jobs, after };
}

function offlineDeployment(note: string): JobListInput['deployment'] {
  return { stack: null, table: null, scheduleGroup: null, notes: [note] };
}

/**
 * What `list` reads of a deployment, for every job at once: the pauses (one batched read of
 * the job states, `readPauseStates`), the last scheduled runs (one batched read of their keys,
 * `readLastRuns`), both ⌈jobs / 100⌉ `BatchGetItem` calls, side by side; and the schedule
 * group's schedules with their states (`ListSchedules`, 100 a page). `ListSchedules` does not
 * return expressions, so `list` does not compare them: `describe` does, one job at a time.
 *
 * @example
 * const input = await readJobListInput(deployment, config, { now, after: now });
 * input.pauses?.get('nightly')?.paused //=> false
 */
export async function readJobListInput(
  deployment: Deployment,
  config: JobsConfig,
  at: { readonly now: Date; readonly after: Date },
): Promise<JobListInput> {
  const { readPauseStates } = await import('../aws/job-control.ts');
  const { readLastRuns } = await import('../aws/last-runs.ts');
  const { listDeployedSchedules } = await import('../aws/deployed-schedules.ts');
  const { readLedger, readScheduleGroup } = await import('../aws/deployment.ts');
  const ids = config.jobs.map((job: JobDefinition) => job.id);
  const [[pauses, lastRuns], schedules] = await Promise.all([
    readLedger(deployment, (access) =>
      Promise.all([
        readPauseStates(access.ledger, ids, at.now),
        readLastRuns(access.store, config.jobs, at.now),
      ]),
    ),
    readScheduleGroup(deployment, listDeployedSchedules),
  ]);
  const { connection, ledger, scheduleGroup, notes } = deployment;
  return {
    ...offlineInput(config, at.after),
    pauses,
    lastRuns,
    ...(schedules ? { schedules } : {}),
    deployment: {
      stack: connection.stack?.stackName ?? null,
      table: ledger.tableName,
      scheduleGroup: scheduleGroup ?? null,
      notes: schedules
        ? [
            ...notes,
            'expressions are not compared (ListSchedules does not return them): zonecron describe <job> compares one',
          ]
        : notes,
    },
  };
}
