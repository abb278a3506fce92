import { type Command, Option } from 'commander';
import { formatUtc } from '#text/zone-time.ts';
import type { GapPolicy, OverlapPolicy, ScheduleSpec } from '../../functions/schedule/index.ts';
import { usageError } from '../errors.ts';
import { type Colours, coloursFor } from '../format/colour.ts';
import type { RunPreview } from '../format/run-preview.ts';
import { wrap } from '../format/table.ts';
import { type InstantInput, instantArgument } from '../instant.ts';
import { gapOption, integerAtLeast, overlapOption } from '../options.ts';
import { checkZone, findJob, sentenceOf } from '../schedule-input.ts';

type RunFormat = typeof import('../format/run-preview.ts');

interface NextOptions {
  tz?: string;
  /** Read in `--tz` (UTC with --config) when it is a date or a local time. */
  after?: InstantInput;
  count: number;
  gap?: GapPolicy;
  overlap?: OverlapPolicy;
  jobId?: string;
  config?: string;
  jobs?: string;
  json?: boolean;
}

/** Most runs `next` lists at once. */
const MAX_COUNT = 1000;

const EXAMPLE = `
Examples:
  $ zonecron next "30 2 * * *" --tz Europe/Berlin --after 2023-03-25T00:00Z -n 3
  lists the runs of 25, 26 and 27 March 2023; the 26th says
  "02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:30 CEST".
  $ zonecron next --config jobs.yaml -n 3     # every job of a jobs file
  $ zonecron next --config jobs.yaml --job-id berlin-nightly-report`;

/** `zonecron next`: the engine's preview of a schedule, with every DST effect in words. */
export function registerNext(program: Command): void {
  program
    .command('next')
    .description('preview the next runs of a schedule (or of every job), with DST notes')
    .argument('[expression]', 'five-field cron expression (quote it)')
    .option('--tz <zone>', 'IANA time zone of the expression, e.g. Europe/Berlin')
    .option(
      '--after <instant>',
      'runs strictly after this instant (default: now; a date or local time in --tz)',
      instantArgument,
    )
    .option('-n, --count <n>', `how many runs (1-${MAX_COUNT})`, integerAtLeast(1, MAX_COUNT), 10)
    .addOption(gapOption())
    .addOption(overlapOption())
    .option('--job-id <id>', 'job id, needed by H (hash) fields; with --config, that job only')
    .option(
      '--config <file>',
      'preview every job of this jobs file instead (DST policies as the file says)',
    )
    .addOption(new Option('--jobs <file>', 'same as --config').hideHelp())
    .option('--json', 'print one JSON document')
    .addHelpText('after', EXAMPLE)
    .action(runNext);
}

interface Preview extends RunPreview {
  readonly title: string;
  readonly spec: ScheduleSpec;
  /** The expression in words (`explainCron`). */
  readonly sentence: string;
  /** How to write it for zonecron, when it looks written for AWS or Quartz (`cronHint`). */
  readonly hint: string | undefined;
  readonly kind: string;
  readonly policies: { gap: string; overlap: string };
}

/** The runs of a valid schedule: check what the command line says first (`sentenceOf`, `checkZone`). */
async function preview(
  title: string,
  spec: ScheduleSpec,
  after: Date,
  count: number,
): Promise<Preview> {
  const { resolvePolicies, scheduleKind } = await import('../../functions/schedule/index.ts');
  const { previewRuns } = await import('../format/run-preview.ts');
  const { cronHint } = await import('../../infra/config/cron-hint.ts');
  return {
    title,
    spec,
    sentence: await sentenceOf(spec.cron, spec.jobId),
    hint: cronHint(spec.cron)?.text,
    kind: scheduleKind(spec),
    policies: resolvePolicies(spec),
    ...previewRuns(spec, after, count),
  };
}

function render(p: Preview, after: Date, c: Colours, format: RunFormat): string[] {
  const out: string[] = [];
  out.push(
    wrap(
      `${c.bold(p.title)} — ${p.kind} schedule: gap ${p.policies.gap}, overlap ${p.policies.overlap}`,
      '',
    ),
  );
  out.push(wrap(p.sentence, ''));
  if (p.hint !== undefined) out.push(c.yellow(wrap(p.hint, 'hint: ')));
  if (p.never !== undefined) {
    out.push(...format.runTableLines(p, p.spec.timezone, c));
    return out;
  }
  out.push(`next ${p.runs.length} run${p.runs.length === 1 ? '' : 's'} after ${formatUtc(after)}`);
  out.push('');
  out.push(...format.runTableLines(p, p.spec.timezone, c));
  return out;
}

function toJson(p: Preview, format: RunFormat) {
  const zone = p.spec.timezone;
  return {
    expression: p.spec.cron,
    timezone: p.spec.timezone,
    ...(p.spec.jobId ? { jobId: p.spec.jobId } : {}),
    sentence: p.sentence,
    kind: p.kind,
    policies: p.policies,
    runs: p.runs.map((run) => format.runJson(run, zone)),
    ...format.skippedEntriesJson(p, zone),
    ...(p.never === undefined ? {} : { never: format.neverJson(p.never) }),
    ...(p.hint === undefined ? {} : { hint: p.hint }),
  };
}

async function runNext(expression: string | undefined, options: NextOptions): Promise<void> {
  const file = options.config ?? options.jobs;
  const after = await afterOf(options, file === undefined);
  const previews =
    file === undefined
      ? [await previewExpression(expression, options, after)]
      : await previewFile(file, expression, options, after);
  const format = await import('../format/run-preview.ts');
  if (options.json) {
    const doc =
      file !== undefined
        ? { after: after.toISOString(), jobs: previews.map((p) => toJson(p, format)) }
        : { after: after.toISOString(), ...toJson(previews[0] as Preview, format) };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const c = coloursFor(process.stdout);
  const blocks = previews.map((p) => render(p, after, c, format).join('\n'));
  process.stdout.write(`${blocks.join('\n\n')}\n`);
}

/** `--after` as an instant: a date or local time in `--tz`, or in UTC with `--config`. */
async function afterOf(options: NextOptions, inTz: boolean): Promise<Date> {
  const now = new Date();
  if (options.after === undefined) return now;
  const { resolveInstant } = await import('../instant.ts');
  const local = options.after.kind === 'wall' || options.after.kind === 'day';
  const zone = inTz && local && options.tz !== undefined ? await checkZone(options.tz) : 'UTC';
  return resolveInstant(options.after, { zone, now });
}

/** `next "<expr>" --tz <zone>`: what the command line says, checked as usage, then previewed. */
async function previewExpression(
  expression: string | undefined,
  options: NextOptions,
  after: Date,
): Promise<Preview> {
  if (expression === undefined) {
    throw usageError('missing expression: zonecron next "<expr>" --tz <zone> (or --config)');
  }
  if (options.tz === undefined) throw usageError("required option '--tz <zone>' not specified");
  await sentenceOf(expression, options.jobId);
  const timezone = await checkZone(options.tz);
  const dst = {
    ...(options.gap ? { gap: options.gap } : {}),
    ...(options.overlap ? { overlap: options.overlap } : {}),
  };
  const spec: ScheduleSpec = {
    cron: expression,
    timezone,
    ...(options.jobId ? { jobId: options.jobId } : {}),
    ...(options.gap || options.overlap ? { dst } : {}),
  };
  return preview(`${expression} in ${timezone}`, spec, after, options.count);
}

/**
 * `next --config <file>`: every job of the file, or the one `--job-id` names, with the DST
 * policies the file gives it. `--gap`, `--overlap` and `--tz` would contradict the file.
 */
async function previewFile(
  file: string,
  expression: string | undefined,
  options: NextOptions,
  after: Date,
): Promise<Preview[]> {
  if (expression !== undefined || options.tz !== undefined) {
    throw usageError('give either an expression with --tz, or --config <file>, not both');
  }
  if (options.gap !== undefined || options.overlap !== undefined) {
    throw usageError(
      '--gap and --overlap do not go with --config: each job has the DST policies its file gives it; to try another, preview its expression: zonecron next "<expr>" --tz <zone> --gap …',
    );
  }
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const { scheduleSpecOf } = await import('#jobs/job.ts');
  const config = loadJobsFile(file);
  const jobs = options.jobId === undefined ? config.jobs : [findJob(config, options.jobId)];
  const previews: Preview[] = [];
  for (const job of jobs) {
    const what = job.at === undefined ? job.schedule : `once at ${job.at}`;
    const title = `${job.id}: ${what} in ${job.timezone}${job.enabled ? '' : ' (disabled)'}`;
    previews.push(await preview(title, scheduleSpecOf(job), after, options.count));
  }
  return previews;
}
