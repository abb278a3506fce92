import type { Command } from 'commander';
import { CliError, usageError } from '../errors.ts';
import { integerAtLeast, parseInstant } from '../options.ts';

interface SimulateOptions {
  config: string;
  from?: Date;
  to?: Date;
  after?: Date;
  duplicateTicks: number;
  all?: boolean;
  json?: boolean;
}

const DAY_MS = 86_400_000;
/** The longest window `simulate` accepts: a year of one-minute sweeps. */
const MAX_WINDOW_DAYS = 366;

const EXAMPLE = `
Example:
  $ zonecron simulate
  runs the real dispatcher on jobs.yaml over ±1 day around each zone's next
  spring-forward and fall-back nights, every tick delivered twice.
  $ zonecron simulate --from 2027-03-01T00:00Z --to 2027-04-01T00:00Z --json`;

/** `zonecron simulate`: the real dispatcher over simulated time, with local targets. */
export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('run the real dispatcher over simulated time, locally')
    .option('--config <file>', 'jobs file', 'jobs.yaml')
    .option('--from <instant>', 'start of the window, ISO (default: see below)', parseInstant)
    .option('--to <instant>', 'end of the window, ISO (default: --from + 1 day)', parseInstant)
    .option(
      '--after <instant>',
      'without --from/--to, the DST changes after this instant (default: now)',
      parseInstant,
    )
    .option(
      '--duplicate-ticks <n>',
      'deliver every job tick n times, as at-least-once Scheduler may',
      integerAtLeast(1),
      2,
    )
    .option('--all', 'list every run (default: runs near DST changes only)')
    .option('--json', 'print one JSON document: {"runs":[…],"duplicatesSuppressed":n}')
    .addHelpText(
      'after',
      `
Without --from/--to the windows are ±1 day around the next spring-forward and
the next fall-back of every configured zone (merged where they overlap).${EXAMPLE}`,
    )
    .action(runSimulate);
}

async function runSimulate(options: SimulateOptions): Promise<void> {
  if (options.duplicateTicks > 10) throw usageError('--duplicate-ticks allows 1-10');
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const config = loadJobsFile(options.config);
  const { defaultWindows } = await import('../simulation/windows.ts');

  let windows: import('../simulation/windows.ts').SimulationWindow[];
  let windowsChosen: string;
  if (options.from || options.to) {
    const from = options.from ?? new Date((options.to?.getTime() ?? 0) - DAY_MS);
    const to = options.to ?? new Date(from.getTime() + DAY_MS);
    if (to.getTime() <= from.getTime()) {
      throw usageError(`--to (${to.toISOString()}) must be after --from (${from.toISOString()})`);
    }
    if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
      throw usageError(`the window may be at most ${MAX_WINDOW_DAYS} days long`);
    }
    windows = [{ from, to, reasons: [] }];
    windowsChosen = 'the window given by --from/--to';
  } else {
    const zones = config.jobs.filter((j) => j.enabled).map((j) => j.timezone);
    windows = defaultWindows(zones, options.after ?? new Date());
    windowsChosen =
      "±1 day around each zone's next spring-forward and fall-back (merged where they overlap)";
  }
  if (config.jobs.every((j) => !j.enabled)) {
    throw new CliError(`${config.file} has no enabled job to simulate`);
  }

  const { runSimulation } = await import('../simulation/run-simulation.ts');
  const { startProgress } = await import('../format/progress.ts');
  const progress = startProgress(process.stderr, 'simulating');
  const startedMs = performance.now();
  let result: import('../simulation/run-simulation.ts').SimulationResult;
  try {
    result = await runSimulation({
      jobs: config.jobs,
      windows,
      duplicateTicks: options.duplicateTicks,
      onProgress: progress.update,
    });
  } finally {
    progress.stop();
  }
  const elapsedMs = performance.now() - startedMs;

  const { checkSimulation } = await import('../simulation/check.ts');
  const check = checkSimulation(result);

  if (options.json) {
    const doc = {
      runs: result.runs.map((run) => ({
        jobId: run.jobId,
        at: run.at.toISOString(),
        nominal: run.nominal,
        dst: run.dst,
        key: run.key,
      })),
      duplicatesSuppressed: result.duplicatesSuppressed,
    };
    process.stdout.write(`${JSON.stringify(doc)}\n`);
  } else {
    const { renderSimulation } = await import('../format/simulation-report.ts');
    process.stdout.write(
      renderSimulation({
        file: config.file,
        jobs: config.jobs,
        result,
        check,
        windowsChosen,
        duplicateTicks: options.duplicateTicks,
        elapsedMs,
        all: options.all ?? false,
      }),
    );
  }
  if (!check.ok) {
    throw new CliError('the simulation found runs that were missed or delivered twice (see above)');
  }
}
