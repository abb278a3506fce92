import { iterateOccurrences } from '../../functions/schedule/index.ts';

/** A per-job covering tick or a sweep, at the instant Scheduler would fire it. */
export type ScheduledFire =
  | { readonly kind: 'tick'; readonly jobId: string; readonly at: Date }
  | { readonly kind: 'sweep'; readonly at: Date };

/** One job's UTC covering expression (from `coveringSchedule`). */
export interface CoveringTicks {
  readonly jobId: string;
  readonly cron: string;
}

const MINUTE_MS = 60_000;

/**
 * Every fire of the stack's schedules in (from, to], in time order: each job's covering
 * expression evaluated in UTC by the engine (as Scheduler evaluates its `cron(...)` in UTC),
 * and the one-minute sweep. Within a minute the job ticks come first, in config order.
 *
 * Lazy: a month is 43,200 sweeps, so nothing is materialised.
 */
export function* scheduledFires(
  coverings: readonly CoveringTicks[],
  from: Date,
  to: Date,
): Generator<ScheduledFire> {
  const streams = coverings.map((c) => ({
    jobId: c.jobId,
    iterator: iterateOccurrences({ cron: c.cron, timezone: 'UTC' }, from),
    next: undefined as Date | undefined,
  }));
  for (const s of streams) s.next = s.iterator.next().value?.at;
  const toMs = to.getTime();
  const firstMinute = Math.floor(from.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let minute = firstMinute; minute <= toMs; minute += MINUTE_MS) {
    for (const s of streams) {
      while (s.next !== undefined && s.next.getTime() <= minute) {
        if (s.next.getTime() === minute) yield { kind: 'tick', jobId: s.jobId, at: s.next };
        s.next = s.iterator.next().value?.at;
      }
    }
    yield { kind: 'sweep', at: new Date(minute) };
  }
}
