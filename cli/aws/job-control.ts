import type { JobDefinition } from '#jobs/job.ts';
import type { JobStateLedger } from '#ledger/index.ts';
import { type PauseState, pauseStateOf } from '../deployed/pause-state.ts';
import { CliError } from '../errors.ts';
import type { OperatorLog } from './operator-log.ts';

/**
 * The pause state of several jobs in one batched, consistent read: what `list` and `describe`
 * call to show who paused a job, when, why and until when.
 *
 * @example
 * const ledger = createJobStateLedger(createLedgerStore({ client, tableName }));
 * const states = await readPauseStates(ledger, ['nightly', 'hourly'], new Date());
 * states.get('nightly')?.paused //=> true
 */
export async function readPauseStates(
  ledger: Pick<JobStateLedger, 'getJobStates'>,
  jobIds: readonly string[],
  now: Date,
): Promise<Map<string, PauseState>> {
  const states = await ledger.getJobStates(jobIds);
  return new Map(jobIds.map((id) => [id, pauseStateOf(id, states.get(id), now)]));
}

/** What pause and resume need: the job state ledger, the operator log and a clock. */
export interface JobControlDeps {
  readonly ledger: JobStateLedger;
  readonly log: OperatorLog;
  readonly clock: () => Date;
  /** Ledger retention for the operator log (`retention.days` in jobs.yaml). */
  readonly retentionDays?: number;
}

/** A pause's end that is not after the pause began. */
export class PauseEndInPastError extends CliError {
  override readonly name: string = 'PauseEndInPastError';
  readonly until: Date;

  constructor(until: Date, now: Date) {
    super(
      `--until ${until.toISOString()} is not in the future (now ${now.toISOString()}); give an` +
        ' instant after now or a duration such as 2h',
      { exitCode: 2 },
    );
    this.until = until;
  }
}

/** What a pause asks for: only what is named changes on a job that is paused already. */
export interface PauseRequest {
  readonly job: JobDefinition;
  readonly by: string;
  /** Why; a re-pause without it keeps the pause's reason. */
  readonly reason?: string;
  /** The pause's end; `null` removes it (`--no-until`); undefined keeps a re-pause's end. */
  readonly until?: Date | null;
}

/** What a pause did: `paused` a live job, `updated` a paused one, or `none` (nothing named). */
export interface PauseChange {
  readonly state: PauseState;
  readonly change: 'paused' | 'updated' | 'none';
  /** What changed and what was kept, in words (also the operator event's detail). */
  readonly detail: string;
}

/** Reason given to a pause without `--reason`. */
export const NO_REASON = 'no reason given';

/**
 * Pauses a job by writing its state item: the next tick (within a minute) finds the pause
 * with the watermark it reads anyway, and records its run `skipped` (`paused`) without a
 * notification.
 *
 * Pausing a paused job changes only what the request names (the reason, the end) and keeps
 * the rest and the start; naming nothing writes nothing and records nothing, so `pause X`
 * (or `pause X --json`) used to look never undoes a time-boxed pause. The state is read
 * before it is written: two operators re-pausing the same job at once may each keep the
 * other's older value, and the operator log shows both.
 *
 * @example
 * await applyPause(deps, { job, by: 'bob@desk' }) // paused until 18:00 by alice
 * //=> { change: 'none', detail: 'already paused; nothing named, nothing changed', state: { until: '…T18:00…' } }
 */
export async function applyPause(deps: JobControlDeps, input: PauseRequest): Promise<PauseChange> {
  const now = deps.clock();
  if (input.until && input.until.getTime() <= now.getTime()) {
    throw new PauseEndInPastError(input.until, now);
  }
  const before = pauseStateOf(input.job.id, await deps.ledger.getJobState(input.job.id), now);
  if (before.paused && input.reason === undefined && input.until === undefined) {
    return {
      state: before,
      change: 'none',
      detail: 'already paused; nothing named, nothing changed',
    };
  }
  const reason = input.reason ?? (before.paused ? before.reason : undefined) ?? NO_REASON;
  const kept = before.paused && input.until === undefined ? before.until : undefined;
  const until = input.until ?? (kept ? new Date(kept) : undefined);
  const detail = pauseDetail(before, { reason, until });
  const state = await deps.ledger.pause(input.job.id, {
    at: now,
    by: input.by,
    reason,
    ...(until ? { until } : {}),
  });
  await deps.log.record(
    {
      jobId: input.job.id,
      action: 'paused',
      at: now.toISOString(),
      by: input.by,
      reason,
      ...(until ? { until: until.toISOString() } : {}),
      detail,
    },
    retention(deps),
  );
  return {
    state: pauseStateOf(input.job.id, state, now),
    change: before.paused ? 'updated' : 'paused',
    detail,
  };
}

/** A pause's change in words: new, or each field changed (old → new) or kept. */
function pauseDetail(before: PauseState, after: { reason: string; until: Date | undefined }) {
  if (!before.paused) return 'new pause';
  const until = after.until?.toISOString() ?? 'none';
  const field = (name: string, was: string, now: string) =>
    was === now ? `${name} kept (${now})` : `${name} ${was} → ${now}`;
  return (
    `re-pause (paused since ${before.pausedAt} by ${before.pausedBy}): ` +
    `${field('until', before.until ?? 'none', until)}; ${field('reason', before.reason ?? '', after.reason)}`
  );
}

/**
 * {@link applyPause}'s resulting state: what the simulation's operators and the tests call.
 *
 * @example
 * await pauseJob(deps, { job, by: 'alice@laptop', reason: 'db migration',
 *   until: new Date('2026-11-29T12:00Z') })
 * //=> { jobId: 'nightly', paused: true, until: '2026-11-29T12:00:00.000Z', … }
 */
export async function pauseJob(deps: JobControlDeps, input: PauseRequest): Promise<PauseState> {
  return (await applyPause(deps, input)).state;
}

function retention(deps: JobControlDeps) {
  return deps.retentionDays === undefined ? {} : { retentionDays: deps.retentionDays };
}

/** The job is disabled in jobs.yaml: only a deploy that enables it resumes it. */
export class DisabledInConfigError extends CliError {
  override readonly name: string = 'DisabledInConfigError';
  readonly jobId: string;

  constructor(jobId: string) {
    super(
      `job '${jobId}' is disabled in jobs.yaml (enabled: false); set enabled: true and deploy` +
        ' to resume it',
    );
    this.jobId = jobId;
  }
}

/** What a resume found and did. */
export interface ResumeResult {
  /** False when the job was not paused (nothing was written). */
  readonly resumed: boolean;
  /** The pause that ended, as it was. */
  readonly pause: PauseState;
  /** UTC ISO instant of the resume: runs after it are the dispatcher's again. */
  readonly at: string;
}

/**
 * Ends a job's pause. The watermark moves to now, so the dispatcher never replays the paused
 * period (its runs stay `skipped`, `paused`); the pause is remembered as the job's last one.
 * Replaying it under the job's catch-up policy is the caller's choice (`--catch-up`, through
 * the backfill route).
 *
 * @example
 * await resumeJob(deps, { job, by: 'alice@laptop' })
 * //=> { resumed: true, pause: { paused: true, pausedAt: '…', … }, at: '2026-11-29T12:00:00.000Z' }
 */
export async function resumeJob(
  deps: JobControlDeps,
  input: { readonly job: JobDefinition; readonly by: string; readonly detail?: string },
): Promise<ResumeResult> {
  const now = deps.clock();
  const pause = pauseStateOf(input.job.id, await deps.ledger.getJobState(input.job.id), now);
  if (!input.job.enabled) throw new DisabledInConfigError(input.job.id);
  const resumed = pause.paused && (await deps.ledger.resume(input.job.id, { at: now }));
  if (resumed) {
    await deps.log.record(
      {
        jobId: input.job.id,
        action: 'resumed',
        at: now.toISOString(),
        by: input.by,
        ...(input.detail ? { detail: input.detail } : {}),
      },
      retention(deps),
    );
  }
  return { resumed, pause, at: now.toISOString() };
}
