/**
 * The whole `date-holidays` data set, for synth and the CLI only: which codes exist, the
 * holidays of a code in a year, and the table of them synth writes into the jobs bundle.
 *
 * The Lambdas never import this file (its package is about 1 MB with its parser's
 * dependencies; test/infra/calendars.test.ts checks it stays out): they read the table
 * (`holiday-source.ts`). The package loads on first use, when a year's holidays are asked:
 * checking a jobs file's codes reads the list `holiday-codes.ts` instead.
 */
import { createRequire } from 'node:module';
import { closestName } from '#text/message-text.ts';
import { HOLIDAY_CODES } from './holiday-codes.ts';
import {
  HOLIDAY_TABLE_YEARS,
  type HolidayDays,
  type HolidaySource,
  type HolidayTable,
  holidayTableKey,
} from './holiday-source.ts';

/** The slice of the package's `Holidays` class this file uses. */
interface HolidaysInstance {
  getHolidays(year: number): { date: string; start: Date; end: Date; name: string }[];
}
type HolidaysClass = new (...args: unknown[]) => HolidaysInstance;

const require = createRequire(import.meta.url);
let holidaysClass: HolidaysClass | undefined;

function Holidays(): HolidaysClass {
  holidaysClass ??= require('date-holidays') as HolidaysClass;
  return holidaysClass;
}

/**
 * The package's version and its data's, as the jobs bundle records them.
 *
 * @example
 * holidayDataVersion() //=> { package: 'date-holidays', version: '3.37.0', dataVersion: '2026-09-20' }
 */
export function holidayDataVersion(): { package: string; version: string; dataVersion: string } {
  const { version } = require('date-holidays/package.json') as { version: string };
  const { data } = require('date-holidays/data') as { data: { version: string } };
  return { package: 'date-holidays', version, dataVersion: data.version };
}

const codes = new Set(HOLIDAY_CODES);

/**
 * Every code the data set knows: countries (`DE`), states (`DE-BE`), regions (`DE-BY-A`), as
 * listed from the installed package (`holiday-codes.ts`, whose test holds it to the package),
 * so that checking a code loads nothing.
 *
 * @example
 * holidayCodes().includes('GB-ENG') //=> true
 */
export function holidayCodes(): readonly string[] {
  return HOLIDAY_CODES;
}

/**
 * Why `code` is not a code of the data set, with the nearest one that is, or undefined when it
 * is one.
 *
 * @example
 * holidayCodeProblem('DE-BE')  //=> undefined
 * holidayCodeProblem('DE-BER') //=> "unknown holiday code 'DE-BER'; did you mean 'DE-BE'? (country[-state[-region]] as date-holidays names them, e.g. DE-BE, US-NY, GB-ENG)"
 */
export function holidayCodeProblem(code: string): string | undefined {
  if (codes.has(code)) return undefined;
  const near = closestName(code, HOLIDAY_CODES, { maxDistance: 2 });
  const hint = near === undefined ? '' : `; did you mean '${near}'?`;
  return `unknown holiday code '${code}'${hint} (country[-state[-region]] as date-holidays names them, e.g. DE-BE, US-NY, GB-ENG)`;
}

const DAY_MS = 86_400_000;

/** The dates a holiday covers: its local date, and the following ones for a multi-day one. */
function datesOf(holiday: { date: string; start: Date; end: Date }): string[] {
  const first = holiday.date.slice(0, 10);
  const days = Math.max(1, Math.round((holiday.end.getTime() - holiday.start.getTime()) / DAY_MS));
  const dates = [first];
  const firstMs = Date.parse(`${first}T00:00:00Z`);
  for (let i = 1; i < days; i += 1) {
    dates.push(new Date(firstMs + i * DAY_MS).toISOString().slice(0, 10));
  }
  return dates;
}

/**
 * A source over the whole data set: any code it knows, any year. Names are in English where the
 * data has them (the package falls back to the country's language otherwise).
 *
 * @example
 * dateHolidaysSource().holidaysOf('US-NY', ['public'], 2026)?.get('2026-07-03')
 * //=> 'Independence Day (substitute day)'
 */
export function dateHolidaysSource(): HolidaySource {
  return fullSource;
}

type Listed = ReturnType<HolidaysInstance['getHolidays']>;
const instances = new Map<string, { instance: HolidaysInstance; lists: Map<number, Listed> }>();
const years = new Map<string, HolidayDays>();

const fullSource: HolidaySource = {
  holidaysOf(code, types, year) {
    if (!codes.has(code)) return undefined;
    const key = `${holidayTableKey(code, types)}|${year}`;
    let found = years.get(key);
    if (found === undefined) {
      found = computeYear(code, types, year);
      years.set(key, found);
    }
    return found;
  },
};

/**
 * The holidays dated in `year`: the package lists a holiday under the year of its rule, so a
 * substitute day moved across New Year shows in the next or the previous year's list.
 */
function computeYear(code: string, types: readonly string[], year: number): HolidayDays {
  const instanceKey = holidayTableKey(code, types);
  let made = instances.get(instanceKey);
  if (made === undefined) {
    const options = { languages: ['en'], types: [...types] };
    made = { instance: new (Holidays())(...code.split('-'), options), lists: new Map() };
    instances.set(instanceKey, made);
  }
  const { instance, lists } = made;
  const names = new Map<string, string[]>();
  const prefix = `${year}-`;
  for (const listed of [year - 1, year, year + 1]) {
    let list = lists.get(listed);
    if (list === undefined) {
      list = instance.getHolidays(listed);
      lists.set(listed, list);
    }
    for (const holiday of list) {
      for (const date of datesOf(holiday)) {
        if (!date.startsWith(prefix)) continue;
        const on = names.get(date) ?? [];
        if (!on.includes(holiday.name)) on.push(holiday.name);
        names.set(date, on);
      }
    }
  }
  const sorted = [...names.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  return new Map(sorted.map(([date, on]) => [date, on.join(' / ')]));
}

/**
 * The table of holidays a jobs bundle ships: for each code and its types, every holiday dated
 * from {@link HOLIDAY_TABLE_YEARS} before `synthYear` to that many after.
 *
 * @example
 * holidayTable([{ code: 'DE-BE', types: ['public'] }], 2026).days['DE-BE|public']?.['2026-12-25']
 * //=> 'Christmas Day'
 */
export function holidayTable(
  uses: readonly { readonly code: string; readonly types: readonly string[] }[],
  synthYear: number,
): HolidayTable {
  const fromYear = synthYear - HOLIDAY_TABLE_YEARS.before;
  const toYear = synthYear + HOLIDAY_TABLE_YEARS.after;
  const days: Record<string, Record<string, string>> = {};
  for (const { code, types } of uses) {
    const key = holidayTableKey(code, types);
    if (days[key] !== undefined) continue;
    const entries: Record<string, string> = {};
    for (let year = fromYear; year <= toYear; year += 1) {
      for (const [date, name] of fullSource.holidaysOf(code, types, year) ?? new Map()) {
        entries[date] = name;
      }
    }
    days[key] = entries;
  }
  return { ...holidayDataVersion(), fromYear, toYear, days };
}
