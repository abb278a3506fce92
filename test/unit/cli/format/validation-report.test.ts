import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import {
  type ValidationReport,
  validationJson,
  validationText,
} from '../../../../cli/format/validation-report.ts';

const plain = pc.createColors(false);
const HINT =
  "day-of-week '2-6' counts weekdays from 0=SUN here, not from 1=SUN as in AWS and Quartz; names (SUN-SAT) avoid the doubt";

function report(violations: string[] = []): ValidationReport {
  return {
    file: 'jobs.yaml',
    from: new Date('2027-01-01T00:00:00Z'),
    jobs: [
      {
        job: {
          id: 'weekday-sync',
          schedule: '0 9 ? * 2-6',
          timezone: 'UTC',
          enabled: true,
          target: { type: 'sqs' },
        },
        sentence: 'at 09:00 on Tuesday through Saturday',
        hint: HINT,
        covering: { awsExpression: 'cron(0 9 ? * 3-7 *)', ticksPerRun: 1 },
        warnings: [],
      },
    ],
    deploy: {
      stacks: ['Zonecron', 'Zonecron-jobs-00'],
      largestTemplate: { file: 'Zonecron.template.json', resources: 80, bytes: 90_000 },
      jobsJsonBytes: 900,
      notes: [],
      violations,
    },
    zoneData: {
      zoneData: { tz: '2025c', icu: '78.2', node: 'v20.20.2' },
      changesKnownThrough: '2026d',
      warnings: [],
    },
  };
}

describe('validationText', () => {
  it("shows a job's hint under its sentence, within 80 columns", () => {
    const lines = validationText(report(), plain).split('\n');
    const sentence = lines.findIndex((line) => line.includes('↳ at 09:00 on Tuesday'));
    expect(lines[sentence + 1]).toMatch(/^ {2}hint: day-of-week '2-6' counts weekdays/);
    expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  });
});

describe('validationJson', () => {
  it("gives each job its hint and lists a deploy's AWS limits as problems", () => {
    const doc = validationJson(report(['too many resources in Zonecron-jobs-00']));
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
