/**
 * The rules a jobs file must keep across its jobs, once every job has parsed: a declarative
 * list, each rule with its name, what it checks and the issue it raises.
 *
 * They run only when the file as a whole passed the schema, since each reads settings outside
 * the jobs (`completion:`, `environment:`, `alarms:`). Unique ids are checked as the jobs are
 * read instead (`job-definitions.ts`), because a job the schema refuses still takes its id.
 */
import { type JobDefinition, scheduleSpecOf, tracksCompletion } from '#jobs/job.ts';
import { lambdaTargetRef } from '#jobs/target-arn.ts';
import { iterateOccurrences, type ScheduleSpec } from '../../functions/schedule/index.ts';
import type { ConfigIssueCode } from './config-error.ts';
import { formatDurationSeconds } from './duration.ts';
import type { IssueCollector } from './issue-collector.ts';
import type { CompletionConfig } from './jobs-config.ts';
import { jobIndex } from './raw-data.ts';
import { MAX_DEDICATED_ALARM_JOBS } from './schema.ts';
import type { YamlPath } from './source-positions.ts';
import { requiredEnvironment } from './target-environment.ts';

/** What every cross-job rule reads: the parsed jobs, the file's settings and its raw data. */
export interface CrossJobInput {
  readonly jobs: readonly JobDefinition[];
  readonly completion: CompletionConfig;
  readonly alarmTopicArn: string | undefined;
  readonly environment: { account: string; region: string } | undefined;
  /** The file's `jobs:` list as parsed, to locate a job's fields. */
  readonly rawJobs: readonly unknown[];
  /** The file's `defaults:` block as parsed, for fields a job inherits. */
  readonly rawDefaults: unknown;
}

/**
 * One problem a rule found: a field of a job (located in the job, or in `defaults:` when the
 * job inherits it), or a path from the top of the file.
 */
export type RuleFinding =
  | { readonly jobId: string; readonly field: YamlPath; readonly message: string }
  | { readonly path: YamlPath; readonly message: string };

/** A rule across the jobs of a file. */
export interface CrossJobRule {
  /** A short name, kebab-case. */
  readonly name: string;
  /** What it checks, one sentence. */
  readonly checks: string;
  /** The code of every issue it raises. */
  readonly code: ConfigIssueCode;
  /** The problems it finds, in the order they are reported. */
  readonly find: (input: CrossJobInput) => readonly RuleFinding[];
}

/**
 * How many of a job's next runs the `forbid-without-completion` rule looks at, and how far
 * ahead at most: four years hold every gap a schedule's DST nights, month lengths and leap day
 * make, and a sparse job (a calendar's last business day) is not walked for centuries.
 */
const FORBID_SAMPLE_RUNS = 2_000;
const FORBID_SAMPLE_MS = 4 * 366 * 86_400_000;

/** The rules, in the order they run. */
export const CROSS_JOB_RULES: readonly CrossJobRule[] = [
  {
    name: 'dedicated-alarm-cap',
    checks: `at most ${MAX_DEDICATED_ALARM_JOBS} enabled jobs have alarm.dedicated: true`,
    code: 'limit',
    find: dedicatedOverCap,
  },
  {
    name: 'one-environment',
    checks:
      'every lambda and stepfunctions target and the alarm topic are where the stack is deployed',
    code: 'conflict',
    find: environmentConflicts,
  },
  {
    name: 'existing-invoke-configs',
    checks: 'each completion.existingInvokeConfigs entry names a lambda target of an enabled job',
    code: 'conflict',
    find: unknownExistingInvokeConfigs,
  },
  {
    name: 'forbid-without-completion',
    checks: 'concurrency: forbid with a target that never reports completion does not skip runs',
    code: 'conflict',
    find: forbidHoldingRuns,
  },
];

/** Runs every rule of {@link CROSS_JOB_RULES} and reports what each finds to `collector`. */
export function applyCrossJobRules(input: CrossJobInput, collector: IssueCollector): void {
  for (const rule of CROSS_JOB_RULES) {
    for (const finding of rule.find(input)) {
      const problem = { message: finding.message, code: rule.code };
      if ('path' in finding) {
        collector.addAt(finding.path, problem);
        continue;
      }
      const index = jobIndex(input.rawJobs, finding.jobId);
      const { rawDefaults } = input;
      collector.addJobField(
        ['jobs', index],
        finding.field,
        finding.jobId,
        problem,
        input.rawJobs[index],
        rawDefaults,
      );
    }
  }
}

/**
 * At most `MAX_DEDICATED_ALARM_JOBS` enabled jobs may have alarms of their own: each costs
 * five or six CloudWatch alarms and its own metrics every month, while the stack-wide alarms
 * already cover every job.
 */
function dedicatedOverCap({ jobs }: CrossJobInput): RuleFinding[] {
  const dedicated = jobs.filter((job) => job.enabled && job.alarm.dedicated);
  return dedicated.slice(MAX_DEDICATED_ALARM_JOBS).map((job) => ({
    jobId: job.id,
    field: ['alarm', 'dedicated'],
    message: `${dedicated.length} enabled jobs have alarm.dedicated: true, at most ${MAX_DEDICATED_ALARM_JOBS} may: each adds 5 or 6 CloudWatch alarms ($0.10 a month each) and metrics of its own, and the stack-wide alarms already page for every job; keep it for the jobs whose failures need a page naming them`,
  }));
}

/** Every `lambda`/`stepfunctions` target and the topic where the stack is deployed. */
function environmentConflicts(input: CrossJobInput): RuleFinding[] {
  const { conflicts } = requiredEnvironment({
    jobs: input.jobs,
    declared: input.environment,
    alarmTopicArn: input.alarmTopicArn,
  });
  return conflicts.map((conflict) =>
    conflict.job
      ? { jobId: conflict.job.id, field: ['target', 'arn'], message: conflict.message }
      : { path: ['alarms', 'topicArn'], message: conflict.message },
  );
}

/** Each `completion.existingInvokeConfigs` entry names a `lambda` target of an enabled job. */
function unknownExistingInvokeConfigs({ jobs, completion }: CrossJobInput): RuleFinding[] {
  if (completion.lambdaInvokeConfig === 'existing' && completion.existingInvokeConfigs.length > 0) {
    return [
      {
        path: ['completion', 'existingInvokeConfigs'],
        message:
          'lists functions whose invoke config is managed elsewhere, but lambdaInvokeConfig: existing already says that of every function; remove one of the two',
      },
    ];
  }
  const targets = new Set(
    jobs
      .filter((job) => job.enabled && job.target.type === 'lambda')
      .map((job) => lambdaTargetRef(job.target.arn).key),
  );
  return completion.existingInvokeConfigs.flatMap((key, index) =>
    targets.has(key)
      ? []
      : [
          {
            path: ['completion', 'existingInvokeConfigs', index],
            message: `'${key}' is not the function and qualifier of any enabled lambda target (an unqualified ARN means $LATEST); list the ARN exactly as the jobs target it`,
          },
        ],
  );
}

/**
 * `concurrency: forbid` with a target that never reports completion (`sqs`, `sns`,
 * `eventbridge`) holds each run's slot for the whole `maxRuntime`: zonecron is not told when
 * a consumer finishes. Refused when runs come closer together than that, because every run
 * inside the hold would be skipped (a `*\/15` job with the default 1h would skip 3 in 4).
 */
function forbidHoldingRuns({ jobs }: CrossJobInput): RuleFinding[] {
  const findings: RuleFinding[] = [];
  for (const job of jobs) {
    if (job.concurrency !== 'forbid' || tracksCompletion(job)) continue;
    const gapSeconds = gapUnderMaxRuntime(job);
    if (gapSeconds === undefined) continue;
    const skipped = Math.ceil(job.maxRuntimeSeconds / gapSeconds) - 1;
    findings.push({
      jobId: job.id,
      field: ['concurrency'],
      message: `forbid with a ${job.target.type} target holds each run for maxRuntime (${formatDurationSeconds(job.maxRuntimeSeconds)}), because a ${job.target.type} target never says when its consumer finished; this job runs as often as every ${formatDurationSeconds(gapSeconds)}, so up to ${skipped} run${skipped === 1 ? '' : 's'} in a row would be skipped. Set maxRuntime to at most ${formatDurationSeconds(gapSeconds)}, use concurrency: allow, or a lambda or stepfunctions target`,
    });
  }
  return findings;
}

/**
 * The shortest time between two of the job's runs when it is shorter than its `maxRuntime`,
 * else undefined. Bounds and a calendar that only removes runs (`onClosed: skip`, a
 * `businessDay`) leave a subset of the expression's runs, whose gaps are no shorter: the bare
 * expression answers first, and the calendar's holidays are computed only when its gaps are
 * too short.
 */
function gapUnderMaxRuntime(job: JobDefinition): number | undefined {
  const spec = scheduleSpecOf(job);
  const { calendar: _calendar, from: _from, until: _until, ...bare } = spec;
  const onlyRemoves = (job.calendar?.onClosed ?? 'skip') === 'skip';
  if (onlyRemoves && (shortestGapSeconds(bare) ?? Infinity) >= job.maxRuntimeSeconds) {
    return undefined;
  }
  const gapSeconds = shortestGapSeconds(spec);
  return gapSeconds !== undefined && gapSeconds < job.maxRuntimeSeconds ? gapSeconds : undefined;
}

/** The shortest time between two consecutive runs among the schedule's next runs from now. */
function shortestGapSeconds(spec: ScheduleSpec): number | undefined {
  const now = new Date();
  const untilMs = now.getTime() + FORBID_SAMPLE_MS;
  let previousMs: number | undefined;
  let shortest: number | undefined;
  let seen = 0;
  for (const run of iterateOccurrences(spec, now)) {
    const atMs = run.at.getTime();
    if (atMs > untilMs || ++seen > FORBID_SAMPLE_RUNS) break;
    if (previousMs !== undefined) {
      const gap = (atMs - previousMs) / 1000;
      shortest = shortest === undefined ? gap : Math.min(shortest, gap);
    }
    previousMs = atMs;
  }
  return shortest;
}
