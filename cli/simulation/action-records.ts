import type { HostileEvent, HostileTarget, OperatorStep } from './fault-plan.ts';

/** What one operator action did (`simulate --json`'s `operator`). */
export interface OperatorRecord {
  /** UTC ISO instant of the action. */
  readonly at: string;
  readonly action: OperatorStep['action'];
  readonly jobId: string;
  /** False where the command would exit non-zero: refused, stopped, or its delivery failed. */
  readonly ok: boolean;
  /** What the command would say, in one line. */
  readonly detail: string;
  /** Keys of the runs it delivered, in order. */
  readonly delivered: readonly string[];
  /** The step said `force` (a `run` or `backfill` past a pause or beside a running run). */
  readonly forced: boolean;
}

/** What one hostile event did (`simulate --json`'s `hostile`). */
export interface HostileRecord {
  readonly index: number;
  /** UTC ISO instant it was sent. */
  readonly at: string;
  readonly kind: HostileEvent['kind'];
  readonly jobId: string | null;
  readonly to: HostileTarget;
  /** The run it names (a tick's or a forged completion's), or null. */
  readonly key: string | null;
  /** Invocations of it the function saw (Lambda retries one that failed). */
  attempts: number;
  /** What the function answered last, in a few words; `lost to an outage` when it never ran. */
  result: string;
  /** The metrics the function counted while it handled it (`RejectedTicks`, `MalformedEvents`, …). */
  readonly counted: string[];
  /** What it threw, when it threw something other than a simulated fault; else null. */
  threw: string | null;
  /** Runs a target received while the function handled it. */
  deliveries: number;
  /** A forged completion the recorder recorded: it changed the run. */
  recorded: boolean;
}
