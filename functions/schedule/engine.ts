import { InvalidArgumentError } from './errors.ts';
import { intlZoneRules } from './intl-zone-rules.ts';
import { nextRunIn } from './next-run.ts';
import { iterateOccurrencesIn, nextOccurrencesIn, occurrencesBetweenIn } from './occurrences.ts';
import {
  businessDaysOfMonthIn,
  closedDayOfIn,
  type SchedulePreview,
  scheduleBetweenIn,
} from './schedule-preview.ts';
import { defaultZoneTables, transitionsIn, ZoneTables } from './time-zone.ts';
import type {
  BusinessCalendar,
  NextRun,
  Occurrence,
  ScheduleSpec,
  ZoneRules,
  ZoneTransition,
} from './types.ts';

/** The options of `createEngine`. */
export interface EngineOptions {
  /**
   * Where the engine reads zone offsets.
   *
   * @default intlZoneRules (the platform's copy of the IANA database)
   */
  readonly zoneRules?: ZoneRules;
}

/**
 * The engine's answers under one set of zone rules: the module-level functions of the same
 * names, computed with the engine's rules and cached in the engine's own offset tables.
 */
export interface ScheduleEngine {
  /** The rules this engine reads. */
  readonly zoneRules: ZoneRules;
  /** See the module-level `nextOccurrences`. */
  nextOccurrences(spec: ScheduleSpec, after: Date, count: number): Occurrence[];
  /** See the module-level `nextRun`. */
  nextRun(spec: ScheduleSpec, after: Date): NextRun;
  /** See the module-level `occurrencesBetween`. */
  occurrencesBetween(spec: ScheduleSpec, from: Date, to: Date): Occurrence[];
  /** See the module-level `iterateOccurrences`. */
  iterateOccurrences(spec: ScheduleSpec, after: Date): Generator<Occurrence, void, undefined>;
  /** See the module-level `zoneTransitions`. */
  zoneTransitions(zone: string, from: Date, to: Date): ZoneTransition[];
  /** See the module-level `scheduleBetween`. */
  scheduleBetween(spec: ScheduleSpec, from: Date, to: Date): SchedulePreview;
  /** See the module-level `businessDaysOfMonth`. */
  businessDaysOfMonth(calendar: BusinessCalendar, year: number, month: number): string[];
  /** See the module-level `closedDayOf`. */
  closedDayOf(calendar: BusinessCalendar, localDate: string): string | undefined;
}

/**
 * An engine that reads zone offsets from the given rules instead of the platform's.
 *
 * Nothing global changes: the engine keeps its own offset tables, so two engines with different
 * rules can run side by side, for instance to compare what synth computed with what the runtime
 * computes, or to see a schedule under rules a government has announced but no database ships
 * yet. Without rules it is a fresh engine on the platform's rules, with empty tables. Zone
 * names are still checked against the platform (`validateTimeZone`).
 *
 * @example
 * const moved = createEngine({
 *   zoneRules: shiftedTransitionRules('Europe/Berlin', new Date('2027-03-28T01:00Z'), 7 * 24 * 60),
 * });
 * moved.nextOccurrences({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, new Date('2027-03-29T00:00Z'), 1)[0].at
 * //=> 2027-03-29T08:00:00.000Z (still CET; the platform's rules say 07:00Z)
 */
export function createEngine(options: EngineOptions = {}): ScheduleEngine {
  const zoneRules = options.zoneRules === undefined ? intlZoneRules : options.zoneRules;
  if (
    typeof zoneRules !== 'object' ||
    zoneRules === null ||
    typeof zoneRules.offsetMinutesAt !== 'function'
  ) {
    throw new InvalidArgumentError(
      'invalid zone rules (allowed an object with an offsetMinutesAt(zone, utcMinute) method)',
      'zoneRules',
      zoneRules,
    );
  }
  return engineOver(new ZoneTables(zoneRules));
}

/**
 * The module-level functions as an engine: the platform's rules, in the tables those functions
 * share (`defaultZoneTables`).
 *
 * For code that takes a `ScheduleEngine` and, on the platform's rules, should fill and reuse
 * the same offset tables as synth's coverings and the dispatcher's runs, not tables of its own.
 *
 * @example
 * defaultEngine.nextOccurrences({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, new Date('2027-03-29T00:00Z'), 1)[0].at
 * //=> 2027-03-29T07:00:00.000Z
 */
export const defaultEngine: ScheduleEngine = engineOver(defaultZoneTables);

function engineOver(tables: ZoneTables): ScheduleEngine {
  return {
    zoneRules: tables.rules,
    nextOccurrences: (spec, after, count) => nextOccurrencesIn(tables, spec, after, count),
    nextRun: (spec, after) => nextRunIn(tables, spec, after),
    occurrencesBetween: (spec, from, to) => occurrencesBetweenIn(tables, spec, from, to),
    iterateOccurrences: (spec, after) => iterateOccurrencesIn(tables, spec, after),
    zoneTransitions: (zone, from, to) => transitionsIn(tables, zone, from, to),
    scheduleBetween: (spec, from, to) => scheduleBetweenIn(tables, spec, from, to),
    businessDaysOfMonth: (calendar, year, month) =>
      businessDaysOfMonthIn(tables, calendar, year, month),
    closedDayOf: (calendar, localDate) => closedDayOfIn(tables, calendar, localDate),
  };
}
