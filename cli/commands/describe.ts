import type { Command } from 'commander';
import type { JobDefinition } from '../../functions/shared/job.ts';
import { addConnectionOptions, type ConnectionOptions } from '../aws/connection.ts';
import type { Deployment } from '../aws/deployment.ts';
import { coloursFor } from '../format/colour.ts';
import type { DescribeInput } from '../format/job-description.ts';
import { integerAtLeast, parseInstant } from '../options.ts';

interface DescribeOptions extends ConnectionOptions {
  count: number;
  last: number;
  after?: Date;
  json?: boolean;
}

/** Most next runs `describe` lists, as `next`. */
const MAX_COUNT = 1000;
/** The newest runs read from the ledger: the signals look at all of them (one query). */
const RUNS_READ = 100;

const EXAMPLE = `
Examples:
  $ zonecron describe berlin-nightly-report              # offline: jobs.yaml
  $ zonecron describe berlin-nightly-report --stack Zonecron
  the job with its defaults, its UTC covering and ticks per run, the next 10
  runs with DST notes; against a stack also its pause, its last runs, what is
  open or signalled among them, and its deployed schedule with any drift.`;

/** `zonecron describe`: one job, from the jobs file and from the deployment. */
export function registerDescribe(program: Command): void {
  const command = program
    .command('describe')
    .description('one job: definition, covering, next and last runs, signals, drift')
    .argument('<jobId>', 'job id from the jobs file')
    .option(
      '-n, --count <n>',
      `how many next runs (1-${MAX_COUNT})`,
      integerAtLeast(1, MAX_COUNT),
      10,
    )
    .option(
      '--last <n>',
      `how many of the last runs to show (1-${RUNS_READ})`,
      integerAtLeast(1, RUNS_READ),
      10,
    )
    .option('--after <instant>', 'next runs after this ISO instant (default: now)', parseInstant)
    .option('--json', 'print one JSON document');
  addConnectionOptions(command, { table: true, config: true })
    .addHelpText('after', EXAMPLE)
    .action(runDescribe);
}

async function runDescribe(jobId: string, options: DescribeOptions): Promise<void> {
  const { loadJob } = await import('../aws/jobs-file.ts');
  const { openDeployment, OFFLINE_NOTE } = await import('../aws/deployment.ts');
  const { describeJob, describeJson, describeText } = await import('../format/job-description.ts');
  const { config, job } = await loadJob(options.config ?? 'jobs.yaml', jobId);
  const now = new Date();
  const offline = await offlineInput(config.file, job, {
    now,
    after: options.after ?? now,
    count: options.count,
    lastCount: options.last,
  });
  const deployment = await openDeployment(options);
  let input: DescribeInput;
  try {
    input = deployment
      ? { ...offline, ...(await readDeployedJob(deployment, job, now)) }
      : { ...offline, deployment: { ...offline.deployment, notes: [OFFLINE_NOTE] } };
  } finally {
    deployment?.connection.destroy();
  }
  const description = describeJob(input);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(describeJson(description), null, 2)}\n`);
    return;
  }
  process.stdout.write(`${describeText(description, coloursFor(process.stdout))}\n`);
}

/** What the jobs file alone says: the definition, its sentence, covering and next runs. */
async function offlineInput(
  file: string,
  job: JobDefinition,
  at: { now: Date; after: Date; count: number; lastCount: number },
): Promise<DescribeInput> {
  const { resolvePolicies, scheduleKind } = await import('../../functions/schedule/index.ts');
  const { scheduleSpecOf } = await import('../../functions/shared/job.ts');
  const { coveringSchedule } = await import('../../infra/covering/covering-cron.ts');
  const { cronHint } = await import('../../infra/config/cron-hint.ts');
  const { explainCron } = await import('../format/explain.ts');
  const { previewRuns } = await import('../format/run-preview.ts');
  const spec = scheduleSpecOf(job);
  return {
    file,
    job,
    now: at.now,
    after: at.after,
    sentence: explainCron(job.schedule, { jobId: job.id }),
    hint: cronHint(job.schedule)?.text,
    kind: scheduleKind(spec),
    policies: resolvePolicies(spec),
    covering: coveringSchedule(job, at.now),
    preview: previewRuns(spec, at.after, at.count),
    lastCount: at.lastCount,
    deployment: { stack: null, table: null, scheduleGroup: null, notes: [] },
  };
}

/**
 * What `describe` reads of a deployment for one job: its pause (`readPauseStates`), its
 * newest runs from the `byJob` index (one query of up to 100), and its schedule with
 * `GetSchedule` (expression, zone, input), side by side.
 *
 * @example
 * const deployed = await readDeployedJob(deployment, job, new Date());
 * deployed.schedule?.expression //=> 'cron(30 0,1 * * ? *)'
 */
export async function readDeployedJob(
  deployment: Deployment,
  job: JobDefinition,
  now: Date,
): Promise<Pick<DescribeInput, 'pause' | 'runs' | 'schedule' | 'deployment'>> {
  const { readPauseStates } = await import('../aws/job-control.ts');
  const { readJobRuns } = await import('../aws/job-runs.ts');
  const { getDeployedSchedule } = await import('../aws/deployed-schedules.ts');
  const { readLedger, readScheduleGroup } = await import('../aws/deployment.ts');
  const [[pauses, runs], schedule] = await Promise.all([
    readLedger(deployment, (access) =>
      Promise.all([
        readPauseStates(access.ledger, [job.id], now),
        readJobRuns(deployment.connection.clients.dynamodb, access.tableName, job.id, {
          limit: RUNS_READ,
        }),
      ]),
    ),
    readScheduleGroup(deployment, async (scheduler, group) =>
      getDeployedSchedule(scheduler, group, job.id).then((found) => found ?? null),
    ),
  ]);
  const { connection, ledger, scheduleGroup, notes } = deployment;
  const pause = pauses.get(job.id);
  return {
    ...(pause ? { pause } : {}),
    runs,
    ...(schedule !== undefined ? { schedule } : {}),
    deployment: {
      stack: connection.stack?.stackName ?? null,
      table: ledger.tableName,
      scheduleGroup: scheduleGroup ?? null,
      notes,
    },
  };
}
