/**
 * The sandbox's schedule group: the schedules the stack would create (each enabled job's UTC
 * covering, named after the job, with its tick as input, and the one-minute sweep), held in
 * memory. The local scheduler fires what this group holds, and the sandbox's Scheduler API
 * (`stack-endpoint.ts`) lists, gets, updates and deletes it, so `list` and `describe` compare
 * the jobs with the very schedules that fire, and a schedule edited or deleted by hand in the
 * sandbox stops or changes its ticks as it would on a stack.
 */

import type { JobDefinition } from '#jobs/job.ts';
import {
  SCHEDULE_TIME_ZONE,
  SWEEP_EXPRESSION,
  SWEEP_INPUT,
  SWEEP_SCHEDULE_NAME,
  tickInput,
} from '../../infra/constructs/schedule-inputs.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import { engineCronOf } from './aws-cron.ts';
import { maxEventAgeSecondsOf, type SandboxCovering } from './local-scheduler.ts';

/** One schedule of the group, as `GetSchedule` answers for it. */
export interface SandboxSchedule {
  readonly name: string;
  readonly state: 'ENABLED' | 'DISABLED';
  /** `cron(…)`, as the stack deploys it (`coveringSchedule().awsExpression`). */
  readonly expression: string;
  /** The same in the engine's five fields, in UTC: what the local scheduler fires. */
  readonly cron: string;
  readonly timezone: string;
  readonly input: string;
  readonly createdAt: Date;
  readonly lastModifiedAt: Date;
}

/** What `UpdateSchedule` sets: everything a schedule has (Scheduler replaces the whole schedule). */
export interface ScheduleUpdate {
  readonly expression: string;
  /** @default 'ENABLED' */
  readonly state?: string;
  /** @default 'UTC' */
  readonly timezone?: string;
  readonly input?: string;
}

/** A request the group refuses: `kind` is the Scheduler error it is answered with. */
export class SandboxScheduleError extends Error {
  override readonly name: string = 'SandboxScheduleError';
  readonly kind: 'ResourceNotFoundException' | 'ValidationException' | 'ConflictException';
  constructor(
    kind: SandboxScheduleError['kind'],
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.kind = kind;
  }
}

/** The schedule group of a sandbox, until it stops. */
export interface SandboxSchedules {
  readonly groupName: string;
  /** Every schedule, the jobs' in file order, then the sweep. */
  list(): readonly SandboxSchedule[];
  /** One schedule, or a `ResourceNotFoundException`. */
  get(name: string): SandboxSchedule;
  /** Adds a schedule that sends the tick of job `name`, as `CreateSchedule` does. */
  create(name: string, schedule: ScheduleUpdate): SandboxSchedule;
  /** Replaces a job's schedule, as `UpdateSchedule` does; the sweep is refused. */
  update(name: string, update: ScheduleUpdate): SandboxSchedule;
  /** Deletes a job's schedule, as `DeleteSchedule` does; the sweep is refused. */
  delete(name: string): void;
  /** The enabled jobs' schedules as the local scheduler fires them, read at each of its wakes. */
  coverings(): readonly SandboxCovering[];
}

/** The group's name in the sandbox's stack (its output `ScheduleGroupName`). */
export const SANDBOX_SCHEDULE_GROUP = 'zonecron-schedules';

/**
 * The group as synth at `synthTime` would create it for `jobs`: one schedule per enabled job,
 * and the sweep. `clock` dates the changes made by hand.
 *
 * @example
 * const schedules = createSandboxSchedules(jobs, synthTime, () => new Date());
 * schedules.get('berlin-nightly-report').expression //=> 'cron(30 0,1 * * ? *)'
 */
export function createSandboxSchedules(
  jobs: readonly JobDefinition[],
  synthTime: Date,
  clock: () => Date,
): SandboxSchedules {
  const byName = new Map<string, SandboxSchedule>();
  const created = (name: string, expression: string, cron: string, input: string) => {
    byName.set(name, {
      name,
      state: 'ENABLED',
      expression,
      cron,
      timezone: SCHEDULE_TIME_ZONE,
      input,
      createdAt: synthTime,
      lastModifiedAt: synthTime,
    });
  };
  for (const job of jobs.filter((j) => j.enabled)) {
    const covering = coveringSchedule(job, synthTime);
    created(job.id, covering.awsExpression, covering.cron, tickInput(job.id));
  }
  created(SWEEP_SCHEDULE_NAME, SWEEP_EXPRESSION, '* * * * *', SWEEP_INPUT);
  const jobSchedule = (name: string, change: string) => {
    const found = get(name);
    if (name === SWEEP_SCHEDULE_NAME) {
      throw new SandboxScheduleError(
        'ValidationException',
        `the sandbox's sweep always runs: it cannot be ${change} (try a job's schedule)`,
      );
    }
    return found;
  };
  function get(name: string): SandboxSchedule {
    const found = byName.get(name);
    if (found) return found;
    throw new SandboxScheduleError('ResourceNotFoundException', `Schedule ${name} does not exist.`);
  }
  return {
    groupName: SANDBOX_SCHEDULE_GROUP,
    list: () => [...byName.values()],
    get,
    create(name, schedule) {
      if (byName.has(name)) {
        throw new SandboxScheduleError('ConflictException', `Schedule ${name} already exists.`);
      }
      const now = clock();
      const blank: SandboxSchedule = {
        name,
        state: 'ENABLED',
        expression: '',
        cron: '',
        timezone: SCHEDULE_TIME_ZONE,
        input: tickInput(name),
        createdAt: now,
        lastModifiedAt: now,
      };
      // Scheduler sends no input when none is given, and the sandbox sends only ticks.
      const made = updated(blank, { ...schedule, input: schedule.input ?? '' }, now);
      byName.set(name, made);
      return made;
    },
    update(name, update) {
      const old = jobSchedule(name, 'updated');
      const next = updated(old, update, clock());
      byName.set(name, next);
      return next;
    },
    delete(name) {
      jobSchedule(name, 'deleted');
      byName.delete(name);
    },
    coverings: () =>
      [...byName.values()]
        .filter((s) => s.state === 'ENABLED' && s.name !== SWEEP_SCHEDULE_NAME)
        .map((s) => ({
          jobId: s.name,
          cron: s.cron,
          maxEventAgeSeconds: maxEventAgeSecondsOf(jobs.find((job) => job.id === s.name)),
        })),
  };
}

/**
 * A schedule with `update` applied (to a blank one for `CreateSchedule`), or a `ValidationException` for what the sandbox could not
 * fire as Scheduler would: a state other than ENABLED or DISABLED, a zone other than UTC, an
 * expression it cannot read, or an input other than the job's tick (the local scheduler sends
 * the tick).
 */
function updated(old: SandboxSchedule, update: ScheduleUpdate, now: Date): SandboxSchedule {
  const refuse = (message: string, cause?: unknown) =>
    new SandboxScheduleError('ValidationException', message, cause ? { cause } : {});
  const state = update.state ?? 'ENABLED';
  if (state !== 'ENABLED' && state !== 'DISABLED') {
    throw refuse(`invalid State '${state}' (allowed ENABLED, DISABLED)`);
  }
  const timezone = update.timezone ?? SCHEDULE_TIME_ZONE;
  if (timezone !== SCHEDULE_TIME_ZONE) {
    throw refuse(`the sandbox fires schedules in UTC only, not in '${timezone}'`);
  }
  if (update.input !== undefined && update.input !== old.input) {
    throw refuse(`the sandbox sends a job's own tick only: the Target Input must be ${old.input}`);
  }
  let cron: string;
  try {
    cron = update.expression === old.expression ? old.cron : engineCronOf(update.expression);
  } catch (error) {
    throw refuse(error instanceof Error ? error.message : String(error), error);
  }
  return { ...old, state, expression: update.expression, cron, timezone, lastModifiedAt: now };
}
