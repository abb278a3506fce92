import { type Command, InvalidArgumentError } from 'commander';
import type { OperatorEvent, RunItem, SkipRange } from '#ledger/index.ts';
import {
  addConnectionOptions,
  type ConnectionOptions,
  connect,
  type OperateConnection,
} from '../aws/connection.ts';
import type { OperatedJob } from '../aws/operated-job.ts';
import type { PauseState } from '../deployed/pause-state.ts';
import { isCliError, usageError } from '../errors.ts';
import type { CalendarSkips } from '../format/calendar-skips.ts';
import { type Colours, coloursFor } from '../format/colour.ts';
import { wrap } from '../format/table.ts';
import { type InstantInput, instantArgument, whenArgument } from '../instant.ts';
import { integerAtLeast } from '../options.ts';

interface HistoryOptions extends ConnectionOptions {
  since: string;
  scheduled?: boolean;
  limit: number;
  at?: InstantInput;
  tz?: string;
  json?: boolean;
  config?: string;
}

/** The most skip ranges `history` reads (each stands for a gap of a hundred runs or more). */
const RANGES_READ = 100;

const EXAMPLE = `
Example:
  $ zonecron history berlin-nightly-report --since 7d --table zonecron-ledger
  lists what happened to the job's runs in the last 7 days (scheduled, decided,
  delivered or redriven in them: a run backfilled today shows, however old),
  newest first: when, the local slot
  they stand for, a note (gap, overlap, manual, backfill, paused), status,
  delivery attempts (#), dispatch lag and the key's first 7 characters; then
  the job's pause, if any, and who paused, resumed, ran, backfilled,
  redrove or discarded, when, why and what it changed;
  a long gap's older skipped runs are one line, as the ledger records them.

  $ zonecron history berlin-nightly-report --at 2027-03-28T01:30Z
  the fate of that one run: its item, its calendar's skip (computed from the
  definition), the gap's range that skipped it, or no record (exit 1 when the
  instant is no run of the job, naming the from/until bound that excludes it).`;

/** `zonecron history`: a job's runs from the ledger's `byJob` index. */
export function registerHistory(program: Command): void {
  const command = program
    .command('history')
    .description("show a job's runs from the ledger: status, attempts, lag")
    .argument('<jobId>', 'job id')
    .option(
      '--since <when>',
      "what happened since: a duration back (24h, 7d, PT30M) or an instant; a date or local time in the job's zone",
      '24h',
    )
    .option('--scheduled', 'only the runs scheduled since --since (not those decided or delivered)')
    .option('--limit <n>', 'show at most n runs, newest first', integerAtLeast(1), 50)
    .option('--at <instant>', "one run's fate: the run at this instant", instantArgument)
    .option('--tz <zone>', "read dates and local times in this zone (default: the job's)")
    .option('--json', 'print one JSON document')
    .option(
      '--config <file>',
      'jobs file the job id is checked against (default: jobs.yaml, when there is one)',
    );
  addConnectionOptions(command, { table: true }).addHelpText('after', EXAMPLE).action(runHistory);
}

interface JobHistory {
  readonly runs: RunItem[];
  readonly ranges: readonly SkipRange[];
  /** True when more ranges than {@link RANGES_READ} may overlap the window. */
  readonly rangesTruncated: boolean;
  readonly pause: PauseState;
  readonly events: OperatorEvent[];
}

/** The runs, the pause and the operator's actions (pause, resume, run, backfill, redrive, discard). */
async function readHistory(
  connection: OperateConnection,
  jobId: string,
  window: { readonly since: Date; readonly limit: number; readonly scheduled: boolean },
): Promise<JobHistory> {
  const { openLedger, onLedgerTable } = await import('../aws/ledger-access.ts');
  const { pauseStateOf } = await import('../deployed/pause-state.ts');
  const { readJobRuns } = await import('../aws/job-runs.ts');
  const { readRunsInWindow } = await import('../aws/history-window.ts');
  const { readSkipRanges } = await import('../aws/skip-ranges.ts');
  const access = openLedger(connection);
  const client = connection.clients.dynamodb;
  const { since, limit } = window;
  return onLedgerTable(access.tableName, connection.clients, 'read', async () => {
    const events = await access.log.read(jobId, since, limit);
    const runs = window.scheduled
      ? await readJobRuns(client, access.tableName, jobId, { since, limit })
      : await readRunsInWindow({ ...access, client }, jobId, window, events);
    const read = await readSkipRanges(client, access.tableName, jobId, {
      since,
      limit: RANGES_READ,
    });
    const state = await access.ledger.getJobState(jobId);
    const pause = pauseStateOf(jobId, state, new Date());
    return { runs, ranges: read.ranges, rangesTruncated: read.truncated, pause, events };
  });
}

/**
 * Refuses a job id that neither the deployed jobs, the jobs file nor the ledger knows (exit
 * code 2, with a did-you-mean): a typo has no history, while a job removed from the file still
 * has one (its runs, state or operator actions in the ledger). Gives the job's definition
 * (deployed, else the file's), or undefined for a job only the ledger knows.
 */
async function checkKnownJob(
  connection: OperateConnection,
  jobId: string,
  configFile: string | undefined,
): Promise<OperatedJob | undefined> {
  const { existsSync } = await import('node:fs');
  const file = configFile ?? (existsSync('jobs.yaml') ? 'jobs.yaml' : undefined);
  let unknownInFile: unknown;
  if (file !== undefined || connection.stack?.outputs.has('DispatcherFunctionName')) {
    const { loadOperatedJob } = await import('../aws/operated-job.ts');
    try {
      return await loadOperatedJob(connection, file ?? 'jobs.yaml', jobId);
    } catch (error) {
      if (!isCliError(error) || error.exitCode !== 2) throw error;
      unknownInFile = error;
    }
  }
  if (await ledgerKnows(connection, jobId)) return undefined;
  if (unknownInFile) throw unknownInFile;
  throw usageError(
    `unknown job '${jobId}': the ledger table '${connection.tableName()}' has no run, state or` +
      ' operator action of it (pass --config <file> for the jobs to check against)',
  );
}

async function ledgerKnows(connection: OperateConnection, jobId: string): Promise<boolean> {
  const { openLedger, onLedgerTable } = await import('../aws/ledger-access.ts');
  const { readJobRuns } = await import('../aws/job-runs.ts');
  const access = openLedger(connection);
  return onLedgerTable(access.tableName, connection.clients, 'read', async () => {
    if (await access.ledger.getJobState(jobId)) return true;
    const client = connection.clients.dynamodb;
    if ((await readJobRuns(client, access.tableName, jobId, { limit: 1 })).length > 0) return true;
    return (await access.log.read(jobId, new Date(0), 1)).length > 0;
  });
}

/** `--since` as written; a bad value is a usage error worded as commander words its own. */
function sinceInput(value: string): InstantInput {
  try {
    return whenArgument(value);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    throw usageError(`option '--since <when>' argument '${value}' is invalid. ${error.message}`);
  }
}

/**
 * An instant of `history` (`--since`, `--at`): a date or local time read in `--tz` or, when
 * neither is given, in the zone the jobs file gives the job (`--config`, default jobs.yaml),
 * which is read only then; a duration counts back from now.
 */
async function historyInstant(
  input: InstantInput,
  jobId: string,
  options: HistoryOptions,
  connection: OperateConnection,
): Promise<Date> {
  const { resolveInstant } = await import('../instant.ts');
  const { checkZone } = await import('../schedule-input.ts');
  const local = input.kind === 'wall' || input.kind === 'day';
  let zone = 'UTC';
  if (options.tz !== undefined) zone = await checkZone(options.tz);
  else if (local) {
    const { loadOperatedJob } = await import('../aws/operated-job.ts');
    zone = (await loadOperatedJob(connection, options.config ?? 'jobs.yaml', jobId)).job.timezone;
  }
  return resolveInstant(input, { zone, now: new Date(), direction: -1 });
}

async function runHistory(jobId: string, options: HistoryOptions): Promise<void> {
  const input = options.at ?? sinceInput(options.since);
  const connection = await connect(options);
  let since: Date;
  try {
    since = await historyInstant(input, jobId, options, connection);
  } catch (error) {
    connection.destroy();
    throw error;
  }
  if (options.at) return runFate(jobId, since, options, connection);
  // Loaded here: the skip-range formatting reads the ledger's module, and `--help` loads none.
  const f: Formats = {
    ...(await import('../format/run-history.ts')),
    ...(await import('../format/skip-ranges.ts')),
    ...(await import('../format/calendar-skips.ts')),
  };
  let history: JobHistory;
  let skips: CalendarSkips | null;
  try {
    const operated = await checkKnownJob(connection, jobId, options.config);
    const window = { since, limit: options.limit, scheduled: options.scheduled ?? false };
    history = await readHistory(connection, jobId, window);
    const computed = operated
      ? f.calendarSkipsOf(operated.job, operated.config.source, since, new Date())
      : null;
    skips = computed && f.withoutItems(computed, history.runs);
  } finally {
    connection.destroy();
  }
  if (options.json) {
    const doc = {
      jobId,
      since: since.toISOString(),
      pause: history.pause,
      runs: history.runs.map((run) => ({ ...run, lagMs: f.lagMs(run) ?? null })),
      ranges: history.ranges.map(f.skipRangeJson),
      events: history.events,
      calendarSkipped: skips === null ? null : f.calendarSkipsJson(skips),
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const c = coloursFor(process.stdout);
  const out = [
    ...runLines(jobId, history, { since, limit: options.limit }, c, f),
    ...(skips === null ? [] : ['', ...f.calendarSkipLines(skips, c)]),
    ...(history.pause.paused ? ['', ...f.pauseLines(history.pause, c)] : []),
    ...eventLines(history.events, c),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

/** The formatting of runs and skip ranges. */
type Formats = typeof import('../format/run-history.ts') &
  typeof import('../format/skip-ranges.ts') &
  typeof import('../format/calendar-skips.ts');

function runLines(
  jobId: string,
  { runs, ranges, rangesTruncated }: JobHistory,
  { since, limit }: { readonly since: Date; readonly limit: number },
  c: Colours,
  f: Formats,
): string[] {
  const out: string[] = [
    `${c.bold(jobId)}: ${runs.length} run${runs.length === 1 ? '' : 's'} since ${since.toISOString()}` +
      (runs.length === limit ? ` (newest ${limit}; see --limit)` : ' (newest first)'),
  ];
  if (ranges.length > 0) out.push(rangesLine(ranges, rangesTruncated, f.count));
  if (runs.length === 0 && ranges.length === 0) return out;
  return [...out, '', ...f.runHistoryLines(runs, c, ranges)];
}

/** How many older skipped runs the ranges hold beside the runs with items of their own. */
function rangesLine(
  ranges: readonly SkipRange[],
  truncated: boolean,
  count: (n: number) => string,
): string {
  const runs = ranges.reduce((sum, r) => sum + r.runs, 0);
  const what = `${ranges.length} skip range${ranges.length === 1 ? '' : 's'}`;
  return wrap(
    `and ${count(runs)} skipped run${runs === 1 ? '' : 's'} recorded as ` +
      `${truncated ? `the newest ${what}` : what} (a long gap's older runs)`,
    '',
  );
}

/** `history --at`: the one run's fate; the jobs file is read only when the ledger has no item. */
async function runFate(
  jobId: string,
  at: Date,
  options: HistoryOptions,
  connection: OperateConnection,
): Promise<void> {
  const { readRunFate } = await import('../aws/run-fate.ts');
  const { runFateJson, runFateLines } = await import('../format/run-fate.ts');
  const { loadOperatedJob } = await import('../aws/operated-job.ts');
  let fate: Awaited<ReturnType<typeof readRunFate>>;
  try {
    const { openLedger, onLedgerTable } = await import('../aws/ledger-access.ts');
    const access = openLedger(connection);
    const sources = {
      ledger: access.ledger,
      loadJob: async () => {
        const file = options.config ?? 'jobs.yaml';
        const { config, job } = await loadOperatedJob(connection, file, jobId);
        return { job, retentionDays: config.retentionDays, definition: config.source };
      },
    };
    fate = await onLedgerTable(access.tableName, connection.clients, 'read', () =>
      readRunFate(sources, jobId, at),
    );
  } finally {
    connection.destroy();
  }
  const text = options.json
    ? JSON.stringify(runFateJson(fate), null, 2)
    : runFateLines(fate, coloursFor(process.stdout)).join('\n');
  process.stdout.write(`${text}\n`);
}

function eventLines(events: readonly OperatorEvent[], c: Colours): string[] {
  if (events.length === 0) return [];
  const rows = events.map((e) => {
    const said = [
      e.reason,
      e.until ? `until ${e.until}` : undefined,
      e.runKey ? `run ${e.runKey.slice(0, 7)}` : undefined,
      e.detail,
    ].filter((x) => x !== undefined);
    return { e, said: said.join('; ') };
  });
  const out = ['', c.bold('operator actions (newest first)')];
  for (const { e, said } of rows) {
    out.push(`${e.at.slice(0, 10)} ${e.at.slice(11, 16)}  ${e.action.padEnd(10)}  ${e.by}`);
    if (said) out.push(c.dim(wrap(said, '  ')));
  }
  return out;
}
