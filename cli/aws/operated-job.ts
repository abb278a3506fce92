import { existsSync } from 'node:fs';
import type { JobDefinition } from '#jobs/job.ts';
import { DEFAULT_RETENTION_DAYS } from '#shared/defaults.ts';
import type { JobsConfig } from '../../infra/config/load-jobs.ts';
import { isCliError, usageError } from '../errors.ts';
import { wrap } from '../format/table.ts';
import { findJob } from '../schedule-input.ts';
import type { OperateConnection } from './connection.ts';
import { type DeployedJobs, readDeployedJobs } from './deployed-jobs.ts';

/** The jobs an operating command acts on: the deployed ones when a stack is named, else the file's. */
export interface OperatedJobs {
  /** Where they came from, for messages: the jobs file, or the stack's deployed jobs. */
  readonly file: string;
  readonly jobs: readonly JobDefinition[];
  /** Days the ledger keeps a run: the dispatcher's, else the file's. */
  readonly retentionDays: number;
  readonly source: 'deployed' | 'file';
  /** The zonecron version the deployed jobs were synthesized with, when deployed and recorded. */
  readonly zonecronVersion?: string;
}

/** The jobs acted on, and the local jobs file when it was read beside deployed ones. */
export interface LoadedJobs {
  readonly jobs: OperatedJobs;
  readonly local: JobsConfig | undefined;
}

/** Where warnings go: stderr, a line each, wrapped as the other warnings are. */
export type Warn = (message: string) => void;

const toStderr: Warn = (message) => {
  process.stderr.write(`${wrap(`warning: ${message}`, '  ')}\n`);
};

/**
 * The jobs to act on and the local jobs file beside them: the stack's deployed bundle
 * ({@link readDeployedJobs}) when a stack is named, with the file (when it exists) kept only
 * to compare with; the file alone otherwise. A stack whose bundle cannot be read falls back to
 * the file with a warning, or fails when there is no file.
 *
 * @example
 * const { jobs } = await loadOperatedJobs(connection, 'jobs.yaml');
 * jobs.source //=> 'deployed' (with --stack), 'file' (with --table alone)
 */
export async function loadOperatedJobs(
  connection: OperateConnection,
  file: string,
  warn: Warn = toStderr,
): Promise<LoadedJobs> {
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const localFile = () => (existsSync(file) ? loadJobsFile(file) : undefined);
  let deployed: DeployedJobs | undefined;
  try {
    deployed = await readDeployedJobs(connection);
  } catch (error) {
    const local = localFile();
    if (!local || !isCliError(error)) throw error;
    warn(`${error.message}; acting on ${file} unchecked`);
    return { jobs: fromFile(local), local };
  }
  if (!deployed) {
    const local = loadJobsFile(file);
    return { jobs: fromFile(local), local };
  }
  const local = localFile();
  const jobs: OperatedJobs = {
    file: `the jobs deployed in stack '${connection.stackName}'`,
    jobs: deployed.jobs,
    retentionDays: deployed.retentionDays ?? local?.retentionDays ?? DEFAULT_RETENTION_DAYS,
    source: 'deployed',
    ...(deployed.zonecronVersion === undefined
      ? {}
      : { zonecronVersion: deployed.zonecronVersion }),
  };
  return { jobs, local };
}

function fromFile(config: JobsConfig): OperatedJobs {
  return { ...config, source: 'file' };
}

/**
 * One job to act on ({@link loadOperatedJobs}), with a warning naming the fields in which the
 * local jobs file's definition differs from the deployed one (the deployed one is acted on),
 * or saying the file lacks it; a job the file has but the stack does not is a usage error.
 *
 * @example
 * const { config, job } = await loadOperatedJob(connection, 'jobs.yaml', 'ops-report');
 * // warning: jobs.yaml differs from the jobs deployed in stack 'Zonecron' for 'ops-report'
 * //   in target.arn, payload; acting on the deployed definition
 *
 * Once per connection, file and job: a command that asks twice (`history`, for a local
 * `--since` and the id check) reads the bundle once and warns once.
 */
export function loadOperatedJob(
  connection: OperateConnection,
  file: string,
  jobId: string,
  warn: Warn = toStderr,
): Promise<OperatedJob> {
  const byKey = loadedJobs.get(connection) ?? new Map<string, Promise<OperatedJob>>();
  loadedJobs.set(connection, byKey);
  const key = `${file}\n${jobId}`;
  const loaded = byKey.get(key) ?? loadJobOnce(connection, file, jobId, warn);
  byKey.set(key, loaded);
  return loaded;
}

/** A job to act on and the jobs it came with. */
export interface OperatedJob {
  readonly config: OperatedJobs;
  readonly job: JobDefinition;
}

const loadedJobs = new WeakMap<OperateConnection, Map<string, Promise<OperatedJob>>>();

async function loadJobOnce(
  connection: OperateConnection,
  file: string,
  jobId: string,
  warn: Warn,
): Promise<OperatedJob> {
  const loaded = await loadOperatedJobs(connection, file, warn);
  const { jobs, local } = loaded;
  let job: JobDefinition;
  try {
    job = findJob(jobs, jobId);
  } catch (error) {
    if (jobs.source === 'file' || !local?.jobs.some((j) => j.id === jobId)) throw error;
    throw usageError(
      `'${jobId}' is in ${file} but not deployed in stack '${connection.stackName}'` +
        ' (cdk deploy first)',
    );
  }
  await warnOfDifferences(loaded, file, jobId, warn);
  return { config: jobs, job };
}

/**
 * Warns when the local jobs file's definition of a deployed job differs from the deployed one
 * (naming the fields) or lacks it; nothing when the jobs came from the file, or the stack does
 * not have the job.
 *
 * @example
 * await warnOfDifferences(await loadOperatedJobs(connection, 'jobs.yaml'), 'jobs.yaml', 'ops-report');
 */
export async function warnOfDifferences(
  { jobs, local }: LoadedJobs,
  file: string,
  jobId: string,
  warn: Warn = toStderr,
): Promise<void> {
  const job = jobs.jobs.find((j) => j.id === jobId);
  if (jobs.source !== 'deployed' || !local || !job) return;
  const localJob = local.jobs.find((j) => j.id === jobId);
  const differing = await differingFields(localJob, job, local, jobs);
  if (differing) warn(`${file} ${differing}; acting on the deployed definition`);
}

async function differingFields(
  localJob: JobDefinition | undefined,
  job: JobDefinition,
  local: JobsConfig,
  deployed: OperatedJobs,
): Promise<string | undefined> {
  if (!localJob) return `has no job '${job.id}', which is deployed`;
  const { jobDifferences } = await import('../deployed/job-differences.ts');
  const fields = jobDifferences(localJob, job);
  if (local.retentionDays !== deployed.retentionDays) fields.push('retention.days');
  if (fields.length === 0) return undefined;
  return `differs from ${deployed.file} for '${job.id}' in ${fields.join(', ')}`;
}

/** How many differing jobs a warning of `list` names before it says how many more. */
const NAMED_JOBS = 5;

/**
 * One warning, when the local jobs file and the deployed jobs differ at all: the jobs that
 * differ (with their fields), those only deployed and those only in the file, the first few
 * named. Nothing when the jobs came from the file.
 *
 * @example
 * await warnOfFileDifferences(await loadOperatedJobs(connection, 'jobs.yaml'), 'jobs.yaml');
 * // warning: jobs.yaml differs from the jobs deployed in stack 'Zonecron' in 2 jobs:
 * //   ops-report (target.arn), nightly (not in jobs.yaml); listing the deployed jobs
 */
export async function warnOfFileDifferences(
  { jobs, local }: LoadedJobs,
  file: string,
  warn: Warn = toStderr,
): Promise<void> {
  if (jobs.source !== 'deployed' || !local) return;
  const { jobDifferences } = await import('../deployed/job-differences.ts');
  const localById = new Map(local.jobs.map((j) => [j.id, j]));
  const deployedIds = new Set(jobs.jobs.map((j) => j.id));
  const differing = jobs.jobs.flatMap((job) => {
    const mine = localById.get(job.id);
    if (!mine) return [`${job.id} (not in ${file})`];
    const fields = jobDifferences(mine, job);
    return fields.length > 0 ? [`${job.id} (${fields.join(', ')})`] : [];
  });
  const undeployed = local.jobs.filter((j) => !deployedIds.has(j.id));
  differing.push(...undeployed.map((j) => `${j.id} (not deployed)`));
  if (differing.length === 0) return;
  const more = differing.length > NAMED_JOBS ? `, and ${differing.length - NAMED_JOBS} more` : '';
  const s = differing.length === 1 ? '' : 's';
  warn(
    `${file} differs from ${jobs.file} in ${differing.length} job${s}: ` +
      `${differing.slice(0, NAMED_JOBS).join(', ')}${more}; listing the deployed jobs`,
  );
}
