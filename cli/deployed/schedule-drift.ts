/**
 * Drift between the jobs file and the schedules deployed in the installation's schedule group:
 * what `list` and `describe` flag. Pure: the schedules are read elsewhere
 * (`aws/deployed-schedules.ts`), the covering expressions come from `infra/covering/`.
 *
 * Every job's schedule is named after the job, in UTC, with the tick of that job as its input
 * (`infra/stacks/job-shard-stack.ts`); the sweep is `zonecron.sweep`. A deploy of the jobs
 * file puts every kind of drift back.
 */
import { SWEEP_SCHEDULE_NAME, tickInput } from '../../infra/constructs/schedule-inputs.ts';
import type { DeployedSchedule } from './deployed-schedule.ts';

/**
 * - `missing`: an enabled job has no schedule, so no tick comes.
 * - `disabled`: its schedule was disabled by hand.
 * - `expression`: its schedule fires on another expression (or zone) than the jobs file's
 *   covering.
 * - `input`: its schedule sends another tick than the job's.
 * - `unexpected`: the jobs file disables the job, yet its schedule exists.
 */
export type DriftKind = 'missing' | 'disabled' | 'expression' | 'input' | 'unexpected';

/** One difference between a job and its deployed schedule. */
export interface ScheduleDrift {
  readonly kind: DriftKind;
  /** One sentence: what differs and what it does. */
  readonly text: string;
}

/** What the jobs file says about one job's schedule. */
export interface ExpectedSchedule {
  readonly jobId: string;
  readonly enabled: boolean;
  /** `cron(…)` the stack deploys (`coveringSchedule().awsExpression`); undefined: not compared. */
  readonly expression?: string;
  /** The tick input (`tickInput(jobId)`); undefined: not compared. */
  readonly input?: string;
}

/**
 * What the jobs file says of a job's schedule; with the covering's `cron(…)` the expression
 * and the tick input are compared too, else only whether it exists and is enabled.
 *
 * @example
 * expectedSchedule({ id: 'nightly', enabled: true }, 'cron(30 0,1 * * ? *)')
 * //=> { jobId: 'nightly', enabled: true, expression: 'cron(30 0,1 * * ? *)',
 * //     input: '{"jobId":"nightly","scheduledTime":"<aws.scheduler.scheduled-time>",…}' }
 */
export function expectedSchedule(
  job: { readonly id: string; readonly enabled: boolean },
  awsExpression?: string,
): ExpectedSchedule {
  return {
    jobId: job.id,
    enabled: job.enabled,
    ...(awsExpression === undefined ? {} : { expression: awsExpression, input: tickInput(job.id) }),
  };
}

/** What a deploy of the jobs file does about it, at the end of every drift sentence. */
const REDEPLOY = 'npx cdk deploy --all from this jobs file puts it back';

/**
 * How one job's deployed schedule differs from what the jobs file says; `[]` when it does not.
 * The expression and the input are compared only when both sides have them (`describe` reads
 * them with `GetSchedule`; `list` has the state alone, from `ListSchedules`).
 *
 * @example
 * scheduleDrift({ jobId: 'nightly', enabled: true }, { name: 'nightly', state: 'DISABLED' })
 * //=> [{ kind: 'disabled', text: 'schedule disabled by hand: no tick comes; …' }]
 */
export function scheduleDrift(
  expected: ExpectedSchedule,
  deployed: DeployedSchedule | undefined,
): ScheduleDrift[] {
  if (!expected.enabled) {
    return deployed === undefined
      ? []
      : [
          {
            kind: 'unexpected',
            text: `the jobs file disables the job, yet its schedule exists (${deployed.state}); was the stack deployed from another jobs file? ${REDEPLOY}`,
          },
        ];
  }
  if (deployed === undefined) {
    return [
      {
        kind: 'missing',
        text: `no schedule '${expected.jobId}' in the schedule group: no tick comes, and the sweep catches its runs up late (catchup.policy); ${REDEPLOY}`,
      },
    ];
  }
  return [
    ...stateDrift(deployed),
    ...expressionDrift(expected, deployed),
    ...inputDrift(expected, deployed),
  ];
}

function stateDrift(deployed: DeployedSchedule): ScheduleDrift[] {
  if (deployed.state === 'ENABLED') return [];
  return [
    {
      kind: 'disabled',
      text: `schedule ${deployed.state.toLowerCase()} by hand: no tick comes, and the sweep catches its runs up late (catchup.policy); zonecron pause stops a job without that; ${REDEPLOY}`,
    },
  ];
}

function expressionDrift(expected: ExpectedSchedule, deployed: DeployedSchedule): ScheduleDrift[] {
  if (expected.expression === undefined || deployed.expression === undefined) return [];
  const zone = deployed.timezone ?? 'UTC';
  if (deployed.expression === expected.expression && zone === 'UTC') return [];
  return [
    {
      kind: 'expression',
      text: `schedule fires on ${deployed.expression} in ${zone}, but the jobs file's covering is ${expected.expression} in UTC: edited by hand, deployed from another jobs file, or computed with other zone data; ${REDEPLOY}`,
    },
  ];
}

function inputDrift(expected: ExpectedSchedule, deployed: DeployedSchedule): ScheduleDrift[] {
  if (expected.input === undefined || deployed.input === undefined) return [];
  if (deployed.input === expected.input) return [];
  return [
    {
      kind: 'input',
      text: `schedule sends ${deployed.input.slice(0, 60)} instead of the job's tick: the dispatcher may take it for another job, or refuse it; ${REDEPLOY}`,
    },
  ];
}

/** The schedules of the group that no job of the jobs file owns, and the sweep's state. */
export interface GroupDrift {
  /** Schedules named after no job (nor the sweep), by name. */
  readonly extra: readonly DeployedSchedule[];
  /** The sweep's state, or `missing`. */
  readonly sweep: string;
}

/**
 * What the group holds beyond the jobs: schedules no job owns (a job removed from the file
 * and not deployed since, or made by hand) and the sweep's state.
 *
 * @example
 * groupDrift(['nightly'], new Map([['old-job', { name: 'old-job', state: 'ENABLED' }]]))
 * //=> { extra: [{ name: 'old-job', state: 'ENABLED' }], sweep: 'missing' }
 */
export function groupDrift(
  jobIds: readonly string[],
  deployed: ReadonlyMap<string, DeployedSchedule>,
): GroupDrift {
  const owned = new Set([...jobIds, SWEEP_SCHEDULE_NAME]);
  return {
    extra: [...deployed.values()]
      .filter((schedule) => !owned.has(schedule.name))
      .sort((a, b) => a.name.localeCompare(b.name)),
    sweep: deployed.get(SWEEP_SCHEDULE_NAME)?.state ?? 'missing',
  };
}
