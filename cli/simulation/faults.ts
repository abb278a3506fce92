import { readFileSync } from 'node:fs';
import { type Document, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import type { JobDefinition } from '#shared/job.ts';
import {
  ConfigError,
  type ConfigIssue,
  type ConfigIssueCode,
} from '../../infra/config/config-error.ts';
import { DurationError, parseDurationSeconds } from '../../infra/config/duration.ts';
import { positionOf } from '../../infra/config/source-positions.ts';
import { checkPlan, loadDeploys, type PlanJobs } from './plan-checks.ts';

export type { PlanJobs } from './plan-checks.ts';

/** A stretch of simulated time, `[from, to)`. */
export interface Interval {
  readonly from: Date;
  readonly to: Date;
}

/** Where the dispatcher dies: right after its claim was written, or after the target took the run. */
export type CrashPoint = 'after-claim' | 'after-delivery';

/**
 * The faults a simulation injects (`zonecron simulate --faults FILE`). Everything random is
 * drawn from `seed`, so a run is reproducible.
 */
export interface FaultPlan {
  readonly seed: number;
  /** Nothing reaches the dispatcher: no ticks, no sweeps, no retries. */
  readonly outages: readonly Interval[];
  /** A job tick arrives up to `maxDelayMs` late, with this probability. */
  readonly lateTicks: { readonly probability: number; readonly maxDelayMs: number } | undefined;
  /** The dispatcher dies at this point, with this probability per occasion. */
  readonly crashes: readonly { readonly point: CrashPoint; readonly probability: number }[];
  /** A ledger request fails with a throughput error, with this probability. */
  readonly throttling: { readonly probability: number } | undefined;
  /** Per job: its target throws during `fail`; its runs take `runtimeMs` to finish. */
  readonly targets: readonly {
    readonly job: string;
    readonly fail: Interval | undefined;
    readonly runtimeMs: number | undefined;
  }[];
  /** An operator pauses a job in `[from, to)` (`zonecron pause`, then `zonecron resume`). */
  readonly pauses: readonly PlannedPause[];
  /** From each `at` on, the stack runs with another jobs file, in time order. */
  readonly deploys: readonly Deploy[];
  /** What an on-call engineer does, through the operating commands' own code. */
  readonly operator: readonly OperatorStep[];
  /** Events nobody legitimate sends, to the real dispatcher or recorder. */
  readonly hostile: readonly HostileEvent[];
}

/** A pause of the plan's `pauses`: paused at `from`, resumed at `to` (`--catch-up` if asked). */
export interface PlannedPause extends Interval {
  readonly job: string;
  readonly reason: string;
  /** Resume with `--catch-up`: the paused runs the job's catch-up policy picks are delivered. */
  readonly catchUp: boolean;
}

/** From `at` on, the dispatcher, the recorder and the covering schedules run with `jobs`. */
export interface Deploy {
  /** `deploy-1`, `deploy-2`, … in the plan's order; the simulated jobs file is `deploy-0`. */
  readonly id: string;
  readonly at: Date;
  /** The jobs file, resolved against the plan's directory. */
  readonly file: string;
  readonly jobs: readonly JobDefinition[];
  readonly retentionDays: number;
}

/** One action of an on-call engineer at `at`, as the `zonecron` command of that name does it. */
export type OperatorStep =
  | {
      readonly at: Date;
      readonly action: 'backfill';
      readonly job: string;
      readonly from: Date;
      readonly to: Date;
    }
  | { readonly at: Date; readonly action: 'run'; readonly job: string }
  | { readonly at: Date; readonly action: 'redrive'; readonly job: string; readonly run: Date }
  | {
      readonly at: Date;
      readonly action: 'discard';
      readonly job: string;
      readonly run: Date;
      readonly reason: string;
    }
  | {
      readonly at: Date;
      readonly action: 'pause';
      readonly job: string;
      readonly reason: string;
      readonly until: Date | undefined;
    }
  | {
      readonly at: Date;
      readonly action: 'resume';
      readonly job: string;
      readonly catchUp: boolean;
    };

/** Which function a malformed event is sent to. */
export type HostileTarget = 'dispatcher' | 'recorder';

/** One event nobody legitimate sends, at `at`. */
export type HostileEvent =
  | {
      readonly at: Date;
      readonly kind: 'ancient-tick' | 'future-tick';
      readonly job: string;
      readonly scheduledTime: Date;
    }
  | {
      readonly at: Date;
      readonly kind: 'forged-completion';
      readonly job: string;
      readonly run: Date;
      readonly outcome: 'succeeded' | 'failed';
    }
  | {
      readonly at: Date;
      readonly kind: 'deep-event';
      readonly depth: number;
      readonly to: HostileTarget;
    }
  | {
      readonly at: Date;
      readonly kind: 'huge-event';
      readonly bytes: number;
      readonly to: HostileTarget;
    };

/** No faults at all: the plain simulation. */
export const NO_FAULTS: FaultPlan = {
  seed: 1,
  outages: [],
  lateTicks: undefined,
  crashes: [],
  throttling: undefined,
  targets: [],
  pauses: [],
  deploys: [],
  operator: [],
  hostile: [],
};

const instant = z
  .string({ error: 'expected an ISO 8601 instant like 2027-03-28T00:00:00Z' })
  .refine((text) => /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)), {
    error: 'expected an ISO 8601 instant with a zone designator, e.g. 2027-03-28T00:00:00Z',
    abort: true,
  })
  .transform((text) => new Date(text));

const duration = z.string({ error: 'expected a duration like 10m' }).transform((text, ctx) => {
  try {
    return parseDurationSeconds(text) * 1000;
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
    return z.NEVER;
  }
});

const probability = z
  .number({ error: 'expected a probability from 0 to 1' })
  .min(0, { error: 'expected a probability from 0 to 1' })
  .max(1, { error: 'expected a probability from 0 to 1' });

const interval = z
  .strictObject({ from: instant, to: instant })
  .refine((i) => i.from < i.to, { error: 'from must be before to' });

/** Most nesting a `deep-event` may have, and most bytes a `huge-event` may carry. */
export const HOSTILE_LIMITS = { depth: 1_000_000, bytes: 64 * 1024 * 1024 } as const;

function operatorSchema() {
  const job = z.string().min(1);
  return z.discriminatedUnion('action', [
    z.strictObject({ at: instant, action: z.literal('backfill'), job, from: instant, to: instant }),
    z.strictObject({ at: instant, action: z.literal('run'), job }),
    z.strictObject({ at: instant, action: z.literal('redrive'), job, run: instant }),
    z.strictObject({
      at: instant,
      action: z.literal('discard'),
      job,
      run: instant,
      reason: z.string().optional(),
    }),
    z.strictObject({
      at: instant,
      action: z.literal('pause'),
      job,
      reason: z.string().optional(),
      until: instant.optional(),
    }),
    z.strictObject({
      at: instant,
      action: z.literal('resume'),
      job,
      catchUp: z.boolean().optional(),
    }),
  ]);
}

function hostileSchema() {
  const job = z.string().min(1);
  const whole = (max: number) =>
    z
      .number()
      .int({ error: 'expected a whole number' })
      .min(1, { error: `expected a whole number from 1 to ${max}` })
      .max(max, { error: `expected a whole number from 1 to ${max}` });
  const to = z.enum(['dispatcher', 'recorder']).default('dispatcher');
  return z.discriminatedUnion('kind', [
    z.strictObject({ at: instant, kind: z.literal('ancient-tick'), job, scheduledTime: instant }),
    z.strictObject({ at: instant, kind: z.literal('future-tick'), job, scheduledTime: instant }),
    z.strictObject({
      at: instant,
      kind: z.literal('forged-completion'),
      job,
      run: instant,
      outcome: z.enum(['succeeded', 'failed']).default('succeeded'),
    }),
    z.strictObject({
      at: instant,
      kind: z.literal('deep-event'),
      depth: whole(HOSTILE_LIMITS.depth),
      to,
    }),
    z.strictObject({
      at: instant,
      kind: z.literal('huge-event'),
      bytes: whole(HOSTILE_LIMITS.bytes),
      to,
    }),
  ]);
}

const planSchema = z.strictObject({
  seed: z.number().int({ error: 'expected a whole number' }).default(1),
  outages: z.array(interval).default([]),
  lateTicks: z.strictObject({ probability, maxDelay: duration }).optional(),
  crashes: z
    .array(z.strictObject({ point: z.enum(['after-claim', 'after-delivery']), probability }))
    .default([]),
  throttling: z.strictObject({ probability }).optional(),
  targets: z
    .array(
      z.strictObject({
        job: z.string().min(1),
        fail: interval.optional(),
        runtime: duration.optional(),
      }),
    )
    .default([]),
  pauses: z
    .array(
      z
        .strictObject({
          job: z.string().min(1),
          from: instant,
          to: instant,
          reason: z.string().optional(),
          catchUp: z.boolean().optional(),
        })
        .refine((p) => p.from < p.to, { error: 'from must be before to' }),
    )
    .default([]),
  deploys: z.array(z.strictObject({ at: instant, config: z.string().min(1) })).default([]),
  operator: z.array(operatorSchema()).default([]),
  hostile: z.array(hostileSchema()).default([]),
});

/** The plan as the schema reads it. */
export type ParsedPlan = z.infer<typeof planSchema>;

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
    default:
      return step;
  }
}

/** The plan's text; a file that cannot be read is one issue about the whole file. */
function readPlanText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const what = code === 'ENOENT' ? 'no such file' : `cannot read it (${code})`;
    throw new ConfigError(
      [
        {
          file: path,
          line: 0,
          column: 0,
          field: '',
          message: `fault plan: ${what}`,
          code: 'unreadable',
        },
      ],
      { cause: error },
    );
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

/** Reports issues at positions of the plan (the plan checks use it). */
export type IssueAt = (
  at: readonly (string | number)[],
  message: string,
  code?: ConfigIssueCode,
) => ConfigIssue;

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

/**
 * True when the plan injects anything at all.
 *
 * @example
 * injectsFaults(NO_FAULTS) //=> false
 */
export function injectsFaults(plan: FaultPlan): boolean {
  return (
    plan.outages.length > 0 ||
    plan.lateTicks !== undefined ||
    plan.crashes.length > 0 ||
    plan.throttling !== undefined ||
    plan.targets.some((t) => t.fail !== undefined) ||
    plan.pauses.length > 0 ||
    plan.deploys.length > 0 ||
    plan.operator.length > 0 ||
    plan.hostile.length > 0
  );
}

/**
 * True when `at` lies in one of the intervals.
 *
 * @example
 * const night = { from: new Date('2027-03-28T00:00Z'), to: new Date('2027-03-28T01:00Z') };
 * within([night], new Date('2027-03-28T01:00Z')) //=> false
 */
export function within(intervals: readonly Interval[], at: Date): boolean {
  const ms = at.getTime();
  return intervals.some((i) => ms >= i.from.getTime() && ms < i.to.getTime());
}
