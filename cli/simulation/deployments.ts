import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { type Occurrence, occurrencesBetween } from '../../functions/schedule/index.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import type { CoveringTicks } from './events.ts';
import type { Deploy } from './fault-plan.ts';

/** The id of the simulated jobs file's own deploy: the stack as it runs when a window opens. */
export const FIRST_DEPLOY_ID = 'deploy-0';

/**
 * One deploy of the stack as the simulation runs it: from `atMs` on, the dispatcher, the
 * recorder and the covering schedules run with `jobs`.
 */
export interface Deployment {
  readonly id: string;
  /** When it takes effect, epoch ms; `-Infinity` for the simulated jobs file. */
  readonly atMs: number;
  readonly jobs: readonly JobDefinition[];
  readonly enabled: readonly JobDefinition[];
  /** The UTC covering expression of each enabled job, as this deploy's synth computed it. */
  readonly coverings: readonly CoveringTicks[];
  readonly coveringExpressions: ReadonlyMap<string, string>;
}

/**
 * The simulated jobs file (from the start) and the plan's deploys, in time order. Each
 * deploy's covering expressions are computed at its own instant, as its synth would (the
 * first one's at `startMs`, the first window's start).
 *
 * @example
 * deploymentsOf(jobs, [], startMs).map((d) => d.id) //=> ['deploy-0']
 */
export function deploymentsOf(
  jobs: readonly JobDefinition[],
  deploys: readonly Deploy[],
  startMs: number,
): Deployment[] {
  return [
    deploymentOf(FIRST_DEPLOY_ID, Number.NEGATIVE_INFINITY, jobs, startMs),
    ...deploys.map((d) =>
      deploymentOf(d.id, d.at.getTime(), d.jobs, Math.max(startMs, d.at.getTime())),
    ),
  ];
}

function deploymentOf(
  id: string,
  atMs: number,
  jobs: readonly JobDefinition[],
  synthMs: number,
): Deployment {
  const enabled = jobs.filter((job) => job.enabled);
  const coveringExpressions = new Map<string, string>();
  const coverings = enabled.map((job) => {
    const schedule = coveringSchedule(job, new Date(synthMs));
    coveringExpressions.set(job.id, schedule.awsExpression);
    return { jobId: job.id, cron: schedule.cron };
  });
  return { id, atMs, jobs, enabled, coverings, coveringExpressions };
}

/**
 * The deployment in force at an instant: the last one that took effect at or before it.
 *
 * @example
 * deploymentAt(deployments, Date.parse('2027-03-28T10:20:00Z')).id //=> 'deploy-1'
 */
export function deploymentAt(deployments: readonly Deployment[], atMs: number): Deployment {
  let found = deployments[0];
  for (const d of deployments) if (d.atMs <= atMs) found = d;
  if (!found) throw new Error('a simulation has at least its own jobs file deployed');
  return found;
}

/**
 * The job's definition in force at an instant, or undefined when no deploy then lists it.
 *
 * @example
 * definitionAt(deployments, 'nightly', Date.parse('2027-03-28T11:00Z'))?.schedule //=> '*\/5 * * * *'
 */
export function definitionAt(
  deployments: readonly Deployment[],
  jobId: string,
  atMs: number,
): JobDefinition | undefined {
  return deploymentAt(deployments, atMs).jobs.find((j) => j.id === jobId);
}

/**
 * Every job ever enabled, in the order it first appears, each with its last definition.
 *
 * @example
 * everEnabled(deploymentsOf(jobs, [], 0)) //=> the enabled jobs of `jobs`
 */
export function everEnabled(deployments: readonly Deployment[]): JobDefinition[] {
  const byId = new Map<string, JobDefinition>();
  for (const d of deployments) for (const job of d.enabled) byId.set(job.id, job);
  return [...byId.values()];
}

/** The runs of one job in one window, under one deploy. */
export interface ExpectedRuns {
  readonly job: JobDefinition;
  readonly runs: readonly Occurrence[];
}

/**
 * The runs of a window, `from < at <= to`, deploy by deploy: a deploy taking effect at `D`
 * (the instant its first event was scheduled for, less 1 ms) ends the runs of the schedules
 * before it at `D` and starts its own after `D`. A job not listed, or disabled, has none.
 *
 * @example
 * // hourly until a deploy at 10:20 makes it every five minutes
 * expectedRuns(deployments, window).map((e) => e.runs.length) //=> [10, 20]
 */
export function expectedRuns(
  deployments: readonly Deployment[],
  window: { readonly from: Date; readonly to: Date },
): ExpectedRuns[] {
  const expected: ExpectedRuns[] = [];
  deployments.forEach((d, i) => {
    const next = deployments[i + 1]?.atMs ?? Number.POSITIVE_INFINITY;
    const fromMs = Math.max(window.from.getTime(), d.atMs - 1);
    const toMs = Math.min(window.to.getTime(), next - 1);
    if (fromMs >= toMs) return;
    for (const job of d.enabled) {
      const runs = occurrencesBetween(scheduleSpecOf(job), new Date(fromMs), new Date(toMs));
      expected.push({ job, runs });
    }
  });
  return expected;
}
