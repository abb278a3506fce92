import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRunWindows } from '../../../functions/dispatcher/sweep.ts';
import { occurrencesBetween } from '../../../functions/schedule/index.ts';
import { makeJob } from '../../support/jobs.ts';

const jobs = [
  makeJob({ id: 'daily', schedule: '30 2 * * *', timezone: 'Europe/Berlin' }),
  makeJob({ id: 'quarter', schedule: '*/15 * * * *', timezone: 'Europe/Berlin' }),
  makeJob({ id: 'weekdays', schedule: '0 9 * * 1-5', timezone: 'America/New_York' }),
  makeJob({ id: 'minutely', schedule: '* * * * *', timezone: 'Australia/Sydney' }),
];
const START = Date.parse('2023-10-28T22:00:00Z'); // Berlin falls back the next night

describe('the sweep window cache', () => {
  it('answers exactly what the engine answers for windows that move forward', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...jobs),
        fc.array(fc.integer({ min: 0, max: 240 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 10 }),
        (job, stepsMinutes, widthMinutes) => {
          const windows = createRunWindows();
          let fromMs = START;
          for (const step of stepsMinutes) {
            fromMs += step * 60_000;
            const from = new Date(fromMs);
            const to = new Date(fromMs + widthMinutes * 60_000);
            const expected = occurrencesBetween(
              { cron: job.schedule, timezone: job.timezone, jobId: job.id },
              from,
              to,
            ).map((o) => o.at.toISOString());
            expect(windows.runsIn(job, from, to).map((o) => o.at.toISOString())).toEqual(expected);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
