/**
 * Loads `jobs.yaml` into validated `JobDefinition`s: every field checked by zod, every schedule
 * and zone checked by the engine, every problem reported with its file, line and column.
 *
 * It never returns a half-valid config: one problem anywhere and it throws a `ConfigError`
 * that lists all of them. The stack, the dispatcher bundle and the CLI all load the file through
 * here, so they can never disagree about what a job means.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { type Document, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { DEFAULT_RETENTION_DAYS } from '#shared/defaults.ts';
import { type JobDefinition, scheduleSpecOf, tracksCompletion } from '#shared/job.ts';
import { lambdaTargetRef } from '#shared/target-arn.ts';
import {
  closestName,
  excerpt,
  isScheduleError,
  nextOccurrences,
  parseCron,
  type ScheduleSpec,
  validateTimeZone,
} from '../../functions/schedule/index.ts';
import {
  ConfigError,
  type ConfigIssue,
  type ConfigIssueCode,
  isConfigError,
} from './config-error.ts';
import { withCronHint } from './cron-hint.ts';
import { formatDurationSeconds } from './duration.ts';
import {
  defaultsSchema,
  fileSchema,
  GAP_POLICIES,
  jobSchema,
  MAX_DEDICATED_ALARM_JOBS,
  OVERLAP_POLICIES,
  UNKNOWN_KEYS_PREFIX,
} from './schema.ts';
import { positionOf, type YamlPath } from './source-positions.ts';
import { requiredEnvironment } from './target-environment.ts';

export { ConfigError, type ConfigIssue, type ConfigIssueCode, isConfigError };

/** What `jobs.yaml` describes, validated, with every default applied. */
export interface JobsConfig {
  /** The file it came from, as given. */
  readonly file: string;
  readonly jobs: JobDefinition[];
  /** Subscribers of the on-call SNS topic (`alarms.email`); may be empty. */
  readonly alarmEmails: string[];
  /** Days the ledger keeps a run (`retention.days`). */
  readonly retentionDays: number;
  /**
   * An existing on-call topic (`alarms.topicArn`): the stack then creates no topic and no key.
   *
   * @default - the stack creates its own encrypted topic
   */
  readonly alarmTopicArn?: string;
  /** How completion of `lambda` targets is wired (`completion:`). */
  readonly completion: CompletionConfig;
  /**
   * The account and region the stack must be deployed to (`environment:`).
   *
   * @default - what the `lambda` and `stepfunctions` targets agree on
   */
  readonly environment?: { readonly account: string; readonly region: string };
}

/** `completion:` of jobs.yaml, defaults applied. */
export interface CompletionConfig {
  /**
   * `create`: the stack creates the asynchronous invoke config (destinations) of every `lambda`
   * target function and qualifier; `existing`: it creates none, they are managed elsewhere.
   */
  readonly lambdaInvokeConfig: 'create' | 'existing';
  /**
   * With `create`: functions (`functionArn:qualifier`, `$LATEST` when unqualified) whose invoke
   * config another stack or team manages, so this stack creates none for them.
   */
  readonly existingInvokeConfigs: readonly string[];
}

/** The file the CDK app and the CLI read unless told otherwise (`-c jobs=…`, `--jobs`). */
export const DEFAULT_JOBS_FILE = 'jobs.yaml';

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

/**
 * Reads and validates a jobs file.
 *
 * Throws `ConfigError` when the file is missing or unreadable, too.
 *
 * @example
 * const config = loadJobsFile('jobs.yaml');
 * config.jobs[0]?.catchup //=> { policy: 'all', windowSeconds: 86400, maxRuns: 100 }
 */
export function loadJobsFile(path: string): JobsConfig {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? String(error)})`;
    throw new ConfigError(
      [
        {
          file: path,
          line: 0,
          column: 0,
          field: '',
          message: `jobs file: ${reason}`,
          code: 'unreadable',
        },
      ],
      { cause: error },
    );
  }
  return parseJobsConfig(textOf(bytes, path), path);
}

/**
 * The file's bytes as text, or a `ConfigError` saying it is not UTF-8 text, without
 * repeating any of its bytes: a binary file (one with a NUL byte) is named as such, and the
 * first byte that is not UTF-8 is located by line and column.
 */
function textOf(bytes: Buffer, path: string): string {
  const issue = { file: path, field: '', code: 'not-text' as const };
  const nul = bytes.indexOf(0);
  if (nul !== -1) {
    const message = `jobs file: not a text file (a NUL byte at offset ${nul}); a jobs file is YAML in UTF-8`;
    throw new ConfigError([{ ...issue, line: 0, column: 0, message }]);
  }
  if (isUtf8(bytes)) return bytes.toString('utf8');
  const text = new TextDecoder('utf-8').decode(bytes);
  const at = text.indexOf('\uFFFD');
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const byte = `0x${(bytes[Buffer.byteLength(before)] ?? 0).toString(16).padStart(2, '0')}`;
  const message = `not a UTF-8 text file (byte ${byte} here is not UTF-8); save it as UTF-8`;
  throw new ConfigError([{ ...issue, line, column, message }]);
}

/**
 * Validates the text of a jobs file; `fileName` is only used in messages and `JobsConfig.file`.
 *
 * @example
 * parseJobsConfig(`
 * jobs:
 *   - id: nightly
 *     description: Nightly report
 *     schedule: '30 2 * * *'
 *     timezone: Europe/Berlin
 *     target: { type: lambda, arn: 'arn:aws:lambda:eu-west-1:123456789012:function:report' }
 * `, 'jobs.yaml').jobs[0]?.maxRuntimeSeconds //=> 3600
 */
export function parseJobsConfig(text: string, fileName: string): JobsConfig {
  const { data, collector } = readDocument(text, fileName);
  const file = fileSchema.safeParse(data ?? undefined, { reportInput: true });
  if (!file.success) collector.addZod(file.error.issues, []);

  const root = isPlainObject(data) ? data : {};
  const rawDefaults = root.defaults;
  if (rawDefaults !== undefined) {
    const parsed = defaultsSchema.safeParse(rawDefaults, { reportInput: true });
    if (!parsed.success) collector.addZod(parsed.error.issues, ['defaults']);
  }
  const fileData = file.success ? file.data : undefined;
  const retentionDays = fileData?.retention?.days ?? DEFAULT_RETENTION_DAYS;
  const rawJobs = Array.isArray(root.jobs) ? root.jobs : [];
  const jobs = parseJobs({ rawJobs, rawDefaults, retentionDays, collector });

  const completion: CompletionConfig = {
    lambdaInvokeConfig: fileData?.completion?.lambdaInvokeConfig ?? 'create',
    existingInvokeConfigs: (fileData?.completion?.existingInvokeConfigs ?? []).map(
      (arn) => lambdaTargetRef(arn).key,
    ),
  };
  const alarmTopicArn = fileData?.alarms?.topicArn;
  const environment = fileData?.environment;
  if (file.success) {
    checkDedicatedCap(jobs, collector, rawJobs, rawDefaults);
    checkEnvironment(jobs, { alarmTopicArn, environment }, collector, rawJobs, rawDefaults);
    checkExistingInvokeConfigs(jobs, completion, collector);
    checkForbidWithoutCompletion(jobs, collector, rawJobs, rawDefaults);
  }

  if (collector.hasIssues()) throw collector.error();
  return {
    file: fileName,
    jobs,
    alarmEmails: fileData?.alarms?.email ?? [],
    retentionDays,
    completion,
    ...(alarmTopicArn === undefined ? {} : { alarmTopicArn }),
    ...(environment === undefined ? {} : { environment }),
  };
}

/** The YAML document as plain data, or every syntax problem at once (thrown). */
function readDocument(
  text: string,
  fileName: string,
): { data: unknown; collector: IssueCollector } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true });
  const collector = new IssueCollector(fileName, doc, lineCounter);
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      collector.add({
        line,
        column: col,
        field: '',
        message: yamlMessage(error.message),
        code: 'yaml',
      });
    }
    throw collector.error();
  }
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }), collector };
  } catch (error) {
    // e.g. an alias bomb ("excessive alias count") or an alias to nothing
    const message = error instanceof Error ? error.message : String(error);
    collector.add({ line: 1, column: 1, field: '', message: yamlMessage(message), code: 'yaml' });
    throw collector.error(error);
  }
}

/** What {@link parseJobs} reads. */
interface RawJobsInput {
  readonly rawJobs: readonly unknown[];
  readonly rawDefaults: unknown;
  readonly retentionDays: number;
  readonly collector: IssueCollector;
}

/** Every job that parses, defaults applied; the problems of the others go to the collector. */
function parseJobs(input: RawJobsInput): JobDefinition[] {
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
  const merged = isPlainObject(rawJob)
    ? mergeJob(
        mergeJob(BUILTIN_JOB_DEFAULTS, isPlainObject(rawDefaults) ? rawDefaults : {}),
        rawJob,
      )
    : rawJob;
  // The engine judges schedule and zone even when other fields are wrong: all problems at once.
  const engineProblems = isPlainObject(merged) ? engineIssues(merged, jobId) : [];
  for (const problem of engineProblems) {
    collector.addJobField(prefix, problem.field, jobId, problem, rawJob, rawDefaults);
  }
  const parsed = jobSchema.safeParse(merged, { reportInput: true });
  if (!parsed.success) {
    collector.addZod(parsed.error.issues, prefix, jobId, rawJob, rawDefaults);
    return undefined;
  }
  const job = toJobDefinition(parsed.data);
  if (job.catchup.windowSeconds >= retentionDays * SECONDS_PER_DAY) {
    collector.addJobField(
      prefix,
      ['catchup', 'window'],
      job.id,
      {
        message: `must be shorter than the ledger retention (${retentionDays} days), or runs older than the retention could run twice`,
        code: 'conflict',
      },
      rawJob,
      rawDefaults,
    );
  }
  return job;
}

/** Where a job sits in the file, by its id, for the checks that run after every job parsed. */
function jobIndex(rawJobs: readonly unknown[], jobId: string): number {
  return rawJobs.findIndex((raw) => isPlainObject(raw) && raw.id === jobId);
}

/**
 * At most `MAX_DEDICATED_ALARM_JOBS` enabled jobs may have alarms of their own: each costs
 * five or six CloudWatch alarms and its own metrics every month, while the stack-wide alarms
 * already cover every job.
 */
function checkDedicatedCap(
  jobs: readonly JobDefinition[],
  collector: IssueCollector,
  rawJobs: readonly unknown[],
  rawDefaults: unknown,
): void {
  const dedicated = jobs.filter((job) => job.enabled && job.alarm.dedicated);
  for (const job of dedicated.slice(MAX_DEDICATED_ALARM_JOBS)) {
    const index = jobIndex(rawJobs, job.id);
    collector.addJobField(
      ['jobs', index],
      ['alarm', 'dedicated'],
      job.id,
      {
        message: `${dedicated.length} enabled jobs have alarm.dedicated: true, at most ${MAX_DEDICATED_ALARM_JOBS} may: each adds 5 or 6 CloudWatch alarms ($0.10 a month each) and metrics of its own, and the stack-wide alarms already page for every job; keep it for the jobs whose failures need a page naming them`,
        code: 'limit',
      },
      rawJobs[index],
      rawDefaults,
    );
  }
}

/** Every `lambda`/`stepfunctions` target and the topic where the stack is deployed. */
function checkEnvironment(
  jobs: readonly JobDefinition[],
  settings: {
    alarmTopicArn: string | undefined;
    environment: { account: string; region: string } | undefined;
  },
  collector: IssueCollector,
  rawJobs: readonly unknown[],
  rawDefaults: unknown,
): void {
  const { conflicts } = requiredEnvironment({
    jobs,
    declared: settings.environment,
    alarmTopicArn: settings.alarmTopicArn,
  });
  for (const conflict of conflicts) {
    if (conflict.job) {
      const index = jobIndex(rawJobs, conflict.job.id);
      collector.addJobField(
        ['jobs', index],
        ['target', 'arn'],
        conflict.job.id,
        { message: conflict.message, code: 'conflict' },
        rawJobs[index],
        rawDefaults,
      );
    } else {
      collector.addAt(['alarms', 'topicArn'], { message: conflict.message, code: 'conflict' });
    }
  }
}

/** Each `completion.existingInvokeConfigs` entry names a `lambda` target of an enabled job. */
function checkExistingInvokeConfigs(
  jobs: readonly JobDefinition[],
  completion: CompletionConfig,
  collector: IssueCollector,
): void {
  if (completion.lambdaInvokeConfig === 'existing' && completion.existingInvokeConfigs.length > 0) {
    collector.addAt(['completion', 'existingInvokeConfigs'], {
      code: 'conflict',
      message:
        'lists functions whose invoke config is managed elsewhere, but lambdaInvokeConfig: existing already says that of every function; remove one of the two',
    });
    return;
  }
  const targets = new Set(
    jobs
      .filter((job) => job.enabled && job.target.type === 'lambda')
      .map((job) => lambdaTargetRef(job.target.arn).key),
  );
  completion.existingInvokeConfigs.forEach((key, index) => {
    if (targets.has(key)) return;
    collector.addAt(['completion', 'existingInvokeConfigs', index], {
      code: 'conflict',
      message: `'${key}' is not the function and qualifier of any enabled lambda target (an unqualified ARN means $LATEST); list the ARN exactly as the jobs target it`,
    });
  });
}

/** How many of a job's next runs {@link checkForbidWithoutCompletion} looks at. */
const FORBID_SAMPLE_RUNS = 2_000;

/**
 * `concurrency: forbid` with a target that never reports completion (`sqs`, `sns`,
 * `eventbridge`) holds each run's slot for the whole `maxRuntime`: zonecron is not told when
 * a consumer finishes. Refused when runs come closer together than that, because every run
 * inside the hold would be skipped (a `*\/15` job with the default 1h would skip 3 in 4).
 */
function checkForbidWithoutCompletion(
  jobs: readonly JobDefinition[],
  collector: IssueCollector,
  rawJobs: readonly unknown[],
  rawDefaults: unknown,
): void {
  for (const job of jobs) {
    if (job.concurrency !== 'forbid' || tracksCompletion(job)) continue;
    const gapSeconds = shortestGapSeconds(job);
    if (gapSeconds === undefined || gapSeconds >= job.maxRuntimeSeconds) continue;
    const index = jobIndex(rawJobs, job.id);
    const skipped = Math.ceil(job.maxRuntimeSeconds / gapSeconds) - 1;
    collector.addJobField(
      ['jobs', index],
      ['concurrency'],
      job.id,
      {
        code: 'conflict',
        message: `forbid with a ${job.target.type} target holds each run for maxRuntime (${formatDurationSeconds(job.maxRuntimeSeconds)}), because a ${job.target.type} target never says when its consumer finished; this job runs as often as every ${formatDurationSeconds(gapSeconds)}, so up to ${skipped} run${skipped === 1 ? '' : 's'} in a row would be skipped. Set maxRuntime to at most ${formatDurationSeconds(gapSeconds)}, use concurrency: allow, or a lambda or stepfunctions target`,
      },
      rawJobs[index],
      rawDefaults,
    );
  }
}

/** The shortest time between two consecutive runs among the job's next runs from now. */
function shortestGapSeconds(job: JobDefinition): number | undefined {
  const runs = nextOccurrences(scheduleSpecOf(job), new Date(), FORBID_SAMPLE_RUNS);
  let shortest: number | undefined;
  for (let i = 1; i < runs.length; i++) {
    const gap = ((runs[i]?.at.getTime() ?? 0) - (runs[i - 1]?.at.getTime() ?? 0)) / 1000;
    shortest = shortest === undefined ? gap : Math.min(shortest, gap);
  }
  return shortest;
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
  const { schedule, timezone, dst } = job;
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
    let runs = 1;
    attempt(['schedule'], 'invalid-schedule', () => {
      runs = nextOccurrences(spec, PROBE_INSTANT, 1).length;
    });
    if (runs === 0) {
      problems.push({
        field: ['schedule'],
        message: `'${schedule}' never runs in ${timezone}`,
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

function toJobDefinition(raw: z.output<typeof jobSchema>): JobDefinition {
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
    schedule: raw.schedule,
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The YAML parser's message, one line, with any excerpt of the file in it cut short. */
function yamlMessage(message: string): string {
  const firstLine = message.split('\n')[0] ?? message;
  const trimmed = firstLine
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/\.$/, '')
    .replace(/"((?:[^"\\]|\\.)*)"/g, (_quoted, inner: string) => `"${excerpt(inner)}"`);
  return `invalid YAML: ${excerpt(`${trimmed.charAt(0).toLowerCase()}${trimmed.slice(1)}`, 240)}`;
}

/** "did you mean 'timezone'?" for a key one or two edits away from an allowed one. */
function suggestion(key: string, allowed: string[]): string {
  const best = closestName(key, allowed, { maxDistance: 2 });
  return best === undefined ? '' : `; did you mean '${best}'?`;
}

function formatPath(path: YamlPath): string {
  let text = '';
  for (const segment of path) {
    text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
  }
  return text;
}

/** Collects issues with their positions; throws them all at once. */
class IssueCollector {
  private readonly issues: ConfigIssue[] = [];
  /** `field|message` of problems reported inside `defaults:`, so jobs don't repeat them. */
  private readonly defaultsProblems = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly doc: Document,
    private readonly lineCounter: LineCounter,
  ) {}

  hasIssues(): boolean {
    return this.issues.length > 0;
  }

  position(path: YamlPath, pointAtKey = false) {
    return positionOf(this.doc, this.lineCounter, path, pointAtKey);
  }

  add(issue: Omit<ConfigIssue, 'file'>): void {
    this.issues.push({ file: this.file, ...issue });
  }

  /** An issue about `path` (from the top of the file); `field` is derived from it. */
  addAt(
    path: YamlPath,
    issue: { jobId?: string | undefined; message: string; code: ConfigIssueCode },
    pointAtKey = false,
  ): void {
    const { line, column } = this.position(path, pointAtKey);
    this.add({
      line,
      column,
      ...(issue.jobId !== undefined ? { jobId: issue.jobId } : {}),
      field: fieldName(path, issue.jobId),
      message: issue.message,
      code: issue.code,
    });
  }

  /**
   * An issue about a field of job `prefix`, located where its value came from: the job itself,
   * else the `defaults:` block, else the nearest part of the job that exists.
   */
  addJobField(
    prefix: YamlPath,
    field: YamlPath,
    jobId: string | undefined,
    problem: { message: string; code: ConfigIssueCode },
    rawJob: unknown,
    rawDefaults: unknown,
    pointAtKey = false,
  ): void {
    const { message, code } = problem;
    const inJob = [...prefix, ...field];
    const fromDefaults = !hasValue(rawJob, field) && hasValue(rawDefaults, field);
    // A problem of the defaults block itself was reported there, once.
    if (fromDefaults && this.defaultsProblems.has(`${formatPath(field)}|${message}`)) return;
    const located = fromDefaults ? ['defaults', ...field] : inJob;
    const { line, column } = this.position(located, pointAtKey);
    const suffix = fromDefaults ? ' (inherited from defaults)' : '';
    this.add({
      line,
      column,
      ...(jobId !== undefined ? { jobId } : {}),
      field: jobId !== undefined ? formatPath(field) : formatPath(inJob),
      message: `${message}${suffix}`,
      code,
    });
  }

  /** zod issues found under `prefix`; for a job, pass its id and raw data to locate them. */
  addZod(
    issues: readonly z.core.$ZodIssue[],
    prefix: YamlPath,
    jobId?: string,
    rawJob?: unknown,
    rawDefaults?: unknown,
  ): void {
    const isJob = prefix[0] === 'jobs' && prefix.length === 2;
    for (const issue of issues) {
      const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
      const entries =
        issue.code === 'unrecognized_keys'
          ? issue.keys.map((key) => ({
              path: [...path, key],
              message: unknownKeyMessage(key, issue.message),
              code: 'unknown-field' as const,
              atKey: true,
            }))
          : [{ path, message: issue.message, code: zodIssueCode(issue), atKey: false }];
      for (const entry of entries) {
        if (isJob) {
          this.addJobField(prefix, entry.path, jobId, entry, rawJob, rawDefaults, entry.atKey);
        } else {
          if (prefix[0] === 'defaults') {
            this.defaultsProblems.add(`${formatPath(entry.path)}|${entry.message}`);
          }
          this.addAt([...prefix, ...entry.path], entry, entry.atKey);
        }
      }
    }
  }

  error(cause?: unknown): ConfigError {
    const sorted = [...this.issues].sort((a, b) => a.line - b.line || a.column - b.column);
    return new ConfigError(sorted, cause === undefined ? undefined : { cause });
  }
}

/** A value that is absent is missing; anything else zod refuses is an invalid value. */
function zodIssueCode(issue: z.core.$ZodIssue): ConfigIssueCode {
  return issue.code === 'invalid_type' && issue.input === undefined
    ? 'missing-field'
    : 'invalid-value';
}

function unknownKeyMessage(key: string, zodMessage: string): string {
  if (!zodMessage.startsWith(UNKNOWN_KEYS_PREFIX)) return `unknown field '${key}'`;
  const allowed = zodMessage.slice(UNKNOWN_KEYS_PREFIX.length).split(', ');
  return `unknown field '${key}'${suggestion(key, allowed)} (allowed: ${allowed.join(', ')})`;
}

function fieldName(path: YamlPath, jobId: string | undefined): string {
  if (jobId !== undefined && path[0] === 'jobs' && typeof path[1] === 'number') {
    return formatPath(path.slice(2));
  }
  return formatPath(path);
}

function hasValue(root: unknown, path: YamlPath): boolean {
  let current: unknown = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') {
      if (segment >= current.length) return false;
      current = current[segment];
    } else if (isPlainObject(current) && Object.hasOwn(current, String(segment))) {
      current = current[String(segment)];
    } else {
      return false;
    }
  }
  return true;
}
