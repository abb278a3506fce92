/**
 * Typed errors of the schedule engine.
 *
 * Every error the engine throws is a `ScheduleError`; callers tell them apart by class and read
 * the data they carry instead of parsing messages. `isScheduleError` also recognises errors made
 * by another loaded copy of this module (the engine is loaded bundled in Lambda and from source
 * in infra and the CLI), so it relies on a `Symbol.for` brand rather than `instanceof`.
 */

const SCHEDULE_ERROR_BRAND = Symbol.for('zonecron.schedule.ScheduleError');

/** The five fields of an expression, or `expression` for problems with the whole text. */
export type CronField = 'minute' | 'hour' | 'day-of-month' | 'month' | 'day-of-week' | 'expression';

/**
 * The base class of every error the engine throws.
 *
 * Catch this (or test with `isScheduleError`) to handle any bad schedule input; subclasses say
 * which input was bad and carry it as data.
 *
 * @example
 * try { parseCron('61 * * * *') } catch (e) { e instanceof ScheduleError }
 * //=> true
 */
export class ScheduleError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    Object.defineProperty(this, SCHEDULE_ERROR_BRAND, { value: true });
  }
}

/**
 * A cron expression that zonecron cannot accept.
 *
 * Raised before anything is deployed. `position` is the 0-based character offset of `token`
 * in `expression` (for a macro or a wrong field count it is 0), so a CLI can put a caret under
 * the offending token; `allowed` says what the field accepts.
 *
 * @example
 * try { parseCron('0 25 * * *') } catch (e) { [e.field, e.token, e.position, e.allowed] }
 * //=> ['hour', '25', 2, '0-23']
 */
export class CronSyntaxError extends ScheduleError {
  readonly expression: string;
  readonly field: CronField;
  readonly position: number;
  readonly token: string;
  readonly allowed: string;

  constructor(
    message: string,
    data: {
      expression: string;
      field: CronField;
      position: number;
      token: string;
      allowed: string;
    },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.expression = data.expression;
    this.field = data.field;
    this.position = data.position;
    this.token = data.token;
    this.allowed = data.allowed;
  }
}

/**
 * Why a time zone name was refused (docs/semantics.md, "Time zones"):
 *
 * - `invalid`: not a non-empty string of the characters zone names use;
 * - `fixed-offset`: an offset (`+01:00`, `UTC+1`, `Etc/GMT+5`), which stays while a place's
 *   offset changes;
 * - `abbreviation`: `EST`, `CET`, `PST8PDT`: an offset's name, not a place's;
 * - `utc-alias`: another name of UTC (`GMT`, `Etc/UCT`, `Zulu`): write `UTC`;
 * - `legacy-alias`: a one-word name the tz database keeps for compatibility (`Japan`, `GB`);
 * - `case`: a known name in the wrong case (`europe/berlin`);
 * - `unknown`: no zone of that name.
 */
export type TimeZoneProblem =
  | 'invalid'
  | 'fixed-offset'
  | 'abbreviation'
  | 'utc-alias'
  | 'legacy-alias'
  | 'case'
  | 'unknown';

/**
 * A time zone that is not an IANA zone name of a place (or `UTC`).
 *
 * `problem` says why; `suggestion`, when there is one, is the name to write instead.
 *
 * @example
 * try { validateTimeZone('europe/berlin') } catch (e) { [e.zone, e.problem, e.suggestion] }
 * //=> ['europe/berlin', 'case', 'Europe/Berlin']
 */
export class InvalidTimeZoneError extends ScheduleError {
  readonly zone: string;
  readonly problem: TimeZoneProblem;
  readonly suggestion: string | undefined;

  constructor(
    message: string,
    zone: string,
    options: { problem?: TimeZoneProblem; suggestion?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.zone = zone;
    this.problem = options.problem ?? 'unknown';
    this.suggestion = options.suggestion;
  }
}

/**
 * An argument the engine cannot work with: an invalid `Date`, `count` <= 0, `from` after `to`,
 * an unknown DST policy.
 *
 * @example
 * try { nextOccurrences(spec, new Date('x'), 1) } catch (e) { e.argument }
 * //=> 'after'
 */
export class InvalidArgumentError extends ScheduleError {
  readonly argument: string;
  readonly value: unknown;

  constructor(message: string, argument: string, value: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.argument = argument;
    this.value = value;
  }
}

/**
 * Tells whether `value` is an error thrown by the schedule engine, from any loaded copy of it.
 *
 * `instanceof` fails when the CLI (from source) sees an error made by the bundled engine; the
 * brand is registered with `Symbol.for`, which is shared by every copy in the process.
 *
 * @example
 * isScheduleError(new CronSyntaxError('x', { expression: '', field: 'minute', position: 0, token: '', allowed: '' }))
 * //=> true
 * isScheduleError(new Error('x'))
 * //=> false
 */
export function isScheduleError(value: unknown): value is ScheduleError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[SCHEDULE_ERROR_BRAND] === true
  );
}
