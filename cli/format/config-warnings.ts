/**
 * The lines validate and describe print about a config's warnings and its holiday data: the
 * `past` warnings at file:line:column, and the holiday data version beside the zone data's.
 * Pure formatting: the command gathers the data (`loadJobsFile(file, { now })`,
 * `holidayDataVersion()`).
 */
import type { Colours } from './colour.ts';
import { wrap } from './table.ts';

/** The `date-holidays` release a calendar's holidays come from, as the jobs bundle records it. */
export interface HolidayDataInUse {
  readonly package: string;
  readonly version: string;
  readonly dataVersion: string;
}

/** A config warning as the loader locates it (`JobsConfig.warnings`). */
export interface LocatedWarning {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly jobId?: string;
  readonly message: string;
}

/**
 * One `WARNING file:line:column: job: message` line per config warning; none when there are none.
 *
 * @example
 * configWarningLines([{ file: 'jobs.yaml', line: 9, column: 12, jobId: 'campaign',
 *   message: 'until (…) has passed: …' }], c)[0]
 * //=> 'WARNING jobs.yaml:9:12: campaign: until (…) has passed: …'
 */
export function configWarningLines(warnings: readonly LocatedWarning[], c: Colours): string[] {
  return warnings.map((w) =>
    c.yellow(
      wrap(
        `${w.file}:${w.line}:${w.column}: ${w.jobId === undefined ? '' : `${w.jobId}: `}${w.message}`,
        'WARNING ',
      ),
    ),
  );
}

/**
 * The holiday data line: which `date-holidays` release the calendars' holidays come from.
 *
 * @example
 * holidayDataLine({ package: 'date-holidays', version: '3.37.0', dataVersion: '2026-09-20' })
 * //=> 'holiday data: date-holidays 3.37.0 (data 2026-09-20)'
 */
export function holidayDataLine(holidays: HolidayDataInUse): string {
  return wrap(
    `holiday data: ${holidays.package} ${holidays.version} (data ${holidays.dataVersion})`,
    '',
  );
}
