import { describe, expect, it } from 'vitest';
import { isCliError } from '../../../cli/errors.ts';
import { findJob } from '../../../cli/schedule-input.ts';

const CONFIG = {
  file: 'jobs.yaml',
  jobs: ['berlin-nightly-report', 'berlin-weekly', 'ny-billing-sync'].map((id) => ({ id })),
};

/** The message of the usage error `findJob` throws for `jobId`. */
function refusal(jobId: string): string {
  try {
    findJob(CONFIG, jobId);
  } catch (error) {
    if (isCliError(error) && error.exitCode === 2) return error.message;
    throw error;
  }
  throw new Error(`'${jobId}' was found`);
}

describe('findJob', () => {
  it.each([
    ['the one id a prefix begins', 'ny', "did you mean 'ny-billing-sync'?"],
    [
      'every id a prefix begins',
      'berlin',
      "did you mean one of the ids starting with 'berlin': berlin-nightly-report, berlin-weekly?",
    ],
    ['the closest id to a typo', 'berlin-wekly', "did you mean 'berlin-weekly'?"],
  ])('suggests %s', (_what, jobId, suggestion) => {
    expect(refusal(jobId)).toBe(
      `unknown job '${jobId}' in jobs.yaml; ${suggestion} (3 jobs: berlin-nightly-report, berlin-weekly, ny-billing-sync)`,
    );
  });

  it('suggests nothing for an id near none', () => {
    expect(refusal('payroll')).toBe(
      "unknown job 'payroll' in jobs.yaml (3 jobs: berlin-nightly-report, berlin-weekly, ny-billing-sync)",
    );
  });
});
