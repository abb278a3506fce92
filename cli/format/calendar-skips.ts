/**
 * The runs a job's calendar skipped in `history`'s window. The dispatcher writes no ledger item
 * for them (a calendar skip is decided by the schedule, not by a tick), so `history` computes
 * them with the engine's `scheduleBetween` for the job's definition, the same walk the
 * dispatcher decides with, and says they are computed.
 */
import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { type SkippedRun, scheduleBetween } from '../../functions/schedule/index.ts';
import type { Colours } from './colour.ts';
import { columnTable, wrap } from './table.ts';

/** The calendar's skipped runs of the window, and which definition they were computed from. */
export interface CalendarSkips {
  /** `deployed`: the stack's jobs bundle; `file`: the local jobs file. */
  readonly source: 'deployed' | 'file';
  readonly calendar: string;
  /** Newest first, as `history` lists runs. */
  readonly runs: readonly SkippedRun[];
}

/**
 * The runs `job`'s calendar skipped in `[since, to)`, newest first, computed with the engine's
 * `scheduleBetween` for its definition from `source`; null for a job without a calendar.
 *
 * @example
 * calendarSkipsOf(job, 'file', new Date('2026-11-09T00:00Z'), new Date('2026-11-16T00:00Z'))
 * //=> { source: 'file', calendar: 'office', runs: [{ at: 2026-11-15T05:00:00.000Z, …,
 * //     reason: 'calendar', detail: 'Sunday' }, …] }
 */
export function calendarSkipsOf(
  job: JobDefinition,
  source: CalendarSkips['source'],
  since: Date,
  to: Date,
): CalendarSkips | null {
  if (job.calendar === undefined) return null;
  const { skipped } = scheduleBetween(scheduleSpecOf(job), since, to);
  return {
    source,
    calendar: job.calendar.definition.name,
    runs: skipped.filter((run) => run.reason === 'calendar').reverse(),
  };
}

/**
 * The skips without those of an instant the ledger has an item for (a run delivered before a
 * deploy gave the job the calendar that now closes its day): an item says what happened to
 * its run, as `history --at` answers.
 *
 * @example
 * withoutItems(skips, [{ at: '2026-11-15T05:00:00.000Z', … }]).runs.map((r) => r.nominal)
 * //=> ['2026-11-14T06:00', '2026-11-11T06:00']
 */
export function withoutItems(
  skips: CalendarSkips,
  items: readonly { readonly at: string }[],
): CalendarSkips {
  const decided = new Set(items.map((item) => Date.parse(item.at)));
  return { ...skips, runs: skips.runs.filter((run) => !decided.has(run.at.getTime())) };
}

/**
 * The `--json` form: each run decided `skipped` with reason `calendar` and its detail.
 *
 * @example
 * calendarSkipsJson(skips).runs[0]
 * //=> { at: '2026-12-25T05:00:00.000Z', nominal: '2026-12-25T06:00', status: 'skipped',
 * //     reason: 'calendar', detail: 'Christmas Day' }
 */
export function calendarSkipsJson(skips: CalendarSkips) {
  return {
    computed: true,
    source: skips.source,
    calendar: skips.calendar,
    runs: skips.runs.map((run) => ({
      at: run.at.toISOString(),
      nominal: run.nominal,
      status: 'skipped',
      reason: run.reason,
      detail: run.detail,
    })),
  };
}

/**
 * The text: a title saying the runs are computed, not read, then one row per run.
 *
 * @example
 * calendarSkipLines(skips, c)[0]
 * //=> '2 runs skipped by calendar berlin-business (decided; computed from the file definition, not in the ledger)'
 */
export function calendarSkipLines(skips: CalendarSkips, c: Colours): string[] {
  const n = skips.runs.length;
  const title = wrap(
    `${n} run${n === 1 ? '' : 's'} skipped by calendar ${skips.calendar} (decided; computed ` +
      `from the ${skips.source} definition, not in the ledger)`,
    '',
  );
  if (n === 0) return [c.bold(title)];
  const rows = skips.runs.map((run) => [
    run.at.toISOString().slice(0, 16).replace('T', ' '),
    run.nominal,
    'skipped',
    `${run.reason}: ${run.detail}`,
  ]);
  return [c.bold(title), columnTable(['at (UTC)', 'nominal', 'status', 'reason'], rows)];
}
