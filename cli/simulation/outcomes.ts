import type { DeadLetterMessage } from '#jobs/dead-letters.ts';
import type { JobDefinition } from '#jobs/job.ts';
import type { RunItem } from '#ledger/index.ts';
import { runKeyOf } from '../../functions/dispatcher/planned-run.ts';
import type { Occurrence } from '../../functions/schedule/index.ts';
import type { HostileRecord, OperatorRecord } from './action-records.ts';
import type { FirstClaim, SlotHold } from './containers.ts';
import { type Deployment, definitionAt } from './deployments.ts';
import type { Interval } from './fault-plan.ts';
import type { SimulatedDelivery } from './faulty-parts.ts';
import type { SentNotification } from './recorders.ts';

/** How one run of the simulation ended (`--json`'s `outcomes`). */
export interface RunOutcomeRecord {
  readonly jobId: string;
  /** UTC ISO instant. */
  readonly at: string;
  readonly nominal: string;
  readonly key: string;
  /** `open`: still claimed or failed-and-waiting; `undecided`: nobody decided it at all. */
  readonly status: 'delivered' | 'dead-lettered' | 'skipped' | 'open' | 'undecided';
  /** Why it was skipped; null otherwise. */
  readonly reason: string | null;
  /** How often a target received it. */
  readonly deliveries: number;
  /** UTC ISO instant of the first delivery, or null. */
  readonly deliveredAt: string | null;
  /** Delivery attempts the ledger counted. */
  readonly attempts: number;
}

/** A run skipped because another held its job's `concurrency: forbid` slot. */
export interface OverlapSkip {
  readonly key: string;
  readonly at: Date;
  readonly runningKey: string;
}

/** Everything outcomes and invariants are computed from, over all windows. */
export interface OutcomeInput {
  readonly jobs: readonly JobDefinition[];
  /** The engine's runs of every enabled job in the windows, by job. */
  readonly expected: ReadonlyMap<string, readonly Occurrence[]>;
  /** The ledger's items of those runs at the end, by key. */
  readonly items: ReadonlyMap<string, RunItem>;
  /** Every run a target started, in order. */
  readonly deliveries: readonly SimulatedDelivery[];
  /** When the run a delivery started finished, by delivery id (tracked targets only). */
  readonly completions: ReadonlyMap<string, Date>;
  /** When the recorder took the report of that finish, by delivery id. */
  readonly reported: ReadonlyMap<string, Date>;
  readonly deadLetters: readonly DeadLetterMessage[];
  readonly notifications: readonly SentNotification[];
  /** How often the dispatcher logged each key as possibly delivered twice (`Redelivered`). */
  readonly redelivered: ReadonlyMap<string, number>;
  /** Each skip for overlap: the run, when, and the run that held the job's slot. */
  readonly overlapSkips: readonly OverlapSkip[];
  /** When and where each run was first claimed (a tick or a catch-up decided it), by key. */
  readonly firstClaims: ReadonlyMap<string, FirstClaim>;
  /** Every take of a forbid slot, with what became of it. */
  readonly slotHolds: readonly SlotHold[];
  readonly pauses: readonly (Interval & { readonly job: string })[];
  /** Whether faults were injected: without them every run must be delivered exactly once. */
  readonly faulted: boolean;
  /** The simulated windows: a gap of a job's runs never spans two (each has its own table). */
  readonly windows: readonly Interval[];
  /** The deploys, in time order (none: `jobs` are the jobs throughout). */
  readonly deployments: readonly Deployment[];
  /** The deliveries an operator's command or a hostile event made, by delivery id. */
  readonly deliveryCauses: ReadonlyMap<string, 'operator' | 'hostile'>;
  /** How many `delivery-failed` DLQ messages of each run an operator deleted (redrive, discard). */
  readonly deadLettersDeleted: ReadonlyMap<string, number>;
  readonly operator: readonly OperatorRecord[];
  readonly hostile: readonly HostileRecord[];
}

/**
 * The job's definition in force at an instant: the deploy's then, or the one of `jobs`.
 *
 * @example
 * jobAt(input, 'nightly', Date.parse(run.at))?.catchup.maxRuns //=> 10
 */
export function jobAt(input: OutcomeInput, jobId: string, atMs: number) {
  if (input.deployments.length > 0) return definitionAt(input.deployments, jobId, atMs);
  return input.jobs.find((j) => j.id === jobId);
}

/**
 * True when the first delivery of a run was an operator's or a hostile event's, not the
 * stack's own decision.
 *
 * @example
 * deliveredByOthers(input, deliveriesOfRun) //=> true for a backfilled run
 */
export function deliveredByOthers(
  input: OutcomeInput,
  deliveries: readonly SimulatedDelivery[] | undefined,
): boolean {
  const first = deliveries?.[0];
  return first !== undefined && input.deliveryCauses.has(first.deliveryId);
}

/**
 * The outcome the ledger's item says, from the run's point of view.
 *
 * @example
 * outcomeStatus({ status: 'failed', failure: 'delivery', … }) //=> 'dead-lettered'
 */
export function outcomeStatus(item: RunItem | undefined): RunOutcomeRecord['status'] {
  if (!item) return 'undecided';
  if (item.status === 'skipped') return 'skipped';
  if (item.status === 'failed' && item.failure === 'delivery') return 'dead-lettered';
  if (item.status === 'dispatched' || item.status === 'succeeded' || item.status === 'failed') {
    return 'delivered';
  }
  return 'open';
}

/**
 * The deliveries of each run key, in delivery order.
 *
 * @example
 * deliveriesByKey([d1, d2]).get(d1.envelope.key) //=> [d1]
 */
export function deliveriesByKey(
  deliveries: readonly SimulatedDelivery[],
): Map<string, SimulatedDelivery[]> {
  const byKey = new Map<string, SimulatedDelivery[]>();
  for (const d of deliveries) {
    const list = byKey.get(d.envelope.key);
    if (list) list.push(d);
    else byKey.set(d.envelope.key, [d]);
  }
  return byKey;
}

/**
 * One outcome per expected run of every enabled job, in time order (then by job).
 *
 * @example
 * runOutcomes(input)[0]
 * //=> { jobId: 'nightly', at: '2027-03-28T01:30:00.000Z', status: 'delivered', deliveries: 1, … }
 */
export function runOutcomes(input: OutcomeInput): RunOutcomeRecord[] {
  const byKey = deliveriesByKey(input.deliveries);
  const outcomes: RunOutcomeRecord[] = [];
  for (const [jobId, occurrences] of input.expected) {
    for (const o of occurrences) {
      const key = runKeyOf(jobId, o);
      const item = input.items.get(key);
      const deliveries = byKey.get(key) ?? [];
      outcomes.push({
        jobId,
        at: o.at.toISOString(),
        nominal: o.nominal,
        key,
        status: outcomeStatus(item),
        reason: item?.skipReason ?? null,
        deliveries: deliveries.length,
        deliveredAt: deliveries[0]?.deliveredAt.toISOString() ?? null,
        attempts: item?.attempts ?? 0,
      });
    }
  }
  return outcomes.sort((a, b) => a.at.localeCompare(b.at) || a.jobId.localeCompare(b.jobId));
}
