import { type Command, Option } from 'commander';
import { closestName } from '#text/message-text.ts';
import type { CalendarDefinition } from '../../functions/calendar/calendar-definition.ts';
import { usageError } from '../errors.ts';
import { coloursFor } from '../format/colour.ts';
import { wrap } from '../format/table.ts';
import { integerAtLeast } from '../options.ts';

interface CalendarOptions {
  year?: number;
  config?: string;
  jobs?: string;
  json?: boolean;
}

const EXAMPLE = `
Examples:
  $ zonecron calendar berlin-business --year 2027
  its closed days of 2027 with reasons (weekends counted, not listed), its
  closed ranges, and each month's first and last business day and how many.
  $ zonecron calendar berlin-business --config jobs.yaml --json`;

/** `zonecron calendar`: a business calendar's year, to check against the company's list. */
export function registerCalendar(program: Command): void {
  program
    .command('calendar')
    .description("show a calendar's closed days and ranges and each month's business days")
    .argument('<name>', 'calendar name, as under calendars: in the jobs file')
    .option('--year <year>', 'the year (default: this year, in UTC)', integerAtLeast(1, 9999))
    .option('--config <file>', 'jobs file (default: jobs.yaml)')
    .addOption(new Option('--jobs <file>', 'same as --config').hideHelp())
    .option('--json', 'print one JSON document')
    .addHelpText('after', EXAMPLE)
    .action(runCalendar);
}

/**
 * The named calendar's definition: as a job that follows it resolved it (in that job's zone
 * when the calendar names none), else in UTC. An unknown name is a usage error with the
 * closest known name.
 */
async function definitionOf(
  file: string,
  name: string,
): Promise<{ definition: CalendarDefinition; zoneOf: string }> {
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const { readJobsText, readYamlDocument } = await import('../../infra/config/read-jobs-file.ts');
  const { parseCalendars, resolveCalendar } = await import(
    '../../infra/config/calendar-definitions.ts'
  );
  const { isPlainObject } = await import('../../infra/config/raw-data.ts');
  const config = loadJobsFile(file);
  const { data, collector } = readYamlDocument(readJobsText(file), file);
  const raw = isPlainObject(data) ? data.calendars : undefined;
  const calendars = parseCalendars(raw, collector);
  const ownZone =
    isPlainObject(raw) && isPlainObject(raw[name]) && raw[name].timezone !== undefined;
  const follower = config.jobs.find((job) => job.calendar?.definition.name === name);
  if (follower?.calendar !== undefined) {
    const zoneOf = ownZone ? 'calendar' : `job:${follower.id}`;
    return { definition: follower.calendar.definition, zoneOf };
  }
  const resolved = resolveCalendar(name, 'UTC', calendars);
  if (resolved.kind === 'resolved') {
    return { definition: resolved.calendar.definition, zoneOf: ownZone ? 'calendar' : 'none' };
  }
  throw usageError(unknownCalendar(name, file, [...calendars.valid.keys()]));
}

function unknownCalendar(name: string, file: string, names: readonly string[]): string {
  const known = names.length === 0 ? 'it has no calendars' : `calendars: ${names.join(', ')}`;
  return `unknown calendar '${name}' in ${file}${didYouMeanOf(name, names)} (${known})`;
}

function didYouMeanOf(name: string, names: readonly string[]): string {
  const match = closestName(name, names, { maxDistance: 3 });
  return match === undefined ? '' : `; did you mean '${match}'?`;
}

async function runCalendar(name: string, options: CalendarOptions): Promise<void> {
  const given = [options.config, options.jobs].filter((f) => f !== undefined);
  if (new Set(given).size > 1) throw usageError(`two jobs files given: ${given.join(', ')}`);
  const file = given[0] ?? 'jobs.yaml';
  const { definition, zoneOf } = await definitionOf(file, name);
  const { businessCalendarOf } = await import('../../functions/calendar/business-calendar.ts');
  const { holidayDataVersion } = await import('../../functions/calendar/date-holidays-data.ts');
  const { calendarYear, calendarYearLines } = await import('../format/calendar-year.ts');
  const year = options.year ?? new Date().getUTCFullYear();
  const report = calendarYear(businessCalendarOf(definition), year);
  const data = holidayDataVersion();
  const holidays =
    definition.holidays === undefined
      ? null
      : { code: definition.holidays, types: definition.holidayTypes };
  if (options.json) {
    const doc = {
      calendar: name,
      timezone: definition.timezone,
      timezoneOf: zoneOf,
      year,
      holidays,
      holidayData: data,
      weekend: report.weekend,
      closedDays: report.closedDates,
      closedRanges: report.ranges,
      months: report.months,
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const c = coloursFor(process.stdout);
  const zone =
    zoneOf === 'calendar'
      ? definition.timezone
      : zoneOf === 'none'
        ? `${definition.timezone} (it has no zone and no job follows it)`
        : `${definition.timezone}, the zone of ${zoneOf.slice(4)} (it has none of its own)`;
  const source =
    holidays === null
      ? 'no public holidays'
      : `holidays ${holidays.code} (${holidays.types.join(', ')}) from ${data.package} ${data.version} (data ${data.dataVersion})`;
  const lines = [
    c.bold(wrap(`calendar ${name}, ${year}: days in ${zone}`, '')),
    wrap(source, ''),
    ...calendarYearLines(report),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
