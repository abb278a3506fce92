import type { JobDefinition } from '#jobs/job.ts';
import type { JobsConfig } from '../../infra/config/load-jobs.ts';
import { findJob } from '../schedule-input.ts';

/**
 * Loads the jobs file the stack was deployed from (the loader `cdk synth` runs, loaded on
 * first use) and finds one job in it; an unknown id is a usage error with a did-you-mean.
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
  return { config, job: findJob(config, jobId) };
}
