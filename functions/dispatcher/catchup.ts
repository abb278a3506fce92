import type { Occurrence } from '../schedule/index.ts';
import type { JobDefinition } from '../shared/job.ts';

/** Which due runs a tick delivers and which its catch-up policy drops. */
export interface CatchupPlan {
  /** In time order, oldest first. */
  readonly run: readonly Occurrence[];
  /** In time order; never delivered by this tick. */
  readonly dropped: readonly Occurrence[];
}

/**
 * The earliest instant (exclusive) a tick at `scheduledAt` looks back to.
 *
 * ```
 *   no watermark (first deploy)           only S itself:        (S-1m, S]
 *   watermark >= S (a retried tick)       only S itself:        (S-1m, S]
 *   S-window <= watermark < S             since the watermark:  (watermark, S]
 *   watermark < S-window (long outage)    the window:           (S-window, S]
 * ```
 *
 * The run at S itself is always due, whatever the watermark says: a retried tick must be
 * able to retry its own run after another dispatcher moved the watermark past it.
 *
 * @example
 * catchupFrom(new Date('2023-03-26T01:30:00Z'), undefined, 86_400).toISOString()
 * //=> '2023-03-26T01:29:00.000Z'
 */
export function catchupFrom(
  scheduledAt: Date,
  watermark: Date | undefined,
  windowSeconds: number,
): Date {
  const sMs = scheduledAt.getTime();
  if (!watermark || watermark.getTime() >= sMs) return new Date(sMs - 60_000);
  return new Date(Math.max(watermark.getTime(), sMs - windowSeconds * 1000));
}

/**
 * Applies a job's catch-up policy to the runs due at a tick.
 *
 * - `all`: every due run, oldest first; beyond `maxRuns` the **oldest** are dropped — the
 *   newest runs matter most, and the run at S is never the one dropped.
 * - `latest`: only the newest due run.
 * - `none`: only the run at S, if S is a run.
 *
 * @example
 * planCatchup({ catchup: { policy: 'latest', windowSeconds: 86_400, maxRuns: 100 } },
 *   [r0100, r0115, r0130], at0130)
 * //=> { run: [r0130], dropped: [r0100, r0115] }
 */
export function planCatchup(
  job: Pick<JobDefinition, 'catchup'>,
  due: readonly Occurrence[],
  scheduledAt: Date,
): CatchupPlan {
  const sMs = scheduledAt.getTime();
  switch (job.catchup.policy) {
    case 'none': {
      const run = due.filter((o) => o.at.getTime() === sMs);
      return { run, dropped: due.filter((o) => o.at.getTime() !== sMs) };
    }
    case 'latest':
      return { run: due.slice(-1), dropped: due.slice(0, -1) };
    default: {
      const cap = Math.max(1, job.catchup.maxRuns);
      if (due.length <= cap) return { run: due, dropped: [] };
      return { run: due.slice(-cap), dropped: due.slice(0, due.length - cap) };
    }
  }
}
