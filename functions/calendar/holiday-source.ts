/**
 * Where a calendar's holidays come from: the whole `date-holidays` data set where synth and the
 * CLI run, the table synth wrote into the jobs bundle where the Lambdas run.
 *
 * The Lambdas never load the package: its parser pulls in moment-timezone and astronomia, about
 * 1 MB minified and some 60 ms to import (`npm run bench:dispatch -- --calendar`), against a
 * cold-start budget of 20 ms. Synth computes the holidays of the codes a deploy uses over
 * {@link HOLIDAY_TABLE_YEARS} instead, a few kilobytes, and the dispatcher reads them from there
 * (docs/jobs.md, "Calendars").
 */
import { DeploymentError } from '#shared/errors.ts';

/**
 * The holidays of one code and set of types: local date (`YYYY-MM-DD`) → name, for the dates of
 * one year; several holidays on one date are one name joined by ` / `.
 */
export type HolidayDays = ReadonlyMap<string, string>;

/** Answers "which holidays does this code have in this year". */
export interface HolidaySource {
  /** The holidays of `code` of `types` dated in `year`, or undefined when it does not know. */
  holidaysOf(code: string, types: readonly string[], year: number): HolidayDays | undefined;
}

/**
 * The years a jobs bundle's holiday table covers, relative to the synth year: the catch-up of
 * two years back, and 20 years ahead (a deploy left alone longer must be redeployed to read
 * later holidays; the dispatcher says so).
 */
export const HOLIDAY_TABLE_YEARS = { before: 2, after: 20 } as const;

/**
 * The holidays synth computed for the codes a deploy uses, as the jobs bundle records them.
 *
 * `days` holds, by {@link holidayTableKey}, each holiday's local date and name over
 * `[fromYear, toYear]`.
 */
export interface HolidayTable {
  /** The npm package the data came from, `date-holidays`. */
  readonly package: string;
  /** Its version, e.g. `3.37.0`. */
  readonly version: string;
  /** The version of its data, e.g. `2026-09-20`. */
  readonly dataVersion: string;
  readonly fromYear: number;
  readonly toYear: number;
  readonly days: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/**
 * The key of a code and its holiday types in a {@link HolidayTable}.
 *
 * @example
 * holidayTableKey('DE-BE', ['public', 'bank']) //=> 'DE-BE|bank,public'
 */
export function holidayTableKey(code: string, types: readonly string[]): string {
  return `${code}|${[...types].sort().join(',')}`;
}

/**
 * A source over a jobs bundle's table: it knows the codes and years synth wrote, and nothing
 * else.
 *
 * @example
 * holidayTableSource(table).holidaysOf('DE-BE', ['public'], 2026)?.get('2026-12-25')
 * //=> 'Christmas Day'
 */
export function holidayTableSource(table: HolidayTable): HolidaySource {
  const byYear = new Map<string, Map<string, string>>();
  return {
    holidaysOf(code, types, year) {
      if (year < table.fromYear || year > table.toYear) return undefined;
      const key = holidayTableKey(code, types);
      const days = table.days[key];
      if (days === undefined) return undefined;
      const cacheKey = `${key}|${year}`;
      let found = byYear.get(cacheKey);
      if (found === undefined) {
        const prefix = `${year}-`;
        found = new Map(Object.entries(days).filter(([date]) => date.startsWith(prefix)));
        byYear.set(cacheKey, found);
      }
      return found;
    },
  };
}

/** The sources in use, the last registered asked first. */
const sources: HolidaySource[] = [];

/**
 * Adds a source the calendars read holidays from. Called at the edge: the loader registers the
 * whole data set, the Lambdas their bundle's table. A later source is asked first; one that
 * does not know a code or year passes the question on.
 */
export function useHolidaySource(source: HolidaySource): void {
  if (!sources.includes(source)) sources.push(source);
}

/** No registered source knows a code's holidays of a year. */
export class HolidayDataMissingError extends DeploymentError {
  readonly code: string;
  readonly year: number;
  constructor(code: string, year: number) {
    super(
      `no holiday data for ${code} in ${year}: a deploy ships the holidays of the codes its calendars name from ${HOLIDAY_TABLE_YEARS.before} years before its synth to ${HOLIDAY_TABLE_YEARS.after} after; redeploy`,
    );
    this.code = code;
    this.year = year;
  }
}

/**
 * The holidays of `code` of `types` dated in `year`, from the newest source that knows them.
 *
 * Throws `HolidayDataMissingError` when none does.
 */
export function holidaysOf(code: string, types: readonly string[], year: number): HolidayDays {
  for (let i = sources.length - 1; i >= 0; i -= 1) {
    const days = sources[i]?.holidaysOf(code, types, year);
    if (days !== undefined) return days;
  }
  throw new HolidayDataMissingError(code, year);
}
