/**
 * The sandbox's EventBridge Scheduler: the schedules the stack would create (each enabled job's
 * UTC covering expression, and the one-minute sweep), fired on a clock into the dispatcher.
 *
 * Time comes from `SandboxTimers`, injected: the command passes the wall clock, a test a clock
 * it moves itself, so the loop is driven without real waiting.
 */

import type { JobDefinition } from '#jobs/job.ts';
import { type CoveringTicks, type ScheduledFire, scheduledFires } from '../simulation/events.ts';

const MINUTE_MS = 60_000;

/**
 * Most minutes of fires one wake replays after the clock jumped (a laptop that slept, a
 * sandbox suspended with Ctrl-Z). Scheduler retries a tick the dispatcher did not take, up to
 * the schedule's maximum event age; the sandbox replays the last hour of them at most, so a
 * night's sleep does not deliver a night of minutely runs one by one: the sweep decides the
 * older runs, and they are missed.
 */
export const MAX_REPLAY_MINUTES = 60;

/** The sweep schedule's maximum event age (infra/constructs/scheduling.ts): a minute. */
export const SWEEP_MAX_EVENT_AGE_SECONDS = 60;

/** A job's covering schedule, with the maximum event age of its Scheduler target. */
export interface SandboxCovering extends CoveringTicks {
  /** How late Scheduler still delivers a tick: the job's catch-up window, 1 minute to a day. */
  readonly maxEventAgeSeconds: number;
}

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
 * The maximum event age of a job's covering schedule: its catch-up window, between a minute
 * and Scheduler's most, a day (as `jobSchedule` of the shard stacks); a day for a schedule no
 * job owns.
 *
 * @example
 * maxEventAgeSecondsOf({ catchup: { windowSeconds: 3600 } }) //=> 3600
 */
export function maxEventAgeSecondsOf(job: Pick<JobDefinition, 'catchup'> | undefined): number {
  return Math.min(86_400, Math.max(60, job?.catchup.windowSeconds ?? 86_400));
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
  readonly coverings: readonly SandboxCovering[] | (() => readonly SandboxCovering[]);
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
 *
 * After the clock jumped, the minutes passed are replayed as Scheduler's retries would deliver
 * them, late: a tick while it is younger than its schedule's maximum event age (and at most
 * {@link MAX_REPLAY_MINUTES} old), the sweep only within its own minute of age. A run whose
 * tick comes late this way is delivered by it past its grace (`late`); a run whose tick was
 * dropped is the sweep's to decide (`missed`).
 */
export async function runLocalScheduler(options: LocalSchedulerOptions): Promise<void> {
  const { timers, signal } = options;
  let cursorMs = floorMinute(timers.now().getTime());
  let sequence = 0;
  while (!signal.aborted) {
    await timers.sleepUntil(new Date(cursorMs + MINUTE_MS), signal);
    if (signal.aborted) return;
    const nowMs = floorMinute(timers.now().getTime());
    const fromMs = Math.max(cursorMs, nowMs - MAX_REPLAY_MINUTES * MINUTE_MS);
    const coverings =
      typeof options.coverings === 'function' ? options.coverings() : options.coverings;
    const maxAgeMs = new Map(coverings.map((c) => [c.jobId, c.maxEventAgeSeconds * 1000]));
    for (const fire of scheduledFires(coverings, new Date(fromMs), new Date(nowMs))) {
      const ageMs = timers.now().getTime() - fire.at.getTime();
      const maxMs =
        fire.kind === 'sweep' ? SWEEP_MAX_EVENT_AGE_SECONDS * 1000 : maxAgeMs.get(fire.jobId);
      if (maxMs !== undefined && ageMs > maxMs) continue;
      await options.fire(fire, schedulerEvent(fire, ++sequence));
    }
    cursorMs = Math.max(cursorMs, nowMs);
  }
}

function floorMinute(ms: number): number {
  return ms - (ms % MINUTE_MS);
}
