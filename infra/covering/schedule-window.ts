/**
 * The part of a job's covering schedule that bounds and `at` decide: the one-time `at()`
 * expression of a one-shot job, and the `StartDate`/`EndDate` of a bounded one.
 *
 * EventBridge Scheduler (API Reference, "CreateSchedule"; CloudFormation
 * `AWS::Scheduler::Schedule`): `StartDate` and `EndDate` are UTC dates; "EventBridge Scheduler
 * ignores StartDate [and EndDate] for one-time schedules"; a recurring schedule's StartDate
 * "cannot be earlier than 5 minutes ago" when it is created. A deploy comes some time after
 * synth, so a `from` less than {@link START_DATE_MARGIN_MS} after synth gets no StartDate: the
 * dispatcher's own bound (the engine's `from`) keeps the runs out, the tick before it is a
 * no-op. A job whose `until` or `at` has passed at synth gets a disabled schedule: nothing is
 * left for it to fire.
 */
import type { JobDefinition } from '#jobs/job.ts';
import { oneShotRuns } from '#jobs/one-shot.ts';

/** How far after synth a `from` must be to become the schedule's StartDate. */
export const START_DATE_MARGIN_MS = 3_600_000;

/** A covering schedule's bounds and state, as the schedule resource takes them. */
export interface ScheduleWindow {
  /** UTC ISO; the schedule fires from here. @default none */
  readonly startDate?: string;
  /** UTC ISO; the schedule fires before here. @default none */
  readonly endDate?: string;
  /** True when the job has no run left after synth: its schedule is created disabled. */
  readonly ended: boolean;
}

/**
 * The StartDate, EndDate and state of a job's covering schedule at `synthTime`.
 *
 * @example
 * scheduleWindow({ ...job, from: '2027-01-01T05:00:00.000Z', until: '2028-01-01T05:00:00.000Z' },
 *   new Date('2026-06-01T00:00Z'))
 * //=> { startDate: '2027-01-01T05:00:00.000Z', endDate: '2028-01-01T05:00:00.000Z', ended: false }
 */
export function scheduleWindow(job: JobDefinition, synthTime: Date): ScheduleWindow {
  const synthMs = synthTime.getTime();
  if (job.at !== undefined) {
    const run = oneShotRuns(job)[0];
    return { ended: run === undefined || run.at.getTime() <= synthMs };
  }
  const fromMs = job.from === undefined ? undefined : Date.parse(job.from);
  const untilMs = job.until === undefined ? undefined : Date.parse(job.until);
  const ended = untilMs !== undefined && untilMs <= synthMs;
  return {
    ...(fromMs !== undefined && fromMs > synthMs + START_DATE_MARGIN_MS && !ended
      ? { startDate: new Date(fromMs).toISOString() }
      : {}),
    ...(untilMs !== undefined && !ended ? { endDate: new Date(untilMs).toISOString() } : {}),
    ended,
  };
}

/**
 * The one-time expression of an `at` job: `at(yyyy-mm-ddThh:mm:ss)` at the UTC instant of its
 * run, evaluated in UTC like every other covering schedule.
 *
 * @example
 * oneShotExpression(christmasEveInBerlin) //=> 'at(2026-12-24T17:00:00)'
 */
export function oneShotExpression(runAt: Date): string {
  return `at(${runAt.toISOString().slice(0, 19)})`;
}
