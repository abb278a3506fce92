import type { Command } from 'commander';
import type { JobsConfig } from '../../infra/config/load-jobs.ts';
import { CliError, usageError } from '../errors.ts';
import { utcInstantArgument } from '../instant.ts';
import { integerAtLeast } from '../options.ts';
import type { FaultPlan } from '../simulation/fault-plan.ts';
import type { SimulationResult } from '../simulation/run-simulation.ts';
import type { SimulationWindow } from '../simulation/windows.ts';

interface SimulateOptions {
  config: string;
  from?: Date;
  to?: Date;
  after?: Date;
  duplicateTicks: number;
  faults?: string;
  all?: boolean;
  /** False with `--no-legend`. */
  legend: boolean;
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
  $ zonecron simulate --from 2027-03-28T00:00Z --to 2027-03-28T04:00Z \\
      --faults faults.yaml
  Berlin's spring-forward night with an outage, late ticks, crashes,
  throttling and failing targets drawn from the plan's seed; exits 1 if an
  invariant breaks.`;

/** `zonecron simulate`: the real dispatcher over simulated time, with local targets. */
export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('run the real dispatcher over simulated time, locally')
    .option('--config <file>', 'jobs file', 'jobs.yaml')
    .option('--from <instant>', 'start of the window, ISO (default: see below)', utcInstantArgument)
    .option(
      '--to <instant>',
      'end of the window, ISO (default: --from + 1 day)',
      utcInstantArgument,
    )
    .option(
      '--after <instant>',
      'without --from/--to, the DST changes after this instant (default: now; a date or local time is read in UTC)',
      utcInstantArgument,
    )
    .option(
      '--duplicate-ticks <n>',
      'deliver every job tick n times, as at-least-once Scheduler may',
      integerAtLeast(1),
      2,
    )
    .option('--faults <file>', 'inject the faults of a YAML plan (see docs/cli.md)')
    .option('--all', 'list every run (default: runs near DST changes only)')
    .option('--no-legend', 'leave out the legend that explains the report')
    .option(
      '--json',
      'print one JSON document: {"runs":[…],"duplicatesSuppressed":n}, with --faults also outcomes, deadLetters, signals, invariants, notifications, operator and hostile',
    )
    .addHelpText(
      'after',
      `
Without --from/--to the windows are ±1 day around the next spring-forward and
the next fall-back of every configured zone (merged where they overlap).
${EXAMPLE}`,
    )
    .action(runSimulate);
}

async function runSimulate(options: SimulateOptions): Promise<void> {
  if (options.duplicateTicks > 10) throw usageError('--duplicate-ticks allows 1-10');
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const config = loadJobsFile(options.config);
  const { windows, windowsChosen } = await chooseWindows(options, config);
  if (config.jobs.every((j) => !j.enabled)) {
    throw new CliError(`${config.file} has no enabled job to simulate`);
  }
  const plan = await loadPlan(options.faults, config);
  const { result, elapsedMs } = await simulateWithProgress(config, windows, options, plan);
  const { checkSimulation } = await import('../simulation/check.ts');
  const check = checkSimulation(result);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(jsonDocument(result, plan !== undefined))}\n`);
  } else {
    const { renderSimulation } = await import('../format/simulation-report.ts');
    process.stdout.write(
      renderSimulation({
        file: config.file,
        jobs: reportedJobs(config, plan),
        result,
        check,
        windowsChosen,
        duplicateTicks: options.duplicateTicks,
        elapsedMs,
        all: options.all ?? false,
        legend: options.legend,
        faults: plan && options.faults ? { file: options.faults, seed: plan.seed } : undefined,
      }),
    );
  }
  failOnBrokenPromises(result, check.ok, plan !== undefined);
}

/** The jobs the report shows: the jobs file's, then those the plan's deploys add. */
function reportedJobs(config: JobsConfig, plan: FaultPlan | undefined): JobsConfig['jobs'] {
  const known = new Set(config.jobs.map((j) => j.id));
  const added = (plan?.deploys ?? [])
    .flatMap((d) => d.jobs)
    .filter((j) => {
      if (known.has(j.id)) return false;
      known.add(j.id);
      return true;
    });
  return [...config.jobs, ...added];
}

/** The windows to simulate: `--from`/`--to`, or the coming DST nights of the jobs' zones. */
async function chooseWindows(
  options: SimulateOptions,
  config: JobsConfig,
): Promise<{ windows: SimulationWindow[]; windowsChosen: string }> {
  if (options.from || options.to) {
    const from = options.from ?? new Date((options.to?.getTime() ?? 0) - DAY_MS);
    const to = options.to ?? new Date(from.getTime() + DAY_MS);
    if (to.getTime() <= from.getTime()) {
      throw usageError(`--to (${to.toISOString()}) must be after --from (${from.toISOString()})`);
    }
    if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
      throw usageError(`the window may be at most ${MAX_WINDOW_DAYS} days long`);
    }
    return {
      windows: [{ from, to, reasons: [] }],
      windowsChosen: 'the window given by --from/--to',
    };
  }
  const { defaultWindows } = await import('../simulation/windows.ts');
  const zones = config.jobs.filter((j) => j.enabled).map((j) => j.timezone);
  return {
    windows: defaultWindows(zones, options.after ?? new Date()),
    windowsChosen:
      "±1 day around each zone's next spring-forward and fall-back (merged where they overlap)",
  };
}

/**
 * The `--faults` plan, or undefined. A bad plan is a `ConfigError` with one
 * `file:line:column` issue per problem, reported like a bad jobs file.
 */
async function loadPlan(file: string | undefined, config: JobsConfig) {
  if (file === undefined) return undefined;
  const { loadFaultPlan } = await import('../simulation/faults.ts');
  return loadFaultPlan(file, config);
}

async function simulateWithProgress(
  config: JobsConfig,
  windows: readonly SimulationWindow[],
  options: SimulateOptions,
  plan: FaultPlan | undefined,
): Promise<{ result: SimulationResult; elapsedMs: number }> {
  const { runSimulation } = await import('../simulation/run-simulation.ts');
  const { startProgress } = await import('../format/progress.ts');
  const { exitOnInterrupt } = await import('../interrupt.ts');
  const progress = startProgress(process.stderr, 'simulating');
  // Ctrl-C: the simulation is in memory; take the bar down, restore the terminal, exit 130.
  const guard = exitOnInterrupt({ stream: process.stderr, cleanup: progress.stop });
  const startedMs = performance.now();
  try {
    const result = await runSimulation({
      jobs: config.jobs,
      windows,
      duplicateTicks: options.duplicateTicks,
      ...(plan ? { faults: plan } : {}),
      onProgress: progress.update,
    });
    return { result, elapsedMs: performance.now() - startedMs };
  } finally {
    guard.release();
    progress.stop();
  }
}

/**
 * `--json`: today's runs and refused duplicates; with `--faults`, how every run ended, every
 * notification sent, and what the plan's operators and hostile events did.
 */
function jsonDocument(result: SimulationResult, faulted: boolean): object {
  const runs = result.runs.map((run) => ({
    jobId: run.jobId,
    at: run.at.toISOString(),
    nominal: run.nominal,
    dst: run.dst,
    key: run.key,
  }));
  if (!faulted) return { runs, duplicatesSuppressed: result.duplicatesSuppressed };
  return {
    runs,
    duplicatesSuppressed: result.duplicatesSuppressed,
    outcomes: result.outcomes,
    deadLetters: result.deadLettered.length,
    signals: result.signals,
    invariants: result.invariants,
    notifications: result.notifications,
    operator: result.operator,
    hostile: result.hostile,
  };
}

/** Exit code 1 when a run was missed or doubled (no faults) or an invariant broke. */
function failOnBrokenPromises(result: SimulationResult, checkOk: boolean, faulted: boolean): void {
  const broken = result.invariants.filter((i) => !i.ok);
  if (broken.length > 0) {
    throw new CliError(
      `the simulation broke ${broken.length} invariant${broken.length === 1 ? '' : 's'}: ${broken.map((i) => i.name).join('; ')}`,
    );
  }
  if (!faulted && !checkOk) {
    throw new CliError('the simulation found runs that were missed or delivered twice (see above)');
  }
}
