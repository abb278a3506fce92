import { DateTime } from 'luxon';
import type { JobDefinition } from '#jobs/job.ts';
import { unreadableEventFields } from '#shared/event-bounds.ts';
import { type Occurrence, periodBucket } from '../schedule/index.ts';
import { type CoreContext, coreContext, type DispatcherDeps } from './context.ts';
import { deliverRun } from './deliver-run.ts';
import { NotARunError, RedriveRefusedError, UnknownJobError } from './errors.ts';
import {
  type DispatcherEvent,
  type EventReading,
  readEvent,
  type SweepEvent,
  type TickEvent,
} from './events.ts';
import { type RunOutcome, runOfKey, tickRun } from './planned-run.ts';
import { createSweepMemory, runSweep, type SweepResult } from './sweep.ts';
import { handleTick, type TickResult } from './tick.ts';

export { NotARunError, RedriveRefusedError, UnknownJobError } from './errors.ts';
export type { SweepResult } from './sweep.ts';
export type { TickResult } from './tick.ts';

/** An event that was logged and counted but not acted on. */
export interface IgnoredResult {
  readonly kind: 'ignored';
  readonly reason: 'malformed' | 'unknown-job' | 'disabled-job' | 'future' | 'ancient';
  readonly jobId?: string;
}

/** A hand-triggered run, a redrive or a backfilled run. */
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
   * A failed delivery does not throw: the run is recorded `delivery-failed` and the sweep
   * retries it. Infrastructure errors (DynamoDB unreachable) propagate, so Lambda retries the
   * event. Malformed events (whatever they hold: any depth, any size), unknown and disabled
   * jobs, and ticks from the future or from longer ago than the job's catch-up window (the
   * sweep's backlog, for the sweep) never throw.
   */
  handle(event: unknown): Promise<DispatchResult>;
  /**
   * Runs a job now, outside its schedule, under `periodBucket('manual:' + jobId, at)`.
   *
   * The same claim + delivery path: invoking it twice for the same minute delivers once.
   */
  runManually(input: { jobId: string; at?: Date }): Promise<RunOutcome>;
  /**
   * Delivers one run again under its original key (`zonecron dlq redrive`): one attempt, whose
   * failure leaves the run `failed` again without a second dead letter or notification (the
   * outcome says so to the operator); a run that was delivered, is being delivered or still owes
   * its outbox is refused with `RedriveRefusedError`, which carries the stored item.
   */
  redrive(input: { jobId: string; at: Date; manual?: boolean }): Promise<RunOutcome>;
  /**
   * Delivers one scheduled run of a job under its own key (`zonecron backfill`): a run already
   * delivered is never delivered again; a skipped one is delivered now.
   */
  backfill(input: { jobId: string; occurrence: Occurrence }): Promise<RunOutcome>;
}

/** The key of a manual run (architecture §5). */
export function manualRunKey(jobId: string, at: Date): string {
  return periodBucket(`manual:${jobId}`, at);
}

/**
 * Builds the dispatcher core from injected deps (architecture §7).
 *
 * Everything that decides *when* goes through the engine; everything that decides *whether*
 * goes through one conditional write in the ledger. The clock is read for leases, lag, TTLs
 * and the sanity of a tick's time — which run a tick stands for comes from its
 * `scheduledTime`.
 *
 * @example
 * const dispatcher = createDispatcher({ clock: () => new Date(), jobs, ledger, targets,
 *   deadLetters, notifier, logger, metrics, stackName: 'Zonecron' });
 * await dispatcher.handle({ jobId: 'daily', scheduledTime: '2023-03-26T01:30:00Z',
 *   executionId: 'e1', attempt: '1' });
 * //=> { kind: 'tick', outcomes: [{ outcome: 'dispatched', ... }] }
 */
export function createDispatcher(deps: DispatcherDeps): Dispatcher {
  const ctx = coreContext(deps);
  const memory = createSweepMemory();
  const flushing =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } finally {
        ctx.metrics.flush();
      }
    };
  return {
    handle: flushing((raw: unknown) => route(ctx, memory, raw)),
    runManually: flushing((input: { jobId: string; at?: Date }) => runManually(ctx, input)),
    redrive: flushing((input: { jobId: string; at: Date; manual?: boolean }) =>
      redrive(ctx, input),
    ),
    backfill: flushing((input: { jobId: string; occurrence: Occurrence }) =>
      deliverRun(ctx, {
        ...tickRun(jobOrThrow(ctx, input.jobId), input.occurrence),
        origin: 'backfill',
        mode: 'backfill',
      }),
    ),
  };
}

async function route(
  ctx: CoreContext,
  memory: ReturnType<typeof createSweepMemory>,
  raw: unknown,
): Promise<DispatchResult> {
  const reading = readEvent(raw);
  if (!reading.ok) return ignoreMalformed(ctx, reading);
  const { event } = reading;
  const refused = refuseInstant(ctx, event);
  if (refused) return refused;
  try {
    switch (event.kind) {
      case 'tick':
        return await tick(ctx, event);
      case 'sweep':
        return await runSweep(ctx, event.scheduledAt, memory);
      case 'manual':
        return {
          kind: 'manual',
          outcome: await runManually(ctx, {
            jobId: event.jobId,
            ...(event.at ? { at: event.at } : {}),
          }),
        };
      case 'redrive':
        return {
          kind: 'redrive',
          outcome: await redrive(ctx, { jobId: event.jobId, at: event.at, manual: event.manual }),
        };
    }
  } catch (error) {
    if (!(error instanceof UnknownJobError)) throw error;
    return ignoreUnknown(ctx, error.jobId);
  }
}

/** An event no one can read: logged by its type, size and first issue, never in full. */
function ignoreMalformed(
  ctx: CoreContext,
  reading: Extract<EventReading, { ok: false }>,
): IgnoredResult {
  ctx.metrics.global('MalformedEvents');
  ctx.logger.error('malformed-event', {
    decision: 'ignored',
    ...unreadableEventFields(reading.summary, reading.issues),
  });
  return { kind: 'ignored', reason: 'malformed' };
}

/**
 * A tick or sweep from the future, or a sweep older than the sweep's backlog, refused and
 * counted (`RejectedTicks`); undefined for any other event. (A tick's age is judged against
 * its job's window, once the job is known.)
 */
function refuseInstant(ctx: CoreContext, event: DispatcherEvent): IgnoredResult | undefined {
  if (event.kind !== 'tick' && event.kind !== 'sweep') return undefined;
  if (fromTheFuture(ctx, event.scheduledAt)) {
    ctx.metrics.global('RejectedTicks');
    ctx.logger.error('future-event', {
      decision: 'ignored',
      kind: event.kind,
      scheduledAt: event.scheduledAt.toISOString(),
      now: ctx.clock().toISOString(),
      allowedSkewSeconds: ctx.options.clockSkewSeconds,
    });
    return { kind: 'ignored', reason: 'future' };
  }
  const backlogSeconds = ctx.options.sweepMaxBacklogSeconds;
  if (event.kind === 'sweep' && tooOld(ctx, event, backlogSeconds)) {
    return refuseAncient(ctx, event, backlogSeconds);
  }
  return undefined;
}

/** A tick or sweep stamped later than the clock allows: never the run it claims to be. */
function fromTheFuture(ctx: CoreContext, scheduledAt: Date): boolean {
  return scheduledAt.getTime() > ctx.clock().getTime() + ctx.options.clockSkewSeconds * 1000;
}

/**
 * The oldest a tick may be: the job's catch-up window or the ledger's retention, whichever is
 * shorter. An older tick's run was decided long ago (by the sweep, under the catch-up policy)
 * or has been forgotten by the ledger; claiming it now would deliver it a second time, or catch
 * up years of runs behind it.
 */
function tickMaxAgeSeconds(ctx: CoreContext, job: JobDefinition): number {
  return Math.min(ctx.options.retentionDays * 86_400, job.catchup.windowSeconds);
}

/** An event stamped more than `maxAgeSeconds` before the clock. */
function tooOld(ctx: CoreContext, event: TickEvent | SweepEvent, maxAgeSeconds: number): boolean {
  return event.scheduledAt.getTime() < ctx.clock().getTime() - maxAgeSeconds * 1000;
}

/** Logs and counts (`RejectedTicks`) a tick or sweep older than `maxAgeSeconds`. */
function refuseAncient(
  ctx: CoreContext,
  event: TickEvent | SweepEvent,
  maxAgeSeconds: number,
): IgnoredResult {
  const jobId = event.kind === 'tick' ? event.jobId : undefined;
  ctx.metrics.global('RejectedTicks');
  ctx.logger.error('ancient-event', {
    decision: 'ignored',
    kind: event.kind,
    ...(jobId ? { jobId } : {}),
    scheduledAt: event.scheduledAt.toISOString(),
    now: ctx.clock().toISOString(),
    maxAgeSeconds,
  });
  return { kind: 'ignored', reason: 'ancient', ...(jobId ? { jobId } : {}) };
}

function ignoreUnknown(ctx: CoreContext, jobId: string): IgnoredResult {
  ctx.metrics.global('UnknownJobEvents');
  ctx.logger.warn('unknown-job', { decision: 'ignored', jobId });
  return { kind: 'ignored', reason: 'unknown-job', jobId };
}

async function tick(ctx: CoreContext, event: TickEvent): Promise<TickResult | IgnoredResult> {
  const job = ctx.jobs.get(event.jobId);
  if (!job) return ignoreUnknown(ctx, event.jobId);
  const maxAgeSeconds = tickMaxAgeSeconds(ctx, job);
  if (tooOld(ctx, event, maxAgeSeconds)) return refuseAncient(ctx, event, maxAgeSeconds);
  if (!job.enabled) {
    ctx.metrics.global('DisabledJobEvents');
    ctx.logger.warn('disabled-job', { decision: 'ignored', jobId: job.id });
    return { kind: 'ignored', reason: 'disabled-job', jobId: job.id };
  }
  return handleTick(ctx, job, event);
}

function jobOrThrow(ctx: CoreContext, jobId: string): JobDefinition {
  const job = ctx.jobs.get(jobId);
  if (!job)
    throw new UnknownJobError(
      jobId,
      ctx.jobs.all().map((known) => known.id),
    );
  return job;
}

function localSlot(job: JobDefinition, at: Date): string {
  return DateTime.fromJSDate(at, { zone: job.timezone }).toFormat("yyyy-MM-dd'T'HH:mm");
}

function runManually(ctx: CoreContext, input: { jobId: string; at?: Date }): Promise<RunOutcome> {
  const job = jobOrThrow(ctx, input.jobId);
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
    mode: 'any',
    missed: false,
  });
}

async function redrive(
  ctx: CoreContext,
  input: { jobId: string; at: Date; manual?: boolean },
): Promise<RunOutcome> {
  const job = jobOrThrow(ctx, input.jobId);
  const manual = input.manual ?? false;
  // A scheduled run is named by its key instant; one a calendar moved is due at another `at`.
  const key = manual ? manualRunKey(job.id, input.at) : periodBucket(job.id, input.at);
  // Due for the sweep only after this redrive's lease: a sweep that came in between could
  // otherwise retry the run itself, and dead-letter it a second time if its attempts failed.
  const dueAtEpochMs = ctx.clock().getTime() + ctx.options.leaseSeconds * 1000;
  const reset = await ctx.ledger.resetForRedrive(key, dueAtEpochMs);
  if (!reset.reset && reset.item) throw new RedriveRefusedError(reset.item);
  const identity = reset.item ?? (manual ? undefined : occurrenceOf(job, input.at));
  const at = identity ? new Date(identity.at) : input.at;
  ctx.logger.info('redrive', {
    decision: 'redrive',
    jobId: job.id,
    key,
    at: at.toISOString(),
  });
  return deliverRun(ctx, {
    job,
    key,
    at,
    nominal: identity?.nominal ?? localSlot(job, input.at),
    dst: identity?.dst ?? 'none',
    manual,
    origin: 'redrive',
    mode: reset.reset ? 'reclaim' : 'any',
    missed: false,
  });
}

/** The job's run whose key instant is `at`; a redrive of anything else has no scheduled key. */
function occurrenceOf(job: JobDefinition, at: Date): Occurrence {
  const found = runOfKey(job, at);
  if (!found) throw new NotARunError(job.id, at);
  return found;
}
