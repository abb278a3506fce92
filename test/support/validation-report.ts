import type { ValidationReport } from '../../cli/format/validation-report.ts';

/** A cron hint as validate gives it for an AWS-style weekday range. */
export const HINT =
  "day-of-week '2-6' counts weekdays from 0=SUN here, not from 1=SUN as in AWS and Quartz; names (SUN-SAT) avoid the doubt";

/** A validation report of one weekday job with a hint, and the deploy's violations. */
export function validationReport(violations: string[] = []): ValidationReport {
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
    configWarnings: [],
    holidayData: null,
  };
}
