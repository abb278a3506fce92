/**
 * The one reader of instants given on the command line (`--from`, `--to`, `--until`,
 * `--since`, `--after`, `--at`), in two steps: commander checks the text when it reads the
 * flag ({@link instantArgument}, {@link whenArgument}); the command resolves it once it knows
 * the zone to read it in, the job's or `--tz` ({@link resolveInstant}). docs/cli.md,
 * "Instants", lists the forms.
 */
import { InvalidArgumentError } from 'commander';
import { DateTime } from 'luxon';
import { DurationError, parseDurationSeconds } from '../infra/config/duration.ts';

/** A day named on the command line: a calendar date, or a day counted from today. */
type DayText = { readonly date: string } | { readonly daysFromToday: -1 | 0 | 1 };

/**
 * An instant as written, before it is read in a zone.
 *
 * `absolute` carries its own offset (`Z`, `+02:00`) and means the same in every zone; `day`
 * (`2026-12-02`, `today`, `tomorrow 09:00`) and `wall` (`2026-12-02T09:00`) are wall-clock
 * times of the zone they are resolved in; `duration` counts from now; `now` is now.
 */
export type InstantInput =
  | { readonly kind: 'absolute'; readonly text: string; readonly at: Date }
  | { readonly kind: 'wall'; readonly text: string; readonly iso: string }
  | { readonly kind: 'day'; readonly text: string; readonly day: DayText; readonly time?: string }
  | { readonly kind: 'duration'; readonly text: string; readonly seconds: number }
  | { readonly kind: 'now'; readonly text: string };

/** Where and how to read an {@link InstantInput}. */
export interface InstantContext {
  /** The IANA zone wall-clock forms are read in: the job's, `--tz`, or `UTC`. */
  readonly zone: string;
  readonly now: Date;
  /**
   * `end` reads a date without a time as the end of that day, so that a range's `--to` with
   * a date includes the day; `start` (the default) as its first instant, midnight.
   */
  readonly bound?: 'start' | 'end';
  /** Which way a duration counts from now: back (`-1`, `--since`) or forward (`+1`, `--until`). */
  readonly direction?: 1 | -1;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const RELATIVE_DAY = /^(yesterday|today|tomorrow)(?:[ T](\d{1,2}:\d{2}(?::\d{2})?))?$/i;
const WITH_OFFSET = /T.*(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;
const DAYS: Record<string, -1 | 0 | 1> = { yesterday: -1, today: 0, tomorrow: 1 };

const FORMS =
  'allowed 2026-12-02T09:00Z or …+01:00; in the zone 2026-12-02T09:00, 2026-12-02,' +
  ' today, tomorrow or yesterday, with a time or not (tomorrow 09:00); now';

/**
 * Reads the text of an instant flag, without a zone yet; a text that is no instant is refused
 * as commander refuses a bad value (exit code 2).
 *
 * @example
 * instantArgument('2026-12-02').kind      //=> 'day'
 * instantArgument('2026-12-02T09:00Z').kind //=> 'absolute'
 */
export function instantArgument(value: string): InstantInput {
  const input = readInstantText(value);
  if (input) return input;
  throw new InvalidArgumentError(`'${value}' is not an instant (${FORMS})`);
}

/**
 * Like {@link instantArgument}, and also a duration from now in the notation of `jobs.yaml`
 * (`90s`, `30m`, `24h`, `7d`, ISO `PT24H`), for `--since` and `--until`.
 *
 * @example
 * whenArgument('2h') //=> { kind: 'duration', text: '2h', seconds: 7200 }
 */
export function whenArgument(value: string): InstantInput {
  const text = value.trim();
  try {
    return { kind: 'duration', text, seconds: parseDurationSeconds(text) };
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
  }
  const input = readInstantText(value);
  if (input) return input;
  throw new InvalidArgumentError(
    `'${value}' is neither a duration (e.g. 24h, 7d, PT30M) nor an instant (${FORMS})`,
  );
}

function readInstantText(value: string): InstantInput | undefined {
  const text = value.trim();
  if (/^now$/i.test(text)) return { kind: 'now', text };
  const relative = RELATIVE_DAY.exec(text);
  if (relative) {
    const day = { daysFromToday: DAYS[(relative[1] ?? '').toLowerCase()] ?? 0 };
    if (relative[2] !== undefined && !wallTime('2000-01-01', relative[2], 'UTC').isValid) {
      return undefined;
    }
    return { kind: 'day', text, day, ...(relative[2] ? { time: relative[2] } : {}) };
  }
  if (DATE_ONLY.test(text)) {
    return DateTime.fromISO(text, { zone: 'UTC' }).isValid
      ? { kind: 'day', text, day: { date: text } }
      : undefined;
  }
  const iso = text.replace(/^(\d{4}-\d{2}-\d{2}) (\d)/, '$1T$2');
  if (WITH_OFFSET.test(iso)) {
    const parsed = DateTime.fromISO(iso, { setZone: true });
    return parsed.isValid ? { kind: 'absolute', text, at: parsed.toJSDate() } : undefined;
  }
  return DateTime.fromISO(iso, { zone: 'UTC' }).isValid ? { kind: 'wall', text, iso } : undefined;
}

function wallTime(date: string, time: string, zone: string): DateTime {
  const padded = time.length === 4 || time.length === 7 ? `0${time}` : time;
  return DateTime.fromISO(`${date}T${padded}`, { zone });
}

/**
 * The instant an {@link InstantInput} names, read in `context.zone`.
 *
 * A wall-clock time that does not exist there (in a spring-forward gap) is read as the same
 * number of minutes after the gap's start, as luxon and the engine's `shift` do; one that
 * happens twice, as its first occurrence.
 *
 * @example
 * resolveInstant(instantArgument('2026-12-02'), { zone: 'America/New_York', now })
 * //=> 2026-12-02T05:00:00.000Z
 * resolveInstant(instantArgument('2025-06-06'), { zone: 'America/New_York', now, bound: 'end' })
 * //=> 2025-06-07T03:59:59.999Z
 */
export function resolveInstant(input: InstantInput, context: InstantContext): Date {
  switch (input.kind) {
    case 'absolute':
      return input.at;
    case 'now':
      return context.now;
    case 'duration':
      return new Date(context.now.getTime() + (context.direction ?? 1) * input.seconds * 1000);
    case 'wall':
      return DateTime.fromISO(input.iso, { zone: context.zone }).toJSDate();
    case 'day':
      return dayInstant(input, context);
  }
}

function dayInstant(input: Extract<InstantInput, { kind: 'day' }>, context: InstantContext): Date {
  const zone = context.zone;
  const day =
    'date' in input.day
      ? DateTime.fromISO(input.day.date, { zone })
      : DateTime.fromJSDate(context.now, { zone })
          .startOf('day')
          .plus({ days: input.day.daysFromToday });
  if (input.time !== undefined) return wallTime(day.toISODate() ?? '', input.time, zone).toJSDate();
  if (context.bound === 'end') {
    return day.plus({ days: 1 }).startOf('day').minus({ milliseconds: 1 }).toJSDate();
  }
  return day.startOf('day').toJSDate();
}

/**
 * A commander parser for flags whose instant needs no zone of a job: wall-clock forms are read
 * in UTC (`next`, `explain` and `simulate` read theirs in `--tz`, see {@link resolveInstant}).
 *
 * @example
 * utcInstantArgument('2026-12-02') //=> 2026-12-02T00:00:00.000Z
 */
export function utcInstantArgument(value: string): Date {
  return resolveInstant(instantArgument(value), { zone: 'UTC', now: new Date() });
}
