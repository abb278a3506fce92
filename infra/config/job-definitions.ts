/**
 * From a file's raw jobs to `JobDefinition`s: the built-in defaults, then the file's
 * `defaults:`, merged under each job; the engine's judgement of its schedule and zone; the
 * schema's of every field; and what each job must keep on its own (a unique id, a catch-up
 * window shorter than the ledger's retention).
 *
 * A job that fails any of these is left out and its problems go to the collector, so one read
 * of the file reports them all.
 */
import type { JobDefinition } from '#jobs/job.ts';
import { oneShotSchedule } from '#jobs/one-shot.ts';
import {
  isScheduleError,
  type NextRun,
  nextRun,
  parseCron,
  type ScheduleSpec,
  validateTimeZone,
} from '../../functions/schedule/index.ts';
import type { FileCalendars } from './calendar-definitions.ts';
import type { ConfigIssueCode } from './config-error.ts';
import { withCronHint } from './cron-hint.ts';
import type { IssueCollector } from './issue-collector.ts';
import { jobTiming, oneShotProblems, type TimingProblem } from './job-timing.ts';
import { isLocalDateTime } from './local-times.ts';
import { hasValue, isPlainObject } from './raw-data.ts';
import { atJobSchema, GAP_POLICIES, jobSchema, OVERLAP_POLICIES, type RawJob } from './schema.ts';
import type { YamlPath } from './source-positions.ts';

/**
 * The built-in defaults (architecture §2), in the file's own notation. The file's `defaults:`
 * block is merged over these, and each job over that.
 */
export const BUILTIN_JOB_DEFAULTS = {
  payload: null,
  catchup: { policy: 'all', window: '24h', maxRuns: 100 },
  retry: { maxAttempts: 3 },
  concurrency: 'allow',
  maxRuntime: '1h',
  enabled: true,
  alarm: { grace: '5m', dedicated: false },
} as const;

/** Fields whose mappings merge key by key (`defaults.catchup.window` + `job.catchup.policy`). */
const MERGED_FIELDS = new Set(['dst', 'target', 'catchup', 'retry', 'alarm']);

/**
 * An instant the engine is asked for a first occurrence after, to prove a schedule can run.
 * Fixed, so that loading a file never depends on the clock.
 */
const PROBE_INSTANT = new Date('2000-01-01T00:00:00.000Z');

const SECONDS_PER_DAY = 86_400;

/** What {@link parseJobs} reads. */
export interface RawJobsInput {
  readonly rawJobs: readonly unknown[];
  readonly rawDefaults: unknown;
  readonly retentionDays: number;
  /** The file's calendars, for the jobs' `calendar:`. */
  readonly calendars: FileCalendars;
  readonly collector: IssueCollector;
}

/**
 * Every job that parses, defaults applied; the problems of the others go to the collector.
 *
 * The jobs come back in the file's order, so the cross-job rules and the stack see them as
 * written.
 */
export function parseJobs(input: RawJobsInput): JobDefinition[] {
  const jobs: JobDefinition[] = [];
  const firstIndexById = new Map<string, number>();
  input.rawJobs.forEach((rawJob: unknown, index: number) => {
    const jobId = isPlainObject(rawJob) && typeof rawJob.id === 'string' ? rawJob.id : undefined;
    if (jobId !== undefined) checkUniqueId(jobId, index, firstIndexById, input.collector);
    const job = parseJob(input, rawJob, index, jobId);
    if (job) jobs.push(job);
  });
  return jobs;
}

function checkUniqueId(
  jobId: string,
  index: number,
  firstIndexById: Map<string, number>,
  collector: IssueCollector,
): void {
  const first = firstIndexById.get(jobId);
  if (first === undefined) {
    firstIndexById.set(jobId, index);
    return;
  }
  const firstAt = collector.position(['jobs', first, 'id']);
  collector.addAt(['jobs', index, 'id'], {
    jobId,
    code: 'duplicate-id',
    message: `duplicate job id '${jobId}' (first defined at line ${firstAt.line}); ids must be unique`,
  });
}

/** One job: defaults merged, judged by the engine and the schema, checked against retention. */
function parseJob(
  input: RawJobsInput,
  rawJob: unknown,
  index: number,
  jobId: string | undefined,
): JobDefinition | undefined {
  const { rawDefaults, retentionDays, collector } = input;
  const prefix = ['jobs', index] as const;
  const report = (problem: TimingProblem | EngineProblem) =>
    collector.addJobField(prefix, problem.field, jobId, problem, rawJob, rawDefaults);
  const merged = isPlainObject(rawJob)
    ? oneShotMerged(
        mergeJob(
          mergeJob(BUILTIN_JOB_DEFAULTS, isPlainObject(rawDefaults) ? rawDefaults : {}),
          rawJob,
        ),
        rawJob,
      )
    : { value: rawJob, problems: [] };
  merged.problems.forEach(report);
  // The engine judges schedule and zone even when other fields are wrong: all problems at once.
  const engineProblems = isPlainObject(merged.value) ? engineIssues(merged.value, jobId) : [];
  engineProblems.forEach(report);
  const oneShot = isPlainObject(merged.value) && merged.value.at !== undefined;
  const parsed = (oneShot ? atJobSchema : jobSchema).safeParse(merged.value, {
    reportInput: true,
  });
  if (!parsed.success) {
    collector.addZod(parsed.error.issues, prefix, jobId, rawJob, rawDefaults);
    return undefined;
  }
  if (engineProblems.length > 0 || merged.problems.length > 0) return undefined;
  const timing = jobTiming(parsed.data, input.calendars);
  if (!timing.ok) {
    timing.problems.forEach(report);
    return undefined;
  }
  const job: JobDefinition = { ...toJobDefinition(parsed.data), ...timing.fields };
  const runProblems = oneShotProblems(job);
  runProblems.forEach(report);
  if (runProblems.length > 0) return undefined;
  if (job.catchup.windowSeconds >= retentionDays * SECONDS_PER_DAY) {
    report({
      field: ['catchup', 'window'],
      message: `must be shorter than the ledger retention (${retentionDays} days), or runs older than the retention could run twice`,
      code: 'conflict',
    });
  }
  return job;
}

/** The fields `at:` does not go with: it names one run, they a series or its bounds. */
const NOT_WITH_AT = ['schedule', 'from', 'until'] as const;

/**
 * A job with `at:`: its own `schedule`, `from` or `until` conflict with it; a `schedule` it
 * inherits from `defaults:` is dropped, and the engine judges the expression of its local slot.
 */
function oneShotMerged(
  merged: Record<string, unknown>,
  rawJob: Record<string, unknown>,
): { value: Record<string, unknown>; problems: TimingProblem[] } {
  if (merged.at === undefined) return { value: merged, problems: [] };
  const problems = NOT_WITH_AT.filter((field) => hasValue(rawJob, [field])).map(
    (field): TimingProblem => ({
      field: [field],
      message: `at: is one run at a local date-time and does not go with ${field}: (remove one of them)`,
      code: 'conflict',
    }),
  );
  const { schedule: _inherited, ...rest } = merged;
  return { value: rest, problems };
}

/** A problem the engine found in one field of a job. */
interface EngineProblem {
  readonly field: YamlPath;
  readonly message: string;
  readonly code: ConfigIssueCode;
}

/**
 * Checks what only the engine knows: the schedule's syntax, the zone, and that the schedule
 * ever runs. Fields that are not strings are left to the schema.
 */
function engineIssues(job: Record<string, unknown>, jobId: string | undefined): EngineProblem[] {
  const problems: EngineProblem[] = [];
  const attempt = (
    field: YamlPath,
    code: ConfigIssueCode,
    check: () => void,
    describe: (message: string) => string = (message) => message,
  ): boolean => {
    try {
      check();
      return true;
    } catch (error) {
      if (!isScheduleError(error)) throw error;
      problems.push({ field, message: describe(error.message), code });
      return false;
    }
  };
  const { timezone, dst } = job;
  // An `at` job's expression is derived from a value the schema checks; the zone and DST still count.
  const schedule =
    typeof job.at === 'string' && isLocalDateTime(job.at)
      ? oneShotSchedule(job.at).schedule
      : job.schedule;
  const cronOk =
    typeof schedule === 'string' &&
    attempt(
      ['schedule'],
      'invalid-schedule',
      () => parseCron(schedule, jobId),
      (message) => withCronHint(message, schedule),
    );
  const zoneOk =
    typeof timezone === 'string' &&
    attempt(['timezone'], 'invalid-timezone', () => validateTimeZone(timezone));
  const dstOk = dst === undefined || (isPlainObject(dst) && validDst(dst));
  if (cronOk && zoneOk && dstOk) {
    const spec = {
      cron: schedule,
      timezone,
      ...(jobId !== undefined ? { jobId } : {}),
      ...(dst !== undefined ? { dst: dst as NonNullable<ScheduleSpec['dst']> } : {}),
    };
    let answer: NextRun | undefined;
    attempt(['schedule'], 'invalid-schedule', () => {
      answer = nextRun(spec, PROBE_INSTANT);
    });
    if (answer?.kind === 'never') {
      problems.push({
        field: ['schedule'],
        message: `'${schedule}' never runs: ${answer.reason.message}`,
        code: 'never-runs',
      });
    }
  }
  return problems;
}

function validDst(dst: Record<string, unknown>): boolean {
  return Object.entries(dst).every(([key, value]) =>
    key === 'gap'
      ? (GAP_POLICIES as readonly unknown[]).includes(value)
      : key === 'overlap' && (OVERLAP_POLICIES as readonly unknown[]).includes(value),
  );
}

function toJobDefinition(raw: RawJob): JobDefinition {
  const { catchup, retry } = BUILTIN_JOB_DEFAULTS;
  const dst =
    raw.dst && (raw.dst.gap !== undefined || raw.dst.overlap !== undefined)
      ? {
          ...(raw.dst.gap !== undefined ? { gap: raw.dst.gap } : {}),
          ...(raw.dst.overlap !== undefined ? { overlap: raw.dst.overlap } : {}),
        }
      : undefined;
  return {
    id: raw.id,
    description: raw.description,
    schedule: raw.schedule ?? '',
    timezone: raw.timezone,
    ...(dst ? { dst } : {}),
    target: { type: raw.target.type, arn: raw.target.arn },
    payload: raw.payload ?? null,
    catchup: {
      policy: raw.catchup?.policy ?? catchup.policy,
      windowSeconds: filled(raw.catchup?.window),
      maxRuns: raw.catchup?.maxRuns ?? catchup.maxRuns,
    },
    retry: { maxAttempts: raw.retry?.maxAttempts ?? retry.maxAttempts },
    concurrency: raw.concurrency ?? 'allow',
    maxRuntimeSeconds: filled(raw.maxRuntime),
    enabled: raw.enabled ?? true,
    alarm: { graceSeconds: filled(raw.alarm?.grace), dedicated: raw.alarm?.dedicated ?? false },
  };
}

/** `BUILTIN_JOB_DEFAULTS` fills every duration before validation; absence is a loader bug. */
function filled<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('internal: a built-in default was not applied');
  return value;
}

/**
 * Merges `over` onto `base`: mappings of `MERGED_FIELDS` key by key, anything else (including
 * `payload`, which is opaque JSON) replaced whole.
 */
function mergeJob(
  base: Readonly<Record<string, unknown>>,
  over: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = merged[key];
    merged[key] =
      MERGED_FIELDS.has(key) && isPlainObject(under) && isPlainObject(value)
        ? { ...under, ...value }
        : value;
  }
  return merged;
}
