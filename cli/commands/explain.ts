import type { Command } from 'commander';
import { DateTime } from 'luxon';
import { formatUtc } from '#text/zone-time.ts';
import type {
  GapPolicy,
  NeverRunsReason,
  OverlapPolicy,
  ScheduleSpec,
} from '../../functions/schedule/index.ts';
import { usageError } from '../errors.ts';
import type { CalendarEffects } from '../format/calendar-notes.ts';
import { type Colours, coloursFor } from '../format/colour.ts';
import type { DstNight } from '../format/dst-nights.ts';
import { wrap } from '../format/table.ts';
import { type InstantInput, instantArgument } from '../instant.ts';
import { gapOption, overlapOption } from '../options.ts';
import { asUsage, checkZone, findJob, sentenceOf } from '../schedule-input.ts';

interface ExplainOptions {
  tz?: string;
  /** Read in `--tz` when it is a date or a local time. */
  after?: InstantInput;
  gap?: GapPolicy;
  overlap?: OverlapPolicy;
  jobId?: string;
  config?: string;
  json?: boolean;
}

/** How far ahead `--tz` looks for DST nights. */
const LOOKAHEAD_MONTHS = 12;

const EXAMPLE = `
Examples:
  $ zonecron explain "0 0 13 * FRI"
  at 00:00 on the 13th of the month or on Friday (either matches)
  $ zonecron explain "30 2 * * *" --tz Europe/Berlin
  adds the schedule's DST policies and, for each clock change in the next 12
  months, what happens to its runs that night.
  $ zonecron explain --config jobs.yaml --job-id invoices
  a job of the file: its zone's DST nights, and every run its calendar moves or
  skips in the next 12 months, in words.`;

/** `zonecron explain`: an expression in plain English, and what DST nights do to it. */
export function registerExplain(program: Command): void {
  program
    .command('explain')
    .description('say in plain English when an expression runs, and what DST nights do to it')
    .argument('[expression]', 'five-field cron expression (quote it)')
    .option('--tz <zone>', 'IANA time zone: also say what its DST nights do to the schedule')
    .option(
      '--after <instant>',
      `DST nights in the ${LOOKAHEAD_MONTHS} months after this instant (default: now; a date or local time in --tz)`,
      instantArgument,
    )
    .addOption(gapOption())
    .addOption(overlapOption())
    .option('--job-id <id>', 'job id: say which values H (hash) fields pick')
    .option(
      '--config <file>',
      'explain the --job-id job of this jobs file: its zone, policies, calendar, bounds',
    )
    .option('--json', 'print one JSON document')
    .addHelpText('after', EXAMPLE)
    .action(runExplain);
}

/** What the zone does to the schedule: its policies and its DST nights. */
interface ZoneReport {
  readonly zone: string;
  readonly after: Date;
  readonly policies: string;
  readonly nights: readonly DstNight[];
  /** Why the schedule never runs in the zone after `after`; undefined when it runs. */
  readonly never: NeverRunsReason | undefined;
}

function specOf(expression: string, zone: string, options: ExplainOptions): ScheduleSpec {
  const dst = {
    ...(options.gap ? { gap: options.gap } : {}),
    ...(options.overlap ? { overlap: options.overlap } : {}),
  };
  return {
    cron: expression,
    timezone: zone,
    ...(options.jobId ? { jobId: options.jobId } : {}),
    ...(options.gap || options.overlap ? { dst } : {}),
  };
}

async function zoneReport(spec: ScheduleSpec, options: ExplainOptions): Promise<ZoneReport> {
  const { dstNights, policySummary } = await import('../format/dst-nights.ts');
  const { nextRun } = await import('../../functions/schedule/index.ts');
  const zone = await checkZone(spec.timezone);
  const { resolveInstant } = await import('../instant.ts');
  const now = new Date();
  const after = options.after ? resolveInstant(options.after, { zone, now }) : now;
  const until = lookaheadEnd(after);
  return asUsage(() => {
    const answer = nextRun(spec, after);
    return {
      zone,
      after,
      policies: policySummary(spec),
      nights: dstNights(spec, after, until),
      never: answer.kind === 'never' ? answer.reason : undefined,
    };
  });
}

function lookaheadEnd(after: Date): Date {
  return DateTime.fromJSDate(after, { zone: 'UTC' }).plus({ months: LOOKAHEAD_MONTHS }).toJSDate();
}

function render(
  sentence: string,
  hint: string | undefined,
  report: ZoneReport | undefined,
  c: Colours,
  neverLines: (reason: NeverRunsReason) => string[],
) {
  const out = [wrap(sentence, '')];
  if (hint !== undefined) out.push(c.yellow(wrap(hint, 'hint: ')));
  if (report === undefined) return out;
  out.push('', wrap(report.policies, ''), '');
  if (report.never !== undefined) out.push(...neverLines(report.never).map((l) => c.yellow(l)), '');
  const window = `in the ${LOOKAHEAD_MONTHS} months after ${formatUtc(report.after)}`;
  if (report.nights.length === 0) {
    out.push(wrap(`${report.zone} does not change its clocks ${window}`, ''));
    return out;
  }
  out.push(`DST nights ${window}:`);
  for (const night of report.nights) {
    out.push(wrap(night.title, '  '));
    for (const line of night.lines) out.push(c.yellow(wrap(line, '    ')));
  }
  return out;
}

/** What `--config` adds: the job, and what its calendar and bounds do in the window. */
interface JobReport {
  readonly jobId: string;
  readonly effects: CalendarEffects | undefined;
}

/** `explain --config <file> --job-id <id>`: the job's own spec, zone and calendar. */
async function jobSpec(
  file: string,
  expression: string | undefined,
  options: ExplainOptions,
): Promise<ScheduleSpec> {
  if (expression !== undefined || options.tz || options.gap || options.overlap) {
    throw usageError(
      '--config explains a job as its file gives it: no expression, --tz, --gap or --overlap with it',
    );
  }
  if (options.jobId === undefined) throw usageError('--config needs --job-id <id>');
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const { scheduleSpecOf } = await import('#jobs/job.ts');
  return scheduleSpecOf(findJob(loadJobsFile(file), options.jobId));
}

async function jobReport(spec: ScheduleSpec, after: Date): Promise<JobReport> {
  const { calendarEffects, hasCalendarOrBounds } = await import('../format/calendar-notes.ts');
  const effects = hasCalendarOrBounds(spec)
    ? calendarEffects(spec, after, lookaheadEnd(after))
    : undefined;
  return { jobId: spec.jobId ?? '', effects };
}

function effectLines(effects: CalendarEffects, after: Date): string[] {
  const out = [
    `what its calendar and bounds do in the ${LOOKAHEAD_MONTHS} months after ${formatUtc(after)}:`,
  ];
  for (const line of effects.lines) out.push(wrap(line, '  '));
  const weekend = [...effects.weekendSkips];
  if (weekend.length > 0) {
    const total = weekend.reduce((n, [, count]) => n + count, 0);
    const each = weekend.map(([day, count]) => `${count} on a ${day}`).join(', ');
    out.push(wrap(`and ${total} runs on weekend days skipped (${each})`, '  '));
  }
  if (effects.lines.length === 0 && weekend.length === 0)
    out.push('  nothing: every run runs as scheduled');
  return out;
}

async function runExplain(given: string | undefined, options: ExplainOptions): Promise<void> {
  if (
    options.config === undefined &&
    options.tz === undefined &&
    (options.after || options.gap || options.overlap)
  ) {
    throw usageError('--after, --gap and --overlap need --tz <zone>');
  }
  const spec =
    options.config === undefined ? undefined : await jobSpec(options.config, given, options);
  const expression = spec?.cron ?? given;
  if (expression === undefined) {
    throw usageError(
      'missing expression: zonecron explain "<expr>" (or --config <file> --job-id <id>)',
    );
  }
  const { cronHint } = await import('../../infra/config/cron-hint.ts');
  const { neverJson, neverLines } = await import('../format/run-preview.ts');
  const sentence = await sentenceOf(expression, options.jobId);
  const hint = cronHint(expression)?.text;
  const zoned =
    spec ?? (options.tz === undefined ? undefined : specOf(expression, options.tz, options));
  const report = zoned === undefined ? undefined : await zoneReport(zoned, options);
  const job =
    spec === undefined || report === undefined ? undefined : await jobReport(spec, report.after);

  if (options.json) {
    const doc = {
      expression,
      sentence,
      ...(report ? { timezone: report.zone } : {}),
      ...(report
        ? {
            dst: report.nights.map((night) => ({
              at: night.at.toISOString(),
              kind: night.kind,
              title: night.title,
              lines: night.lines,
            })),
          }
        : {}),
      ...(report?.never ? { never: neverJson(report.never) } : {}),
      ...(hint ? { hint } : {}),
      ...(job ? { jobId: job.jobId } : {}),
      ...(job?.effects
        ? {
            calendar: {
              lines: job.effects.lines,
              weekendSkips: Object.fromEntries(job.effects.weekendSkips),
            },
          }
        : {}),
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const lines = render(sentence, hint, report, coloursFor(process.stdout), neverLines);
  if (job?.effects && report) lines.push('', ...effectLines(job.effects, report.after));
  process.stdout.write(`${lines.join('\n')}\n`);
}
