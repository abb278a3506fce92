import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { jobDifferences } from '../../../../cli/deployed/job-differences.ts';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';

const [job] = parseJobsConfig(
  [
    'jobs:',
    '  - id: nightly',
    '    description: nightly',
    "    schedule: '30 2 * * *'",
    '    timezone: Europe/Berlin',
    '    target: { type: sqs, arn: "arn:aws:sqs:us-east-1:000000000000:q" }',
    '    payload: { a: 1, b: [1, 2] }',
    '',
  ].join('\n'),
  'jobs.yaml',
).jobs as [JobDefinition];

describe('jobDifferences', () => {
  it('names nothing for the same definition, whatever the order of its keys', () => {
    const { payload: _payload, ...rest } = job;
    const reordered = JSON.parse(JSON.stringify({ payload: { b: [1, 2], a: 1 }, ...rest }));
    expect(jobDifferences(job, reordered)).toEqual([]);
  });

  it('names nested fields by their dotted path, and a payload as a whole', () => {
    const deployed: JobDefinition = {
      ...job,
      retry: { maxAttempts: 5 },
      target: { ...job.target, arn: 'arn:aws:sqs:us-east-1:000000000000:other' },
      payload: { a: 1, b: [2, 1] },
      dst: { gap: 'skip' },
    };
    expect(jobDifferences(job, deployed).sort()).toEqual([
      'dst',
      'payload',
      'retry.maxAttempts',
      'target.arn',
    ]);
  });
});
