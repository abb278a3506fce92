/**
 * The calendars fixture synthesized: bounded jobs' schedules carry StartDate and
 * EndDate, a one-shot job gets one `at()` schedule, a job whose time has passed a disabled one;
 * the dispatcher ships the holiday table in jobs.json and none of the date-holidays package; a
 * job whose calendar moves runs gets a covering that fires on every day a run can move to.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scheduleSpecOf } from '#jobs/job.ts';
import { parseJobsBundle } from '#jobs/jobs-bundle.ts';
import { nextOccurrences, occurrencesBetween } from '../../functions/schedule/index.ts';
import { loadJobsFile } from '../../infra/config/load-jobs.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import {
  type CfnResource,
  resourcesOfType,
  SYNTH_TIME,
  type SynthesizedFixture,
  synthFixture,
} from './synth-fixture.ts';

let fx: SynthesizedFixture;
beforeAll(() => {
  fx = synthFixture('test/fixtures/jobs/calendars.yaml');
});

function scheduleOf(name: string): CfnResource {
  const found = resourcesOfType(fx, 'AWS::Scheduler::Schedule').find(
    ([, resource]) => resource.Properties?.Name === name,
  );
  if (found === undefined) throw new Error(`no schedule named ${name}`);
  return found[1];
}

/** The asset folders of the two Lambdas: the ones holding a jobs.json. */
function lambdaAssets(): string[] {
  return readdirSync(fx.directory)
    .filter((entry) => entry.startsWith('asset.'))
    .map((entry) => join(fx.directory, entry))
    .filter((dir) => readdirSync(dir).includes('jobs.json'));
}

describe('a calendar that moves runs', () => {
  it('synthesizes a following job with a covering that fires on every day, at its local time', () => {
    expect(scheduleOf('invoices').Properties?.ScheduleExpression).toBe('cron(0 7,8 * * ? *)');
    expect(scheduleOf('settlement').Properties?.ScheduleExpression).toBe('cron(30 20,21 * * ? *)');
  });

  it("fires at every run of the following job over two years, moved ones included, though '0 9 1 * *' fires on the 1st only", () => {
    const config = loadJobsFile(resolve('test/fixtures/jobs/calendars.yaml'));
    const job = config.jobs.find((j) => j.id === 'invoices');
    if (job === undefined) throw new Error('no job invoices');
    const covering = coveringSchedule(job, SYNTH_TIME);
    const to = new Date(SYNTH_TIME.getTime() + 2 * 365 * 86_400_000);
    const runs = occurrencesBetween(scheduleSpecOf(job), SYNTH_TIME, to);
    const moved = runs.filter((run) => run.moved !== undefined);
    // Moved off the 1st: 1 January, 1 May, weekends… onto days the expression does not name.
    expect(moved.length).toBeGreaterThan(5);
    expect(moved.every((run) => !run.nominal.endsWith('-01T09:00'))).toBe(true);
    const utc = { cron: covering.cron, timezone: 'UTC' };
    const unfired = runs.filter(
      (run) =>
        nextOccurrences(utc, new Date(run.at.getTime() - 1), 1)[0]?.at.getTime() !==
        run.at.getTime(),
    );
    expect(unfired).toEqual([]);
  });
});

describe('the calendars fixture, synthesized', () => {
  it('synthesizes within every AWS limit', () => {
    expect(fx.check.violations).toEqual([]);
  });

  it("gives a bounded job's schedule its from and until as StartDate and EndDate, in UTC", () => {
    expect(scheduleOf('settlement').Properties).toMatchObject({
      StartDate: '2027-01-01T05:00:00.000Z',
      EndDate: '2028-01-01T05:00:00.000Z',
      State: 'ENABLED',
      ScheduleExpressionTimezone: 'UTC',
    });
  });

  it('leaves StartDate and EndDate off a job without bounds', () => {
    const { Properties } = scheduleOf('exports');
    expect(Properties?.StartDate).toBeUndefined();
    expect(Properties?.EndDate).toBeUndefined();
    expect(Properties?.ScheduleExpression).toMatch(/^cron\(/);
  });

  it('gives an at job one at() schedule at its UTC instant, without bounds', () => {
    const { Properties } = scheduleOf('christmas-greeting');
    expect(Properties?.ScheduleExpression).toBe('at(2026-12-24T17:00:00)');
    expect(Properties?.ScheduleExpressionTimezone).toBe('UTC');
    expect(Properties?.State).toBe('ENABLED');
    expect(Properties?.StartDate).toBeUndefined();
    expect(Properties?.Description).toMatch(/^at 2026-12-24T18:00 in Europe\/Berlin: /);
  });

  it('disables the schedule of a job whose until passed before synth, with no EndDate in the past', () => {
    const { Properties } = scheduleOf('summer-campaign');
    expect(Properties?.State).toBe('DISABLED');
    expect(Properties?.EndDate).toBeUndefined();
  });

  it("ships the holiday table of the calendars' codes, with the date-holidays version, in jobs.json", () => {
    const [asset] = lambdaAssets();
    if (asset === undefined) throw new Error('no Lambda asset with a jobs.json');
    const bundle = parseJobsBundle(readFileSync(join(asset, 'jobs.json')), 'jobs.json');
    expect(bundle.holidays).toMatchObject({ package: 'date-holidays', version: '3.37.0' });
    expect(Object.keys(bundle.holidays?.days ?? {}).sort()).toEqual([
      'DE-BE|public',
      'GB-ENG|public',
      'US-NY|bank,public',
    ]);
  });

  it('bundles neither date-holidays, its parser nor their data into the Lambdas', () => {
    const assets = lambdaAssets();
    expect(assets).toHaveLength(2);
    // The package, its parser and their data; and the file that loads the package at run time.
    const heavy =
      /node_modules\/(date-holidays|date-holidays-parser|moment-timezone|astronomia)\/|functions\/calendar\/date-holidays-data\.ts/;
    for (const asset of assets) {
      const sources = readdirSync(asset)
        .filter((file) => file.endsWith('.map'))
        .flatMap(
          (file) =>
            (JSON.parse(readFileSync(join(asset, file), 'utf8')) as { sources: string[] }).sources,
        );
      expect(
        sources.some((source) => source.includes('functions/calendar/holiday-source.ts')),
      ).toBe(true);
      expect(sources.filter((source) => heavy.test(source))).toEqual([]);
    }
  });
});
