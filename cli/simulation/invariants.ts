import type { RunItem, Signal } from '#ledger/index.ts';
import type { JobDefinition } from '#shared/job.ts';
import type { SimulatedDelivery } from './faulty-parts.ts';
import {
  deliveriesByKey,
  type OutcomeInput,
  type OverlapSkip,
  type RunOutcomeRecord,
} from './outcomes.ts';
import type { SentNotification } from './recorders.ts';

/** One property the simulation checks, and what it found. */
export interface Invariant {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

const list = (items: readonly string[], max = 3) =>
  items.length === 0
    ? ''
    : `: ${items.slice(0, max).join('; ')}${items.length > max ? ` (+${items.length - max} more)` : ''}`;

const describe = (o: RunOutcomeRecord) => `${o.jobId} ${o.at}`;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The properties every simulation must keep (docs/cli.md, "Faults (`--faults FILE`)"), each with what
 * it found. Without faults, also: every run the engine expects delivered exactly once.
 *
 * @example
 * checkInvariants(input, runOutcomes(input)).every((i) => i.ok) //=> true
 */
export function checkInvariants(
  input: OutcomeInput,
  outcomes: readonly RunOutcomeRecord[],
): Invariant[] {
  return [
    everyRunEnded(outcomes),
    atMostOnce(input, outcomes),
    deadLettersOnce(input, outcomes),
    pausedNotDelivered(input, outcomes),
    forbidHeld(input),
    overlapSkipsTrue(input),
    catchupPolicyHeld(input),
    signalsOnce(input, outcomes),
    ...(input.faulted ? [] : [everyRunOnce(outcomes)]),
  ];
}

/**
 * Delivered, dead-lettered or skipped with a reason: nothing left open or undecided.
 *
 * @example
 * everyRunEnded([{ ...outcome, status: 'open' }]).ok //=> false
 */
export function everyRunEnded(outcomes: readonly RunOutcomeRecord[]): Invariant {
  const open = outcomes.filter((o) => o.status === 'open' || o.status === 'undecided');
  return {
    name: 'every run ended',
    ok: open.length === 0,
    detail: `${outcomes.length - open.length} of ${outcomes.length} runs delivered, dead-lettered or skipped with a reason${list(open.map((o) => `${describe(o)} ${o.status}`))}`,
  };
}

/**
 * A second delivery only where the dispatcher counted a possible redelivery.
 *
 * @example
 * atMostOnce(input, [{ ...outcome, deliveries: 2 }]).ok //=> false, unless counted Redelivered
 */
export function atMostOnce(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): Invariant {
  const twice = outcomes.filter((o) => o.deliveries > 1 + (input.redelivered.get(o.key) ?? 0));
  const counted = outcomes.filter((o) => o.deliveries > 1).length;
  return {
    name: 'delivered at most once, except a counted redelivery',
    ok: twice.length === 0,
    detail: `${plural(counted, 'run')} delivered more than once, each counted Redelivered${list(twice.map((o) => `${describe(o)} ×${o.deliveries}`))}`,
  };
}

/**
 * Exactly one dead-letter message per dead-lettered run, none for any other run.
 *
 * @example
 * deadLettersOnce(input, outcomes).detail //=> '2 runs dead-lettered'
 */
export function deadLettersOnce(
  input: OutcomeInput,
  outcomes: readonly RunOutcomeRecord[],
): Invariant {
  const messages = new Map<string, number>();
  for (const m of input.deadLetters) {
    if (m.reason === 'delivery-failed') messages.set(m.key, (messages.get(m.key) ?? 0) + 1);
  }
  const wrong = outcomes.filter(
    (o) => (o.status === 'dead-lettered') !== (messages.get(o.key) === 1),
  );
  const dead = outcomes.filter((o) => o.status === 'dead-lettered').length;
  return {
    name: 'one dead letter per dead-lettered run, none for others',
    ok: wrong.length === 0,
    detail: `${plural(dead, 'run')} dead-lettered${list(wrong.map((o) => `${describe(o)}: ${messages.get(o.key) ?? 0} message(s), ${o.status}`))}`,
  };
}

/**
 * No run of a paused stretch delivered during it or after it.
 *
 * @example
 * pausedNotDelivered(input, outcomes).detail //=> '6 runs skipped as paused'
 */
export function pausedNotDelivered(
  input: OutcomeInput,
  outcomes: readonly RunOutcomeRecord[],
): Invariant {
  const inPause = (o: RunOutcomeRecord) =>
    input.pauses.some(
      (p) =>
        p.job === o.jobId &&
        Date.parse(o.at) >= p.from.getTime() &&
        Date.parse(o.at) < p.to.getTime(),
    );
  const broken = outcomes.filter((o) => inPause(o) && o.deliveredAt !== null);
  const paused = outcomes.filter((o) => o.reason === 'paused').length;
  return {
    name: 'nothing delivered while paused, nothing replayed after',
    ok: broken.length === 0,
    detail: `${plural(paused, 'run')} skipped as paused${list(broken.map(describe))}`,
  };
}

/**
 * When a forbid run stops holding its job: it finished (or, as the dispatcher can know it,
 * the recorder took the report that it finished), or its maxRuntime ran out.
 */
function endOf(
  job: JobDefinition,
  delivery: SimulatedDelivery,
  finishes: ReadonlyMap<string, Date>,
): number {
  const limitMs = delivery.deliveredAt.getTime() + job.maxRuntimeSeconds * 1000;
  const finished = finishes.get(delivery.deliveryId)?.getTime();
  return finished === undefined ? limitMs : Math.min(finished, limitMs);
}

const forbidJobs = (input: OutcomeInput) => input.jobs.filter((j) => j.concurrency === 'forbid');

/**
 * `concurrency: forbid`: a run starts only after the previous one finished or ran out of time.
 *
 * @example
 * forbidHeld(input).detail //=> '1 forbid job'
 */
export function forbidHeld(input: OutcomeInput): Invariant {
  const broken: string[] = [];
  for (const job of forbidJobs(input)) {
    const deliveries = input.deliveries
      .filter((d) => d.envelope.jobId === job.id)
      .sort((a, b) => a.deliveredAt.getTime() - b.deliveredAt.getTime());
    deliveries.forEach((current, i) => {
      const previous = deliveries[i - 1];
      if (!previous || previous.envelope.key === current.envelope.key) return;
      if (current.deliveredAt.getTime() < endOf(job, previous, input.completions)) {
        broken.push(
          `${job.id} ${current.envelope.scheduledAt} started while ${previous.envelope.scheduledAt} ran`,
        );
      }
    });
  }
  return {
    name: 'concurrency forbid held',
    ok: broken.length === 0,
    detail: `${plural(forbidJobs(input).length, 'forbid job')}${list(broken)}`,
  };
}

/**
 * A run skipped for overlap was skipped while another run of its job was running (until the
 * recorder heard it finished, or its maxRuntime), was being delivered (the holder took the
 * slot and gave it back only when its delivery failed, at that same instant), or might have
 * been running: the dispatcher that took the slot for it died before it knew whether the
 * target took it (the slot is then held until maxRuntime, erring on the side of no overlap).
 *
 * @example
 * overlapSkipsTrue(input).detail //=> '9 runs skipped for overlap'
 */
export function overlapSkipsTrue(input: OutcomeInput): Invariant {
  const jobs = new Map(input.jobs.map((j) => [j.id, j]));
  const untrue = input.overlapSkips
    .filter((skip) => {
      const item = input.items.get(skip.key);
      const job = item && jobs.get(item.jobId);
      return job && !anotherRunning(input, job, skip) && !heldByAnother(input, skip);
    })
    .map((skip) => `${skip.key.slice(0, 8)} skipped at ${skip.at.toISOString()}`);
  return {
    name: 'skipped for overlap only while another run ran',
    ok: untrue.length === 0,
    detail: `${plural(input.overlapSkips.length, 'run')} skipped for overlap${list(untrue)}`,
  };
}

function anotherRunning(input: OutcomeInput, job: JobDefinition, skip: OverlapSkip): boolean {
  const t = skip.at.getTime();
  return input.deliveries.some(
    (d) =>
      d.envelope.jobId === job.id &&
      d.envelope.key !== skip.key &&
      d.deliveredAt.getTime() <= t &&
      t < endOf(job, d, input.reported),
  );
}

/** The holder's latest take of the slot before the skip: a delivery in flight, or left by the dead. */
function heldByAnother(input: OutcomeInput, skip: OverlapSkip): boolean {
  const t = skip.at.getTime();
  const last = input.slotHolds
    .filter((h) => h.key === skip.runningKey && h.at.getTime() <= t)
    .at(-1);
  if (!last) return false;
  if (last.orphaned) return t <= last.untilEpochMs;
  return last.releasedAt !== undefined && t <= last.releasedAt.getTime();
}

interface CaughtUp {
  readonly key: string;
  readonly at: string;
  readonly decidedAtMs: number;
  /** The invocation that decided it: one catch-up. */
  readonly invocation: number;
}

/** The job's runs a catch-up decided to deliver (their origin), and when (their first claim). */
function caughtUp(input: OutcomeInput, job: JobDefinition): CaughtUp[] {
  const caught: CaughtUp[] = [];
  for (const [key, claim] of input.firstClaims) {
    const item = input.items.get(key);
    if (item?.jobId !== job.id || (item.origin !== 'catch-up' && item.origin !== 'sweep')) continue;
    caught.push({
      key,
      at: item.at,
      decidedAtMs: claim.at.getTime(),
      invocation: claim.invocation,
    });
  }
  return caught;
}

/**
 * Catch-up policies, on the runs a catch-up decided to deliver: `none` catches nothing up;
 * `latest` one run per catch-up, never one older than a run delivered before it was decided;
 * `all` at most `maxRuns` per catch-up.
 *
 * @example
 * catchupPolicyHeld(input).ok //=> false when one `latest` catch-up delivered two runs
 */
export function catchupPolicyHeld(input: OutcomeInput): Invariant {
  const broken: string[] = [];
  for (const job of input.jobs) {
    const caught = caughtUp(input, job);
    const limit = { none: 0, latest: 1, all: job.catchup.maxRuns }[job.catchup.policy];
    const bursts = new Map<number, CaughtUp[]>();
    for (const c of caught) bursts.set(c.invocation, [...(bursts.get(c.invocation) ?? []), c]);
    for (const burst of bursts.values()) {
      if (burst.length <= limit) continue;
      const when = new Date(burst[0]?.decidedAtMs ?? 0).toISOString();
      broken.push(`${job.id}: ${burst.length} caught up at ${when} (${job.catchup.policy})`);
    }
    if (job.catchup.policy === 'latest') broken.push(...olderAfterNewer(input, job, caught));
  }
  return {
    name: 'catch-up policies held',
    ok: broken.length === 0,
    detail: `every catch-up checked${list(broken)}`,
  };
}

/** Under `latest`: runs caught up when a newer run of the job had been delivered already. */
function olderAfterNewer(
  input: OutcomeInput,
  job: JobDefinition,
  caught: readonly CaughtUp[],
): string[] {
  const firsts = [...deliveriesByKey(input.deliveries).values()]
    .map((ds) => ds[0])
    .filter((d): d is SimulatedDelivery => d?.envelope.jobId === job.id);
  return caught.flatMap((c) => {
    const newer = firsts.find(
      (d) => d.envelope.scheduledAt > c.at && d.deliveredAt.getTime() < c.decidedAtMs,
    );
    return newer ? [`${job.id} ${c.at} caught up after ${newer.envelope.scheduledAt} ran`] : [];
  });
}

/**
 * Each signal notified at most once per run, and only when it was true.
 *
 * @example
 * signalsOnce(input, outcomes).detail //=> '28 notifications'
 */
export function signalsOnce(input: OutcomeInput, outcomes: readonly RunOutcomeRecord[]): Invariant {
  const count = new Map<string, number>();
  for (const { notification: n } of input.notifications) {
    const id = `${n.jobId} ${n.at} ${n.signal}`;
    count.set(id, (count.get(id) ?? 0) + 1);
  }
  const repeated = [...count.entries()].filter(([, n]) => n > 1).map(([k, n]) => `${k} ${n}×`);
  const byKey = new Map(outcomes.map((o) => [o.key, o]));
  const truth = signalTruth(input);
  const untrue = input.notifications
    .filter((sent) => !truth(sent, byKey.get(sent.notification.key)))
    .map(
      ({ notification: n, sentAt }) => `${n.signal} ${n.jobId} ${n.at} at ${sentAt.toISOString()}`,
    );
  return {
    name: 'each signal notified once per run, and only when true',
    ok: repeated.length === 0 && untrue.length === 0,
    detail: `${plural(input.notifications.length, 'notification')}${list([...repeated, ...untrue])}`,
  };
}

/** Whether a notification's signal was true of its run when it was sent. */
function signalTruth(input: OutcomeInput) {
  const jobs = new Map(input.jobs.map((j) => [j.id, j]));
  const byKey = deliveriesByKey(input.deliveries);
  return (sent: SentNotification, outcome: RunOutcomeRecord | undefined): boolean => {
    const item = input.items.get(sent.notification.key);
    const job = jobs.get(sent.notification.jobId);
    // A manual or out-of-window run: not checked here.
    if (!outcome || !item || !job) return true;
    const facts = { job, item, outcome, deliveries: byKey.get(item.key) ?? [], input };
    return SIGNAL_TRUE[sent.notification.signal](facts, sent.sentAt);
  };
}

interface RunFacts {
  readonly job: JobDefinition;
  readonly item: RunItem;
  readonly outcome: RunOutcomeRecord;
  readonly deliveries: readonly SimulatedDelivery[];
  readonly input: OutcomeInput;
}

const lateMs = (f: RunFacts) =>
  f.outcome.deliveredAt !== null &&
  Date.parse(f.outcome.deliveredAt) > Date.parse(f.outcome.at) + f.job.alarm.graceSeconds * 1000;

/** Each signal's meaning (`Signal` in functions/ledger/ledger-item.ts), held against the facts. */
const SIGNAL_TRUE: Record<Signal, (facts: RunFacts, sentAt: Date) => boolean> = {
  // Decided by a catch-up, not its own tick: skipped for a reason other than a pause, or
  // delivered after its grace (or never, when every attempt failed).
  missed: (f) =>
    f.item.origin !== 'tick' &&
    f.outcome.reason !== 'paused' &&
    (f.outcome.deliveredAt === null || lateMs(f)),
  late: (f) => lateMs(f),
  'dead-lettered': (f) => f.outcome.status === 'dead-lettered',
  'run-failed': (f) => f.item.failure === 'execution',
  // Skipped for overlap, and so was an earlier run of the job while the same run held the slot.
  overlap: (f) => {
    const skips = f.input.overlapSkips;
    const own = skips.find((s) => s.key === f.item.key);
    return (
      own !== undefined &&
      skips.some((s) => s.key !== own.key && s.runningKey === own.runningKey && s.at <= own.at)
    );
  },
  stuck: (f, sentAt) => {
    const before = f.deliveries.filter((d) => d.deliveredAt <= sentAt);
    const last = before.at(-1);
    const finished = before.some(
      (d) =>
        (f.input.completions.get(d.deliveryId)?.getTime() ?? Number.POSITIVE_INFINITY) <=
        sentAt.getTime(),
    );
    return (
      last !== undefined &&
      !finished &&
      last.deliveredAt.getTime() + f.job.maxRuntimeSeconds * 1000 <= sentAt.getTime()
    );
  },
};

/**
 * Without faults: every run the engine expects delivered exactly once.
 *
 * @example
 * everyRunOnce(outcomes).detail //=> '1189 of 1189'
 */
export function everyRunOnce(outcomes: readonly RunOutcomeRecord[]): Invariant {
  const wrong = outcomes.filter((o) => o.deliveries !== 1);
  return {
    name: 'every run the engine expects delivered exactly once',
    ok: wrong.length === 0,
    detail: `${outcomes.length - wrong.length} of ${outcomes.length}${list(wrong.map((o) => `${describe(o)} ×${o.deliveries}`))}`,
  };
}
