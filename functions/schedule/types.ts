/**
 * What to do with a local slot that does not exist because clocks jumped forward.
 *
 * `shift` runs at the slot read with the offset before the jump (later by the jump's length),
 * `transition` runs at the instant of the jump, `skip` does not run.
 */
export type GapPolicy = 'shift' | 'transition' | 'skip';

/**
 * What to do with a local slot that happens twice because clocks went back.
 *
 * `first` runs at the earlier instant, `last` at the later one, `both` at both.
 */
export type OverlapPolicy = 'first' | 'last' | 'both';

/**
 * The kind of a schedule, which picks its DST defaults.
 *
 * `cadence`: the hour field matches all 24 hours (gap `skip`, overlap `both`);
 * `wall-clock`: everything else (gap `shift`, overlap `first`).
 */
export type ScheduleKind = 'cadence' | 'wall-clock';

/** The effective DST policies of a schedule. */
export interface DstPolicies {
  readonly gap: GapPolicy;
  readonly overlap: OverlapPolicy;
}

/**
 * A schedule: a five-field cron expression read in an IANA zone.
 *
 * `jobId` is needed only when the expression uses `H`; `dst` overrides the defaults of the
 * schedule's kind.
 */
export interface ScheduleSpec {
  readonly cron: string;
  readonly timezone: string;
  readonly jobId?: string;
  readonly dst?: { readonly gap?: GapPolicy; readonly overlap?: OverlapPolicy };
  /** A business calendar the runs follow (docs/semantics.md, "Calendars"). @default none */
  readonly calendar?: CalendarRule;
  /** No run is before this instant (inclusive bound). @default no bound */
  readonly from?: Date;
  /** No run is at or after this instant (exclusive bound). @default no bound */
  readonly until?: Date;
}

/**
 * What a calendar does with a run whose local date is closed: `skip` it, or move it to a
 * business day by one of the ISDA business-day conventions. `following`: the next business
 * day; `modified-following`: the next one unless it is in the next month, then the previous
 * one; `preceding` and `modified-preceding` the same the other way. A moved run keeps its local
 * time of day and its nominal instant (its key).
 */
export type ClosedDayConvention =
  | 'skip'
  | 'following'
  | 'modified-following'
  | 'preceding'
  | 'modified-preceding';

/** A closed local-time range of a calendar, half-open `[from, to)`, `YYYY-MM-DDTHH:mm`. */
export interface ClosedRange {
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

/**
 * A business calendar: which local dates of its zone are closed, and why.
 *
 * A local date is closed when its weekday is a weekend day, when `closedDayReason` names a
 * reason for it (a public holiday, a closed day), or when closed ranges cover it entirely. The
 * engine stays pure: the holiday data lives with the caller, behind `closedDayReason`.
 */
export interface BusinessCalendar {
  /** The calendar's name, for messages. */
  readonly name: string;
  /** The IANA zone whose local dates are the calendar's days. */
  readonly timezone: string;
  /** Closed weekdays, 0 (Sunday) to 6. */
  readonly weekendDays: readonly number[];
  /**
   * Why a local date (`YYYY-MM-DD`) is closed other than by its weekday or a range, or
   * undefined when it is not. Must be pure: the engine may cache its answers.
   */
  closedDayReason(localDate: string): string | undefined;
  /** Closed local-time ranges, in the calendar's zone. */
  readonly closedRanges: readonly ClosedRange[];
}

/**
 * How a schedule follows a calendar: `onClosed` for runs on closed days (default `skip`), or
 * `businessDay`, the Nth business day of each month (1 the first, -1 the last), for schedules
 * whose day-of-month and day-of-week fields are `*`. A run inside a closed range is skipped
 * whatever `onClosed` says.
 */
export interface CalendarRule {
  readonly calendar: BusinessCalendar;
  readonly onClosed?: ClosedDayConvention;
  readonly businessDay?: number;
}

/**
 * One run of a schedule.
 *
 * `at` is the UTC instant (whole minute), `nominal` the local slot it stands for
 * (`YYYY-MM-DDTHH:mm`), `dst` whether that slot was in a gap, an overlap, or neither.
 */
export interface Occurrence {
  readonly at: Date;
  readonly nominal: string;
  readonly dst: 'none' | 'gap' | 'overlap';
  /**
   * Set when a calendar moved the run off a closed day: the instant the schedule named (the
   * run's key is made from it, so moving never makes two runs of one), why, and by which
   * convention. `at` and `nominal` are then the run's new instant and local slot.
   */
  readonly moved?: {
    readonly nominalAt: Date;
    readonly reason: string;
    readonly convention: ClosedDayConvention;
  };
}

/** An offset change of a zone: at `at` the offset goes from before to after (minutes east of UTC). */
export interface ZoneTransition {
  readonly at: Date;
  readonly offsetBeforeMinutes: number;
  readonly offsetAfterMinutes: number;
}

/**
 * Where an engine reads a zone's UTC offsets.
 *
 * The answers of the engine depend on the time-zone rules it reads, and two machines can hold
 * different copies of them. The default, `intlZoneRules`, asks the platform (ICU's copy of the
 * IANA database, `process.versions.tz`); `createEngine({ zoneRules })` computes with other
 * rules, for one engine only: recorded ones, or altered ones such as
 * `shiftedTransitionRules`. The engine samples `offsetMinutesAt` once a day and bisects every
 * change to the minute, so an offset that lasts less than a day may go unseen
 * (docs/semantics.md, "Limits").
 *
 * @example
 * const utcPlusOne: ZoneRules = { offsetMinutesAt: () => 60 };
 * createEngine({ zoneRules: utcPlusOne }).nextOccurrences(
 *   { cron: '0 9 * * *', timezone: 'Europe/Berlin' }, new Date('2026-07-01T00:00Z'), 1)[0].at
 * //=> 2026-07-01T08:00:00.000Z (09:00 at UTC+1, although Berlin keeps summer time in July)
 */
export interface ZoneRules {
  /**
   * The offset in force in `zone` at `utcMinute` (minutes since the epoch), in whole minutes
   * east of UTC, floored; an integer between -1439 and 1439.
   *
   * `zone` is a validated IANA name. The function must be pure: the engine caches what it
   * learns from it.
   */
  offsetMinutesAt(zone: string, utcMinute: number): number;
  /**
   * The UTC minute (since the epoch) from which `zone`'s offsets repeat every 146,097 days
   * (400 Gregorian years): `offsetMinutesAt(zone, m + 146097 * 1440)` equals
   * `offsetMinutesAt(zone, m)` for every m from it on. True of any zone past its last dated
   * change, when only a yearly rule or a fixed offset is left.
   *
   * It bounds the search for a next run: a schedule with no run in the cycle after it has none
   * (docs/semantics.md, "Limits"). Without it, or when it returns undefined, the engine
   * searches to the end of `Date`'s range.
   *
   * @default none
   */
  repeatsFromMinute?(zone: string): number | undefined;
}

/** Day-of-month part of a parsed expression. */
export interface DayOfMonthSet {
  /** Plain days 1-31. */
  readonly values: readonly number[];
  /** `L`: the last day of the month. */
  readonly last: boolean;
  /** `LW`: the last weekday (Mon-Fri) of the month. */
  readonly lastWeekday: boolean;
  /** `nW`: the weekday nearest to day n, inside the month. */
  readonly nearestWeekday: readonly number[];
}

/** Day-of-week part of a parsed expression; weekdays are 0 (Sunday) to 6. */
export interface DayOfWeekSet {
  readonly values: readonly number[];
  /** `dL`: the last such weekday of the month. */
  readonly last: readonly number[];
  /** `d#k`: the k-th such weekday of the month. */
  readonly nth: readonly { readonly weekday: number; readonly nth: number }[];
}

/**
 * A validated five-field expression, with `H` resolved and names, macros and `?` expanded.
 *
 * `dayRule` is the Vixie rule: `or` when both day fields are restricted (neither text starts
 * with `*` or `?`), else `and`.
 */
export interface ParsedCron {
  /** The expression as given. */
  readonly expression: string;
  /** The five field texts after macro expansion. */
  readonly fields: readonly [string, string, string, string, string];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: DayOfMonthSet;
  readonly months: readonly number[];
  readonly daysOfWeek: DayOfWeekSet;
  readonly dayRule: 'and' | 'or';
}

/**
 * The answer to "when does this schedule next run": its next run, or that it never will, and
 * why. "Never" is an answer, not an error: a valid schedule can have no run left.
 */
export type NextRun =
  | { readonly kind: 'runs'; readonly next: Occurrence }
  | { readonly kind: 'never'; readonly reason: NeverRunsReason };

/**
 * Why a schedule has no run after an instant.
 *
 * `gap-skip`: every local slot the expression matches falls in a gap of the zone (its clocks
 * jump over it) and the gap policy is `skip`; the search went one calendar-and-rules cycle
 * past where the zone's rules repeat, so no later run can come (docs/semantics.md, "Limits").
 * `end-of-range`: the search reached the end of `Date`'s range (the year 275760) first.
 * `calendar`: the calendar closes every day the schedule could run on (every weekday closed,
 * or every matched day a weekend day under `skip`), or no run came in the 28 years searched
 * (`CALENDAR_SEARCH_YEARS`; docs/semantics.md, "Calendars"). `until`: every run left is at or
 * after the schedule's `until`.
 */
export interface NeverRunsReason {
  readonly cause: 'gap-skip' | 'end-of-range' | 'calendar' | 'until';
  readonly timezone: string;
  readonly policies: DstPolicies;
  /** The first skipped slot after the instant asked about, and the clock change that skips it. */
  readonly firstSkipped?: { readonly nominal: string; readonly transition: ZoneTransition };
  /** Where the search stopped: no run up to here, and none can come after. */
  readonly searchedUntil: Date;
  /** The reason in words: lowercase, no trailing period. */
  readonly message: string;
}
