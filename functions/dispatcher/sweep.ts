import {
  nextOccurrences,
  type Occurrence,
  occurrencesBetween,
  periodBucket,
} from '../schedule/index.ts';
import { type JobDefinition, scheduleSpecOf } from '../shared/job.ts';
import { type CoreContext, deliverRun, type PlannedRun, type RunOutcome } from './deliver-run.ts';
import { DeliveryFailedError } from './errors.ts';
import type { Watermark } from './ledger.ts';

/** What one sweep found and did. */
export interface SweepResult {
  readonly kind: 'sweep';
  readonly scheduledAt: string;
  /** Enabled jobs looked at (engine only; no reads for jobs with nothing due). */
  readonly jobsChecked: number;
  /** Run keys read from the ledger (BatchGetItem, ≤ 100 per request). */
  readonly keysRead: number;
  /** Watermark items read (only for jobs with a missing run). */
  readonly watermarksRead: number;
  /** Runs newly reported missed (`MissedRuns`), UTC ISO instants by job. */
  readonly missed: readonly { jobId: string; at: string; action: 'dispatched' | 'recorded' }[];
  /** Runs newly reported stuck (`StuckRuns`). */
  readonly stuck: readonly { jobId: string; at: string; key: string }[];
  /** Claim + delivery outcomes of the runs the sweep re-drove. */
  readonly outcomes: readonly RunOutcome[];
}

interface Expected {
  readonly job: JobDefinition;
  readonly occurrence: Occurrence;
  readonly key: string;
}

const COMPLETION_TRACKED = new Set(['lambda', 'stepfunctions']);

/**
 * The runs of a job in a window `(from, to]`, skipping the engine when a remembered "next run"
 * shows the window is empty.
 *
 * Sweep windows only move forward, so per job and window kind one fact is kept: the first run
 * after instant A is N. For a window with `A <= from < N` and `to < N` nothing is due and the
 * engine is not called: a daily job costs one engine call a day, not one per sweep. The cache
 * lives as long as the dispatcher (a warm Lambda container).
 */
export interface RunWindows {
  runsIn(job: JobDefinition, kind: 'due' | 'stuck', from: Date, to: Date): Occurrence[];
}

/**
 * Builds the sweep's window cache; see {@link RunWindows}.
 *
 * @example
 * const windows = createRunWindows();
 * windows.runsIn(dailyJob, 'due', new Date('2023-06-01T11:53Z'), new Date('2023-06-01T11:55Z'))
 * //=> [] (and the next sweeps of the day do not call the engine for this job)
 */
export function createRunWindows(): RunWindows {
  const next = new Map<string, { job: JobDefinition; afterMs: number; nextMs: number }>();
  return {
    runsIn(job, kind, from, to) {
      const key = `${kind}:${job.id}`;
      const fromMs = from.getTime();
      const known = next.get(key);
      if (known?.job === job && known.afterMs <= fromMs && fromMs < known.nextMs) {
        if (to.getTime() < known.nextMs) return [];
      } else {
        const spec = scheduleSpecOf(job);
        const first = nextOccurrences(spec, from, 1)[0];
        const nextMs = first ? first.at.getTime() : Number.POSITIVE_INFINITY;
        next.set(key, { job, afterMs: fromMs, nextMs });
        if (to.getTime() < nextMs) return [];
      }
      return occurrencesBetween(scheduleSpecOf(job), from, to);
    },
  };
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The one-minute safety net: missed, stuck and stranded runs.
 *
 * For each enabled job, the engine lists the runs that became due in the sweep's window; their
 * keys are deterministic (`periodBucket`), so one batched read tells which exist. A job with
 * nothing due in the window costs no read at all.
 *
 * ```
 *                 lookback          grace
 *   ──────────(──────────────](───────────]──> time
 *        S-grace-lookback   S-grace       S = the sweep's scheduledTime
 *   due window:   runs whose ticks should have been handled by now
 *   stuck window: runs with at + maxRuntime in (S-lookback, S] (lambda / stepfunctions targets)
 * ```
 *
 * - **missed**: no item, and the job's watermark shows it was live by then. Per catch-up policy
 *   the run is delivered through the same claim (`all`; `latest` when nothing newer is due) or
 *   recorded as `missed`. Either is one conditional write, so `MissedRuns` is counted once even
 *   when sweeps overlap or run twice.
 * - **stranded**: `delivery-failed`, or `claimed` with an expired lease — re-driven through the
 *   claim path (no signal: `DeliveryFailures` already told). An expired claim on the last
 *   attempt is dead-lettered there, once (see `deliverRun`).
 * - **stuck**: still `dispatched` at `dispatchedAt + maxRuntime`; `stuckReportedAt` is set once,
 *   so `StuckRuns` is counted once.
 * - **late** is not the sweep's: it is counted when a run is dispatched with a lag over grace.
 */
export async function runSweep(
  ctx: CoreContext,
  scheduledAt: Date,
  windows: RunWindows = createRunWindows(),
): Promise<SweepResult> {
  const { ledger, logger, metrics, options } = ctx;
  const sMs = scheduledAt.getTime();
  const lookbackMs = options.sweepLookbackSeconds * 1000;
  const due: Expected[] = [];
  const stuckCandidates: Expected[] = [];
  let jobsChecked = 0;
  for (const job of ctx.jobs) {
    if (!job.enabled) continue;
    jobsChecked++;
    const end = sMs - job.alarm.graceSeconds * 1000;
    for (const occurrence of windows.runsIn(
      job,
      'due',
      new Date(end - lookbackMs),
      new Date(end),
    )) {
      due.push({ job, occurrence, key: periodBucket(job.id, occurrence.at) });
    }
    if (COMPLETION_TRACKED.has(job.target.type)) {
      const stuckEnd = sMs - job.maxRuntimeSeconds * 1000;
      const window = windows.runsIn(
        job,
        'stuck',
        new Date(stuckEnd - lookbackMs),
        new Date(stuckEnd),
      );
      for (const occurrence of window) {
        stuckCandidates.push({ job, occurrence, key: periodBucket(job.id, occurrence.at) });
      }
    }
  }
  const keys = [...due, ...stuckCandidates].map((e) => e.key);
  if (keys.length === 0) {
    // Most sweeps: nothing became due or stuck in any window, so there is nothing to read.
    const nothing = { keysRead: 0, watermarksRead: 0, missed: [], stuck: [], outcomes: [] };
    return { kind: 'sweep', scheduledAt: scheduledAt.toISOString(), jobsChecked, ...nothing };
  }
  const records = await ledger.getRuns(keys);
  const now = ctx.clock();
  const nowMs = now.getTime();

  const missingByJob = new Map<string, Expected[]>();
  const stranded: Expected[] = [];
  for (const expected of due) {
    const record = records.get(expected.key);
    if (!record) {
      const list = missingByJob.get(expected.job.id);
      if (list) list.push(expected);
      else missingByJob.set(expected.job.id, [expected]);
    } else if (
      record.status === 'delivery-failed' ||
      (record.status === 'claimed' && (record.leaseUntilEpochMs ?? 0) < nowMs)
    ) {
      stranded.push(expected);
    }
  }

  const watermarks = new Map<string, Watermark | undefined>();
  await mapLimit([...missingByJob.keys()], options.sweepConcurrency, async (jobId) => {
    watermarks.set(jobId, await ledger.getWatermark(jobId));
  });

  const toDeliver: PlannedRun[] = [];
  const toRecord: Expected[] = [];
  for (const [jobId, missing] of missingByJob) {
    const watermark = watermarks.get(jobId);
    // A job that never ticked, or runs before its first tick: a fresh deploy, not a miss.
    const live = missing.filter((m) => watermark && m.occurrence.at >= watermark.since);
    if (live.length === 0) continue;
    const job = live[0]?.job as JobDefinition;
    const windowStartMs = sMs - job.catchup.windowSeconds * 1000;
    const eligible = live.filter((m) => m.occurrence.at.getTime() > windowStartMs);
    let deliver: Expected[] = [];
    if (job.catchup.policy === 'all') {
      deliver = eligible;
    } else if (job.catchup.policy === 'latest') {
      const newest = eligible.at(-1);
      const end = sMs - job.alarm.graceSeconds * 1000;
      const newerDue =
        occurrencesBetween(scheduleSpecOf(job), new Date(end), scheduledAt).length > 0;
      const newerInLedger = due.some(
        (d) =>
          d.job.id === job.id &&
          newest !== undefined &&
          d.occurrence.at > newest.occurrence.at &&
          records.has(d.key),
      );
      if (newest && !newerDue && !newerInLedger) deliver = [newest];
    }
    const delivered = new Set(deliver);
    for (const m of live) {
      if (delivered.has(m)) {
        toDeliver.push({
          job,
          key: m.key,
          at: m.occurrence.at,
          nominal: m.occurrence.nominal,
          dst: m.occurrence.dst,
          manual: false,
          origin: 'sweep',
        });
      } else {
        toRecord.push(m);
      }
    }
  }
  for (const s of stranded) {
    toDeliver.push({
      job: s.job,
      key: s.key,
      at: s.occurrence.at,
      nominal: s.occurrence.nominal,
      dst: s.occurrence.dst,
      manual: false,
      origin: 'retry',
    });
  }

  const missed: { jobId: string; at: string; action: 'dispatched' | 'recorded' }[] = [];
  const reportMissed = (
    job: JobDefinition,
    occurrence: Occurrence,
    key: string,
    action: 'dispatched' | 'recorded',
  ) => {
    metrics.job(job.id, 'MissedRuns');
    missed.push({ jobId: job.id, at: occurrence.at.toISOString(), action });
    logger.error('missed', {
      decision: 'missed',
      action,
      jobId: job.id,
      expression: job.schedule,
      timezone: job.timezone,
      nominal: occurrence.nominal,
      dst: occurrence.dst,
      at: occurrence.at.toISOString(),
      key,
      policy: job.catchup.policy,
      sweep: scheduledAt.toISOString(),
      lagMs: nowMs - occurrence.at.getTime(),
    });
  };

  await mapLimit(toRecord, options.sweepConcurrency, async (m) => {
    const recorded = await ledger.recordMissed({
      key: m.key,
      jobId: m.job.id,
      at: m.occurrence.at,
      nominal: m.occurrence.nominal,
      dst: m.occurrence.dst,
      detectedAt: now,
      ttlEpochSec: Math.floor(nowMs / 1000) + options.retentionDays * 86_400,
    });
    if (recorded) reportMissed(m.job, m.occurrence, m.key, 'recorded');
  });

  const outcomes = await mapLimit(toDeliver, options.sweepConcurrency, async (run) => {
    const outcome = await deliverRun(ctx, run);
    if (run.origin === 'sweep' && outcome.outcome !== 'duplicate') {
      reportMissed(
        run.job,
        { at: run.at, nominal: run.nominal, dst: run.dst as Occurrence['dst'] },
        run.key,
        'dispatched',
      );
    }
    return outcome;
  });

  const stuck: { jobId: string; at: string; key: string }[] = [];
  await mapLimit(stuckCandidates, options.sweepConcurrency, async (candidate) => {
    const record = records.get(candidate.key);
    if (record?.status !== 'dispatched' || record.stuckReportedAt) return;
    const sinceMs = Date.parse(record.dispatchedAt ?? record.at);
    if (sinceMs + candidate.job.maxRuntimeSeconds * 1000 > nowMs) return;
    if (!(await ledger.markStuck(candidate.key, now))) return;
    metrics.job(candidate.job.id, 'StuckRuns');
    stuck.push({ jobId: candidate.job.id, at: record.at, key: record.key });
    logger.error('stuck', {
      decision: 'stuck',
      jobId: candidate.job.id,
      expression: candidate.job.schedule,
      timezone: candidate.job.timezone,
      nominal: record.nominal,
      at: record.at,
      key: record.key,
      attempt: record.attempts,
      dispatchedAt: record.dispatchedAt,
      deliveryId: record.deliveryId,
      maxRuntimeSeconds: candidate.job.maxRuntimeSeconds,
      runningMs: nowMs - sinceMs,
    });
  });

  const failures = outcomes.filter((o) => o.outcome === 'delivery-failed');
  if (failures.length > 0) throw new DeliveryFailedError(failures);
  return {
    kind: 'sweep',
    scheduledAt: scheduledAt.toISOString(),
    jobsChecked,
    keysRead: new Set(keys).size,
    watermarksRead: missingByJob.size,
    missed,
    stuck,
    outcomes,
  };
}
