import { describe, expect, it } from 'vitest';
import { validationJson } from '../../../../cli/format/validation-report.ts';
import { HINT, validationReport } from '../../../support/validation-report.ts';

describe('validationJson', () => {
  it("gives each job its hint and lists a deploy's AWS limits as problems", () => {
    const doc = validationJson(validationReport(['too many resources in Zonecron-jobs-00']));
    expect(doc.jobs[0]?.hint).toBe(HINT);
    expect(doc.valid).toBe(false);
    expect(doc.problems).toEqual([
      {
        file: 'jobs.yaml',
        line: 0,
        column: 0,
        jobId: null,
        field: '',
        message: 'too many resources in Zonecron-jobs-00',
        code: 'aws-limit',
      },
    ]);
  });
});
