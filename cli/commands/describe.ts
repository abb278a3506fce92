import type { Command } from 'commander';
import type { JobDefinition } from '#jobs/job.ts';
import { addConnectionOptions, type ConnectionOptions } from '../aws/connection.ts';
import type { Deployment, ReadContext } from '../aws/deployment.ts';
import type { CalendarSkips } from '../format/calendar-skips.ts';
import { coloursFor } from '../format/colour.ts';
import type { HolidayDataInUse } from '../format/config-warnings.ts';
import type { DescribeInput, JobDescription } from '../format/job-description.ts';
import { type InstantInput, instantArgument } from '../instant.ts';
import { integerAtLeast } from '../options.ts';

/** `describe`'s options, as commander parses them. */
export interface DescribeOptions extends ConnectionOptions {
  count: number;
  last: number;
  /** Read in the job's zone when it is a date or a local time. */
  after?: InstantInput;
  json?: boolean;
}

/** Most next runs `describe` lists, as `next`. */
const MAX_COUNT = 1000;
/** The newest runs read from the ledger: the signals look at all of them (one query). */
const RUNS_READ = 100;
/** The most skip ranges read from the ledger (each one gap's older skipped runs). */
const RANGES_READ = 100;

const EXAMPLE = `
Examples:
  $ zonecron describe berlin-nightly-report              # offline: jobs.yaml
  $ zonecron describe berlin-nightly-report --stack Zonecron
  the job with its defaults, its UTC covering and ticks per run, the next 5
  runs with DST notes, the zone data and its warnings; against a stack also its
  pause, its last runs, the open or signalled ones among them, and its deployed
  schedule with any drift.`;

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
      5,
    )
    .option(
      '--last <n>',
      `how many of the last runs to show (1-${RUNS_READ})`,
      integerAtLeast(1, RUNS_READ),
      10,
    )
    .option(
      '--after <instant>',
      "next runs after this instant (default: now); a date or local time in the job's zone",
      instantArgument,
    )
    .option('--json', 'print one JSON document');
  addConnectionOptions(command, { table: true, config: true })
    .addHelpText('after', EXAMPLE)
    .action(async (jobId: string, options: DescribeOptions) => {
      const description = await buildDescription(jobId, options, {
        env: process.env,
        now: new Date(),
      });
      const { describeJson, describeText } = await import('../format/job-description.ts');
      process.stdout.write(
        options.json
          ? `${JSON.stringify(describeJson(description), null, 2)}\n`
          : `${describeText(description, coloursFor(process.stdout))}\n`,
      );
    });
}

/**
 * What `zonecron describe <job>` prints, before it is printed: the job of the jobs file (an
 * unknown id is a usage error with a did-you-mean), and what the deployment the options or
 * the environment name says of it (offline when none).
 *
 * @example
 * const d = await buildDescription('berlin-nightly-report', { count: 5, last: 10 },
 *   { env: {}, now: new Date() });
 * d.input.covering.awsExpression //=> 'cron(30 0,1 * * ? *)'
 */
export async function buildDescription(
  jobId: string,
  options: DescribeOptions,
  context: ReadContext,
): Promise<JobDescription> {
  const { openDeployment, OFFLINE_NOTE } = await import('../aws/deployment.ts');
  const { describeJob } = await import('../format/job-description.ts');
  const file = options.config ?? 'jobs.yaml';
  const deployment = await openDeployment(options, context.env);
  try {
    const { config, job } = await jobToDescribe(deployment, file, jobId);
    const { resolveInstant } = await import('../instant.ts');
    const offline = await offlineInput(config.file, job, {
      now: context.now,
      after: options.after
        ? resolveInstant(options.after, { zone: job.timezone, now: context.now })
        : context.now,
      count: options.count,
      lastCount: options.last,
    });
    if (!deployment) {
      const notes = [OFFLINE_NOTE];
      return describeJob({ ...offline, deployment: { ...offline.deployment, notes } });
    }
    const read = await readDeployedJob(deployment, job, {
      now: context.now,
      retentionDays: config.retentionDays,
    });
    const deployed = {
      ...read,
      calendarSkipped: await lastCalendarSkips(
        job,
        'source' in config ? config.source : 'file',
        read,
        {
          now: context.now,
          lastCount: options.last,
        },
      ),
    };
    const { deployedVersionNote } = await import('../deployed/deployed-version.ts');
    const version =
      'zonecronVersion' in config
        ? deployedVersionNote(deployment.connection.stackName, config.zonecronVersion)
        : undefined;
    if (version === undefined) return describeJob({ ...offline, ...deployed });
    const notes = [version, ...deployed.deployment.notes];
    return describeJob({ ...offline, ...deployed, deployment: { ...deployed.deployment, notes } });
  } finally {
    deployment?.connection.destroy();
  }
}

/**
 * The runs the job's calendar skipped among its last runs, computed as `history` computes them
 * (the ledger has no item for them): since the oldest run shown when the ledger has more than
 * `--last`, else over the retention period the skip ranges were read for; the newest
 * `lastCount`, the rest counted. Null for a job without a calendar.
 */
async function lastCalendarSkips(
  job: JobDefinition,
  source: 'deployed' | 'file',
  read: Pick<DescribeInput, 'runs' | 'ranges'>,
  at: { readonly now: Date; readonly lastCount: number },
): Promise<{ readonly skips: CalendarSkips; readonly notListed: number } | null> {
  if (job.calendar === undefined) return null;
  const { calendarSkipsOf, withoutItems } = await import('../format/calendar-skips.ts');
  const runs = read.runs ?? [];
  const oldestShown = runs.length > at.lastCount ? runs[at.lastCount - 1] : undefined;
  const since = oldestShown
    ? new Date(oldestShown.at)
    : (read.ranges?.since ?? new Date(at.now.getTime() - 86_400_000));
  const all = calendarSkipsOf(job, source, since, at.now);
  if (all === null) return null;
  const skips = withoutItems(all, runs);
  return {
    skips: { ...skips, runs: skips.runs.slice(0, at.lastCount) },
    notListed: Math.max(0, skips.runs.length - at.lastCount),
  };
}

/** The job as deployed when a deployment is named (warning of a differing jobs file), else the file's. */
async function jobToDescribe(deployment: Deployment | undefined, file: string, jobId: string) {
  if (!deployment) {
    const { loadJob } = await import('../deployed/jobs-file.ts');
    return loadJob(file, jobId);
  }
  const { loadOperatedJob } = await import('../aws/operated-job.ts');
  return loadOperatedJob(deployment.connection, file, jobId);
}

/**
 * What the jobs file alone says of a job: the definition, its sentence, its covering, the next
 * `count` runs after `after` with their DST notes, and the zone data's warnings for it.
 *
 * @example
 * const input = await offlineInput('jobs.yaml', job, { now, after: now, count: 5, lastCount: 10 });
 * input.covering.ticksPerRun //=> 2
 */
export async function offlineInput(
  file: string,
  job: JobDefinition,
  at: { now: Date; after: Date; count: number; lastCount: number },
): Promise<DescribeInput> {
  const { resolvePolicies, scheduleKind } = await import('../../functions/schedule/index.ts');
  const { scheduleSpecOf } = await import('#jobs/job.ts');
  const { coveringSchedule } = await import('../../infra/covering/covering-cron.ts');
  const { cronHint } = await import('../../infra/config/cron-hint.ts');
  const { explainCron } = await import('../format/explain.ts');
  const { previewRuns } = await import('../format/run-preview.ts');
  const { zoneDataReport } = await import('../zone-data/report.ts');
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
    zoneData: zoneDataReport([job], at.after),
    holidayData: await holidayDataOf(job),
    lastCount: at.lastCount,
    deployment: { stack: null, table: null, scheduleGroup: null, notes: [] },
  };
}

/** The holiday data version, when the job's calendar names holidays. */
async function holidayDataOf(job: JobDefinition): Promise<HolidayDataInUse | null> {
  if (job.calendar?.definition.holidays === undefined) return null;
  const { holidayDataVersion } = await import('../../functions/calendar/date-holidays-data.ts');
  return holidayDataVersion();
}

/**
 * What `describe` reads of a deployment for one job: its pause (`readPauseStates`), its
 * newest runs from the `byJob` index (one query of up to 100), the skip ranges of its gaps
 * that end within the last `retentionDays` (one query of up to 100), and its schedule with
 * `GetSchedule` (expression, zone, input), side by side.
 *
 * @example
 * const deployed = await readDeployedJob(deployment, job, { now: new Date(), retentionDays: 35 });
 * deployed.schedule?.expression //=> 'cron(30 0,1 * * ? *)'
 */
export async function readDeployedJob(
  deployment: Deployment,
  job: JobDefinition,
  { now, retentionDays }: { readonly now: Date; readonly retentionDays: number },
): Promise<Pick<DescribeInput, 'pause' | 'runs' | 'ranges' | 'schedule' | 'deployment'>> {
  const { readPauseStates } = await import('../aws/job-control.ts');
  const { readJobRuns } = await import('../aws/job-runs.ts');
  const { readSkipRanges } = await import('../aws/skip-ranges.ts');
  const since = new Date(now.getTime() - retentionDays * 86_400_000);
  const { getDeployedSchedule } = await import('../aws/deployed-schedules.ts');
  const { readLedger, readScheduleGroup } = await import('../aws/deployment.ts');
  const client = deployment.connection.clients.dynamodb;
  const [[pauses, runs, ranges], schedule] = await Promise.all([
    readLedger(deployment, (access) =>
      Promise.all([
        readPauseStates(access.ledger, [job.id], now),
        readJobRuns(client, access.tableName, job.id, { limit: RUNS_READ }),
        readSkipRanges(client, access.tableName, job.id, { since, limit: RANGES_READ }),
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
    ranges: { since, retentionDays, read: ranges },
    ...(schedule !== undefined ? { schedule } : {}),
    deployment: {
      stack: connection.stack?.stackName ?? null,
      table: ledger.tableName,
      scheduleGroup: scheduleGroup ?? null,
      notes,
    },
  };
}
