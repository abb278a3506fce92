/**
 * The fuzzer: holds the real system against the model of docs/semantics.md §6
 * (test/reference/fate-model.ts), scenario by scenario, and shrinks a scenario where the two
 * disagree to a minimal one, printed as the files that reproduce it.
 *
 * Per scenario: the jobs file and the faults plan are read by the loaders the CLI uses, the
 * real dispatcher, recorder and ledger run them on dynalite (`driveSystem`), and the model is
 * given the same history: the invocations the plan sent (ticks as they arrived, late or
 * twice, hostile ones among them; sweeps), the outages, pauses and targets of the plan, and the
 * invocations that failed.
 * Every run's fate (status, reason, deliveries) and every notification are compared.
 *
 * Crashes and throttling fail an invocation half-way, which the model (whose invocations are all
 * or nothing) cannot follow exactly; scenarios with them are compared with tolerances: a run's
 * fate may be the model's with or without the failures, a run taken over from a dead dispatcher
 * may be delivered again (counted Redelivered) or run out of attempts, and notifications are
 * not compared.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SETTLE_LIMIT_MS } from '../../cli/simulation/event-loop.ts';
import type { FaultPlan } from '../../cli/simulation/fault-plan.ts';
import { parseFaultPlan } from '../../cli/simulation/faults.ts';
import { EVENT_DELAY_MS } from '../../cli/simulation/world.ts';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { type FateScenario, fateOf, type ModelOperatorStep } from '../reference/fate-model.ts';
import { compareExactly, compareTolerantly } from './compare.ts';
import { driveSystem, type SystemObservation } from './drive.ts';
import {
  DEFAULT_LIMITS,
  deployFiles,
  type FuzzScenario,
  faultsYaml,
  jobsYaml,
  type ScenarioLimits,
  scenarioArbitrary,
  simulateCommand,
  windowEnd,
} from './scenario.ts';

/** What one scenario gave. */
export interface ScenarioResult {
  readonly scenario: FuzzScenario;
  /** Each disagreement between the system and the model, in words. */
  readonly violations: readonly string[];
  readonly jobHours: number;
  /** The `deadline-missed` notifications the system sent (compared as the others are). */
  readonly deadlinesMissed: number;
  readonly operations: SystemObservation['operations'];
  /** CPU time the scenario took, the system's and the model's. */
  readonly cpuMs: number;
}

/**
 * Runs one scenario on the real system and on the model, and compares them.
 *
 * @example
 * (await checkScenario(scenario)).violations //=> [] when the system keeps §6
 */
export async function checkScenario(scenario: FuzzScenario): Promise<ScenarioResult> {
  const cpu = process.cpuUsage();
  const jobsText = jobsYaml(scenario);
  const config = parseJobsConfig(jobsText, 'jobs.yaml');
  const plan = readPlan(scenario, config);
  const from = new Date(scenario.from);
  const to = new Date(windowEnd(scenario));
  const seen = await driveSystem({
    jobs: config.jobs,
    window: { from, to, reasons: [] },
    duplicateTicks: scenario.duplicateTicks,
    plan,
  });
  const history: FateScenario = {
    jobs: config.jobs,
    from,
    to,
    runningSince: new Date(from.getTime() + 1),
    ticks: seen.invocations
      .filter((i) => i.kind === 'tick' && i.attempt === 1)
      .map((i) => ({ jobId: i.jobId ?? '', scheduledAt: i.scheduledAt, arrivesAt: i.arrivesAt })),
    outages: plan.outages,
    pauses: plan.pauses.map((p) => modelPause(p, to)),
    failures: seen.failed,
    targets: plan.targets.map((t) => ({
      jobId: t.job,
      ...(t.fail ? { fail: t.fail } : {}),
      ...(t.runtimeMs === undefined ? {} : { runtimeMs: t.runtimeMs }),
    })),
    // The simulation performs the plan's deploys up to the window's end and its operators'
    // steps inside the window (cli/simulation/world.ts, schedulePlan): the others never happen.
    deploys: plan.deploys.filter((d) => d.at <= to).map((d) => ({ at: d.at, jobs: d.jobs })),
    operator: plan.operator.filter((step) => step.at >= from && step.at <= to).flatMap(modelStep),
    latencyMs: EVENT_DELAY_MS,
    settleMs: SETTLE_LIMIT_MS,
    retentionDays: config.retentionDays,
  };
  const chaos = plan.crashes.length > 0 || plan.throttling !== undefined;
  const model = fateOf(history);
  const violations = chaos
    ? compareTolerantly(
        [...config.jobs, ...plan.deploys.flatMap((d) => d.jobs)],
        [model, fateOf({ ...history, failures: [] })],
        seen,
        history.deploys ?? [],
      )
    : compareExactly(model, seen, from, to);
  // §6 Completions need proof of delivery: a forgery changes nothing.
  for (const forged of seen.forgeriesRecorded) {
    violations.push(`the recorder recorded a forged completion: ${forged}`);
  }
  return {
    scenario,
    violations,
    jobHours: config.jobs.filter((j) => j.enabled).length * scenario.hours,
    deadlinesMissed: seen.notifications.filter((n) => n.kind === 'deadline-missed').length,
    operations: seen.operations,
    cpuMs: cpuMsSince(cpu),
  };
}

/**
 * The scenario's faults plan, read as `zonecron simulate` reads it: its deploys' jobs files are
 * written next to it, in a directory of their own, for the loader to read.
 */
function readPlan(scenario: FuzzScenario, config: ReturnType<typeof parseJobsConfig>): FaultPlan {
  const files = deployFiles(scenario);
  if (files.length === 0) return parseFaultPlan(faultsYaml(scenario), 'faults.yaml', config);
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-fuzz-'));
  try {
    for (const [name, text] of files) writeFileSync(join(dir, name), text);
    return parseFaultPlan(faultsYaml(scenario), join(dir, 'faults.yaml'), config);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An operator's step of the plan as the model takes it (the pauses come from `pauses`). */
function modelStep(step: FaultPlan['operator'][number]): ModelOperatorStep[] {
  const { at, job: jobId } = step;
  switch (step.action) {
    case 'run':
      return [{ at, action: 'run', jobId }];
    case 'backfill':
      return [{ at, action: 'backfill', jobId, from: step.from, to: step.to }];
    case 'redrive':
      return [{ at, action: 'redrive', jobId, run: step.run }];
    default:
      return [];
  }
}

const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/**
 * A pause of the plan as the model takes it. The simulation resumes a job only within the
 * window: a pause that ends after it lasts past the window's end and its settling.
 */
function modelPause(pause: FaultPlan['pauses'][number], to: Date) {
  const resumed = pause.to <= to;
  return {
    jobId: pause.job,
    from: pause.from,
    to: resumed ? pause.to : new Date(to.getTime() + SETTLE_LIMIT_MS + 60_000),
    catchUp: resumed && pause.catchUp,
  };
}

/** Scenarios run, and what they cost. */
export interface FuzzTotals {
  scenarios: number;
  jobHours: number;
  invocations: number;
  ledgerRequests: number;
  cpuMinutes: number;
}

/** What a fuzzing session found: the scenarios drawn, those run while shrinking, the failures. */
export interface FuzzReport {
  readonly drawn: FuzzTotals;
  readonly shrinking: FuzzTotals;
  /** The whole session's CPU time, the fuzzer's own included. */
  readonly cpuMinutes: number;
  /** Each failing seed, with the smallest scenario its shrinking reached. */
  readonly failures: readonly { readonly seed: number; readonly smallest: ScenarioResult }[];
}

const noTotals = (): FuzzTotals => ({
  scenarios: 0,
  jobHours: 0,
  invocations: 0,
  ledgerRequests: 0,
  cpuMinutes: 0,
});

/** What {@link fuzz} is given. */
export interface FuzzOptions {
  readonly seed: number;
  /** Stop drawing new scenarios after this long (a shrink under way goes on, up to `shrinkMs`). */
  readonly budgetMs: number;
  readonly shrinkMs?: number;
  readonly limits?: ScenarioLimits;
  /** Called after each scenario. */
  readonly onScenario?: (result: ScenarioResult, shrinking: boolean) => void;
}

/**
 * One scenario per seed, from `seed` on, until the budget is spent; a failure is shrunk by
 * fast-check to a minimal scenario (for at most `shrinkMs`), and the session goes on with the
 * next seed.
 *
 * @example
 * const report = await fuzz({ seed: 1, budgetMs: 60_000 });
 * report.failures.map((f) => f.smallest.violations) //=> [] when the system keeps §6
 */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const drawn = noTotals();
  const shrinking = noTotals();
  const failures: { seed: number; smallest: ScenarioResult }[] = [];
  const arbitrary = scenarioArbitrary(options.limits ?? DEFAULT_LIMITS);
  for (let seed = options.seed; Date.now() - started < options.budgetMs; seed++) {
    const found = await checkSeed(arbitrary, {
      seed,
      shrinkMs: options.shrinkMs ?? 120_000,
      onScenario(result, shrunk) {
        const totals = shrunk ? shrinking : drawn;
        totals.scenarios++;
        totals.jobHours += result.jobHours;
        totals.invocations += result.operations.invocations;
        totals.ledgerRequests += result.operations.ledgerRequests;
        totals.cpuMinutes += result.cpuMs / 60_000;
        options.onScenario?.(result, shrunk);
      },
    });
    if (found) failures.push({ seed, smallest: found });
  }
  return { drawn, shrinking, cpuMinutes: cpuMsSince(cpu) / 60_000, failures };
}

/** How {@link checkSeed} checks a seed. */
export interface SeedCheck {
  readonly seed: number;
  /** How long fast-check may shrink a failing scenario. */
  readonly shrinkMs: number;
  readonly onScenario?: (result: ScenarioResult, shrinking: boolean) => void;
}

/**
 * The scenario of one seed, checked; when it fails, the smallest failing scenario fast-check
 * shrinks it to within `shrinkMs` (undefined when the seed's scenario passes).
 *
 * The budget is kept by the property itself: once it is spent, every further candidate passes
 * unrun, so the shrink ends at once. (fast-check's own time limit would also cut the first,
 * drawn scenario when it runs longer than the budget, and would leave the interrupted scenario
 * running beside the next one.)
 *
 * @example
 * await checkSeed(scenarioArbitrary(), { seed: 7, shrinkMs: 60_000 }) //=> undefined, or the shrunk failure
 */
export async function checkSeed(
  arbitrary: fc.Arbitrary<FuzzScenario>,
  check: SeedCheck,
): Promise<ScenarioResult | undefined> {
  let smallest: ScenarioResult | undefined;
  let shrinkEndsAt = Number.POSITIVE_INFINITY;
  const property = fc.asyncProperty(arbitrary, async (scenario) => {
    if (Date.now() >= shrinkEndsAt) return true;
    const result = await checkScenario(scenario);
    check.onScenario?.(result, smallest !== undefined);
    if (result.violations.length === 0) return true;
    if (smallest === undefined) shrinkEndsAt = Date.now() + check.shrinkMs;
    smallest = result;
    return false;
  });
  await fc.check(property, { seed: check.seed, numRuns: 1 });
  return smallest;
}

/**
 * A failure as a person reads it: the violations, the two files and the command.
 *
 * @example
 * reproduction(failure) //=> '# 1 violation\n# j1 2027-…: the model says delivered; the system: skipped(max-runs)\n…'
 */
export function reproduction(result: ScenarioResult): string {
  const s = result.scenario;
  return [
    `# ${result.violations.length} violation(s)`,
    ...result.violations.map((v) => `#   ${v}`),
    `# ${simulateCommand(s)}`,
    '# --- jobs.yaml',
    jobsYaml(s).trimEnd(),
    '# --- faults.yaml',
    faultsYaml(s).trimEnd(),
    ...deployFiles(s).flatMap(([name, text]) => [`# --- ${name}`, text.trimEnd()]),
    '# --- the scenario, as a fixture of test/fixtures/fuzz/',
    `# ${JSON.stringify(s)}`,
  ].join('\n');
}
