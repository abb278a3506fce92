import { type Command, Option } from 'commander';
import { usageError } from '../errors.ts';
import { coloursFor } from '../format/colour.ts';
import { plainTable, wrap } from '../format/table.ts';
import { parseInstant } from '../options.ts';

interface ValidateOptions {
  config?: string;
  jobs?: string;
  after?: Date;
  json?: boolean;
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
  "02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST".
  Problems are printed as file:line:column: … and the exit code is 1.`;

/** `zonecron validate`: the loader's validation, the covering schedules and DST warnings. */
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

  if (options.json) {
    const doc = {
      file: config.file,
      valid: true,
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
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }

  const c = coloursFor(process.stdout);
  const out: string[] = [];
  const enabled = config.jobs.filter((j) => j.enabled).length;
  out.push(
    c.green('✓ ') +
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
  if (warnings.length > 0) {
    out.push('');
    out.push(
      `DST in the year after ${from.toISOString().slice(0, 10)}: ` +
        `${warnings.length} warning${warnings.length === 1 ? '' : 's'}`,
    );
    for (const w of warnings) {
      out.push(c.yellow(wrap(`${w.job.id}: ${w.text}`, 'WARNING ')));
    }
  } else {
    out.push('');
    out.push(
      `no job has local times in a DST change in the year after ${from.toISOString().slice(0, 10)}`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
