import { type Command, Option } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../aws/connection.ts';
import type { Deployment, ReadContext } from '../aws/deployment.ts';
import type { OperatedJobs } from '../aws/operated-job.ts';
import { coloursFor } from '../format/colour.ts';
import type { JobList, JobListInput } from '../format/job-list.ts';
import { utcInstantArgument } from '../instant.ts';

/** `list`'s options, as commander parses them. */
export interface ListOptions extends ConnectionOptions {
  after?: Date;
  /** False with `--no-expressions`: compare the schedules' states only. */
  expressions?: boolean;
  json?: boolean;
  /** `-o wide`: every column, none cut; the default table fits 80 columns. */
  output?: 'table' | 'wide';
}

const EXAMPLE = `
Examples:
  $ zonecron list                      # offline: jobs.yaml and the next runs
  $ zonecron list --stack Zonecron     # also pauses, last runs, schedule drift
  lists every job: target, schedule and zone, paused or disabled, the next run
  in its zone and in UTC, the last scheduled run and its status in the ledger;
  against a stack, the schedules missing, disabled by hand, firing on another
  expression than the jobs file's, or owned by no job.`;

/** `zonecron list`: every job of the jobs file, with what the deployment says of it. */
export function registerList(program: Command): void {
  const command = program
    .command('list')
    .description('list every job: state, next run, last run, deployed schedule drift')
    .option(
      '--after <instant>',
      'next runs after this instant (default: now; a date or local time is read in UTC)',
      utcInstantArgument,
    )
    .option(
      '--no-expressions',
      "against a stack, compare the schedules' states only (no GetSchedule per job)",
    )
    .addOption(
      new Option('-o, --output <layout>', 'table fits 80 columns; wide shows every column whole')
        .choices(['table', 'wide'])
        .default('table'),
    )
    .option('--json', 'print one JSON document');
  addConnectionOptions(command, { table: true, config: true })
    .addHelpText('after', EXAMPLE)
    .action(async (options: ListOptions) => {
      const list = await buildJobList(options, { env: process.env, now: new Date() });
      const { listJson, listText } = await import('../format/job-list.ts');
      process.stdout.write(
        options.json
          ? `${JSON.stringify(listJson(list), null, 2)}\n`
          : `${listText(list, coloursFor(process.stdout), options.output)}\n`,
      );
    });
}

/**
 * What `zonecron list` prints, before it is printed: the jobs file, and the deployment the
 * options or the environment name (offline when none).
 *
 * @example
 * const list = await buildJobList({ config: 'jobs.yaml' }, { env: {}, now: new Date() });
 * list.jobs.map((job) => job.state) //=> ['enabled', 'enabled', 'disabled']
 */
export async function buildJobList(options: ListOptions, context: ReadContext): Promise<JobList> {
  const { openDeployment, OFFLINE_NOTE } = await import('../aws/deployment.ts');
  const { jobList } = await import('../format/job-list.ts');
  const file = options.config ?? 'jobs.yaml';
  const at = { now: context.now, after: options.after ?? context.now };
  const deployment = await openDeployment(options, context.env);
  if (!deployment) {
    const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
    const config = loadJobsFile(file);
    return jobList({ ...offlineInput(config, at.after), deployment: offlineOf(OFFLINE_NOTE) });
  }
  try {
    const { loadOperatedJobs, warnOfFileDifferences } = await import('../aws/operated-job.ts');
    const loaded = await loadOperatedJobs(deployment.connection, file);
    await warnOfFileDifferences(loaded, file);
    const config = loaded.jobs;
    const compare = options.expressions !== false;
    return jobList(await readJobListInput(deployment, config, { ...at, compare }));
  } finally {
    deployment.connection.destroy();
  }
}

function offlineInput(config: Pick<OperatedJobs, 'file' | 'jobs'>, after: Date) {
  return { file: config.file, jobs: config.jobs, after };
}

function offlineOf(note: string): JobListInput['deployment'] {
  return { stack: null, table: null, scheduleGroup: null, notes: [note] };
}

/**
 * What `list` reads of a deployment, for every job at once: the pauses (one batched read of
 * the job states, `readPauseStates`), the last scheduled runs (one batched read of their keys,
 * `readLastRuns`), both ⌈jobs / 100⌉ `BatchGetItem` calls, side by side with the schedule
 * group ({@link readSchedules}).
 *
 * @example
 * const input = await readJobListInput(deployment, config, { now, after: now, compare: true });
 * input.pauses?.get('nightly')?.paused //=> false
 */
export async function readJobListInput(
  deployment: Deployment,
  config: Pick<OperatedJobs, 'file' | 'jobs' | 'zonecronVersion'>,
  at: { readonly now: Date; readonly after: Date; readonly compare: boolean },
): Promise<JobListInput> {
  const { readPauseStates } = await import('../aws/job-control.ts');
  const { readLastRuns } = await import('../aws/last-runs.ts');
  const { readLedger } = await import('../aws/deployment.ts');
  const ids = config.jobs.map((job) => job.id);
  const [[pauses, lastRuns], group] = await Promise.all([
    readLedger(deployment, (access) =>
      Promise.all([
        readPauseStates(access.ledger, ids, at.now),
        readLastRuns(access.store, config.jobs, at.now),
      ]),
    ),
    readSchedules(deployment, config, at),
  ]);
  const { connection, ledger, scheduleGroup } = deployment;
  const { deployedVersionNote } = await import('../deployed/deployed-version.ts');
  const version = deployedVersionNote(connection.stackName, config.zonecronVersion);
  const notes = version === undefined ? deployment.notes : [version, ...deployment.notes];
  return {
    ...offlineInput(config, at.after),
    pauses,
    lastRuns,
    ...group,
    deployment: {
      stack: connection.stack?.stackName ?? null,
      table: ledger.tableName,
      scheduleGroup: scheduleGroup ?? null,
      notes: group.schedules && !at.compare ? [...notes, NOT_COMPARED_NOTE] : notes,
    },
  };
}

/** Why `list --no-expressions` flags no expression drift. */
const NOT_COMPARED_NOTE =
  'expressions not compared (--no-expressions): zonecron describe <job> compares one';

/**
 * The schedule group's schedules with their states (`ListSchedules`, 100 a page); with
 * `compare`, those of enabled jobs also with their expressions and inputs (`GetSchedule`,
 * one call each) and the coverings the jobs file gives them. Nothing without a group.
 */
async function readSchedules(
  deployment: Deployment,
  config: Pick<OperatedJobs, 'file' | 'jobs'>,
  at: { readonly now: Date; readonly compare: boolean },
): Promise<Pick<JobListInput, 'schedules' | 'coverings'>> {
  const { listDeployedSchedules, getDeployedSchedules } = await import(
    '../aws/deployed-schedules.ts'
  );
  const { readScheduleGroup } = await import('../aws/deployment.ts');
  const { coveringSchedule } = await import('../../infra/covering/covering-cron.ts');
  const read = await readScheduleGroup(deployment, async (scheduler, group) => {
    const listed = await listDeployedSchedules(scheduler, group);
    if (!at.compare) return { schedules: listed };
    const jobs = config.jobs.filter((job) => job.enabled && listed.has(job.id));
    const detailed = await getDeployedSchedules(
      scheduler,
      group,
      jobs.map((job) => job.id),
    );
    const coverings = new Map(
      jobs.map((job) => [job.id, coveringSchedule(job, at.now).awsExpression]),
    );
    return { schedules: new Map([...listed, ...detailed]), coverings };
  });
  return read ?? {};
}
