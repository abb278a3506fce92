import type { JobDefinition } from '#jobs/job.ts';
import type { Ledger, RunItem } from '#ledger/index.ts';
import { type PauseState, pauseStateOf } from '../deployed/pause-state.ts';
import { CliError } from '../errors.ts';
import { readJobRuns } from './job-runs.ts';

/**
 * What `run` and `backfill` do when a run of the job is still running: `skip` refuses to
 * deliver, `allow` delivers beside it. The default is the job's own `concurrency` (`forbid`
 * → `skip`, `allow` → `allow`), so a hand-made run overlaps only when the job allows it or
 * the operator says so.
 */
export type OverlapChoice = 'skip' | 'allow';

/** The choices of the command line a guard reads. */
export interface GuardChoices {
  /** `--force`: deliver despite a pause and a run still running. */
  readonly force: boolean;
  /** `--overlap`; undefined: the job's `concurrency`. */
  readonly overlap?: OverlapChoice;
}

/** What the ledger says of the job before a run by hand: its pause, a run still running. */
export interface JobGuardState {
  readonly pause: PauseState;
  /** The newest run that may still be running (claimed, or dispatched within maxRuntime). */
  readonly running: RunItem | undefined;
}

/** Why a guard refused: the job is paused, or a run of it is still running. */
export type GuardProblem = 'paused' | 'running';

/** A run by hand refused by a pause or a run still running (exit code 1); `--force` overrides. */
export class RunGuardError extends CliError {
  override readonly name: string = 'RunGuardError';
  readonly jobId: string;
  readonly problem: GuardProblem;

  constructor(jobId: string, problem: GuardProblem, message: string) {
    super(message);
    this.jobId = jobId;
    this.problem = problem;
  }
}

/** The effective overlap choice: `--overlap`, else `skip` for a forbid job, else `allow`. */
export function overlapChoiceOf(job: JobDefinition, choices: GuardChoices): OverlapChoice {
  if (choices.force) return 'allow';
  return choices.overlap ?? (job.concurrency === 'forbid' ? 'skip' : 'allow');
}

/** Where the guards read the ledger: the job's state and runs, and its recent runs. */
export interface GuardReader {
  readonly ledger: Pick<Ledger, 'getJobState' | 'getRun'>;
  /** The job's runs at or after `since`, newest first, at most `limit`. */
  recentRuns(jobId: string, since: Date, limit: number): Promise<readonly RunItem[]>;
}

/**
 * Reads the job's pause and its newest run that may still be running: the forbid slot's
 * holder while its hold lasts, else a run of the last `maxRuntime` (by instant) that is
 * claimed, or dispatched less than `maxRuntime` ago.
 *
 * @example
 * await readGuardState(access, job, new Date())
 * //=> { pause: { paused: false, … }, running: undefined }
 */
export async function readGuardState(
  access: {
    readonly ledger: Pick<Ledger, 'getJobState' | 'getRun'>;
    readonly client: Parameters<typeof readJobRuns>[0];
    readonly tableName: string;
  },
  job: JobDefinition,
  now: Date,
): Promise<JobGuardState> {
  const reader: GuardReader = {
    ledger: access.ledger,
    recentRuns: (jobId, since, limit) =>
      readJobRuns(access.client, access.tableName, jobId, { since, limit }),
  };
  return readGuardStateFrom(reader, job, now);
}

/**
 * {@link readGuardState} through any reader of the ledger: the commands read the table
 * through the SDK, the simulation through its own store, so both guard the same way.
 *
 * @example
 * await readGuardStateFrom({ ledger, recentRuns }, job, simulatedNow)
 * //=> { pause: { paused: true, … }, running: undefined }
 */
export async function readGuardStateFrom(
  reader: GuardReader,
  job: JobDefinition,
  now: Date,
): Promise<JobGuardState> {
  const state = await reader.ledger.getJobState(job.id);
  const pause = pauseStateOf(job.id, state, now);
  const holder =
    state?.runningKey && (state.runningUntilEpochMs ?? 0) > now.getTime()
      ? await reader.ledger.getRun(state.runningKey)
      : undefined;
  if (holder && mayBeRunning(job, holder, now)) return { pause, running: holder };
  const since = new Date(now.getTime() - job.maxRuntimeSeconds * 1000);
  const recent = await reader.recentRuns(job.id, since, 20);
  return { pause, running: recent.find((run) => mayBeRunning(job, run, now)) };
}

function mayBeRunning(job: JobDefinition, run: RunItem, now: Date): boolean {
  if (run.status === 'claimed') return true;
  if (run.status !== 'dispatched') return false;
  const dispatchedMs = Date.parse(run.dispatchedAt ?? run.at);
  return dispatchedMs + job.maxRuntimeSeconds * 1000 > now.getTime();
}

/**
 * Refuses a run by hand ({@link RunGuardError}) when the job is paused (and its end has not
 * passed), or when a run is still running and the overlap choice is `skip`; `--force`
 * overrides both. Returns what was overridden, for the operator log (`''` when nothing was).
 *
 * @example
 * checkGuards(job, { pause: paused, running: undefined }, { force: true }, 'run')
 * //=> 'forced past the pause (since 2026-11-29T09:00:00.000Z by alice: db migration)'
 */
export function checkGuards(
  job: JobDefinition,
  guard: JobGuardState,
  choices: GuardChoices,
  command: 'run' | 'backfill',
): string {
  const overridden: string[] = [];
  const { pause, running } = guard;
  if (pause.paused && !pause.ending) {
    const what = `since ${pause.pausedAt}${pause.until ? ` until ${pause.until}` : ''} by ${pause.pausedBy}: ${pause.reason ?? ''}`;
    if (!choices.force) {
      throw new RunGuardError(
        job.id,
        'paused',
        `'${job.id}' is paused (${what}); nothing was delivered: zonecron resume ${job.id}` +
          ` first, or ${command} ... --force to deliver during the pause`,
      );
    }
    overridden.push(`forced past the pause (${what})`);
  }
  if (running) {
    const what = `run ${running.key.slice(0, 7)} at ${running.at} is ${running.status}`;
    if (overlapChoiceOf(job, choices) === 'skip') {
      throw new RunGuardError(
        job.id,
        'running',
        `${what} (concurrency ${job.concurrency}${choices.overlap ? ', --overlap skip' : ''});` +
          ` nothing was delivered: wait for it, or pass --overlap allow (or --force) to` +
          ' deliver beside it',
      );
    }
    overridden.push(`beside ${what} (overlap allow)`);
  }
  return overridden.join('; ');
}
