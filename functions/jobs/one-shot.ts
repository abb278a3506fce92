/**
 * One-shot jobs (`at:`): the schedule that stands for one local date-time, and the run it
 * makes.
 *
 * An `at` job is an ordinary schedule to the engine: the five-field expression of its local
 * date and time (`'0 18 24 12 *'`), bounded to a few days around that date, so the engine's DST
 * policies apply to it as to any other run (a time in the spring-forward gap follows `gap`, one
 * in the repeated hour follows `overlap`) and the dispatcher needs no other path.
 */
import { nextOccurrences, type Occurrence } from '../schedule/index.ts';
import { type JobDefinition, scheduleSpecOf } from './job.ts';

const DAY_MS = 86_400_000;

/**
 * The schedule, `from` and `until` of an `at` job: the expression of its local slot, bounded
 * from two days before its local date (UTC midnight) to three days after. Every zone's offset
 * is within ±14 hours, so the bounds hold every instant of that local date, and no other year.
 *
 * @example
 * oneShotSchedule('2026-12-24T18:00')
 * //=> { schedule: '0 18 24 12 *', from: '2026-12-22T00:00:00.000Z', until: '2026-12-27T00:00:00.000Z' }
 */
export function oneShotSchedule(at: string): { schedule: string; from: string; until: string } {
  const [y, mo, d, h, mi] = at.split(/[-T:]/).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const midnight = Date.UTC(y, mo - 1, d);
  return {
    schedule: `${mi} ${h} ${d} ${mo} *`,
    from: new Date(midnight - 2 * DAY_MS).toISOString(),
    until: new Date(midnight + 3 * DAY_MS).toISOString(),
  };
}

/**
 * The runs of an `at` job: its one run, none when it falls in a gap the job skips or on a day
 * its calendar skips, two when it is in a repeated hour the job runs `both` times; none for a
 * recurring job. The engine keeps them within the job's `from` and `until`.
 *
 * @example
 * oneShotRuns(christmasEveJob).map((run) => run.at.toISOString())
 * //=> ['2026-12-24T17:00:00.000Z']
 */
export function oneShotRuns(job: JobDefinition): Occurrence[] {
  if (job.at === undefined || job.from === undefined || job.until === undefined) return [];
  return nextOccurrences(scheduleSpecOf(job), new Date(Date.parse(job.from) - 1), 3);
}
