/**
 * What `zonecron validate` found, as data, and its two renderings: the text report and the
 * one JSON document of `--json` (its schema is in docs/cli.md, "zonecron validate").
 *
 * The text report is a list of sections, each a function of the report, so a new line (a
 * figure, a note) is one more section.
 */
import type { ConfigIssue, ConfigIssueCode } from '../../infra/config/config-error.ts';
import { type ZoneDataReport, zoneDataLines } from '../zone-data/report.ts';
import type { Colours } from './colour.ts';
import { hardWrap, plainTable, wrap } from './table.ts';

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
  return { file, valid: false, problems, jobs: [], warnings: [], deploy: null, zoneData: null };
}

/** The summary table's columns; a job's sentence spans all of them, separators included. */
const COLUMN_WIDTHS = [24, 18, 24, 5];
const SENTENCE_WIDTH = COLUMN_WIDTHS.reduce((sum, width) => sum + width + 2, -2);

/** The text report's sections, in order; each returns its lines. */
const SECTIONS: readonly ((report: ValidationReport, c: Colours) => string[])[] = [
  headline,
  jobTable,
  dstWarnings,
  deployLines,
  ({ zoneData }, c) => zoneDataLines(zoneData, c),
];

/**
 * The text report: a headline, the jobs with their UTC coverings, the DST warnings of the
 * coming year and the deploy check, sections separated by a blank line.
 *
 * @example
 * validationText(report, coloursFor(process.stdout)).split('\n')[0]
 * //=> '✓ jobs.yaml: 6 jobs valid (6 enabled)'
 */
export function validationText(report: ValidationReport, c: Colours): string {
  return SECTIONS.map((section) => section(report, c).join('\n')).join('\n\n');
}

function headline({ file, jobs, deploy }: ValidationReport, c: Colours): string[] {
  const enabled = jobs.filter(({ job }) => job.enabled).length;
  const mark = deploy.violations.length === 0 ? c.green('✓ ') : c.red('✗ ');
  return [
    `${mark}${file}: ${jobs.length} job${jobs.length === 1 ? '' : 's'} valid (${enabled} enabled)`,
  ];
}

function jobTable({ jobs }: ValidationReport, c: Colours): string[] {
  const rows = jobs.flatMap(({ job, sentence, hint, covering }) => [
    [
      `${hardWrap(job.id, 24)}\n${job.target.type}`,
      `${job.schedule}\n${job.timezone}`,
      covering ? covering.awsExpression : 'disabled',
      covering ? `${Math.round(covering.ticksPerRun * 100) / 100}` : '-',
    ],
    [{ colSpan: COLUMN_WIDTHS.length, content: wrap(sentence, '  ↳ ', SENTENCE_WIDTH) }],
    ...(hint === undefined
      ? []
      : [[{ colSpan: COLUMN_WIDTHS.length, content: wrap(hint, '  hint: ', SENTENCE_WIDTH) }]]),
  ]);
  return [
    plainTable(['job / target', 'schedule / zone', 'UTC covering', 'ticks'], rows, {
      colWidths: COLUMN_WIDTHS,
    }),
    c.dim('ticks = covering ticks per real run; the dispatcher no-ops on the extra ones'),
  ];
}

function dstWarnings({ jobs, from }: ValidationReport, c: Colours): string[] {
  const day = from.toISOString().slice(0, 10);
  const warnings = jobs.flatMap(({ job, warnings }) => warnings.map((w) => ({ job, ...w })));
  if (warnings.length === 0) {
    return [`no job has local times in a DST change in the year after ${day}`];
  }
  return [
    `DST in the year after ${day}: ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`,
    ...warnings.map((w) => c.yellow(wrap(`${w.job.id}: ${w.text}`, 'WARNING '))),
  ];
}

function deployLines({ deploy }: ValidationReport, c: Colours): string[] {
  const { largestTemplate: largest } = deploy;
  const lines = [
    wrap(
      `deploy check: ${deploy.stacks.length} stack${deploy.stacks.length === 1 ? '' : 's'}, largest template ${largest.file} (${largest.resources} resources, ${largest.bytes.toLocaleString('en-US')} bytes), jobs.json ${deploy.jobsJsonBytes.toLocaleString('en-US')} bytes`,
      '',
    ),
  ];
  for (const note of deploy.notes) lines.push(wrap(note, 'NOTE '));
  if (deploy.violations.length === 0) {
    lines.push(c.green('✓ every AWS limit a deploy meets is met'));
  } else {
    for (const violation of deploy.violations) lines.push(c.red(wrap(violation, 'LIMIT ')));
  }
  return lines;
}
