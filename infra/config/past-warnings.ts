/**
 * Warnings about time that has passed: a job whose `until:` is behind the reference instant has
 * ended, and an `at:` job whose run is behind it will not run. Valid, so not errors (a file may
 * keep an ended job for its history), but worth a line in `validate`.
 */
import type { JobDefinition } from '#jobs/job.ts';
import { oneShotRuns } from '#jobs/one-shot.ts';
import type { ConfigIssue } from './config-error.ts';
import type { IssueCollector } from './issue-collector.ts';
import { jobIndex } from './raw-data.ts';

/**
 * The `past` warnings of the jobs at `now`, located in the file.
 *
 * @example
 * pastWarnings(jobs, rawJobs, new Date('2027-06-01T00:00Z'), collector)[0]?.message
 * //=> 'until (2026-12-31T23:00:00.000Z) has passed: the job has ended and will not run again'
 */
export function pastWarnings(
  jobs: readonly JobDefinition[],
  rawJobs: readonly unknown[],
  now: Date,
  collector: IssueCollector,
): ConfigIssue[] {
  return jobs.flatMap((job) => {
    const finding = pastFinding(job, now);
    if (finding === undefined) return [];
    const path = ['jobs', jobIndex(rawJobs, job.id), finding.field];
    return [collector.locate(path, { jobId: job.id, message: finding.message, code: 'past' })];
  });
}

function pastFinding(
  job: JobDefinition,
  now: Date,
): { field: 'at' | 'until'; message: string } | undefined {
  if (job.at !== undefined) {
    const run = oneShotRuns(job)[0];
    if (run === undefined || run.at.getTime() > now.getTime()) return undefined;
    return {
      field: 'at',
      message: `at '${job.at}' (${run.at.toISOString()}) is in the past: the job will not run`,
    };
  }
  if (job.until === undefined || Date.parse(job.until) > now.getTime()) return undefined;
  return {
    field: 'until',
    message: `until (${job.until}) has passed: the job has ended and will not run again`,
  };
}
