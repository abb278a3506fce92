import { readFileSync } from 'node:fs';
import { type Document, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import {
  ConfigError,
  type ConfigIssue,
  type ConfigIssueCode,
  unreadableFileError,
} from '../../infra/config/config-error.ts';
import { positionOf } from '../../infra/config/source-positions.ts';
import type { FaultPlan, OperatorStep } from './fault-plan.ts';
import { checkPlan, loadDeploys, type PlanJobs } from './plan-checks.ts';
import { type IssueAt, type ParsedPlan, planSchema } from './plan-schema.ts';

/**
 * Reads a fault plan; every problem is reported at its file, line and column.
 *
 * `jobs` are the jobs of the simulated file (their ids, or the file itself, which also lets
 * hostile ticks be checked against each job's catch-up window): a target, pause, operator
 * action or hostile event naming a job that is not deployed at its instant is an error. A
 * deploy's jobs file is read relative to the plan's directory, with the jobs file loader.
 *
 * @example
 * loadFaultPlan('faults.yaml', ['nightly-report']).crashes
 * //=> [{ point: 'after-claim', probability: 0.1 }]
 */
export function loadFaultPlan(path: string, jobs: PlanJobs): FaultPlan {
  return parseFaultPlan(readPlanText(path), path, jobs);
}

/**
 * {@link loadFaultPlan} of a plan's text; `file` names it in the issues (and its directory is
 * where deploys' jobs files are found).
 *
 * @example
 * parseFaultPlan('seed: 7\nthrottling: { probability: 0.1 }', 'faults.yaml', []).throttling
 * //=> { probability: 0.1 }
 */
export function parseFaultPlan(text: string, file: string, jobs: PlanJobs): FaultPlan {
  const source = parsePlanSource(file, text);
  const { plan, deploys } = validatePlan(source, jobs);
  return {
    seed: plan.seed,
    outages: plan.outages,
    lateTicks: plan.lateTicks && {
      probability: plan.lateTicks.probability,
      maxDelayMs: plan.lateTicks.maxDelay,
    },
    crashes: plan.crashes,
    throttling: plan.throttling,
    targets: plan.targets.map((t) => ({ job: t.job, fail: t.fail, runtimeMs: t.runtime })),
    pauses: plan.pauses.map((p) => ({
      job: p.job,
      from: p.from,
      to: p.to,
      reason: p.reason ?? 'simulated pause',
      catchUp: p.catchUp ?? false,
    })),
    deploys,
    operator: plan.operator.map(operatorStepOf),
    hostile: plan.hostile,
  };
}

/** An operator action of the schema, its defaults filled in. */
function operatorStepOf(step: ParsedPlan['operator'][number]): OperatorStep {
  switch (step.action) {
    case 'discard':
      return { ...step, reason: step.reason ?? 'simulated discard' };
    case 'pause':
      return { ...step, reason: step.reason ?? 'simulated pause', until: step.until };
    case 'resume':
      return { ...step, catchUp: step.catchUp ?? false };
    case 'run':
    case 'backfill':
      return { ...step, force: step.force ?? false };
    default:
      return step;
  }
}

/** The plan's text; a file that cannot be read is one issue about the whole file. */
function readPlanText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw unreadableFileError(path, 'fault plan', error);
  }
}

/** The parsed YAML with its line counter; YAML syntax errors at their positions. */
interface PlanSource {
  readonly path: string;
  readonly doc: Document;
  readonly lineCounter: LineCounter;
}

function parsePlanSource(path: string, text: string): PlanSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const { line, col } = lineCounter.linePos(e.pos[0]);
        const message = `fault plan: ${e.message.split('\n')[0] ?? 'invalid YAML'}`;
        return { file: path, line, column: col, field: '', message, code: 'yaml' as const };
      }),
    );
  }
  return { path, doc, lineCounter };
}

/** One issue at the position of a path in the plan. */
function issueAt(
  source: PlanSource,
  at: readonly (string | number)[],
  message: string,
  code: ConfigIssueCode = 'invalid-value',
  pointAtKey = false,
): ConfigIssue {
  const { line, column } = positionOf(source.doc, source.lineCounter, at, pointAtKey);
  return { file: source.path, line, column, field: at.join('.'), message, code };
}

/** One zod issue as file positions: an unknown key is reported at the key itself. */
function schemaIssues(source: PlanSource, issue: z.core.$ZodIssue): ConfigIssue[] {
  const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) =>
      issueAt(source, [...path, key], `unknown field '${key}'`, 'unknown-field', true),
    );
  }
  return [issueAt(source, path, issue.message)];
}

/** The plan checked against its schema, its deploys loaded, and both held against the jobs. */
function validatePlan(source: PlanSource, jobs: PlanJobs) {
  const parsed = planSchema.safeParse(source.doc.toJS() ?? {});
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.flatMap((i) => schemaIssues(source, i)));
  }
  const at: IssueAt = (path, message, code) => issueAt(source, path, message, code);
  const deploys = loadDeploys(parsed.data.deploys, source.path, at);
  const issues = checkPlan(parsed.data, deploys, jobs, at);
  if (issues.length > 0) throw new ConfigError(issues);
  return { plan: parsed.data, deploys };
}
