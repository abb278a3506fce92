import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import type { JobStateItem, PauseSpan, SkipReason } from '#ledger/index.ts';
import { iterateOccurrences, type Occurrence } from '../schedule/index.ts';

/** Most skipped runs of one gap recorded with an item of their own; the rest share a range. */
export const MAX_SKIPS_RECORDED = 100;

/** The skip reason of a policy for a gap run inside the window that it does not deliver. */
export const POLICY_SKIP_REASON: Record<JobDefinition['catchup']['policy'], SkipReason> = {
  all: 'max-runs',
  latest: 'catch-up-latest',
  none: 'catch-up-none',
};

/**
 * The runs a job's catch-up policy delivers from a gap's undecided runs (oldest first): the
 * newest `maxRuns` under `all`, the newest under `latest`, none under `none`.
 *
 * @example
 * policyPicks({ catchup: { policy: 'all', maxRuns: 2, windowSeconds: 86_400 } }, [r1, r2, r3])
 * //=> [r2, r3]
 */
export function policyPicks<T>(job: Pick<JobDefinition, 'catchup'>, runs: readonly T[]): T[] {
  switch (job.catchup.policy) {
    case 'all':
      return runs.slice(Math.max(0, runs.length - job.catchup.maxRuns));
    case 'latest':
      return runs.slice(-1);
    case 'none':
      return [];
  }
}

/** What a gap is scanned for. */
export interface GapBounds {
  /** Exclusive: the watermark W; every run at or before it is decided. */
  readonly afterMs: number;
  /** Inclusive: the newest instant the gap reaches. */
  readonly upToMs: number;
  /** Runs before it are older than the ledger keeps: they are skipped but not counted. */
  readonly countFromMs: number;
  /** The tick's own run: on time, never part of the gap. */
  readonly ownMs?: number;
  readonly pauses: readonly PauseSpan[];
  /** How many of the gap's newest runs inside the window the policy may deliver. */
  readonly keep: number;
}

/** A gap run that is skipped. */
export interface GapSkip {
  readonly occurrence: Occurrence;
  readonly reason: SkipReason;
}

/** What one pass over a gap's runs found: bounded by `keep` and {@link MAX_SKIPS_RECORDED}. */
export interface GapScan {
  /** The newest runs the policy may deliver, oldest first (at most `keep`). */
  readonly candidates: readonly Occurrence[];
  /** The newest skipped runs (at most {@link MAX_SKIPS_RECORDED}), oldest first: each gets an item of its own. */
  readonly skips: readonly GapSkip[];
  /** Runs skipped without an item (older than `skips`), counted from `countFromMs`. */
  readonly rangeRuns: number;
  /** How many of `rangeRuns` fell in a pause. */
  readonly rangePaused: number;
  /** The range's exclusive end: just after the newest run it stands for. */
  readonly rangeBeforeMs: number;
  /** Whether a range item is needed: runs without an item, or a gap older than the count. */
  readonly needsRange: boolean;
  /** Every run the gap holds that was counted (skipped or a candidate). */
  readonly runs: number;
  /** The first of them, if any. */
  readonly firstMs?: number;
  /** The newest of them, if any: under `latest`, a paused one newer than the candidates moots them. */
  readonly lastMs?: number;
  readonly windowStartMs: number;
}

/** True when `ms` falls in one of the pause spans. */
export function inPause(pauses: readonly PauseSpan[], ms: number): boolean {
  return pauses.some((p) => ms >= p.fromMs && ms < p.toMs);
}

/**
 * The pauses a gap's runs are skipped for: the last ended pause and the current one, each
 * `[from, to)`.
 *
 * @example
 * pauseSpans({ jobId: 'j', pausedAt: '2023-06-01T10:04:00.000Z' })
 * //=> [{ fromMs: Date.parse('2023-06-01T10:04:00.000Z'), toMs: Infinity }]
 */
export function pauseSpans(state: JobStateItem): PauseSpan[] {
  const spans: PauseSpan[] = [];
  if (state.lastPauseFrom && state.lastPauseTo) {
    spans.push({ fromMs: Date.parse(state.lastPauseFrom), toMs: Date.parse(state.lastPauseTo) });
  }
  if (state.pausedAt) {
    const toMs = state.pausedUntil ? Date.parse(state.pausedUntil) : Number.POSITIVE_INFINITY;
    spans.push({ fromMs: Date.parse(state.pausedAt), toMs });
  }
  return spans;
}

/** A fixed-size buffer of the newest items pushed; what it drops goes to `evicted`. */
function newest<T>(size: number, evicted: (item: T) => void) {
  const items: T[] = [];
  return {
    items,
    push(item: T) {
      if (size <= 0) return evicted(item);
      items.push(item);
      if (items.length > size) evicted(items.shift() as T);
    },
  };
}

/**
 * Walks a gap's runs once, oldest first, keeping only what its decision needs: the newest
 * `keep` runs inside the window (the policy's candidates), the newest skipped runs, and a
 * count of the rest. Memory is bounded by `keep` and {@link MAX_SKIPS_RECORDED}, and the walk
 * by the ledger's retention: a gap of ten years costs what one of a retention period costs.
 *
 * ```
 *   W ── not counted ──[countFromMs ── outside-window ──[windowStart ── candidates ──] upTo
 *       (range)           (range, or skips)               (policy reason, newest kept)
 * ```
 *
 * @example
 * scanGap(hourlyJob, { afterMs: w, upToMs: s, countFromMs: w, pauses: [], keep: 2 }).candidates
 * //=> the two newest runs before S inside the window
 */
export function scanGap(job: JobDefinition, bounds: GapBounds): GapScan {
  const windowStartMs = bounds.upToMs - job.catchup.windowSeconds * 1000;
  const policyReason = POLICY_SKIP_REASON[job.catchup.policy];
  let rangeRuns = 0;
  let rangePaused = 0;
  let runs = 0;
  let firstMs: number | undefined;
  let lastMs: number | undefined;
  const startMs = Math.max(bounds.afterMs, bounds.countFromMs - 1);
  // The range must reach every run the buffers dropped; they may drop out of time order.
  let rangeLastMs = startMs;
  const skips = newest<GapSkip>(MAX_SKIPS_RECORDED, ({ occurrence, reason }) => {
    rangeRuns++;
    if (reason === 'paused') rangePaused++;
    rangeLastMs = Math.max(rangeLastMs, occurrence.at.getTime());
  });
  const candidates = newest<Occurrence>(bounds.keep, (occurrence) =>
    skips.push({ occurrence, reason: policyReason }),
  );
  for (const occurrence of iterateOccurrences(scheduleSpecOf(job), new Date(startMs))) {
    const ms = occurrence.at.getTime();
    if (ms > bounds.upToMs) break;
    if (ms === bounds.ownMs) continue;
    runs++;
    firstMs ??= ms;
    lastMs = ms;
    if (inPause(bounds.pauses, ms)) skips.push({ occurrence, reason: 'paused' });
    else if (ms < windowStartMs) skips.push({ occurrence, reason: 'outside-window' });
    else candidates.push(occurrence);
  }
  const byTime = (a: GapSkip, b: GapSkip) => a.occurrence.at.getTime() - b.occurrence.at.getTime();
  return {
    candidates: candidates.items,
    skips: skips.items.sort(byTime),
    rangeRuns,
    rangePaused,
    rangeBeforeMs: rangeLastMs + 1,
    needsRange: rangeRuns > 0 || startMs > bounds.afterMs,
    runs,
    ...(firstMs === undefined ? {} : { firstMs }),
    ...(lastMs === undefined ? {} : { lastMs }),
    windowStartMs,
  };
}
