import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { calendarText, jobEnd } from '../../../../cli/format/job-bounds.ts';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';

const FILE = 'test/fixtures/jobs/calendars.yaml';
const { jobs } = parseJobsConfig(readFileSync(FILE, 'utf8'), FILE);
const job = (id: string) => jobs.find((j) => j.id === id) as JobDefinition;

describe('jobEnd', () => {
  it.each([
    ['summer-campaign', '2026-08-31T21:59:59.999Z', null],
    [
      'summer-campaign',
      '2026-08-31T22:00:00.000Z',
      { field: 'until', at: '2026-08-31T22:00:00.000Z' },
    ],
    ['christmas-greeting', '2026-12-24T16:59:59.999Z', null],
    [
      'christmas-greeting',
      '2026-12-24T17:00:00.000Z',
      { field: 'at', at: '2026-12-24T17:00:00.000Z' },
    ],
    ['exports', '2099-01-01T00:00:00.000Z', null],
  ])('says %s has ended at %s only from its until or its at run on', (id, now, expected) => {
    expect(jobEnd(job(id), new Date(now))).toEqual(expected);
  });
});

describe('calendarText', () => {
  it('names the calendar, its holidays code and types, weekends Monday first, and the rule', () => {
    expect(calendarText(job('invoices'))).toBe(
      'berlin-business: holidays DE-BE (public), weekends sat, sun, 1 closed day, 1 closed range, days in Europe/Berlin; onClosed following',
    );
    expect(calendarText(job('payroll'))).toMatch(/; businessDay last$/);
    expect(calendarText(job('summer-campaign'))).toBeUndefined();
  });
});
