/**
 * The sandbox's EventBridge Scheduler: the schedules the stack would create (each enabled job's
 * UTC covering expression, and the one-minute sweep), fired on a clock into the dispatcher.
 *
 * Time comes from `SandboxTimers`, injected: the command passes the wall clock, a test a clock
 * it moves itself, so the loop is driven without real waiting.
 */

import type { JobDefinition } from '#jobs/job.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import { type CoveringTicks, type ScheduledFire, scheduledFires } from '../simulation/events.ts';

const MINUTE_MS = 60_000;

/**
 * Most minutes one wake catches up after the clock jumped (a laptop that slept): Scheduler
 * does not replay a night of missed fires either; the sweep catches up their runs.
 */
export const MAX_CATCH_UP_MINUTES = 5;

/** The clock and the wait of the local scheduler. */
export interface SandboxTimers {
  now(): Date;
  /** Resolves at `at` (or at once if it has passed), or when `signal` aborts. */
  sleepUntil(at: Date, signal: AbortSignal): Promise<void>;
}

/** What the scheduler fires into: the sandbox's dispatcher, then whatever is due at that minute. */
export type FireHandler = (fire: ScheduledFire, event: object) => Promise<void>;

/**
 * The wall clock and `setTimeout`: what `zonecron sandbox` runs on.
 *
 * @example
 * await wallClockTimers.sleepUntil(new Date(Date.now() + 1000), signal); // a second later
 */
export const wallClockTimers: SandboxTimers = {
  now: () => new Date(),
  sleepUntil(at, signal) {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, at.getTime() - Date.now()));
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  },
};

/**
 * The covering schedules the stack creates for `jobs` at `synthTime`: one per enabled job, the
 * expression synth computes (`coveringSchedule`, as `jobCoverings` in the app).
 *
 * @example
 * sandboxCoverings(jobs, new Date('2026-01-01T00:00:00Z'))
 * //=> [{ jobId: 'berlin-nightly-report', cron: '30 0,1 * * *' }]
 */
export function sandboxCoverings(
  jobs: readonly JobDefinition[],
  synthTime: Date,
): readonly CoveringTicks[] {
  return jobs
    .filter((job) => job.enabled)
    .map((job) => ({ jobId: job.id, cron: coveringSchedule(job, synthTime).cron }));
}

/**
 * The event Scheduler sends for a fire: the stack's `tickInput` / `SWEEP_INPUT` with its
 * placeholders filled in (`attempt` is a string, as Scheduler's templated input has it).
 *
 * @example
 * schedulerEvent({ kind: 'sweep', at: new Date('2026-12-02T10:00:00Z') }, 1)
 * //=> { sweep: true, scheduledTime: '2026-12-02T10:00:00Z' }
 */
export function schedulerEvent(fire: ScheduledFire, sequence: number): object {
  const scheduledTime = `${fire.at.toISOString().slice(0, 19)}Z`;
  if (fire.kind === 'sweep') return { sweep: true, scheduledTime };
  const executionId = `sandbox${sequence.toString(16).padStart(9, '0')}`;
  return { jobId: fire.jobId, scheduledTime, executionId, attempt: '1' };
}

/** What {@link runLocalScheduler} runs. */
export interface LocalSchedulerOptions {
  /**
   * The schedules to fire; a function is read again at every wake, so a schedule changed or
   * deleted meanwhile (the sandbox's Scheduler API) fires as changed from the next minute on.
   */
  readonly coverings: readonly CoveringTicks[] | (() => readonly CoveringTicks[]);
  readonly timers: SandboxTimers;
  readonly fire: FireHandler;
  /** Stops the loop; it then returns after the fire in progress. */
  readonly signal: AbortSignal;
}

/**
 * Fires the schedules minute by minute until `signal` aborts: at each whole minute, the ticks
 * of the jobs whose covering fires then (config order), then the sweep, one after another,
 * each awaited, as a dispatcher with reserved concurrency 1 would take them.
 *
 * ```
 * now ─┬─ sleep ──> :00 ticks, sweep ── sleep ──> :01 ticks, sweep ── … abort ─> return
 * ```
 */
export async function runLocalScheduler(options: LocalSchedulerOptions): Promise<void> {
  const { timers, signal } = options;
  let cursorMs = floorMinute(timers.now().getTime());
  let sequence = 0;
  while (!signal.aborted) {
    await timers.sleepUntil(new Date(cursorMs + MINUTE_MS), signal);
    if (signal.aborted) return;
    const nowMs = floorMinute(timers.now().getTime());
    const fromMs = Math.max(cursorMs, nowMs - MAX_CATCH_UP_MINUTES * MINUTE_MS);
    const coverings =
      typeof options.coverings === 'function' ? options.coverings() : options.coverings;
    for (const fire of scheduledFires(coverings, new Date(fromMs), new Date(nowMs))) {
      await options.fire(fire, schedulerEvent(fire, ++sequence));
    }
    cursorMs = Math.max(cursorMs, nowMs);
  }
}

function floorMinute(ms: number): number {
  return ms - (ms % MINUTE_MS);
}
