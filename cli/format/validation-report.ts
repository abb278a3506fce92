/**
 * What `zonecron validate` found, as data, and the one JSON document of `--json` (its schema
 * is in docs/cli.md, "zonecron validate"). The text report is `validation-text.ts`, loaded
 * only when it is printed.
 */
import type { ConfigIssue, ConfigIssueCode } from '../../infra/config/config-error.ts';
import type { ZoneDataReport } from '../zone-data/report.ts';
import type { HolidayDataInUse } from './config-warnings.ts';

/**
 * What kind of problem: one of the jobs file's (`ConfigIssueCode`), or `usage` (the command
 * line), `synth` (synthesis refused the app: cdk-nag, the stack name), `aws-limit` (a limit a
 * deploy would hit), `failure` (anything else that stopped the check).
 */
export type ProblemCode = ConfigIssueCode | 'usage' | 'synth' | 'aws-limit' | 'failure';

/** One problem, located in the file where it can be (`line` 0 when it concerns no line). */
export interface Problem {
  readonly file: string | null;
  readonly line: number;
  readonly column: number;
  readonly jobId: string | null;
  readonly field: string;
  readonly message: string;
  readonly code: ProblemCode;
}

/** One job as validate shows it. */
export interface CheckedJob {
  readonly job: {
    readonly id: string;
    readonly schedule: string;
    readonly timezone: string;
    readonly enabled: boolean;
    readonly target: { readonly type: string };
  };
  /** The expression in words. */
  readonly sentence: string;
  /** How to write the expression for zonecron, when it looks written for AWS or Quartz. */
  readonly hint: string | undefined;
  /** The UTC covering schedule a deploy creates; undefined for a disabled job. */
  readonly covering: { readonly awsExpression: string; readonly ticksPerRun: number } | undefined;
  /** What the DST changes of the coming year do to its runs. */
  readonly warnings: readonly { at: Date; kind: string; text: string }[];
}

/** What the deploy check found (also the `deploy` of `--json`). */
export interface DeployCheck {
  readonly stacks: string[];
  readonly largestTemplate: { file: string; resources: number; bytes: number };
  readonly jobsJsonBytes: number;
  readonly notes: string[];
  readonly violations: string[];
}

/** Everything validate reports on a file that loaded. */
export interface ValidationReport {
  readonly file: string;
  /** Start of the year searched for DST changes. */
  readonly from: Date;
  readonly jobs: readonly CheckedJob[];
  readonly deploy: DeployCheck;
  /** The zone data in use, and the jobs' zones a recent tz release changed. */
  readonly zoneData: ZoneDataReport;
  /**
   * The loader's warnings at the reference instant (code `past`: an `until:` that has passed,
   * an `at:` in the past), located in the file.
   */
  readonly configWarnings: readonly ConfigIssue[];
  /** The `date-holidays` release the calendars' holidays come from; null when none names any. */
  readonly holidayData: HolidayDataInUse | null;
}

/**
 * A problem of the jobs file as `--json` lists it.
 *
 * @example
 * problemOfIssue({ file: 'jobs.yaml', line: 4, column: 15, jobId: 'broken', field: 'schedule',
 *   message: "invalid value '61' …", code: 'invalid-schedule' }).jobId
 * //=> 'broken'
 */
export function problemOfIssue(issue: ConfigIssue): Problem {
  const { file, line, column, field, message, code } = issue;
  return { file, line, column, jobId: issue.jobId ?? null, field, message, code };
}

/**
 * A problem that concerns no line of the file: a usage error, a synth refusal, an AWS limit.
 *
 * @example
 * problemOfRun('usage', 'two jobs files given: a.yaml, b.yaml', null).line
 * //=> 0
 */
export function problemOfRun(code: ProblemCode, message: string, file: string | null): Problem {
  return { file, line: 0, column: 0, jobId: null, field: '', message, code };
}

/**
 * The `--json` document of a file that loaded: valid unless a deploy would hit a limit.
 *
 * @example
 * validationJson(report).problems
 * //=> [] when every AWS limit is met
 */
export function validationJson(report: ValidationReport) {
  const problems = report.deploy.violations.map((v) => problemOfRun('aws-limit', v, report.file));
  return {
    file: report.file,
    valid: problems.length === 0,
    problems,
    jobs: report.jobs.map(({ job, sentence, hint, covering }) => ({
      id: job.id,
      schedule: job.schedule,
      sentence,
      hint: hint ?? null,
      timezone: job.timezone,
      target: job.target.type,
      enabled: job.enabled,
      covering: covering ?? null,
    })),
    warnings: report.jobs.flatMap(({ job, warnings }) =>
      warnings.map((w) => ({
        jobId: job.id,
        transitionAt: w.at.toISOString(),
        kind: w.kind,
        text: w.text,
      })),
    ),
    deploy: report.deploy,
    zoneData: report.zoneData,
    configWarnings: report.configWarnings.map(problemOfIssue),
    holidayData: report.holidayData,
  };
}

/**
 * The `--json` document when the check could not run to the end: the problems, and no jobs.
 *
 * @example
 * failedValidationJson('jobs.yaml', [problemOfRun('unreadable', 'jobs file: no such file', 'jobs.yaml')]).valid
 * //=> false
 */
export function failedValidationJson(file: string | null, problems: readonly Problem[]) {
  return {
    file,
    valid: false,
    problems,
    jobs: [],
    warnings: [],
    deploy: null,
    zoneData: null,
    configWarnings: [],
    holidayData: null,
  };
}
