import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { validationText } from '../../../../cli/format/validation-text.ts';
import { validationReport } from '../../../support/validation-report.ts';

const plain = pc.createColors(false);

describe('validationText', () => {
  it("shows a job's hint under its sentence, within 80 columns", () => {
    const lines = validationText(validationReport(), plain).split('\n');
    const sentence = lines.findIndex((line) => line.includes('↳ at 09:00 on Tuesday'));
    expect(lines[sentence + 1]).toMatch(/^ {2}hint: day-of-week '2-6' counts weekdays/);
    expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  });
});

describe('validationText with calendars and past bounds', () => {
  const report = {
    ...validationReport(),
    configWarnings: [
      {
        file: 'jobs.yaml',
        line: 12,
        column: 12,
        jobId: 'summer-campaign',
        field: 'until',
        message:
          'until (2026-08-31T22:00:00.000Z) has passed: the job has ended and will not run again',
        code: 'past' as const,
      },
    ],
    holidayData: { package: 'date-holidays', version: '3.37.0', dataVersion: '2026-09-20' },
  };

  it('prints each past warning as WARNING file:line:column: job: message', () => {
    const text = validationText(report, plain).replace(/\n\s+/g, ' ');
    expect(text).toContain(
      'WARNING jobs.yaml:12:12: summer-campaign: until (2026-08-31T22:00:00.000Z) has passed:',
    );
  });

  it('prints the holiday data version on the line after the zone data', () => {
    const lines = validationText(report, plain).split('\n');
    const zone = lines.findIndex((line) => line.startsWith('zone data: tz 2025c'));
    expect(lines.slice(zone + 1).find((line) => line.startsWith('holiday data:'))).toBe(
      'holiday data: date-holidays 3.37.0 (data 2026-09-20)',
    );
  });

  it('prints no holiday data line when no calendar names holidays', () => {
    expect(validationText(validationReport(), plain)).not.toContain('holiday data');
  });
});
