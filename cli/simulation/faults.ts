import { readFileSync } from 'node:fs';
import { type Document, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import {
  ConfigError,
  type ConfigIssue,
  type ConfigIssueCode,
} from '../../infra/config/config-error.ts';
import { DurationError, parseDurationSeconds } from '../../infra/config/duration.ts';
import { positionOf } from '../../infra/config/source-positions.ts';

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
  readonly pauses: readonly (Interval & { readonly job: string; readonly reason: string })[];
}

/** No faults at all: the plain simulation. */
export const NO_FAULTS: FaultPlan = {
  seed: 1,
  outages: [],
  lateTicks: undefined,
  crashes: [],
  throttling: undefined,
  targets: [],
  pauses: [],
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
        })
        .refine((p) => p.from < p.to, { error: 'from must be before to' }),
    )
    .default([]),
});

/**
 * Reads a fault plan; every problem is reported at its file, line and column.
 *
 * `jobIds` are the jobs of the simulated file: a target or pause naming another job is an error.
 *
 * @example
 * loadFaultPlan('faults.yaml', ['nightly-report']).crashes
 * //=> [{ point: 'after-claim', probability: 0.1 }]
 */
export function loadFaultPlan(path: string, jobIds: readonly string[]): FaultPlan {
  return parseFaultPlan(readPlanText(path), path, jobIds);
}

/**
 * {@link loadFaultPlan} of a plan's text; `file` names it in the issues.
 *
 * @example
 * parseFaultPlan('seed: 7\nthrottling: { probability: 0.1 }', 'faults.yaml', []).throttling
 * //=> { probability: 0.1 }
 */
export function parseFaultPlan(text: string, file: string, jobIds: readonly string[]): FaultPlan {
  const source = parsePlanSource(file, text);
  const plan = validatePlan(source, jobIds);
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
    })),
  };
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

/** The plan checked against its schema and the simulated file's jobs. */
function validatePlan(source: PlanSource, jobIds: readonly string[]) {
  const parsed = planSchema.safeParse(source.doc.toJS() ?? {});
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.flatMap((i) => schemaIssues(source, i)));
  }
  const known = new Set(jobIds);
  const unknown = [
    ...parsed.data.targets.map((t, i) => ({ job: t.job, at: ['targets', i, 'job'] })),
    ...parsed.data.pauses.map((p, i) => ({ job: p.job, at: ['pauses', i, 'job'] })),
  ].filter((entry) => !known.has(entry.job));
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown.map((u) =>
        issueAt(source, u.at, `unknown job '${u.job}' (jobs: ${jobIds.join(', ')})`),
      ),
    );
  }
  return parsed.data;
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
    plan.pauses.length > 0
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
