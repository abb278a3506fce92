import type { JobDefinition } from '#jobs/job.ts';

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
      /** `--force`: deliver despite a pause and a run still running (cli/aws/run-guards.ts). */
      readonly force: boolean;
    }
  | {
      readonly at: Date;
      readonly action: 'run';
      readonly job: string;
      /** `--force`: deliver despite a pause and a run still running (cli/aws/run-guards.ts). */
      readonly force: boolean;
    }
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
