import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import {
  createDynamoLedger,
  decodeRun,
  LEDGER_BY_JOB_INDEX,
  LEDGER_BY_JOB_PARTITION_KEY,
  LEDGER_BY_JOB_SORT_KEY,
  type Ledger,
  type LedgerStore,
} from '#ledger/index.ts';
import { NotARunError, UnknownJobError } from '../../functions/dispatcher/dispatch.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import {
  backfillLogDetail,
  backfillRuns,
  catchUpResumedPause,
  DEFAULT_BACKFILL_MAX_RUNS,
  deliverBackfill,
  withLedgerState,
} from '../aws/backfill.ts';
import { discardDeadLetter, redriveOne } from '../aws/dead-letter-actions.ts';
import type { QueuedDeadLetter } from '../aws/dead-letter-queue.ts';
import { type JobControlDeps, pauseJob, resumeJob } from '../aws/job-control.ts';
import { operatorDispatcherOf } from '../aws/operator-dispatcher.ts';
import { createOperatorLog, type OperatorLog } from '../aws/operator-log.ts';
import { checkGuards, type GuardReader, readGuardStateFrom } from '../aws/run-guards.ts';
import { CliError, describeError } from '../errors.ts';
import { describeOutcome } from '../format/outcome.ts';
import { findJob } from '../schedule-input.ts';
import type { OperatorRecord } from './action-records.ts';
import { SIMULATION_STACK, watchedLedger } from './containers.ts';
import type { OperatorStep } from './fault-plan.ts';
import type { WindowWorld } from './world.ts';

/** Who the simulation's operator is, in the ledger and the operator log. */
export const SIMULATED_OPERATOR = 'operator';

/** What an action needs: the job as deployed now, the ledger, the log, the dispatcher core. */
interface OperatorContext {
  readonly world: WindowWorld;
  readonly job: JobDefinition;
  readonly ledger: Ledger;
  readonly log: OperatorLog;
  readonly control: JobControlDeps;
  /** The operator's dispatcher core. */
  readonly dispatcher: () => ReturnType<typeof operatorDispatcherOf>['dispatcher'];
}

type Done = Pick<OperatorRecord, 'ok' | 'detail'>;

/**
 * Runs one operator action at the simulated now, through the code of the `zonecron` command
 * of that name (cli/aws/: job-control, backfill, the run guards, the operator dispatcher, the
 * dead-letter actions) against the window's ledger and the simulation's targets and queue,
 * with the jobs deployed now. A `run` or `backfill` of a paused job, or of a `forbid` job
 * whose run is still running, is refused as the command refuses it, unless the step says
 * `force`. What a command refuses (a `CliError`, an unknown job or instant) is recorded,
 * not thrown; anything else is a bug the simulation found, and stops it.
 *
 * @example
 * await performOperatorStep(world, { at, action: 'run', job: 'nightly' });
 * world.sim.operatorRecords.at(-1) //=> { action: 'run', jobId: 'nightly', ok: true, … }
 */
export async function performOperatorStep(world: WindowWorld, step: OperatorStep): Promise<void> {
  const { sim } = world;
  const before = sim.deliveries.length;
  sim.cause = 'operator';
  let done: Done;
  try {
    done = await ACTIONS[step.action](contextOf(world, step.job), step as never);
  } catch (error) {
    if (!isRefusal(error)) throw error;
    done = { ok: false, detail: describeError(error) };
  } finally {
    sim.cause = 'schedule';
  }
  sim.operatorRecords.push({
    at: sim.clock().toISOString(),
    action: step.action,
    jobId: step.job,
    ...done,
    delivered: sim.deliveries.slice(before).map((d) => d.envelope.key),
    forced: 'force' in step && step.force,
  });
}

function isRefusal(error: unknown): boolean {
  return (
    error instanceof CliError || error instanceof UnknownJobError || error instanceof NotARunError
  );
}

function contextOf(world: WindowWorld, jobId: string): OperatorContext {
  const { sim } = world;
  const { jobs } = world.deployment;
  const job = findJob({ file: world.deployment.id, jobs }, jobId);
  const process = { held: [], invocation: { id: ++sim.watch.invocations } };
  const ledger = watchedLedger(createDynamoLedger(world.store), sim.watch, process, sim.clock);
  const log = createOperatorLog(world.store);
  const dispatcher = () =>
    operatorDispatcherOf({
      clock: sim.clock,
      jobs,
      ledger,
      targets: world.targets.forContainer({ dead: false }),
      deadLetters: sim.deadLetters,
      notifier: sim.notifier,
      stackName: SIMULATION_STACK,
      // The in-invocation retries of ledger writes take no simulated time.
      options: { sleep: async () => {} },
    }).dispatcher;
  const control = { ledger: world.operator, log, clock: sim.clock };
  return { world, job, ledger, log, control, dispatcher };
}

type Action<A extends OperatorStep['action']> = (
  ctx: OperatorContext,
  step: Extract<OperatorStep, { action: A }>,
) => Promise<Done>;

const ACTIONS: { [A in OperatorStep['action']]: Action<A> } = {
  backfill: backfill,
  run: async (ctx, step) => {
    const overridden = await guard(ctx, step.force, 'run');
    const outcome = await ctx.dispatcher().runManually({ jobId: ctx.job.id });
    const detail = [describeOutcome(outcome), overridden].filter(Boolean).join('; ');
    return { ok: outcome.outcome === 'dispatched', detail };
  },
  redrive: redrive,
  discard: discard,
  pause: async (ctx, step) => {
    const until = step.until ? { until: step.until } : {};
    const state = await pauseJob(ctx.control, {
      job: ctx.job,
      by: SIMULATED_OPERATOR,
      reason: step.reason,
      ...until,
    });
    return {
      ok: true,
      detail: `paused since ${state.pausedAt}${state.until ? ` until ${state.until}` : ''}`,
    };
  },
  resume: resume,
};

/** `zonecron backfill JOB --from --to`: the range's runs, each under its own key. */
async function backfill(
  ctx: OperatorContext,
  step: Extract<OperatorStep, { action: 'backfill' }>,
): Promise<Done> {
  const now = ctx.world.sim.clock();
  const occurrences = backfillRuns(ctx.job, step.from, step.to, now, DEFAULT_BACKFILL_MAX_RUNS);
  const overridden = await guard(ctx, step.force, 'backfill');
  const runs = await withLedgerState(ctx.ledger, ctx.job, occurrences);
  const report = await deliverBackfill(ctx.dispatcher(), ctx.job, runs);
  const detail = [backfillLogDetail(step.from, step.to, report), overridden]
    .filter(Boolean)
    .join('; ');
  if (report.outcomes.length > 0) {
    await ctx.log.record({
      jobId: ctx.job.id,
      action: 'backfilled',
      at: now.toISOString(),
      from: step.from.toISOString(),
      to: step.to.toISOString(),
      by: SIMULATED_OPERATOR,
      detail,
    });
  }
  return { ok: report.stopped === undefined, detail };
}

/**
 * The guards of `zonecron run` and `backfill` at the simulated now: a pause, or a `forbid`
 * job's run still running, refuses the step (a `RunGuardError`, recorded as the command's
 * refusal) unless it says `force`; returns what `force` overrode.
 */
async function guard(
  ctx: OperatorContext,
  force: boolean,
  command: 'run' | 'backfill',
): Promise<string> {
  const reader: GuardReader = { ledger: ctx.ledger, recentRuns: recentRunsIn(ctx.world.store) };
  const state = await readGuardStateFrom(reader, ctx.job, ctx.world.sim.clock());
  return checkGuards(ctx.job, state, { force }, command);
}

/** A job's runs at or after `since` in the window's table, newest first (`byJob`). */
function recentRunsIn(store: LedgerStore): GuardReader['recentRuns'] {
  return async (jobId, since, limit) => {
    const items = await store.query({
      index: LEDGER_BY_JOB_INDEX,
      keyCondition: '#job = :job AND #at >= :since',
      names: { '#job': LEDGER_BY_JOB_PARTITION_KEY, '#at': LEDGER_BY_JOB_SORT_KEY },
      values: { ':job': { S: jobId }, ':since': { S: since.toISOString() } },
      limit,
      newestFirst: true,
    });
    return items.map(decodeRun);
  };
}

/** `zonecron resume JOB [--catch-up]`. */
async function resume(
  ctx: OperatorContext,
  step: Extract<OperatorStep, { action: 'resume' }>,
): Promise<Done> {
  const detail = step.catchUp ? `--catch-up (catchup.policy ${ctx.job.catchup.policy})` : '';
  const result = await resumeJob(ctx.control, {
    job: ctx.job,
    by: SIMULATED_OPERATOR,
    ...(detail ? { detail } : {}),
  });
  if (!result.resumed)
    return { ok: true, detail: `${ctx.job.id} is not paused; nothing to resume` };
  if (!step.catchUp || !result.pause.pausedAt)
    return { ok: true, detail: `resumed at ${result.at}` };
  const pause = { from: new Date(result.pause.pausedAt), to: new Date(result.at) };
  const report = await catchUpResumedPause(ctx.ledger, ctx.dispatcher(), ctx.job, pause);
  const delivered = report.outcomes.filter((o) => o.outcome === 'dispatched').length;
  const stopped = report.stopped ? `; stopped: ${report.stopped.detail}` : '';
  return {
    ok: report.stopped === undefined,
    detail: `resumed at ${result.at}, caught up ${delivered} of the paused runs${stopped}`,
  };
}

/** `zonecron dlq redrive --key KEY`: one attempt under the run's original key. */
async function redrive(
  ctx: OperatorContext,
  step: Extract<OperatorStep, { action: 'redrive' }>,
): Promise<Done> {
  const { deadLetters } = ctx.world.sim;
  const messages = queuedOf(ctx, step.run);
  const report = await redriveOne(ctx.dispatcher(), messages.map(asQueued), async () => {
    for (const m of messages) deadLetters.delete(m);
  });
  const ok = report.result === 'redriven' || report.result === 'already-delivered';
  return { ok, detail: `${report.result}: ${report.detail}` };
}

/** `zonecron dlq discard --key KEY`: the messages deleted, the discard logged, the run as it is. */
async function discard(
  ctx: OperatorContext,
  step: Extract<OperatorStep, { action: 'discard' }>,
): Promise<Done> {
  const { deadLetters } = ctx.world.sim;
  const messages = queuedOf(ctx, step.run);
  const body = messages[0] as DeadLetterMessage;
  const deps = { ledger: ctx.ledger, log: ctx.log, clock: ctx.world.sim.clock };
  const run = await discardDeadLetter(deps, {
    body,
    by: SIMULATED_OPERATOR,
    reason: step.reason,
    deleteMessages: async () => {
      for (const m of messages) deadLetters.delete(m);
    },
  });
  return { ok: true, detail: `discarded the dead letter; run left ${run.status ?? 'absent'}` };
}

/** The queue's messages of the job's run at `run`; none is what `dlq` refuses. */
function queuedOf(ctx: OperatorContext, run: Date): DeadLetterMessage[] {
  const key = periodBucket(ctx.job.id, run);
  const messages = ctx.world.sim.deadLetters.queued().filter((m) => m.key === key);
  if (messages.length === 0) {
    throw new CliError(
      `no dead-lettered run with key ${key.slice(0, 7)} in the simulation's queue`,
    );
  }
  return messages;
}

/** A queue message as `dlq` reads it from SQS. */
function asQueued(body: DeadLetterMessage, i: number): QueuedDeadLetter {
  return { messageId: `simulated-${i}`, receiptHandle: '', body, rawBody: JSON.stringify(body) };
}
