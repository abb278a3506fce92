/**
 * The schedule engine: zonecron's only answer to "when does this job run".
 *
 * Pure (Intl and node:crypto only: no AWS SDK, no file system, no clock, no environment); the
 * reference instant is always an argument. Everything else in zonecron imports the engine from
 * here (test/unit/import-layers.test.ts checks it).
 * The contract is docs/semantics.md.
 */

export { MAX_MOVE_DAYS, WEEKDAY_NAMES } from './calendar-days.ts';
export { CALENDAR_SEARCH_YEARS, keyInstantOf, type SkippedRun } from './calendar-runs.ts';
export { civilFromDays, daysInMonth, weekdayOfDays } from './civil-calendar.ts';
export { type Deadline, deadlineAt } from './deadline.ts';
export {
  createEngine,
  defaultEngine,
  type EngineOptions,
  type ScheduleEngine,
} from './engine.ts';
export {
  type CronField,
  CronSyntaxError,
  InvalidArgumentError,
  InvalidTimeZoneError,
  isScheduleError,
  ScheduleError,
  type TimeZoneProblem,
} from './errors.ts';
export { intlZoneRules } from './intl-zone-rules.ts';
export { nextRun } from './next-run.ts';
export {
  iterateOccurrences,
  nextOccurrences,
  occurrencesBetween,
  resolvePolicies,
  scheduleKind,
} from './occurrences.ts';
export { parseCron } from './parse-cron.ts';
export { periodBucket } from './period-bucket.ts';
export {
  businessDaysOfMonth,
  closedDayOf,
  type SchedulePreview,
  scheduleBetween,
} from './schedule-preview.ts';
export { CYCLE_DAYS, INTL_RULES_REPEAT_FROM_MINUTE } from './search-bound.ts';
export { shiftedTransitionRules } from './shifted-zone-rules.ts';
export { zoneTransitions } from './time-zone.ts';
export type {
  BusinessCalendar,
  CalendarRule,
  ClosedDayConvention,
  ClosedRange,
  DayOfMonthSet,
  DayOfWeekSet,
  DstPolicies,
  GapPolicy,
  NeverRunsReason,
  NextRun,
  Occurrence,
  OverlapPolicy,
  ParsedCron,
  ScheduleKind,
  ScheduleSpec,
  ZoneRules,
  ZoneTransition,
} from './types.ts';
export { validateTimeZone } from './zone-name.ts';
