import { DateTime } from 'luxon';
import { type Occurrence, occurrencesBetween, periodBucket } from '../schedule/index.ts';
import { type JobDefinition, scheduleSpecOf } from '../shared/job.ts';
import { catchupFrom, planCatchup } from './catchup.ts';
import {
  type CoreContext,
  DEFAULT_DISPATCHER_OPTIONS,
  type DispatcherDeps,
  deliverRun,
  isSettled,
  type PlannedRun,
  type RunOutcome,
} from './deliver-run.ts';
import {
  DeliveryFailedError,
  NotARunError,
  RedriveRefusedError,
  UnknownJobError,
} from './errors.ts';
import { isMalformedEventError, parseEvent, type TickEvent } from './events.ts';
import { createRunWindows, runSweep, type SweepResult } from './sweep.ts';

export {
  type Clock,
  DEFAULT_DISPATCHER_OPTIONS,
  type DispatcherDeps,
  type DispatcherOptions,
  type RunOutcome,
} from './deliver-run.ts';
export {
  DeliveryFailedError,
  NotARunError,
  RedriveRefusedError,
  UnknownJobError,
} from './errors.ts';
export type { SweepResult } from './sweep.ts';

/** What one tick did. */
export interface TickResult {
  readonly kind: 'tick';
  readonly jobId: string;
  readonly scheduledAt: string;
  /** Runs claimed or attempted, oldest first. */
  readonly outcomes: readonly RunOutcome[];
  /** Runs the catch-up policy dropped (UTC ISO instants). */
  readonly dropped: readonly string[];
}

/** An event that was logged and counted but not acted on. */
export interface IgnoredResult {
  readonly kind: 'ignored';
  readonly reason: 'malformed' | 'unknown-job' | 'disabled-job';
  readonly jobId?: string;
}

/** A hand-triggered run or a redrive. */
export interface SingleRunResult {
  readonly kind: 'manual' | 'redrive';
  readonly outcome: RunOutcome;
}

/** What `handle` returns. */
export type DispatchResult = TickResult | SweepResult | IgnoredResult | SingleRunResult;

/** The dispatcher core. */
export interface Dispatcher {
  /**
   * Handles one raw event: a tick, the sweep, a manual run or a redrive.
   *
   * Throws `DeliveryFailedError` when a run's delivery failed and will be retried (so
   * EventBridge Scheduler retries the tick), and lets infrastructure errors (DynamoDB
   * unreachable) propagate. Malformed events, unknown and disabled jobs never throw.
   */
  handle(event: unknown): Promise<DispatchResult>;
  /**
   * Runs a job now, outside its schedule, under `periodBucket('manual:' + jobId, at)`.
   *
   * The same claim + delivery path: invoking it twice for the same minute delivers once.
   */
  runManually(input: { jobId: string; at?: Date }): Promise<RunOutcome>;
  /**
   * Delivers one run again under its original key (`zonecron dlq redrive`).
   *
   * A `failed`, `delivery-failed`, `missed` or `skipped-overlap` run gets a fresh set of
   * attempts; a run that was delivered (or is being delivered) is refused with
   * `RedriveRefusedError`, which carries the stored item.
   */
  redrive(input: { jobId: string; at: Date; manual?: boolean }): Promise<RunOutcome>;
}

/** The key of a manual run (architecture §5). */
export function manualRunKey(jobId: string, at: Date): string {
  return periodBucket(`manual:${jobId}`, at);
}

/**
 * Builds the dispatcher core from injected deps (architecture §7).
 *
 * Everything that decides *when* goes through the engine; everything that decides *whether*
 * goes through one conditional write in the ledger. The clock is read for leases, lag and
 * TTLs only — which run a tick stands for comes from its `scheduledTime`.
 *
 * @example
 * const dispatcher = createDispatcher({ clock: () => new Date(), jobs, ledger, targets,
 *   deadLetters, logger, metrics });
 * await dispatcher.handle({ jobId: 'daily', scheduledTime: '2023-03-26T01:30:00Z',
 *   executionId: 'e1', attempt: 1 });
 * //=> { kind: 'tick', outcomes: [{ outcome: 'dispatched', ... }], dropped: [] }
 */
export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const ctx: CoreContext = {
    ...deps,
    options: { ...DEFAULT_DISPATCHER_OPTIONS, ...deps.options },
  };
  const jobsById = new Map(deps.jobs.map((job) => [job.id, job]));
  const sweepWindows = createRunWindows();
  const { logger, metrics } = ctx;

  function jobOrThrow(jobId: string): JobDefinition {
    const job = jobsById.get(jobId);
    if (!job) throw new UnknownJobError(jobId, [...jobsById.keys()]);
    return job;
  }

  async function handleTick(event: TickEvent): Promise<TickResult | IgnoredResult> {
    const job = jobsById.get(event.jobId);
    if (!job) {
      metrics.global('UnknownJobEvents');
      logger.warn('unknown-job', { decision: 'ignored', jobId: event.jobId });
      return { kind: 'ignored', reason: 'unknown-job', jobId: event.jobId };
    }
    if (!job.enabled) {
      metrics.global('DisabledJobEvents');
      logger.warn('disabled-job', { decision: 'ignored', jobId: job.id });
      return { kind: 'ignored', reason: 'disabled-job', jobId: job.id };
    }
    const spec = scheduleSpecOf(job);
    const s = event.scheduledAt;
    const sIso = s.toISOString();
    // Read for every policy: `none` and `latest` count what they drop, and the first tick of
    // any job records when its runs start to be expected (the sweep's `since`).
    const watermark = await ctx.ledger.getWatermark(job.id);
    const from = catchupFrom(s, watermark?.at, job.catchup.windowSeconds);
    const due = occurrencesBetween(spec, from, s);
    if (due.length === 0) {
      // The common over-firing covering tick. A first tick still records the watermark, so
      // the sweep knows from when on this job's runs are expected.
      if (!watermark) await ctx.ledger.advanceWatermark(job.id, s);
      return { kind: 'tick', jobId: job.id, scheduledAt: sIso, outcomes: [], dropped: [] };
    }
    const plan = planCatchup(job, due, s);
    for (const dropped of plan.dropped) {
      metrics.job(job.id, 'CatchupDropped');
      logger.warn('dropped', {
        decision: 'dropped',
        jobId: job.id,
        expression: job.schedule,
        timezone: job.timezone,
        nominal: dropped.nominal,
        dst: dropped.dst,
        at: dropped.at.toISOString(),
        key: periodBucket(job.id, dropped.at),
        policy: job.catchup.policy,
        maxRuns: job.catchup.maxRuns,
        tick: sIso,
        lagMs: ctx.clock().getTime() - dropped.at.getTime(),
      });
    }
    const outcomes: RunOutcome[] = [];
    // Watermark = the end of the contiguous prefix of settled runs (dropped ones included).
    let settledThrough: Date | undefined = plan.dropped.at(-1)?.at;
    let prefixSettled = true;
    let failure = false;
    for (const occurrence of plan.run) {
      const outcome = await deliverRun(ctx, plannedRun(job, occurrence, s));
      outcomes.push(outcome);
      if (isSettled(outcome)) {
        if (prefixSettled) settledThrough = occurrence.at;
      } else {
        prefixSettled = false;
      }
      if (outcome.outcome === 'delivery-failed') {
        failure = true;
        break; // keep runs in order: nothing after a failed run is delivered before it
      }
    }
    if (settledThrough && (!watermark || settledThrough > watermark.at)) {
      await ctx.ledger.advanceWatermark(job.id, settledThrough);
    }
    if (failure) {
      throw new DeliveryFailedError(outcomes.filter((o) => o.outcome === 'delivery-failed'));
    }
    return {
      kind: 'tick',
      jobId: job.id,
      scheduledAt: sIso,
      outcomes,
      dropped: plan.dropped.map((o) => o.at.toISOString()),
    };
  }

  function plannedRun(job: JobDefinition, occurrence: Occurrence, s: Date): PlannedRun {
    return {
      job,
      key: periodBucket(job.id, occurrence.at),
      at: occurrence.at,
      nominal: occurrence.nominal,
      dst: occurrence.dst,
      manual: false,
      origin: occurrence.at.getTime() === s.getTime() ? 'tick' : 'catch-up',
    };
  }

  function localSlot(job: JobDefinition, at: Date): string {
    return DateTime.fromJSDate(at, { zone: job.timezone }).toFormat("yyyy-MM-dd'T'HH:mm");
  }

  async function runManually(input: { jobId: string; at?: Date }): Promise<RunOutcome> {
    const job = jobOrThrow(input.jobId);
    const raw = input.at ?? ctx.clock();
    const at = new Date(raw.getTime() - (raw.getTime() % 60_000));
    return deliverRun(ctx, {
      job,
      key: manualRunKey(job.id, at),
      at,
      nominal: localSlot(job, at),
      dst: 'none',
      manual: true,
      origin: 'manual',
    });
  }

  async function redrive(input: {
    jobId: string;
    at: Date;
    manual?: boolean;
  }): Promise<RunOutcome> {
    const job = jobOrThrow(input.jobId);
    const at = input.at;
    const manual = input.manual ?? false;
    const key = manual ? manualRunKey(job.id, at) : periodBucket(job.id, at);
    const existing = await ctx.ledger.getRun(key);
    let nominal = existing?.nominal;
    let dst = existing?.dst;
    if (existing) {
      if (!(await ctx.ledger.resetForRedrive(key))) {
        throw new RedriveRefusedError((await ctx.ledger.getRun(key)) ?? existing);
      }
    } else if (manual) {
      nominal = localSlot(job, at);
      dst = 'none';
    } else {
      const occurrence = occurrencesBetween(
        scheduleSpecOf(job),
        new Date(at.getTime() - 60_000),
        at,
      ).find((o) => o.at.getTime() === at.getTime());
      if (!occurrence) throw new NotARunError(job.id, at);
      nominal = occurrence.nominal;
      dst = occurrence.dst;
    }
    logger.info('redrive', { decision: 'redrive', jobId: job.id, key, at: at.toISOString() });
    return deliverRun(ctx, {
      job,
      key,
      at,
      nominal: nominal ?? localSlot(job, at),
      dst: dst ?? 'none',
      manual,
      origin: 'redrive',
    });
  }

  return {
    async handle(raw) {
      try {
        let event: ReturnType<typeof parseEvent>;
        try {
          event = parseEvent(raw);
        } catch (error) {
          if (!isMalformedEventError(error)) throw error;
          metrics.global('MalformedEvents');
          logger.error('malformed-event', {
            decision: 'ignored',
            issues: error.issues,
            event: JSON.stringify(raw ?? null).slice(0, 2000),
          });
          return { kind: 'ignored', reason: 'malformed' };
        }
        switch (event.kind) {
          case 'tick':
            return await handleTick(event);
          case 'sweep':
            return await runSweep(ctx, event.scheduledAt, sweepWindows);
          case 'manual':
            return {
              kind: 'manual',
              outcome: await runManually({
                jobId: event.jobId,
                ...(event.at ? { at: event.at } : {}),
              }),
            };
          case 'redrive':
            return {
              kind: 'redrive',
              outcome: await redrive({ jobId: event.jobId, at: event.at, manual: event.manual }),
            };
        }
      } catch (error) {
        if (!(error instanceof UnknownJobError)) throw error;
        metrics.global('UnknownJobEvents');
        logger.warn('unknown-job', { decision: 'ignored', jobId: error.jobId });
        return { kind: 'ignored', reason: 'unknown-job', jobId: error.jobId };
      } finally {
        metrics.flush();
      }
    },
    runManually: async (input) => {
      try {
        return await runManually(input);
      } finally {
        metrics.flush();
      }
    },
    redrive: async (input) => {
      try {
        return await redrive(input);
      } finally {
        metrics.flush();
      }
    },
  };
}
