import type { JobDefinition } from '../../functions/shared/job.ts';
import type { JobsConfig } from '../../infra/config/load-jobs.ts';
import { CliError } from '../errors.ts';

/** A job id the jobs file does not define. */
export class UnknownJobIdError extends CliError {
  override readonly name: string = 'UnknownJobIdError';
  readonly jobId: string;
  readonly file: string;
  readonly known: readonly string[];

  constructor(jobId: string, file: string, known: readonly string[]) {
    super(`unknown job '${jobId}' in ${file} (known: ${known.join(', ')})`);
    this.jobId = jobId;
    this.file = file;
    this.known = known;
  }
}

/**
 * Loads the jobs file the stack was deployed from (the loader `cdk synth` runs, loaded on
 * first use) and finds one job in it.
 *
 * @example
 * const { config, job } = await loadJob('jobs.yaml', 'berlin-nightly-report');
 * job.timezone //=> 'Europe/Berlin'
 */
export async function loadJob(
  file: string,
  jobId: string,
): Promise<{ readonly config: JobsConfig; readonly job: JobDefinition }> {
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const config = loadJobsFile(file);
  const job = config.jobs.find((j) => j.id === jobId);
  if (!job) {
    throw new UnknownJobIdError(
      jobId,
      config.file,
      config.jobs.map((j) => j.id),
    );
  }
  return { config, job };
}
