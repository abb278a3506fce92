import type { JobStateItem } from '#ledger/index.ts';

/** A job's pause as the operating commands show it (`list`, `describe`, `history`). */
export interface PauseState {
  readonly jobId: string;
  readonly paused: boolean;
  /** UTC ISO instant the pause began. */
  readonly pausedAt?: string;
  /** Who paused it: an AWS identity ARN, `user@host`, or `jobs.yaml` for `enabled: false`. */
  readonly pausedBy?: string;
  readonly reason?: string;
  /** UTC ISO instant the pause ends by itself (`--until`). */
  readonly until?: string;
  /**
   * The pause's end has passed: the dispatcher resumes the job at its next tick or sweep (it
   * reads the pause with the watermark it reads anyway, so the end costs no request).
   */
  readonly ending: boolean;
  /** The previous pause, once resumed: its runs are never replayed by the dispatcher. */
  readonly lastPause?: { readonly from: string; readonly to: string };
}

/**
 * A job's pause from its state item (`job#<jobId>`); not paused when it has none.
 *
 * @example
 * pauseStateOf('nightly', { jobId: 'nightly', pausedAt: '2026-11-29T09:00:00.000Z',
 *   pausedBy: 'alice@laptop', pauseReason: 'db migration' }, new Date())
 * //=> { jobId: 'nightly', paused: true, pausedAt: '2026-11-29T09:00:00.000Z',
 * //     pausedBy: 'alice@laptop', reason: 'db migration', ending: false }
 */
export function pauseStateOf(
  jobId: string,
  state: JobStateItem | undefined,
  now: Date,
): PauseState {
  const paused = state?.pausedAt !== undefined;
  const until = state?.pausedUntil;
  return {
    jobId,
    paused,
    ...(state?.pausedAt ? { pausedAt: state.pausedAt } : {}),
    ...(state?.pausedBy ? { pausedBy: state.pausedBy } : {}),
    ...(state?.pauseReason ? { reason: state.pauseReason } : {}),
    ...(until ? { until } : {}),
    ending: paused && until !== undefined && Date.parse(until) <= now.getTime(),
    ...(state?.lastPauseFrom && state.lastPauseTo
      ? { lastPause: { from: state.lastPauseFrom, to: state.lastPauseTo } }
      : {}),
  };
}
