import { createHash } from 'node:crypto';
import { calendarRuleOf } from '../calendar/business-calendar.ts';
import type { JobCalendar } from '../calendar/calendar-definition.ts';
import {
  type Deadline,
  type GapPolicy,
  type OverlapPolicy,
  resolvePolicies,
  type ScheduleSpec,
} from '../schedule/index.ts';

/** The kinds of target a run can be delivered to. */
export type TargetType = 'lambda' | 'sqs' | 'sns' | 'eventbridge' | 'stepfunctions';

/** Where a job's runs go. */
export interface JobTarget {
  readonly type: TargetType;
  /** ARN of the function, queue, topic, event bus or state machine. */
  readonly arn: string;
}

/** What to do with runs that became due while no tick arrived. */
export type CatchupPolicy = 'all' | 'latest' | 'none';

/**
 * One job, as the dispatcher, the stack and the CLI see it: validated, defaults applied,
 * durations in whole seconds.
 *
 * The loader (`infra/config/`) turns `jobs.yaml` into these; the stack ships them inside the
 * dispatcher bundle, so a changed config takes effect at the next `cdk deploy`.
 */
export interface JobDefinition {
  /** Unique, `[a-z0-9-_]+`. */
  readonly id: string;
  readonly description: string;
  /**
   * Five-field cron expression in the engine's syntax (docs/semantics.md, "Expressions"). For a
   * job with `at`, the loader derives it (`'0 18 24 12 *'`) and bounds it to that one date.
   */
  readonly schedule: string;
  /** IANA zone name. */
  readonly timezone: string;
  /** Overrides of the engine's DST defaults. */
  readonly dst?: { readonly gap?: GapPolicy; readonly overlap?: OverlapPolicy };
  readonly target: JobTarget;
  /** Static JSON handed to the target in every run envelope; null when the job has none. */
  readonly payload: unknown;
  readonly catchup: {
    readonly policy: CatchupPolicy;
    /** How far back a tick may catch up missed runs. Default 24 h. */
    readonly windowSeconds: number;
    /** Cap on runs delivered by one catch-up burst. */
    readonly maxRuns: number;
  };
  readonly retry: {
    /** Delivery attempts before a run is dead-lettered. Default 3. */
    readonly maxAttempts: number;
  };
  /** `forbid` skips a run while the previous one is still running. Default `allow`. */
  readonly concurrency: 'allow' | 'forbid';
  /** How long a run may take before it counts as stuck. */
  readonly maxRuntimeSeconds: number;
  /** When a run must have finished by (docs/semantics.md, "Deadlines"). @default none */
  readonly deadline?: Deadline;
  readonly enabled: boolean;
  readonly alarm: {
    /** How late a run may be before it counts as late or missed. Default 300 s. */
    readonly graceSeconds: number;
    /**
     * Whether the job gets CloudWatch alarms and metrics of its own, besides the stack-wide
     * ones every job feeds. Default false.
     */
    readonly dedicated: boolean;
  };
  /**
   * The business calendar the runs follow, with the whole calendar definition, so the job
   * needs nothing else to be scheduled. @default none
   */
  readonly calendar?: JobCalendar;
  /** No run before this instant (UTC ISO, resolved from the job's zone at load). @default none */
  readonly from?: string;
  /** No run at or after this instant (UTC ISO, exclusive). @default none */
  readonly until?: string;
  /**
   * A one-shot job's local date-time (`YYYY-MM-DDTHH:mm`), for display: `schedule`, `from` and
   * `until` already say it to the engine. @default none (a recurring job)
   */
  readonly at?: string;
}

/**
 * The engine's view of a job: its expression, zone, id (for `H`), DST overrides, calendar and
 * bounds.
 *
 * The one mapping from a job to the engine, so the stack, the dispatcher and the CLI ask the
 * engine the same question. The calendar is built from the job's definition once and kept with
 * it (`calendarRuleOf`).
 *
 * @example
 * scheduleSpecOf(job) //=> { cron: '30 2 * * *', timezone: 'Europe/Berlin', jobId: 'daily' }
 */
export function scheduleSpecOf(job: JobDefinition): ScheduleSpec {
  return {
    cron: job.schedule,
    timezone: job.timezone,
    jobId: job.id,
    ...(job.dst ? { dst: job.dst } : {}),
    ...(job.calendar ? { calendar: calendarRuleOf(job.calendar) } : {}),
    ...(job.from === undefined ? {} : { from: new Date(job.from) }),
    ...(job.until === undefined ? {} : { until: new Date(job.until) }),
  };
}

/**
 * Whether the job's calendar moves runs to other days (`onClosed` other than `skip`, no
 * `businessDay`, which picks the days itself): then several runs can share one instant, a run's
 * key instant need not be its `at`, and the covering fires on every day (docs/semantics.md §7,
 * "Delivering moved runs").
 *
 * @example
 * movesRuns({ ...job, calendar: { name: 'berlin-business', onClosed: 'following', … } }) //=> true
 */
export function movesRuns(job: Pick<JobDefinition, 'calendar'>): boolean {
  const calendar = job.calendar;
  if (calendar === undefined || calendar.businessDay !== undefined) return false;
  return (calendar.onClosed ?? 'skip') !== 'skip';
}

const scheduleIds = new WeakMap<JobDefinition, string>();

/**
 * The fingerprint of what makes a job's runs: expression, zone and effective DST policies (the
 * job id, which `H` also reads, is the job's own), and when set its calendar (the rule and the
 * whole definition), bounds and `at`. A deploy that changes it starts a new schedule
 * (docs/semantics.md, "The life of a job"); the job state records it. The first 16 hex digits
 * of the SHA-256 of those lines, memoized per definition; a job without calendar, bounds or
 * `at` hashes the same four lines as before they existed, so its id did not change.
 *
 * @example
 * scheduleIdOf(job) //=> '3f1c9a0b5e7d2468'
 */
export function scheduleIdOf(job: JobDefinition): string {
  let id = scheduleIds.get(job);
  if (id === undefined) {
    const { gap, overlap } = resolvePolicies(scheduleSpecOf(job));
    const text = [job.schedule, job.timezone, gap, overlap, ...scheduleExtras(job)].join('\n');
    id = createHash('sha256').update(text).digest('hex').slice(0, 16);
    scheduleIds.set(job, id);
  }
  return id;
}

/** The lines a calendar, bounds or `at` add to a schedule's fingerprint; none without them. */
function scheduleExtras(job: JobDefinition): string[] {
  const extras: string[] = [];
  if (job.calendar) extras.push(`calendar:${canonicalJson(job.calendar)}`);
  if (job.from !== undefined) extras.push(`from:${job.from}`);
  if (job.until !== undefined) extras.push(`until:${job.until}`);
  if (job.at !== undefined) extras.push(`at:${job.at}`);
  return extras;
}

/** JSON with every object's keys sorted, so equal values give equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );
}

/**
 * The fingerprint of a jobs bundle: the first 16 hex digits of the SHA-256 of each listed job's
 * id and schedule fingerprint, in id order. Two bundles that list the same jobs with the same
 * schedules have the same id, whatever their targets and policies: such a deploy moves no
 * instant (docs/semantics.md, "The life of a job").
 *
 * @example
 * bundleIdOf([daily, hourly]) === bundleIdOf([hourly, daily]) //=> true
 */
export function bundleIdOf(jobs: readonly JobDefinition[]): string {
  const lines = jobs.map((job) => `${job.id}:${scheduleIdOf(job)}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
}

/**
 * Whether the job's target reports when a run finished (so a run can be stuck, can fail, and
 * frees the `concurrency: forbid` slot): `lambda` and `stepfunctions` do, the others do not.
 *
 * @example
 * tracksCompletion({ ...job, target: { type: 'sqs', arn } }) //=> false
 */
export function tracksCompletion(job: Pick<JobDefinition, 'target'>): boolean {
  return job.target.type === 'lambda' || job.target.type === 'stepfunctions';
}
