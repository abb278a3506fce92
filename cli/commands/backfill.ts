import type { Command } from 'commander';
import type { JobDefinition } from '#jobs/job.ts';
import type { RunOutcome } from '../../functions/dispatcher/planned-run.ts';
import type { BackfillReport, BackfillRun } from '../aws/backfill.ts';
import { addConnectionOptions, type ConnectionOptions, connect } from '../aws/connection.ts';
import type { OperatedJobs } from '../aws/operated-job.ts';
import { CliError, describeError, isCliError } from '../errors.ts';
import { type Colours, coloursFor } from '../format/colour.ts';
import { plainTable, wrap } from '../format/table.ts';
import { type InstantInput, instantArgument, resolveInstant } from '../instant.ts';
import { exitOnInterrupt, INTERRUPTED_EXIT_CODE } from '../interrupt.ts';
import { integerAtLeast } from '../options.ts';
import { overlapChoiceOption } from './run.ts';

/** The flags as commander reads them: the range's ends not yet read in a zone. */
interface BackfillFlags extends Omit<BackfillOptions, 'from' | 'to'> {
  from: InstantInput;
  to: InstantInput;
}

interface BackfillOptions extends ConnectionOptions {
  from: Date;
  to: Date;
  tz?: string;
  dryRun?: boolean;
  maxRuns?: number;
  json?: boolean;
  force?: boolean;
  overlap?: import('../aws/run-guards.ts').OverlapChoice;
  reason?: string;
}

const EXAMPLE = `
Example:
  $ zonecron backfill berlin-nightly-report --from 2026-11-01 --to 2026-11-08
  lists the job's runs in the range with their DST notes, then delivers each
  under its own key through the ledger: a run delivered before is refused, so a
  second backfill of the same range delivers nothing. --dry-run only lists.
  A paused job, a run still running (forbid), or a --from older than the
  ledger's retention is refused; --force goes ahead, and history records it.`;

/** `zonecron backfill`: a range of a job's scheduled runs, each delivered exactly once. */
export function registerBackfill(program: Command): void {
  const command = program
    .command('backfill')
    .description("deliver a job's scheduled runs of a past range, each at most once")
    .argument('<jobId>', 'job id from the jobs file')
    .requiredOption(
      '--from <instant>',
      "first instant of the range (inclusive); a date or local time in the job's zone",
      instantArgument,
    )
    .requiredOption(
      '--to <instant>',
      'last instant of the range (inclusive); a date means to the end of that day',
      instantArgument,
    )
    .option('--tz <zone>', "read dates and local times in this zone (default: the job's)")
    .option('--dry-run', 'list the runs and what the ledger has; deliver nothing')
    .option(
      '--max-runs <n>',
      'refuse ranges with more runs than this (default 1000)',
      integerAtLeast(1),
    )
    .addOption(overlapChoiceOption())
    .option(
      '--force',
      "deliver even while paused, beside a running run, or past the ledger's retention",
    )
    .option('--reason <text>', 'why, for whoever looks next (history)')
    .option('--json', 'print one JSON document');
  addConnectionOptions(command, { table: true, dlq: true, config: true })
    .addHelpText('after', EXAMPLE)
    .action(runBackfill);
}

/** What became of one run, in the words of the listing and the JSON. */
type RunResult =
  | 'delivered'
  | 'already'
  | 'skipped'
  | 'failed'
  | 'not-attempted'
  | 'would-deliver'
  | 'forgotten';

/** How a dry run reads the ledger: runs before `cutoffMs` (retention) may have been forgotten. */
interface Reading {
  readonly dryRun: boolean;
  readonly cutoffMs: number;
}

function resultOf(run: BackfillRun, outcome: RunOutcome | undefined, reading: Reading): RunResult {
  if (reading.dryRun) {
    if (run.before === undefined && run.occurrence.at.getTime() < reading.cutoffMs)
      return 'forgotten';
    return run.before === undefined || run.before.status === 'skipped'
      ? 'would-deliver'
      : 'already';
  }
  if (!outcome) return 'not-attempted';
  switch (outcome.outcome) {
    case 'dispatched':
      return 'delivered';
    case 'duplicate':
      return 'already';
    case 'skipped':
      return 'skipped';
    default:
      return 'failed';
  }
}

function statusOf(run: BackfillRun, outcome: RunOutcome | undefined): string | undefined {
  if (outcome?.outcome === 'duplicate') return outcome.existing.status;
  return run.before?.status;
}

async function runBackfill(jobId: string, flags: BackfillFlags): Promise<void> {
  const connection = await connect(flags);
  try {
    await backfill(connection, jobId, flags);
  } finally {
    connection.destroy();
  }
}

/** The backfill on a resolved connection, of the job as deployed (or as the jobs file says). */
async function backfill(
  connection: import('../aws/connection.ts').OperateConnection,
  jobId: string,
  flags: BackfillFlags,
): Promise<void> {
  const { loadOperatedJob } = await import('../aws/operated-job.ts');
  const { config, job } = await loadOperatedJob(connection, flags.config ?? 'jobs.yaml', jobId);
  const options = await rangeOf(flags, job);
  const { backfillRuns, checkRetention, withLedgerState, DEFAULT_BACKFILL_MAX_RUNS } = await import(
    '../aws/backfill.ts'
  );
  const now = new Date();
  const occurrences = backfillRuns(
    job,
    options.from,
    options.to,
    now,
    options.maxRuns ?? DEFAULT_BACKFILL_MAX_RUNS,
  );
  const force = options.force ?? false;
  const retention = { now, retentionDays: config.retentionDays };
  const forgotten = checkRetention(job, options, {
    ...retention,
    force: force || !!options.dryRun,
  });
  const warnings = forgotten ? [forgotten] : [];
  const { openLedger, onLedgerTable } = await import('../aws/ledger-access.ts');
  const access = openLedger(connection);
  const overridden = await guard(job, options, connection, access, warnings);
  if (forgotten && !options.dryRun) overridden.unshift('forced past the retention');
  for (const warning of warnings) process.stderr.write(`${wrap(`warning: ${warning}`, '  ')}\n`);
  const runs = await onLedgerTable(access.tableName, connection.clients, 'read', () =>
    withLedgerState(access.ledger, job, occurrences),
  );
  const report = options.dryRun
    ? undefined
    : await deliverWithProgress(job, config, connection, runs);
  if (report && report.outcomes.length > 0) {
    await recordBackfill(connection, access, job, options, report, {
      retentionDays: config.retentionDays,
      overridden: overridden.join('; '),
    });
  }
  await print(job, { ...options, warnings, cutoffMs: cutoffMsOf(retention) }, runs, report);
  if (report?.stopped?.reason === 'interrupted') process.exitCode = INTERRUPTED_EXIT_CODE;
  else if (report?.stopped) process.exitCode = 1;
}

function cutoffMsOf({ now, retentionDays }: { now: Date; retentionDays: number }): number {
  return now.getTime() - retentionDays * 86_400_000;
}

/**
 * The pause and overlap guards: refused unless `--force` (or `--overlap allow`); a dry run
 * only warns. Returns what `--force` overrode, for the operator log.
 */
async function guard(
  job: JobDefinition,
  options: BackfillOptions,
  connection: import('../aws/connection.ts').OperateConnection,
  access: import('../aws/ledger-access.ts').LedgerAccess,
  warnings: string[],
): Promise<string[]> {
  const { readGuardState, checkGuards } = await import('../aws/run-guards.ts');
  const { onLedgerTable } = await import('../aws/ledger-access.ts');
  const { clients } = connection;
  const state = await onLedgerTable(access.tableName, clients, 'read', () =>
    readGuardState({ ...access, client: clients.dynamodb }, job, new Date()),
  );
  const choices = {
    force: options.force ?? false,
    ...(options.overlap ? { overlap: options.overlap } : {}),
  };
  if (!options.dryRun) {
    const overridden = checkGuards(job, state, choices, 'backfill');
    return overridden ? [overridden] : [];
  }
  try {
    checkGuards(job, state, choices, 'backfill');
  } catch (error) {
    if (!isCliError(error)) throw error;
    warnings.push(`without --dry-run this backfill is refused: ${error.message}`);
  }
  return [];
}

/**
 * The range's ends as instants: a date or a local time read in `--tz` or the job's zone, a
 * date-only `--to` to the end of its day, so `--from 2025-06-02 --to 2025-06-06` is Monday to
 * Friday in the job's zone.
 */
async function rangeOf(flags: BackfillFlags, job: JobDefinition): Promise<BackfillOptions> {
  const { checkZone } = await import('../schedule-input.ts');
  const zone = flags.tz === undefined ? job.timezone : await checkZone(flags.tz);
  const now = new Date();
  return {
    ...flags,
    from: resolveInstant(flags.from, { zone, now }),
    to: toOfToday(flags.to, { zone, now }),
  };
}

/**
 * A date-only `--to` means the end of its day, except for the day that is under way: `--to
 * today` reaches up to now, the runs that were due so far, not into the schedule's future.
 */
function toOfToday(to: InstantInput, context: { readonly zone: string; readonly now: Date }): Date {
  const end = resolveInstant(to, { ...context, bound: 'end' });
  const wholeDay = to.kind === 'day' && to.time === undefined;
  const started = resolveInstant(to, context).getTime() <= context.now.getTime();
  return wholeDay && started && end.getTime() > context.now.getTime() ? context.now : end;
}

/**
 * Delivers the runs with a progress bar on a terminal. The first Ctrl-C stops between two
 * runs (the one in flight finishes, so no claim is left behind); a second one stops at once.
 * Either way the bar is taken down and the cursor shown again.
 */
async function deliverWithProgress(
  job: JobDefinition,
  config: OperatedJobs,
  connection: import('../aws/connection.ts').OperateConnection,
  runs: readonly BackfillRun[],
): Promise<BackfillReport> {
  const { deliverBackfill } = await import('../aws/backfill.ts');
  const { dispatcherFor } = await import('../aws/operator-dispatcher.ts');
  const { startProgress } = await import('../format/progress.ts');
  const { dispatcher } = dispatcherFor(connection, config);
  const progress = startProgress(process.stderr, `backfilling ${job.id}`, 'runs');
  const guard = exitOnInterrupt({
    stream: process.stderr,
    cleanup: progress.stop,
    stopAtSafePoint: true,
  });
  try {
    return await deliverBackfill(dispatcher, job, runs, {
      onProgress: progress.update,
      interrupted: guard.interrupted,
    });
  } catch (error) {
    if (isCliError(error)) throw error;
    throw new CliError(
      `backfill of '${job.id}' failed: ${describeError(error, connection.clients)}`,
      {
        cause: error,
      },
    );
  } finally {
    guard.release();
    progress.stop();
  }
}

interface Summary {
  readonly runs: number;
  readonly delivered: number;
  readonly already: number;
  readonly skipped: number;
  readonly failed: number;
  readonly notAttempted: number;
  readonly wouldDeliver: number;
  readonly forgotten: number;
}

function summarize(results: readonly RunResult[]): Summary {
  const count = (r: RunResult) => results.filter((x) => x === r).length;
  return {
    runs: results.length,
    delivered: count('delivered'),
    already: count('already'),
    skipped: count('skipped'),
    failed: count('failed'),
    notAttempted: count('not-attempted'),
    wouldDeliver: count('would-deliver'),
    forgotten: count('forgotten'),
  };
}

async function recordBackfill(
  connection: import('../aws/connection.ts').OperateConnection,
  access: import('../aws/ledger-access.ts').LedgerAccess,
  job: JobDefinition,
  options: BackfillOptions,
  report: BackfillReport,
  log: { readonly retentionDays: number; readonly overridden: string },
): Promise<void> {
  const { backfillLogDetail } = await import('../aws/backfill.ts');
  const { recordOperatorAction } = await import('../aws/operator-log.ts');
  const detail = backfillLogDetail(options.from, options.to, report);
  const { onLedgerTable } = await import('../aws/ledger-access.ts');
  await onLedgerTable(access.tableName, connection.clients, 'update', async () =>
    recordOperatorAction(access.log, connection, {
      jobId: job.id,
      action: 'backfilled',
      from: options.from.toISOString(),
      to: options.to.toISOString(),
      detail: [detail, log.overridden].filter(Boolean).join('; '),
      ...(options.reason ? { reason: options.reason } : {}),
      retentionDays: log.retentionDays,
    }),
  );
}

/** The command's options as the report reads them, with its warnings and retention cutoff. */
interface PrintOptions extends BackfillOptions {
  readonly warnings: readonly string[];
  readonly cutoffMs: number;
}

/** Prints what the backfill found or did: the `--json` document or the text report. */
async function print(
  job: JobDefinition,
  options: PrintOptions,
  runs: readonly BackfillRun[],
  report: BackfillReport | undefined,
): Promise<void> {
  const { formatUtc } = await import('#text/zone-time.ts');
  const rows = await rowsOf(job, options, runs, report);
  const summary = summarize(rows.map((r) => r.result));
  const range = `from ${formatUtc(options.from)} to ${formatUtc(options.to)}`;
  const text = options.json
    ? JSON.stringify(backfillJson(job, options, rows, summary, report), null, 2)
    : backfillText(job, { range, dryRun: options.dryRun ?? false }, rows, summary, report);
  process.stdout.write(`${text}\n`);
}

/** One run of the range as the report shows it. */
interface BackfillRow {
  readonly run: BackfillRun;
  readonly outcome: BackfillReport['outcomes'][number] | undefined;
  readonly result: ReturnType<typeof resultOf>;
  readonly status: string | undefined;
  readonly note: string | undefined;
  readonly local: string;
  readonly utc: string;
}

async function rowsOf(
  job: JobDefinition,
  options: PrintOptions,
  runs: readonly BackfillRun[],
  report: BackfillReport | undefined,
): Promise<BackfillRow[]> {
  const { scheduleSpecOf } = await import('#jobs/job.ts');
  const { occurrenceNote } = await import('../format/dst-notes.ts');
  const { formatLocal, formatUtc } = await import('#text/zone-time.ts');
  const spec = scheduleSpecOf(job);
  return runs.map((run, i) => {
    const outcome = report?.outcomes[i];
    return {
      run,
      outcome,
      result: resultOf(run, outcome, {
        dryRun: options.dryRun ?? false,
        cutoffMs: options.cutoffMs,
      }),
      status: statusOf(run, outcome),
      note: occurrenceNote(spec, run.occurrence),
      local: formatLocal(run.occurrence.at, job.timezone),
      utc: formatUtc(run.occurrence.at),
    };
  });
}

function backfillJson(
  job: JobDefinition,
  options: PrintOptions,
  rows: readonly BackfillRow[],
  summary: Summary,
  report: BackfillReport | undefined,
) {
  return {
    jobId: job.id,
    from: options.from.toISOString(),
    to: options.to.toISOString(),
    dryRun: options.dryRun ?? false,
    runs: rows.map((r) => ({
      at: r.run.occurrence.at.toISOString(),
      local: r.local,
      nominal: r.run.occurrence.nominal,
      dst: r.run.occurrence.dst,
      note: r.note ?? null,
      key: r.run.key,
      before: r.run.before?.status ?? null,
      result: r.result,
      ...(r.outcome ? { outcome: r.outcome } : {}),
    })),
    summary,
    stopped: report?.stopped ?? null,
    warnings: options.warnings,
  };
}

function backfillText(
  job: JobDefinition,
  { range, dryRun }: { readonly range: string; readonly dryRun: boolean },
  rows: readonly BackfillRow[],
  summary: Summary,
  report: BackfillReport | undefined,
): string {
  const c = coloursFor(process.stdout);
  const count = `${rows.length} run${rows.length === 1 ? '' : 's'}`;
  const out = [
    wrap(`${c.bold(job.id)} (${job.schedule} in ${job.timezone}): ${count} ${range}`, ''),
  ];
  if (rows.length > 0) out.push('', ...runTable(rows, dryRun, c));
  out.push('', ...summaryLines(summary, report, dryRun));
  return out.join('\n');
}

/** The runs as a table, each DST note under its run. */
function runTable(rows: readonly BackfillRow[], dryRun: boolean, c: Colours): string[] {
  const table = plainTable(
    ['local', 'UTC', 'key', dryRun ? 'ledger' : 'result'],
    rows.map((r) => [
      r.local,
      r.utc,
      r.run.key.slice(0, 7),
      r.result === 'already' ? `was ${r.status}` : r.result,
    ]),
  ).split('\n');
  const out = [c.dim(table[0] ?? '')];
  rows.forEach((r, i) => {
    out.push(table[i + 1] ?? '');
    if (r.note) out.push(c.yellow(wrap(r.note, '  ↳ ')));
  });
  return out;
}

function summaryLines(
  summary: Summary,
  report: BackfillReport | undefined,
  dryRun: boolean,
): string[] {
  if (dryRun) {
    return [
      wrap(
        `dry run: ${summary.wouldDeliver} would be delivered, ${summary.already} already in the ledger` +
          (summary.forgotten
            ? `, ${summary.forgotten} older than the ledger's retention (forgotten: delivered then or not, the ledger cannot tell)`
            : '') +
          '; nothing was delivered',
        '',
      ),
    ];
  }
  const lines = [
    wrap(
      `${summary.delivered} delivered, ${summary.already} already in the ledger (not delivered again)` +
        `${summary.skipped ? `, ${summary.skipped} skipped` : ''}${summary.failed ? `, ${summary.failed} failed` : ''}` +
        `${summary.notAttempted ? `, ${summary.notAttempted} not attempted` : ''}`,
      '',
    ),
  ];
  if (report?.stopped) lines.push(wrap(`stopped: ${report.stopped.detail}`, ''));
  return lines;
}
