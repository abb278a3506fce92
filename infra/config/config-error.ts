/**
 * The error every problem in `jobs.yaml` becomes: a list of issues, each pointing at a file,
 * line and column.
 *
 * The loader collects every problem before it throws, so one `cdk synth` shows all of them.
 */

import { InfraError } from '../errors/infra-error.ts';

/**
 * What kind of problem an issue is, for programs that read `zonecron validate --json`:
 *
 * - `unreadable`: the file is missing or cannot be read;
 * - `not-text`: the file is binary or not UTF-8;
 * - `yaml`: not valid YAML;
 * - `missing-field`, `unknown-field`: a required key absent, a key that is not allowed;
 * - `invalid-value`: a value of the wrong type, out of range or not one of the choices;
 * - `invalid-schedule`, `invalid-timezone`: refused by the engine (`schedule`, `timezone`);
 * - `never-runs`: a valid schedule that never runs (`0 0 30 2 *`);
 * - `duplicate-id`: a job id used twice;
 * - `unknown-calendar`: a job's `calendar:` names no calendar under `calendars:`;
 * - `unknown-holidays`: a calendar's `holidays:` is no code of the holiday data set;
 * - `conflict`: values that are each valid but not together (a catch-up window longer than
 *   the retention, targets in different accounts);
 * - `limit`: more of something than the stack allows (dedicated alarms);
 * - `past` (a warning, never an error): an `until:` or `at:` that has passed.
 */
export type ConfigIssueCode =
  | 'unreadable'
  | 'not-text'
  | 'yaml'
  | 'missing-field'
  | 'unknown-field'
  | 'invalid-value'
  | 'invalid-schedule'
  | 'invalid-timezone'
  | 'never-runs'
  | 'duplicate-id'
  | 'unknown-calendar'
  | 'unknown-holidays'
  | 'conflict'
  | 'limit'
  | 'past';

/** One problem in a jobs file. */
export interface ConfigIssue {
  readonly file: string;
  /** 1-based; 0 when the problem concerns the whole file (e.g. it cannot be read). */
  readonly line: number;
  /** 1-based; 0 together with `line`. */
  readonly column: number;
  /** The id of the job the problem belongs to, when it belongs to one that has an id. */
  readonly jobId?: string;
  /**
   * Dotted path of the offending field, relative to the job when `jobId` is set
   * (`target.type`), otherwise from the top of the file (`jobs[2].id`, `retention.days`).
   * Empty for problems of the file as a whole (unreadable, YAML syntax).
   */
  readonly field: string;
  /** Lowercase, shows the offending value (cut to 60 characters) and what is allowed. */
  readonly message: string;
  /** What kind of problem it is. */
  readonly code: ConfigIssueCode;
}

const BRAND = Symbol.for('zonecron.ConfigError');

/**
 * Renders one issue the way compilers do, so editors and CI logs can link to it.
 *
 * @example
 * formatConfigIssue({ file: 'jobs.yaml', line: 12, column: 11, jobId: 'nightly',
 *   field: 'target.type', message: 'must be one of lambda, sqs, sns, eventbridge, stepfunctions',
 *   code: 'invalid-value' })
 * //=> "jobs.yaml:12:11: job 'nightly': field 'target.type': must be one of lambda, sqs, sns, eventbridge, stepfunctions"
 */
export function formatConfigIssue(issue: ConfigIssue): string {
  const where = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.column}` : issue.file;
  const job = issue.jobId === undefined ? '' : ` job '${issue.jobId}':`;
  const field = issue.field === '' ? '' : ` field '${issue.field}':`;
  return `${where}:${job}${field} ${issue.message}`;
}

/**
 * `jobs.yaml` is missing, unreadable, not YAML, or describes an invalid job.
 *
 * `issues` holds every problem found, in file order; the message lists them one per line as
 * `file:line:column: job 'id': field 'x': what is wrong and what is allowed`.
 */
export class ConfigError extends InfraError {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[], options?: { cause?: unknown }) {
    super(issues.map(formatConfigIssue).join('\n'), options);
    this.issues = issues;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * Recognises a `ConfigError`, also one thrown by another loaded copy of this module (the CLI
 * and the CDK app may each load their own).
 *
 * @example
 * isConfigError(new ConfigError([])) //=> true
 * isConfigError(new Error('x'))      //=> false
 */
export function isConfigError(value: unknown): value is ConfigError {
  return value instanceof Error && (value as unknown as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * The error for a file that cannot be read at all: one issue about the whole file, naming
 * what the file is for (`jobs file`, `fault plan`) and why.
 *
 * @example
 * unreadableFileError('jobs.yaml', 'jobs file', enoent).issues[0].message
 * //=> 'jobs file: no such file'
 */
export function unreadableFileError(path: string, what: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'no such file' : `cannot read it (${code ?? String(error)})`;
  const issue: ConfigIssue = {
    file: path,
    line: 0,
    column: 0,
    field: '',
    message: `${what}: ${reason}`,
    code: 'unreadable',
  };
  return new ConfigError([issue], { cause: error });
}
