import { InvalidArgumentError } from './errors.ts';
import { nextOccurrences } from './occurrences.ts';

/**
 * When a run must have finished by: a duration after its scheduled instant, or a wall time of
 * the job's zone (`HH:mm`, 24-hour).
 */
export type Deadline = { readonly afterSeconds: number } | { readonly wallTime: string };

const WALL_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * The instant a run scheduled at `runAt` is due to have finished by.
 *
 * A duration counts from `runAt`. A wall time is the first instant after `runAt` at which the
 * zone's clock reads it: on the run's local date, or the next one when that is not after the
 * run. It follows the wall clock across DST nights: on the fall-back night 07:00 is 07:00 of
 * the new offset; a time the spring-forward gap removes is the instant of the jump; a time the
 * repeated hour shows twice is its first showing after the run.
 *
 * @example
 * deadlineAt({ wallTime: '07:00' }, new Date('2026-10-25T04:00Z'), 'Europe/Berlin')
 * //=> 2026-10-25T06:00:00.000Z (07:00 CET, the night the clocks went back from CEST)
 * deadlineAt({ afterSeconds: 7200 }, new Date('2026-10-25T04:00Z'), 'Europe/Berlin')
 * //=> 2026-10-25T06:00:00.000Z
 */
export function deadlineAt(deadline: Deadline, runAt: Date, timezone: string): Date {
  if ('afterSeconds' in deadline) {
    if (!Number.isSafeInteger(deadline.afterSeconds) || deadline.afterSeconds <= 0) {
      throw new InvalidArgumentError(
        `a deadline's duration must be a whole number of seconds above 0, not ${deadline.afterSeconds}`,
        'deadline.afterSeconds',
        deadline.afterSeconds,
      );
    }
    return new Date(runAt.getTime() + deadline.afterSeconds * 1000);
  }
  const match = WALL_TIME.exec(deadline.wallTime);
  if (!match) {
    throw new InvalidArgumentError(
      `a deadline's wall time is HH:mm (00:00 to 23:59), not '${deadline.wallTime}'`,
      'deadline.wallTime',
      deadline.wallTime,
    );
  }
  const spec = {
    cron: `${Number(match[2])} ${Number(match[1])} * * *`,
    timezone,
    dst: { gap: 'transition', overlap: 'both' },
  } as const;
  const [first] = nextOccurrences(spec, runAt, 1);
  if (first) return first.at;
  // A daily time always comes again, except after the last instant a Date can hold.
  throw new InvalidArgumentError(
    `no ${deadline.wallTime} follows ${runAt.toISOString()}`,
    'runAt',
    runAt,
  );
}
