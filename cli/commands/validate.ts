import { type Command, Option } from 'commander';
import type { JobsConfig } from '../../infra/config/load-jobs.ts';
import { CliError, usageError } from '../errors.ts';
import { coloursFor } from '../format/colour.ts';
import { plainTable, wrap } from '../format/table.ts';
import { parseInstant } from '../options.ts';

interface ValidateOptions {
  config?: string;
  jobs?: string;
  after?: Date;
  json?: boolean;
  stackName?: string;
}

const YEAR_MS = 366 * 86_400_000;

/** The summary table's columns; a job's sentence spans all of them, separators included. */
const COLUMN_WIDTHS = [24, 18, 24, 5];
const SENTENCE_WIDTH = COLUMN_WIDTHS.reduce((sum, width) => sum + width + 2, -2);

/** Breaks a word (a job id has no spaces) into lines of `width`, where the table cannot. */
function hardWrap(text: string, width: number): string {
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += width) lines.push(text.slice(i, i + width));
  return lines.join('\n');
}

const EXAMPLE = `
Example:
  $ zonecron validate jobs.yaml
  prints each job with its UTC covering expression, then a WARNING for every job
  whose local times fall into a DST change in the coming year, e.g.
  "02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST",
  then the deploy check: the stacks synth would write, checked against every
  AWS limit a deploy meets. Problems are printed as file:line:column: … or as
  the template and limit exceeded, and the exit code is 1.`;

/**
 * `zonecron validate`: the loader's validation, the covering schedules, DST warnings, and the
 * same synthesis and AWS-limit checks as `cdk synth` (without bundling the Lambdas).
 */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check a jobs file as synth does, and warn about DST nights')
    .argument('[file]', 'jobs file (default: jobs.yaml)')
    .option('--config <file>', 'jobs file (same as the argument)')
    .addOption(new Option('--jobs <file>', 'same as --config').hideHelp())
    .option(
      '--after <instant>',
      'look for DST changes in the year after (default: now)',
      parseInstant,
    )
    .option('--stack-name <name>', "the stack's name, as cdk's -c stackName (default: Zonecron)")
    .option('--json', 'print one JSON document')
    .addHelpText('after', EXAMPLE)
    .action(runValidate);
}

async function runValidate(fileArgument: string | undefined, options: ValidateOptions) {
  const given = [fileArgument, options.config, options.jobs].filter((f) => f !== undefined);
  if (new Set(given).size > 1) throw usageError(`two jobs files given: ${given.join(', ')}`);
  const file = given[0] ?? 'jobs.yaml';
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const { coveringSchedule } = await import('../../infra/covering/covering-cron.ts');
  const { transitionReports } = await import('../format/dst-notes.ts');
  const { scheduleSpecOf } = await import('../../functions/shared/job.ts');
  const { explainCron } = await import('../format/explain.ts');

  const config = loadJobsFile(file);
  const from = options.after ?? new Date();
  const until = new Date(from.getTime() + YEAR_MS);
  const jobs = config.jobs.map((job) => ({
    job,
    sentence: explainCron(job.schedule, { jobId: job.id }),
    covering: job.enabled ? coveringSchedule(job, from) : undefined,
    // A disabled job has no schedule deployed: nothing happens on its DST nights.
    warnings: job.enabled
      ? transitionReports(scheduleSpecOf(job), from, until).flatMap((report) =>
          report.lines.map((line) => ({ at: report.at, kind: report.kind, text: line.text })),
        )
      : [],
  }));
  const deploy = await deployCheck(config, options.stackName ?? 'Zonecron', from);
  const { zoneDataReport, zoneDataLines } = await import('../zone-data/report.ts');
  const zoneData = zoneDataReport(config.jobs, from);

  if (options.json) {
    const doc = {
      file: config.file,
      valid: deploy.violations.length === 0,
      jobs: jobs.map(({ job, sentence, covering }) => ({
        id: job.id,
        schedule: job.schedule,
        sentence,
        timezone: job.timezone,
        target: job.target.type,
        enabled: job.enabled,
        covering: covering ?? null,
      })),
      warnings: jobs.flatMap(({ job, warnings }) =>
        warnings.map((w) => ({
          jobId: job.id,
          transitionAt: w.at.toISOString(),
          kind: w.kind,
          text: w.text,
        })),
      ),
      deploy,
      zoneData,
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  } else {
    process.stdout.write(`${textReport(config, jobs, from, deploy)}\n`);
    process.stdout.write(`\n${zoneDataLines(zoneData, coloursFor(process.stdout)).join('\n')}\n`);
  }
  if (deploy.violations.length > 0) {
    throw new CliError(
      `${deploy.violations.length} AWS limit${deploy.violations.length === 1 ? '' : 's'} a deploy would hit in ${config.file}`,
    );
  }
}

/** What the deploy check found, as plain data (also the `deploy` of `--json`). */
interface DeployCheck {
  readonly stacks: string[];
  readonly largestTemplate: { file: string; resources: number; bytes: number };
  readonly jobsJsonBytes: number;
  readonly notes: string[];
  readonly violations: string[];
}

/**
 * Synthesizes the app as `cdk synth` would (no bundling) and checks it against the AWS limits;
 * a synth-time refusal that is not about a limit (cdk-nag, a stack name, grants too large)
 * becomes a `CliError`.
 */
async function deployCheck(
  config: JobsConfig,
  stackName: string,
  synthTime: Date,
): Promise<DeployCheck> {
  const { synthesizeOffline } = await import('../../infra/offline-synth.ts');
  const { installationNotes } = await import('../../infra/synth-report.ts');
  let result: ReturnType<typeof synthesizeOffline>;
  try {
    result = synthesizeOffline(config, { stackName, synthTime });
  } catch (error) {
    const known = [
      'NagFindingsError',
      'InvalidStackNameError',
      'TargetGrantsTooLargeError',
      'CoveringError',
    ];
    if (error instanceof Error && known.includes(error.name)) {
      throw new CliError(`${config.file}: ${error.message}`, { cause: error });
    }
    throw error;
  }
  const templates = [...result.check.templates];
  const largest = templates.sort((a, b) => b.resources - a.resources || b.bytes - a.bytes)[0];
  return {
    stacks: result.installations.flatMap((i) => [
      i.main.stackName,
      ...i.shards.map((s) => s.stackName),
    ]),
    largestTemplate: {
      file: largest?.file ?? '',
      resources: largest?.resources ?? 0,
      bytes: largest?.bytes ?? 0,
    },
    jobsJsonBytes: result.jobsJsonBytes,
    notes: result.installations.flatMap(installationNotes),
    violations: result.check.violations.map((violation) => violation.message),
  };
}

function textReport(
  config: { file: string; jobs: readonly { enabled: boolean }[] },
  jobs: {
    job: { id: string; schedule: string; timezone: string; target: { type: string } };
    sentence: string;
    covering: { awsExpression: string; ticksPerRun: number } | undefined;
    warnings: { at: Date; kind: string; text: string }[];
  }[],
  from: Date,
  deploy: DeployCheck,
): string {
  const c = coloursFor(process.stdout);
  const out: string[] = [];
  const enabled = config.jobs.filter((j) => j.enabled).length;
  const mark = deploy.violations.length === 0 ? c.green('✓ ') : c.red('✗ ');
  out.push(
    mark +
      `${config.file}: ${config.jobs.length} job${config.jobs.length === 1 ? '' : 's'} valid` +
      ` (${enabled} enabled)`,
  );
  out.push('');
  out.push(
    plainTable(
      ['job / target', 'schedule / zone', 'UTC covering', 'ticks'],
      jobs.flatMap(({ job, sentence, covering }) => [
        [
          `${hardWrap(job.id, 24)}\n${job.target.type}`,
          `${job.schedule}\n${job.timezone}`,
          covering ? covering.awsExpression : 'disabled',
          covering ? `${Math.round(covering.ticksPerRun * 100) / 100}` : '-',
        ],
        [{ colSpan: COLUMN_WIDTHS.length, content: wrap(sentence, '  ↳ ', SENTENCE_WIDTH) }],
      ]),
      { colWidths: COLUMN_WIDTHS },
    ),
  );
  out.push(c.dim('ticks = covering ticks per real run; the dispatcher no-ops on the extra ones'));
  const warnings = jobs.flatMap(({ job, warnings }) => warnings.map((w) => ({ job, ...w })));
  out.push('');
  if (warnings.length > 0) {
    out.push(
      `DST in the year after ${from.toISOString().slice(0, 10)}: ` +
        `${warnings.length} warning${warnings.length === 1 ? '' : 's'}`,
    );
    for (const w of warnings) out.push(c.yellow(wrap(`${w.job.id}: ${w.text}`, 'WARNING ')));
  } else {
    out.push(
      `no job has local times in a DST change in the year after ${from.toISOString().slice(0, 10)}`,
    );
  }
  out.push('', ...deployLines(deploy, c));
  return out.join('\n');
}

function deployLines(deploy: DeployCheck, c: ReturnType<typeof coloursFor>): string[] {
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
