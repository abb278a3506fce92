/**
 * The engine's `BusinessCalendar` of a calendar of jobs.yaml: its weekend days, its closed
 * ranges, and a `closedDayReason` that reads the `closed:` dates and the holidays of its code.
 *
 * Built once per definition (the engine may ask the same date many times), whatever asks: the
 * dispatcher and the CLI build the same calendar from the same definition, so they agree.
 */
import type { BusinessCalendar, CalendarRule } from '../schedule/index.ts';
import type { CalendarDefinition, JobCalendar } from './calendar-definition.ts';
import { holidaysOf } from './holiday-source.ts';

const built = new WeakMap<CalendarDefinition, BusinessCalendar>();
const rules = new WeakMap<JobCalendar, CalendarRule>();

/**
 * The business calendar a definition describes, built on first use and kept with it.
 *
 * A holiday's reason is its name and the code it comes from; a `closed:` date's is its own
 * reason, and wins over a holiday on the same date.
 *
 * @example
 * businessCalendarOf(berlinBusiness).closedDayReason('2026-12-25') //=> 'Christmas Day (DE-BE)'
 * businessCalendarOf(berlinBusiness).closedDayReason('2026-12-24') //=> 'Christmas Eve'
 * businessCalendarOf(berlinBusiness).closedDayReason('2026-12-23') //=> undefined
 */
export function businessCalendarOf(definition: CalendarDefinition): BusinessCalendar {
  let calendar = built.get(definition);
  if (calendar === undefined) {
    calendar = buildCalendar(definition);
    built.set(definition, calendar);
  }
  return calendar;
}

/**
 * The engine's rule of a job's calendar: the built calendar, `onClosed` and `businessDay` as the
 * job gives them; kept with the job's calendar.
 *
 * @example
 * calendarRuleOf({ definition: berlinBusiness, businessDay: -1 }).businessDay //=> -1
 */
export function calendarRuleOf(jobCalendar: JobCalendar): CalendarRule {
  let rule = rules.get(jobCalendar);
  if (rule === undefined) {
    rule = {
      calendar: businessCalendarOf(jobCalendar.definition),
      ...(jobCalendar.onClosed === undefined ? {} : { onClosed: jobCalendar.onClosed }),
      ...(jobCalendar.businessDay === undefined ? {} : { businessDay: jobCalendar.businessDay }),
    };
    rules.set(jobCalendar, rule);
  }
  return rule;
}

function buildCalendar(definition: CalendarDefinition): BusinessCalendar {
  const closedDays = new Map<string, string>();
  for (const { date, reason } of definition.closedDays) {
    if (!closedDays.has(date)) closedDays.set(date, reason);
  }
  const { holidays: code, holidayTypes } = definition;
  return {
    name: definition.name,
    timezone: definition.timezone,
    weekendDays: definition.weekendDays,
    closedRanges: definition.closedRanges,
    closedDayReason(localDate) {
      const own = closedDays.get(localDate);
      if (own !== undefined || code === undefined) return own;
      const name = holidaysOf(code, holidayTypes, Number(localDate.slice(0, 4))).get(localDate);
      return name === undefined ? undefined : `${name} (${code})`;
    },
  };
}
