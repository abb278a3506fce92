/**
 * How far a search for a schedule's next run must go before "none" is an answer.
 *
 * Two things decide whether a UTC minute is a run: the calendar (which local slots the
 * expression matches) and the zone's offsets within a day or two of it (the segment it is in,
 * and the DST window around a transition). Both repeat:
 *
 * - the Gregorian calendar every 400 years, 146,097 days, which is 20,871 whole weeks: a day
 *   and the day 146,097 days later have the same month, day of month, month length and
 *   weekday, so every field of an expression (`L`, `W`, `#` included) matches both or neither;
 * - a zone's offsets, once its rules hold no more dated changes: from then on they follow one
 *   yearly rule (a month, a weekday or day and a time, as in the tz database's rules and ICU's
 *   final rules) or none, and a yearly rule of the Gregorian calendar repeats after the same
 *   146,097 days. `ZoneRules.repeatsFromMinute` says from when.
 *
 * So from `repeatsFromMinute` plus a margin on, minute t is a run exactly when t + 146,097 days
 * is, and a search that finds no run in the 146,097 days after that point (or after where it
 * started, if later) has proved there is none at all: any later run, moved back by whole
 * cycles, would land in the searched stretch. docs/semantics.md, "Limits", states the bound.
 */

import type { ZoneRules } from './types.ts';

/** 400 Gregorian years in days: the calendar, weekdays included, repeats after it. */
export const CYCLE_DAYS = 146_097;
/**
 * How far from a minute the offsets that decide it lie: its segment and a DST window next to
 * it, both shorter than a day in the tz database; three days, as the zone tables' margin.
 */
const DECIDING_MARGIN_MINUTES = 3 * 1440;

/**
 * From the start of 2200 the platform's rules repeat every cycle: the latest dated change in
 * the tz database is Morocco's of 2087 (its Ramadan changes are listed year by year until
 * then), and a century more leaves room for releases that list further.
 * test/unit/schedule/search-bound.test.ts checks every zone the platform knows.
 */
export const INTL_RULES_REPEAT_FROM_MINUTE = Date.UTC(2200, 0, 1) / 60_000;

/** The cycle in minutes: a run at t (past `repeatStartMinute`) is a run at t + this too. */
export const CYCLE_MINUTES = CYCLE_DAYS * 1440;

/**
 * The UTC minute from which a zone's runs repeat every cycle, for any schedule: where its
 * rules repeat, plus the margin within which offsets decide a minute. `Infinity` when the
 * rules do not say from when they repeat.
 *
 * A search that started at (or last found a run at) minute m and has found none up to
 * `max(m, repeatStartMinute) + CYCLE_MINUTES` has proved there is no run after m.
 *
 * @example
 * new Date(repeatStartMinute(intlZoneRules, 'Europe/Berlin') * 60_000)
 * //=> 2200-01-04T00:00:00.000Z
 */
export function repeatStartMinute(rules: ZoneRules, zone: string): number {
  const repeatsFrom = rules.repeatsFromMinute?.(zone);
  if (typeof repeatsFrom !== 'number' || !Number.isFinite(repeatsFrom)) {
    return Number.POSITIVE_INFINITY;
  }
  return repeatsFrom + DECIDING_MARGIN_MINUTES;
}
