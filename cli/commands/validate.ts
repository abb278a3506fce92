import type { Command, CommanderError } from 'commander';
import { Option } from 'commander';
import type { JobsConfig } from '../../infra/config/load-jobs.ts';
import { CliError, describeError, isCliError, USAGE_EXIT_CODE, usageError } from '../errors.ts';
import { coloursFor } from '../format/colour.ts';
import {
  type CheckedJob,
  type DeployCheck,
  failedValidationJson,
  type Problem,
  problemOfIssue,
  problemOfRun,
  type ValidationReport,
  validationJson,
} from '../format/validation-report.ts';
import { utcInstantArgument } from '../instant.ts';

interface ValidateOptions {
  config?: string;
  jobs?: string;
  after?: Date;
  json?: boolean;
  stackName?: string;
}

const YEAR_MS = 366 * 86_400_000;

const EXAMPLE = `
Example:
  $ zonecron validate jobs.yaml
  prints each job with its UTC covering expression, then a WARNING for every job
  whose local times fall into a DST change in the coming year, e.g.
  "02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST",
  then the deploy check: the stacks synth would write, checked against every
  AWS limit a deploy meets. Problems are printed as file:line:column: … or as
  the template and limit exceeded, and the exit code is 1. With --json, one
  JSON document on stdout whatever happens, its problems with a code each.`;

/**
 * `zonecron validate`: the loader's validation, the covering schedules, DST warnings, and the
 * same synthesis and AWS-limit checks as `cdk synth` (without bundling the Lambdas).
 *
 * With `--json` it prints one document on stdout in every case, a bad command line included
 * (docs/cli.md, "zonecron validate").
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
      'look for DST changes in the year after this instant, and warn about an until or at before it (default: now; a date or local time is read in UTC)',
      utcInstantArgument,
    )
    .option('--stack-name <name>', "the stack's name, as cdk's -c stackName (default: Zonecron)")
    .option('--json', 'print one JSON document, also when the file is invalid')
    .addHelpText('after', EXAMPLE)
    .exitOverride(reportUsageAsJson)
    .action(runValidate);
}

/** A command line commander refused (a bad flag or value): with `--json`, still one document. */
function reportUsageAsJson(error: CommanderError): never {
  const args = process.argv.slice(2);
  const end = args.indexOf('--');
  const json = (end === -1 ? args : args.slice(0, end)).includes('--json');
  if (error.exitCode !== 0 && json) {
    writeFailure(null, [problemOfRun('usage', error.message.replace(/^error: /, ''), null)]);
  }
  throw error;
}

async function runValidate(fileArgument: string | undefined, options: ValidateOptions) {
  let file: string | null = null;
  let report: ValidationReport;
  try {
    file = jobsFileOf(fileArgument, options);
    report = await validateFile(file, options);
  } catch (error) {
    if (options.json) writeFailure(file, await problemsOf(error, file));
    throw error;
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(validationJson(report), null, 2)}\n`);
  } else {
    const { validationText } = await import('../format/validation-text.ts');
    process.stdout.write(`${validationText(report, coloursFor(process.stdout))}\n`);
  }
  const { violations } = report.deploy;
  if (violations.length > 0) {
    throw new CliError(
      `${violations.length} AWS limit${violations.length === 1 ? '' : 's'} a deploy would hit in ${report.file}`,
    );
  }
}

/** The one jobs file the command line names (argument, `--config` or `--jobs`). */
function jobsFileOf(fileArgument: string | undefined, options: ValidateOptions): string {
  const given = [fileArgument, options.config, options.jobs].filter((f) => f !== undefined);
  if (new Set(given).size > 1) throw usageError(`two jobs files given: ${given.join(', ')}`);
  return given[0] ?? 'jobs.yaml';
}

/** Loads and checks the file: every job, its covering and DST warnings, and the deploy check. */
async function validateFile(file: string, options: ValidateOptions): Promise<ValidationReport> {
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const { coveringSchedule } = await import('../../infra/covering/covering-cron.ts');
  const { transitionReports } = await import('../format/dst-notes.ts');
  const { scheduleSpecOf } = await import('#jobs/job.ts');
  const { explainCron } = await import('../format/explain.ts');
  const { cronHint } = await import('../../infra/config/cron-hint.ts');

  // The command edge reads the clock once: the DST year and the `past` warnings start there.
  const from = options.after ?? new Date();
  const config = loadJobsFile(file, { now: from });
  const until = new Date(from.getTime() + YEAR_MS);
  const jobs = config.jobs.map(
    (job): CheckedJob => ({
      job,
      sentence: explainCron(job.schedule, { jobId: job.id }),
      hint: cronHint(job.schedule)?.text,
      covering: job.enabled ? coveringSchedule(job, from) : undefined,
      // A disabled job has no schedule deployed: nothing happens on its DST nights.
      warnings: job.enabled
        ? transitionReports(scheduleSpecOf(job), from, until).flatMap((report) =>
            report.lines.map((line) => ({ at: report.at, kind: report.kind, text: line.text })),
          )
        : [],
    }),
  );
  const deploy = await deployCheck(config, options.stackName ?? 'Zonecron', from);
  const { zoneDataReport } = await import('../zone-data/report.ts');
  return {
    file: config.file,
    from,
    jobs,
    deploy,
    zoneData: zoneDataReport(config.jobs, from),
    configWarnings: config.warnings,
    holidayData: await holidayDataOf(config),
  };
}

/** The holiday data version, when a calendar of the file names holidays. */
async function holidayDataOf(config: JobsConfig): Promise<ValidationReport['holidayData']> {
  if (!config.jobs.some((job) => job.calendar?.definition.holidays !== undefined)) return null;
  const { holidayDataVersion } = await import('../../functions/calendar/date-holidays-data.ts');
  return holidayDataVersion();
}

/** What stopped the check, as `--json` problems. */
async function problemsOf(error: unknown, file: string | null): Promise<Problem[]> {
  const { isConfigError } = await import('../../infra/config/config-error.ts');
  if (isConfigError(error)) return error.issues.map(problemOfIssue);
  const code = isCliError(error)
    ? error.exitCode === USAGE_EXIT_CODE
      ? 'usage'
      : 'synth'
    : 'failure';
  return [problemOfRun(code, describeError(error), file)];
}

/** The `--json` document of a check that could not finish. */
function writeFailure(file: string | null, problems: readonly Problem[]): void {
  process.stdout.write(`${JSON.stringify(failedValidationJson(file, problems), null, 2)}\n`);
}

/**
 * Synthesizes the app as `cdk synth` would (no bundling) and checks it against the AWS limits;
 * a synth-time refusal that is not about a limit (an `InfraError`: cdk-nag, a stack name,
 * grants too large) becomes a `CliError`.
 */
async function deployCheck(
  config: JobsConfig,
  stackName: string,
  synthTime: Date,
): Promise<DeployCheck> {
  const { synthesizeOffline } = await import('../../infra/app/offline-synth.ts');
  const { installationNotes } = await import('../../infra/app/synth-report.ts');
  let result: ReturnType<typeof synthesizeOffline>;
  try {
    result = synthesizeOffline(config, { stackName, synthTime });
  } catch (error) {
    const { isInfraError } = await import('../../infra/errors/infra-error.ts');
    if (isInfraError(error)) {
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
