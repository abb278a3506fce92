import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scheduleSpecOf } from '#jobs/job.ts';
import {
  JOBS_BUNDLE_FILE,
  openJobsBundle,
  parseJobsBundle,
  serializeJobsBundle,
} from '#jobs/jobs-bundle.ts';
import type { JobCalendar } from '../../../functions/calendar/calendar-definition.ts';
import {
  dateHolidaysSource,
  holidayCodeProblem,
  holidayDataVersion,
  holidayTable,
} from '../../../functions/calendar/date-holidays-data.ts';
import {
  HOLIDAY_TABLE_YEARS,
  HolidayDataMissingError,
  holidaysOf,
  holidayTableSource,
  useHolidaySource,
} from '../../../functions/calendar/holiday-source.ts';
import { createJobsBundle } from '../../../infra/packaging/jobs-bundle-file.ts';
import { makeJob } from '../../support/jobs.ts';

useHolidaySource(dateHolidaysSource());

const SYNTH_TIME = new Date('2026-11-29T00:00:00.000Z');
const USES = [
  { code: 'DE-BE', types: ['public'] },
  { code: 'US-NY', types: ['public', 'bank'] },
  { code: 'GB-ENG', types: ['public'] },
];

describe('holidayTable', () => {
  it('records the date-holidays version and its data version', () => {
    const table = holidayTable(USES.slice(0, 1), 2026);
    expect(table).toMatchObject({ package: 'date-holidays', version: '3.37.0' });
    expect(table.dataVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(table.dataVersion).toBe(holidayDataVersion().dataVersion);
  });

  it('covers the years around the synth year and nothing of other codes', () => {
    const table = holidayTable(USES.slice(0, 1), 2026);
    expect([table.fromYear, table.toYear]).toEqual([
      2026 - HOLIDAY_TABLE_YEARS.before,
      2026 + HOLIDAY_TABLE_YEARS.after,
    ]);
    expect(Object.keys(table.days)).toEqual(['DE-BE|public']);
  });

  it('answers, after a trip through the jobs bundle, what the whole data set answers, every year it covers', () => {
    const table = holidayTable(USES, 2026);
    const shipped = parseJobsBundle(
      Buffer.from(
        serializeJobsBundle({
          ...createJobsBundle([], { synthTime: SYNTH_TIME }),
          holidays: table,
        }),
      ),
      'jobs.json',
    ).holidays;
    if (shipped === undefined) throw new Error('the bundle lost its holiday table');
    const fromTable = holidayTableSource(shipped);
    for (const { code, types } of USES) {
      for (let year = table.fromYear; year <= table.toYear; year += 1) {
        const expected = [...(dateHolidaysSource().holidaysOf(code, types, year) ?? [])];
        expect([...(fromTable.holidaysOf(code, types, year) ?? [])], `${code} ${year}`).toEqual(
          expected,
        );
      }
    }
  });

  it('knows nothing outside its years and codes, so the question passes on', () => {
    const fromTable = holidayTableSource(holidayTable(USES.slice(0, 1), 2026));
    expect(fromTable.holidaysOf('DE-BE', ['public'], 2026 + HOLIDAY_TABLE_YEARS.after + 1)).toBe(
      undefined,
    );
    expect(fromTable.holidaysOf('DE-BY', ['public'], 2026)).toBeUndefined();
    expect(fromTable.holidaysOf('DE-BE', ['public', 'bank'], 2026)).toBeUndefined();
  });

  it('throws a deployment error naming the code and year when no source knows them', () => {
    expect(() => holidaysOf('ZZ-QQ', ['public'], 2026)).toThrow(HolidayDataMissingError);
    expect(() => holidaysOf('ZZ-QQ', ['public'], 2026)).toThrow(
      /no holiday data for ZZ-QQ in 2026/,
    );
  });
});

describe('the jobs bundle of calendar jobs', () => {
  const definition = {
    name: 'bavaria-schools',
    timezone: 'Europe/Berlin',
    holidays: 'DE-BY',
    holidayTypes: ['public', 'school'] as const,
    weekendDays: [0, 6],
    closedDays: [],
    closedRanges: [],
  };
  const calendarJob = makeJob({
    id: 'school-report',
    schedule: '0 8 * * *',
    calendar: { definition: { ...definition, holidayTypes: [...definition.holidayTypes] } },
  });

  it('ships the holidays of the codes its calendars name, and none without calendars', () => {
    expect(createJobsBundle([makeJob({ id: 'plain' })], { synthTime: SYNTH_TIME }).holidays).toBe(
      undefined,
    );
    const bundle = createJobsBundle([calendarJob], { synthTime: SYNTH_TIME });
    expect(Object.keys(bundle.holidays?.days ?? {})).toEqual(['DE-BY|public,school']);
  });

  it("builds a Lambda's calendars from the bundle's table, read when a calendar first asks", () => {
    const bundle = createJobsBundle([calendarJob], { synthTime: SYNTH_TIME });
    const days = bundle.holidays?.days['DE-BY|public,school'] ?? {};
    // A date only this bundle's table closes: the calendar can only have it from there.
    const marked = {
      ...bundle,
      holidays: {
        ...bundle.holidays,
        days: { 'DE-BY|public,school': { ...days, '2026-06-16': 'Bundle Day' } },
      },
    };
    const dir = mkdtempSync(join(tmpdir(), 'zonecron-holidays-'));
    writeFileSync(join(dir, JOBS_BUNDLE_FILE), serializeJobsBundle(marked as typeof bundle));
    const { catalog, holidays } = openJobsBundle(pathToFileURL(join(dir, JOBS_BUNDLE_FILE)));
    useHolidaySource(holidays);
    const shipped = catalog.get('school-report');
    if (shipped === undefined) throw new Error('the job is not in the bundle');
    const calendar = scheduleSpecOf(shipped).calendar?.calendar;
    expect(calendar?.closedDayReason('2026-06-16')).toBe('Bundle Day (DE-BY)');
    expect(calendar?.closedDayReason('2026-05-01')).toBe('Labour Day (DE-BY)');
    expect((shipped.calendar as JobCalendar).definition).toEqual(calendarJob.calendar?.definition);
  });
});

describe('holidayCodeProblem', () => {
  it.each([
    ['DE-BE', undefined],
    ['US-NY', undefined],
    ['GB-ENG', undefined],
    ['DE-BY-A', undefined],
    ['DE-BER', "unknown holiday code 'DE-BER'; did you mean 'DE-BE'?"],
    ['de-be', "unknown holiday code 'de-be'; did you mean 'DE-BE'?"],
    ['UK-ENG', "unknown holiday code 'UK-ENG'; did you mean 'GB-ENG'?"],
  ])('judges %s', (code, start) => {
    const problem = holidayCodeProblem(code);
    if (start === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(new RegExp(`^${start.replace(/[.?*()]/g, '\\$&')}`));
  });
});
