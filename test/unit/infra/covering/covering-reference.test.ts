/**
 * The fast covering computation (calendar arithmetic instead of enumerating every candidate's
 * ticks, one computation per distinct resolved expression, zone and policy) gives exactly what
 * the original algorithm gives, kept in test/reference/covering-cron-reference.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';
import { coveringDetails, coveringSchedule } from '../../../../infra/covering/covering-cron.ts';
import { generateJobsYaml } from '../../../../scripts/generate-jobs.ts';
import { coveringSchedule as referenceCovering } from '../../../reference/covering-cron-reference.ts';
import { makeJob } from '../../../support/jobs.ts';

const FROM = new Date('2026-11-29T00:00:00.000Z');

describe('coveringSchedule against the original algorithm', () => {
  const generated = parseJobsConfig(generateJobsYaml({ count: 160, seed: 42 }), 'generated.yaml');

  it.each(
    generated.jobs.map((job): [string, string, JobDefinition] => [job.schedule, job.timezone, job]),
  )('agrees on %s in %s', (_schedule, _zone, job) => {
    expect(coveringSchedule(job, FROM)).toEqual(referenceCovering(job, FROM));
  });

  it('agrees on random expressions, zones, policies and start instants', () => {
    const zones = [
      'Europe/Berlin',
      'Australia/Lord_Howe',
      'America/St_Johns',
      'Asia/Kathmandu',
      'UTC',
    ];
    const minute = fc.constantFrom('0', '30', '45', '*/20', '15,45', 'H', 'H(0-29)');
    const hour = fc.constantFrom('2', '0,12', '*', '*/3', '9-17', 'H');
    // day of month, month, day of week
    const days = fc.constantFrom(
      '* * *',
      '* * 1-5',
      'L * *',
      'LW * *',
      '15W * *',
      '* * 5L',
      '* * 1#2',
      '29 2 *',
    );
    fc.assert(
      fc.property(
        minute,
        hour,
        days,
        fc.constantFrom(...zones),
        fc.constantFrom(undefined, 'shift', 'transition', 'skip'),
        fc.integer({ min: 0, max: 365 * 24 * 60 - 1 }),
        fc.constantFrom('a', 'nightly_backup', 'job-42'),
        (m, h, d, timezone, gap, minuteOfYear, id) => {
          const job = makeJob({
            id,
            schedule: `${m} ${h} ${d}`,
            timezone,
            ...(gap ? { dst: { gap: gap as 'shift' } } : {}),
          });
          // Seconds and milliseconds too: ticks are counted strictly after `from`.
          const from = new Date(Date.UTC(2026, 0, 1) + minuteOfYear * 60_000 + 30_500);
          expect(coveringSchedule(job, from)).toEqual(referenceCovering(job, from));
        },
      ),
      { numRuns: 40, seed: 20261130 },
    );
  });

  it('gives two H jobs that hash to different minutes different expressions, each its own', () => {
    const a = makeJob({ id: 'a', schedule: 'H 3 * * *', timezone: 'Europe/Berlin' });
    const b = makeJob({ id: 'nightly_backup', schedule: 'H 3 * * *', timezone: 'Europe/Berlin' });
    expect(coveringSchedule(a, FROM)).toEqual(referenceCovering(a, FROM));
    expect(coveringSchedule(b, FROM)).toEqual(referenceCovering(b, FROM));
    expect(coveringSchedule(a, FROM).cron).not.toBe(coveringSchedule(b, FROM).cron);
  });

  it('reports the ticks and runs behind ticksPerRun: 1,460 ticks for 730 runs of a Berlin 02:30 job', () => {
    const details = coveringDetails(
      makeJob({ id: 'berlin', schedule: '30 2 * * *', timezone: 'Europe/Berlin' }),
      new Date('2026-01-01T00:00:00.000Z'),
    );
    expect(details).toMatchObject({ ticks: 1460, runs: 730 });
    expect(details.countedMs).toBe(
      Date.parse('2028-01-01T00:00:00.000Z') - Date.parse('2026-01-01T00:00:00.000Z'),
    );
  });
});
