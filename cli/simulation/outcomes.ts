import type { Occurrence } from '../../functions/schedule/index.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import type { DeadLetterMessage } from '../../functions/shared/dead-letters.ts';
import type { JobDefinition } from '../../functions/shared/job.ts';
import type { RunItem, Signal } from '../../functions/shared/ledger-item.ts';
import type { RunNotification } from '../../functions/shared/notifications.ts';
import type { Interval } from './faults.ts';
import type { SimulatedDelivery } from './faulty-parts.ts';

/** How one run of the simulation ended. */
export interface RunOutcomeRecord {
  readonly jobId: string;
  /** UTC ISO instant. */
  readonly at: string;
  readonly nominal: string;
  readonly key: string;
  readonly status: 'delivered' | 'dead-lettered' | 'skipped' | 'open' | 'undecided';
  readonly reason: string | null;
  readonly deliveries: number;
  /** UTC ISO instant of the first delivery, or null. */
  readonly deliveredAt: string | null;
  readonly attempts: number;
}

/** One property the simulation checks, and what it found. */
export interface Invariant {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Everything the outcomes are computed from, for one window. */
export interface OutcomeInput {
  readonly jobs: readonly JobDefinition[];
  readonly expected: ReadonlyMap<string, readonly Occurrence[]>;
  readonly items: ReadonlyMap<string, RunItem>;
  readonly deliveries: readonly SimulatedDelivery[];
  readonly completions: ReadonlyMap<string, Date>;
  readonly deadLetters: readonly DeadLetterMessage[];
  readonly notifications: readonly RunNotification[];
  /** Keys the dispatcher logged as possibly delivered twice (`Redelivered`). */
  readonly redelivered: ReadonlyMap<string, number>;
  readonly pauses: readonly (Interval & { readonly job: string })[];
  /** Whether faults were injected: without them every run must be delivered exactly once. */
  readonly faulted: boolean;
}

function statusOf(item: RunItem | undefined): RunOutcomeRecord['status'] {
  if (!item) return 'undecided';
  if (item.status === 'skipped') return 'skipped';
  if (item.status === 'failed' && item.failure === 'delivery') return 'dead-lettered';
  if (item.status === 'dispatched' || item.status === 'succeeded' || item.status === 'failed') {
    return 'delivered';
  }
  return 'open';
}

/** One outcome per expected run of every enabled job, in time order. */
export function runOutcomes(input: OutcomeInput): RunOutcomeRecord[] {
  const byKey = new Map<string, SimulatedDelivery[]>();
  for (const d of input.deliveries) byKey.set(d.envelope.key, [...(byKey.get(d.envelope.key) ?? []), d]);
  const outcomes: RunOutcomeRecord[] = [];
  for (const [jobId, occurrences] of input.expected) {
    for (const o of occurrences) {
      const key = periodBucket(jobId, o.at);
      const item = input.items.get(key);
      const deliveries = byKey.get(key) ?? [];
      outcomes.push({
        jobId,
        at: o.at.toISOString(),
        nominal: o.nominal,
        key,
        status: statusOf(item),
        reason: item?.skipReason ?? null,
        deliveries: deliveries.length,
        deliveredAt: deliveries[0]?.deliveredAt.toISOString() ?? null,
        attempts: item?.attempts ?? 0,
      });
    }
  }
  return outcomes.sort((a, b) => a.at.localeCompare(b.at) || a.jobId.localeCompare(b.jobId));
}

const list = (items: readonly string[], max = 3) =>
  items.length === 0 ? '' : `: ${items.slice(0, max).join('; ')}${items.length > max ? ` (+${items.length - max} more)` : ''}`;

const describe = (o: RunOutcomeRecord) => `${o.jobId} ${o.at}`;

/** The properties every simulation must keep, each with what it found. */
export function checkInvariants(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): Invariant[] {
  return [
    everyRunEnded(outcomes),
    atMostOnce(input, outcomes),
    deadLettersOnce(input, outcomes),
    pausedNotDelivered(input, outcomes),
    forbidHeld(input),
    catchupPolicyHeld(input),
    signalsOnce(input, outcomes),
    ...(input.faulted ? [] : [everyRunOnce(outcomes)]),
  ];
}

function everyRunEnded(outcomes: readonly RunOutcomeRecord[]): Invariant {
  const open = outcomes.filter((o) => o.status === 'open' || o.status === 'undecided');
  return {
    name: 'every run ended',
    ok: open.length === 0,
    detail: `${outcomes.length - open.length} of ${outcomes.length} runs delivered, dead-lettered or skipped with a reason${list(open.map((o) => `${describe(o)} ${o.status}`))}`,
  };
}

function atMostOnce(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): Invariant {
  const twice = outcomes.filter((o) => o.deliveries > 1 + (input.redelivered.get(o.key) ?? 0));
  const counted = outcomes.filter((o) => o.deliveries > 1).length;
  return {
    name: 'delivered at most once, except a counted redelivery',
    ok: twice.length === 0,
    detail: `${counted} run(s) delivered more than once, each counted Redelivered${list(twice.map(describe))}`,
  };
}

function deadLettersOnce(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): Invariant {
  const messages = new Map<string, number>();
  for (const m of input.deadLetters) {
    if (m.reason === 'delivery-failed') messages.set(m.key, (messages.get(m.key) ?? 0) + 1);
  }
  const wrong = outcomes.filter(
    (o) => (o.status === 'dead-lettered') !== (messages.get(o.key) === 1),
  );
  return {
    name: 'one dead letter per dead-lettered run, none for others',
    ok: wrong.length === 0,
    detail: `${outcomes.filter((o) => o.status === 'dead-lettered').length} dead-lettered${list(wrong.map((o) => `${describe(o)}: ${messages.get(o.key) ?? 0} message(s), ${o.status}`))}`,
  };
}

function pausedNotDelivered(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): Invariant {
  const broken = outcomes.filter((o) =>
    input.pauses.some(
      (p) =>
        p.job === o.jobId &&
        Date.parse(o.at) >= p.from.getTime() &&
        Date.parse(o.at) < p.to.getTime() &&
        o.deliveredAt !== null &&
        Date.parse(o.deliveredAt) >= p.from.getTime(),
    ),
  );
  const paused = outcomes.filter((o) => o.reason === 'paused').length;
  return {
    name: 'nothing delivered while paused, nothing replayed after',
    ok: broken.length === 0,
    detail: `${paused} run(s) skipped as paused${list(broken.map(describe))}`,
  };
}

/** `concurrency: forbid`: each delivery after the previous run finished (or hit maxRuntime). */
function forbidHeld(input: OutcomeInput): Invariant {
  const broken: string[] = [];
  for (const job of input.jobs.filter((j) => j.concurrency === 'forbid')) {
    const deliveries = input.deliveries
      .filter((d) => d.envelope.jobId === job.id)
      .sort((a, b) => a.deliveredAt.getTime() - b.deliveredAt.getTime());
    for (let i = 1; i < deliveries.length; i++) {
      const previous = deliveries[i - 1] as SimulatedDelivery;
      const current = deliveries[i] as SimulatedDelivery;
      if (previous.envelope.key === current.envelope.key) continue;
      const endMs =
        input.completions.get(previous.deliveryId)?.getTime() ??
        previous.deliveredAt.getTime() + job.maxRuntimeSeconds * 1000;
      if (current.deliveredAt.getTime() < endMs) {
        broken.push(`${job.id} ${current.envelope.scheduledAt} while ${previous.envelope.scheduledAt} ran`);
      }
    }
  }
  return {
    name: 'concurrency forbid held',
    ok: broken.length === 0,
    detail: `${input.jobs.filter((j) => j.concurrency === 'forbid').length} forbid job(s)${list(broken)}`,
  };
}

/**
 * Catch-up policies: `none` catches nothing up; `latest` catches up one run at a time and never
 * one older than a run delivered before it; `all` catches up at most `maxRuns` at once.
 */
function catchupPolicyHeld(input: OutcomeInput): Invariant {
  const broken: string[] = [];
  for (const job of input.jobs) {
    const caught = input.deliveries.filter((d) => {
      const origin = input.items.get(d.envelope.key)?.origin;
      return d.envelope.jobId === job.id && (origin === 'catch-up' || origin === 'sweep');
    });
    const bursts = new Map<number, number>();
    for (const d of caught) bursts.set(d.deliveredAt.getTime(), (bursts.get(d.deliveredAt.getTime()) ?? 0) + 1);
    const limit = job.catchup.policy === 'none' ? 0 : job.catchup.policy === 'latest' ? 1 : job.catchup.maxRuns;
    for (const [at, count] of bursts) {
      if (count > limit) broken.push(`${job.id}: ${count} caught up at ${new Date(at).toISOString()} (${job.catchup.policy})`);
    }
    if (job.catchup.policy !== 'latest') continue;
    for (const d of caught) {
      const newer = input.deliveries.find(
        (e) =>
          e.envelope.jobId === job.id &&
          e.envelope.scheduledAt > d.envelope.scheduledAt &&
          e.deliveredAt < d.deliveredAt,
      );
      if (newer) broken.push(`${job.id} ${d.envelope.scheduledAt} caught up after ${newer.envelope.scheduledAt} ran`);
    }
  }
  return { name: 'catch-up policies held', ok: broken.length === 0, detail: `checked every catch-up${list(broken)}` };
}

/** Each signal notified once per run, and only when true. */
function signalsOnce(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): Invariant {
  const count = new Map<string, number>();
  for (const n of input.notifications) count.set(`${n.key}/${n.signal}`, (count.get(`${n.key}/${n.signal}`) ?? 0) + 1);
  const repeated = [...count.entries()].filter(([, n]) => n > 1).map(([k, n]) => `${k} ${n}×`);
  const byKey = new Map(outcomes.map((o) => [o.key, o]));
  const untrue = input.notifications
    .filter((n) => !signalTrue(n.signal, byKey.get(n.key), input.items.get(n.key)))
    .map((n) => `${n.signal} ${n.jobId} ${n.at}`);
  return {
    name: 'each signal notified once per run, and only when true',
    ok: repeated.length === 0 && untrue.length === 0,
    detail: `${input.notifications.length} notification(s)${list([...repeated, ...untrue])}`,
  };
}

function signalTrue(signal: Signal, outcome: RunOutcomeRecord | undefined, item: RunItem | undefined): boolean {
  if (!outcome || !item) return true; // a manual or out-of-window run: not checked here
  switch (signal) {
    case 'missed':
      return item.origin !== 'tick';
    case 'late':
      return item.origin === 'tick' && outcome.deliveredAt !== null;
    case 'dead-lettered':
      return outcome.status === 'dead-lettered';
    case 'run-failed':
      return item.failure === 'execution';
    case 'stuck':
      return item.status === 'dispatched' || item.status === 'succeeded' || item.status === 'failed';
  }
}

function everyRunOnce(outcomes: readonly RunOutcomeRecord[]): Invariant {
  const wrong = outcomes.filter((o) => o.deliveries !== 1);
  return {
    name: 'every run the engine expects delivered exactly once',
    ok: wrong.length === 0,
    detail: `${outcomes.length - wrong.length} of ${outcomes.length}${list(wrong.map((o) => `${describe(o)} ×${o.deliveries}`))}`,
  };
}
