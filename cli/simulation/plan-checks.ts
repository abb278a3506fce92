import { dirname, isAbsolute, join } from 'node:path';
import { type JobDefinition, tracksCompletion } from '#jobs/job.ts';
import { closestName } from '#text/message-text.ts';
import { DEFAULT_DISPATCHER_OPTIONS } from '../../functions/dispatcher/context.ts';
import { ConfigError, type ConfigIssue, isConfigError } from '../../infra/config/config-error.ts';
import { loadJobsFile } from '../../infra/config/load-jobs.ts';
import type { Deploy } from './fault-plan.ts';
import type { IssueAt, ParsedPlan } from './plan-schema.ts';

/**
 * The jobs a fault plan is checked against: the ids of the simulated jobs file, or the file
 * itself (its definitions also let hostile ticks be checked against each job's window).
 */
export type PlanJobs =
  | readonly string[]
  | { readonly jobs: readonly JobDefinition[]; readonly retentionDays: number };

/** The jobs deployed over some stretch of time: their ids, and their definitions when known. */
interface Deployed {
  readonly ids: readonly string[];
  readonly jobs: ReadonlyMap<string, JobDefinition> | undefined;
  readonly retentionDays: number | undefined;
}

type Path = readonly (string | number)[];

/**
 * Loads each deploy's jobs file (relative to the plan's directory) with the jobs file loader.
 * Deploys must come in time order. A file that cannot be read is reported at the deploy's
 * `config`; a file with problems, at the problems in that file (the loader's issues).
 *
 * @example
 * loadDeploys([{ at: new Date('2027-03-28T10:20Z'), config: 'jobs-v2.yaml' }], 'faults.yaml', at)
 * //=> [{ id: 'deploy-1', at: 2027-03-28T10:20:00.000Z, file: 'jobs-v2.yaml', jobs: [...], retentionDays: 35 }]
 */
export function loadDeploys(
  entries: ParsedPlan['deploys'],
  planPath: string,
  at: IssueAt,
): Deploy[] {
  const issues: ConfigIssue[] = [];
  const deploys = entries.flatMap((entry, i): Deploy[] => {
    const before = entries[i - 1];
    if (before && entry.at <= before.at) {
      issues.push(at(['deploys', i, 'at'], 'a deploy must come after the one before it'));
    }
    const file = isAbsolute(entry.config) ? entry.config : join(dirname(planPath), entry.config);
    try {
      const config = loadJobsFile(file);
      const { jobs, retentionDays } = config;
      return [{ id: `deploy-${i + 1}`, at: entry.at, file, jobs, retentionDays }];
    } catch (error) {
      if (!isConfigError(error)) throw error;
      issues.push(...error.issues.map((issue) => deployIssue(issue, ['deploys', i, 'config'], at)));
      return [];
    }
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return deploys;
}

/** A jobs file that cannot be read is the deploy's problem, at its `config`; others stay put. */
function deployIssue(issue: ConfigIssue, path: Path, at: IssueAt): ConfigIssue {
  if (issue.code !== 'unreadable') return issue;
  return at(path, `${issue.message} (${issue.file})`, 'unreadable');
}

/**
 * The problems of a plan that its schema cannot see: jobs that are not deployed when the plan
 * names them (with the closest id), ranges that end after their action, hostile ticks that
 * are not hostile (an "ancient" tick within its job's catch-up window, a "future" tick within
 * the dispatcher's clock skew), forged completions of jobs whose target reports none.
 *
 * @example
 * checkPlan(plan, [], ['nightly'], at) //=> [] when every entry names 'nightly' at sane times
 */
export function checkPlan(
  plan: ParsedPlan,
  deploys: readonly Deploy[],
  jobs: PlanJobs,
  at: IssueAt,
): ConfigIssue[] {
  const initial = deployedOf(jobs);
  const jobsAt = (instant: Date) => deployedAt(initial, deploys, instant);
  const everyId = [
    ...new Set([...initial.ids, ...deploys.flatMap((d) => d.jobs.map((j) => j.id))]),
  ];
  const ever: Deployed = { ids: everyId, jobs: undefined, retentionDays: undefined };
  return [
    ...plan.targets.flatMap((t, i) => unknownJob(ever, t.job, ['targets', i, 'job'], at)),
    ...plan.pauses.flatMap((p, i) => unknownJob(jobsAt(p.from), p.job, ['pauses', i, 'job'], at)),
    ...plan.operator.flatMap((step, i) => operatorIssues(step, jobsAt(step.at), i, at)),
    ...plan.hostile.flatMap((event, i) => hostileIssues(event, jobsAt(event.at), i, at)),
  ];
}

function deployedOf(jobs: PlanJobs): Deployed {
  if (isIdList(jobs)) return { ids: jobs, jobs: undefined, retentionDays: undefined };
  return {
    ids: jobs.jobs.map((j) => j.id),
    jobs: new Map(jobs.jobs.map((j) => [j.id, j])),
    retentionDays: jobs.retentionDays,
  };
}

function isIdList(jobs: PlanJobs): jobs is readonly string[] {
  return Array.isArray(jobs);
}

/** The jobs in force at an instant: the last deploy at or before it, else the simulated file. */
function deployedAt(initial: Deployed, deploys: readonly Deploy[], instant: Date): Deployed {
  const deploy = deploys.filter((d) => d.at <= instant).at(-1);
  if (!deploy) return initial;
  return deployedOf(deploy);
}

/** An issue when `jobId` is not among the deployed jobs, naming the closest one. */
function unknownJob(deployed: Deployed, jobId: string, path: Path, at: IssueAt): ConfigIssue[] {
  if (deployed.ids.includes(jobId)) return [];
  const closest = closestName(jobId, deployed.ids, {
    maxDistance: Math.max(2, jobId.length >> 2),
  });
  const mean = closest === undefined ? '' : `; did you mean '${closest}'?`;
  return [at(path, `unknown job '${jobId}'${mean} (jobs: ${deployed.ids.join(', ')})`)];
}

function operatorIssues(
  step: ParsedPlan['operator'][number],
  deployed: Deployed,
  i: number,
  at: IssueAt,
): ConfigIssue[] {
  const issues = unknownJob(deployed, step.job, ['operator', i, 'job'], at);
  if (step.action === 'backfill') {
    if (step.to < step.from) issues.push(at(['operator', i, 'to'], 'to must not be before from'));
    if (step.to > step.at) {
      issues.push(
        at(['operator', i, 'to'], 'to must not be after at: backfill delivers runs that were due'),
      );
    }
  }
  if (step.action === 'pause' && step.until && step.until <= step.at) {
    issues.push(at(['operator', i, 'until'], 'until must be after at'));
  }
  return issues;
}

function hostileIssues(
  event: ParsedPlan['hostile'][number],
  deployed: Deployed,
  i: number,
  at: IssueAt,
): ConfigIssue[] {
  if (event.kind === 'deep-event' || event.kind === 'huge-event') return [];
  const issues = unknownJob(deployed, event.job, ['hostile', i, 'job'], at);
  const job = deployed.jobs?.get(event.job);
  if (event.kind === 'forged-completion') {
    if (job && !tracksCompletion(job)) {
      const what = `its target (${job.target.type}) reports no completions`;
      issues.push(
        at(
          ['hostile', i, 'job'],
          `a forged completion needs a lambda or stepfunctions job; ${what}`,
        ),
      );
    }
    return issues;
  }
  const problem = tickProblem(event, job, deployed.retentionDays);
  if (problem) issues.push(at(['hostile', i, 'scheduledTime'], problem));
  return issues;
}

/**
 * Why a hostile tick is not one: an `ancient-tick` must be older than its job's catch-up
 * window and retention (whichever is shorter; when the job is known), a `future-tick` further
 * ahead than the dispatcher's clock skew. Otherwise it is a late or early tick, which the
 * dispatcher rightly acts on.
 */
function tickProblem(
  event: {
    readonly at: Date;
    readonly kind: 'ancient-tick' | 'future-tick';
    readonly scheduledTime: Date;
  },
  job: JobDefinition | undefined,
  retentionDays: number | undefined,
): string | undefined {
  const aheadMs = event.scheduledTime.getTime() - event.at.getTime();
  if (event.kind === 'future-tick') {
    const skewSeconds = DEFAULT_DISPATCHER_OPTIONS.clockSkewSeconds;
    return aheadMs > skewSeconds * 1000
      ? undefined
      : `a future tick must be more than the clock skew (${skewSeconds}s) after at`;
  }
  const limits = job ? [job.catchup.windowSeconds, (retentionDays ?? Infinity) * 86_400] : [0];
  const ageSeconds = Math.min(...limits);
  return -aheadMs > ageSeconds * 1000
    ? undefined
    : `an ancient tick must be older than ${ageSeconds}s before at (the job's catch-up window or retention, whichever is shorter)`;
}
