/**
 * From the file's `calendars:` block to `CalendarDefinition`s: each calendar checked by the
 * schema, its zone by the engine, its holiday code against the holiday data set; and a job's
 * `calendar:` resolved against them, in the job's zone when the calendar names none.
 *
 * A calendar with a problem is reported once, where it is written; the jobs that name it are
 * left out without repeating it.
 */
import { closestName } from '#text/message-text.ts';
import type {
  CalendarDefinition,
  JobCalendar,
} from '../../functions/calendar/calendar-definition.ts';
import { WEEKDAY_NAMES } from '../../functions/calendar/calendar-definition.ts';
import { holidayCodeProblem } from '../../functions/calendar/date-holidays-data.ts';
import { isScheduleError, validateTimeZone } from '../../functions/schedule/index.ts';
import type { IssueCollector } from './issue-collector.ts';
import { isPlainObject } from './raw-data.ts';
import {
  CALENDAR_NAME_PATTERN,
  calendarSchema,
  describeValue,
  type RawCalendar,
} from './schema.ts';

/** The calendars of a file, by name: valid ones, and the names of those with problems. */
export interface FileCalendars {
  readonly valid: ReadonlyMap<string, RawCalendar>;
  readonly invalid: ReadonlySet<string>;
  /** Definitions made so far, by `name|zone`: jobs that share both share one object. */
  readonly made: Map<string, CalendarDefinition>;
}

/**
 * Every calendar under `calendars:`, checked; the problems go to the collector.
 *
 * @example
 * parseCalendars({ 'berlin-business': { holidays: 'DE-BE' } }, collector).valid.has('berlin-business')
 * //=> true
 */
export function parseCalendars(raw: unknown, collector: IssueCollector): FileCalendars {
  const valid = new Map<string, RawCalendar>();
  const invalid = new Set<string>();
  const entries = isPlainObject(raw) ? Object.entries(raw) : [];
  for (const [name, value] of entries) {
    const at = ['calendars', name] as const;
    const before = collector.count();
    if (!CALENDAR_NAME_PATTERN.test(name)) {
      collector.addAt(
        at,
        {
          message: `calendar name must contain only a-z, 0-9, - and _, got ${describeValue(name)}`,
          code: 'invalid-value',
        },
        true,
      );
    }
    const parsed = calendarSchema.safeParse(value, { reportInput: true });
    if (!parsed.success) collector.addZod(parsed.error.issues, at);
    if (isPlainObject(value)) checkZoneAndCode(value, at, collector);
    if (parsed.success && collector.count() === before) valid.set(name, parsed.data);
    else invalid.add(name);
  }
  return { valid, invalid, made: new Map() };
}

function checkZoneAndCode(
  value: Record<string, unknown>,
  at: readonly (string | number)[],
  collector: IssueCollector,
): void {
  const { timezone, holidays } = value;
  if (typeof timezone === 'string') {
    try {
      validateTimeZone(timezone);
    } catch (error) {
      if (!isScheduleError(error)) throw error;
      collector.addAt([...at, 'timezone'], { message: error.message, code: 'invalid-timezone' });
    }
  }
  if (typeof holidays === 'string') {
    const problem = holidayCodeProblem(holidays);
    if (problem !== undefined) {
      collector.addAt([...at, 'holidays'], { message: problem, code: 'unknown-holidays' });
    }
  }
}

/** A job's `calendar:` as the schema read it. */
export type CalendarRef =
  | string
  | {
      readonly name: string;
      readonly onClosed?: JobCalendar['onClosed'];
      readonly businessDay?: 'first' | 'last' | number;
    };

/** Why a job's `calendar:` cannot be resolved, or its resolution. */
export type CalendarResolution =
  | { readonly kind: 'resolved'; readonly calendar: JobCalendar }
  | { readonly kind: 'unknown'; readonly message: string }
  | { readonly kind: 'invalid' };

/**
 * The job's calendar: the named definition (in the job's zone when the calendar names none) with
 * the job's rule; `unknown` with a did-you-mean when no calendar has that name; `invalid` when
 * the calendar has problems of its own, reported where it is written.
 *
 * @example
 * resolveCalendar({ name: 'berlin-business', businessDay: 'last' }, 'Europe/Berlin', calendars)
 * //=> { kind: 'resolved', calendar: { definition: {…}, businessDay: -1 } }
 */
export function resolveCalendar(
  ref: CalendarRef,
  jobZone: string,
  calendars: FileCalendars,
): CalendarResolution {
  const { name, onClosed, businessDay } = typeof ref === 'string' ? { name: ref } : ref;
  if (calendars.invalid.has(name)) return { kind: 'invalid' };
  const raw = calendars.valid.get(name);
  if (raw === undefined) return { kind: 'unknown', message: unknownMessage(name, calendars) };
  const definition = definitionOf(name, raw, jobZone, calendars.made);
  return {
    kind: 'resolved',
    calendar: {
      definition,
      ...(onClosed === undefined ? {} : { onClosed }),
      ...(businessDay === undefined ? {} : { businessDay: businessDayNumber(businessDay) }),
    },
  };
}

function unknownMessage(name: string, calendars: FileCalendars): string {
  const names = [...calendars.valid.keys(), ...calendars.invalid];
  const near = closestName(name, names, { maxDistance: 2 });
  const hint = near === undefined ? '' : `; did you mean '${near}'?`;
  const known =
    names.length === 0 ? 'the file has no calendars:' : `calendars: ${names.join(', ')}`;
  return `unknown calendar '${name}'${hint} (${known})`;
}

function businessDayNumber(value: 'first' | 'last' | number): number {
  if (value === 'first') return 1;
  if (value === 'last') return -1;
  return value;
}

const DEFAULT_WEEKENDS = ['sat', 'sun'] as const;

function definitionOf(
  name: string,
  raw: RawCalendar,
  jobZone: string,
  made: Map<string, CalendarDefinition>,
): CalendarDefinition {
  const timezone = raw.timezone ?? jobZone;
  const key = `${name}|${timezone}`;
  const known = made.get(key);
  if (known !== undefined) return known;
  const closed = raw.closed ?? [];
  const weekends = new Set(
    (raw.weekends ?? DEFAULT_WEEKENDS).map((day) => WEEKDAY_NAMES.indexOf(day)),
  );
  const definition: CalendarDefinition = {
    name,
    timezone,
    ...(raw.holidays === undefined ? {} : { holidays: raw.holidays }),
    holidayTypes: [...new Set(raw.holidayTypes ?? (['public'] as const))],
    weekendDays: [...weekends].sort((a, b) => a - b),
    closedDays: closed.flatMap((entry) =>
      entry.date === undefined ? [] : [{ date: entry.date, reason: entry.reason }],
    ),
    closedRanges: closed.flatMap((entry) =>
      entry.from === undefined || entry.to === undefined
        ? []
        : [{ from: entry.from, to: entry.to, reason: entry.reason }],
    ),
  };
  made.set(key, definition);
  return definition;
}
