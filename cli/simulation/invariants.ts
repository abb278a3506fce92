import { type JobDefinition, tracksCompletion } from '#jobs/job.ts';
import type { RunItem, Signal } from '#ledger/index.ts';
import type { SimulatedDelivery } from './faulty-parts.ts';
import {
  deliveredByOthers,
  deliveriesByKey,
  jobAt,
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
 * it found. With faults, also those of hostile events, forged completions and gaps; without
 * them, every run the engine expects delivered exactly once.
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
    ...(input.faulted
      ? [
          onlyRunsDelivered(input, outcomes),
          forgeriesChangeNothing(input),
          hostileDeliverNothing(input),
          hostileNeverThrown(input),
          catchupPerGap(input, outcomes),
        ]
      : [everyRunOnce(outcomes)]),
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
 * Exactly one dead-letter message per dead-lettered run, none for any other run: except a run
 * an operator redrove, whose one message was deleted when it was delivered.
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
  const rightCount = (o: RunOutcomeRecord) => {
    const sent = messages.get(o.key) ?? 0;
    if (o.status === 'dead-lettered') return sent === 1;
    return sent === 0 || (sent === 1 && input.deadLettersDeleted.get(o.key) === 1);
  };
  const wrong = outcomes.filter((o) => !rightCount(o));
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
  // An operator's backfill, or `resume --catch-up`, delivers paused runs on purpose.
  const byKey = deliveriesByKey(input.deliveries);
  const broken = outcomes.filter(
    (o) => inPause(o) && o.deliveredAt !== null && !deliveredByOthers(input, byKey.get(o.key)),
  );
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

/** The jobs that are `concurrency: forbid` under any deploy. */
const forbidJobs = (input: OutcomeInput) =>
  input.jobs.filter(
    (j) =>
      j.concurrency === 'forbid' ||
      input.deployments.some((d) =>
        d.jobs.some((x) => x.id === j.id && x.concurrency === 'forbid'),
      ),
  );

/** The job as deployed when something happened to it; its last definition if none then. */
const definitionWhen = (input: OutcomeInput, job: JobDefinition, at: Date) =>
  jobAt(input, job.id, at.getTime()) ?? job;

/**
 * `concurrency: forbid`: a run starts only after the previous one finished or ran out of time,
 * but for a run an operator forced beside it (`run --force`, `backfill --force`).
 *
 * @example
 * forbidHeld(input).detail //=> '1 forbid job'
 */
export function forbidHeld(input: OutcomeInput): Invariant {
  const broken: string[] = [];
  const forced = new Set(input.operator.filter((o) => o.forced).flatMap((o) => o.delivered));
  for (const job of forbidJobs(input)) {
    const deliveries = input.deliveries
      .filter((d) => d.envelope.jobId === job.id)
      .sort((a, b) => a.deliveredAt.getTime() - b.deliveredAt.getTime());
    deliveries.forEach((current, i) => {
      const previous = deliveries[i - 1];
      if (!previous || previous.envelope.key === current.envelope.key) return;
      if (forced.has(current.envelope.key)) return;
      if (definitionWhen(input, job, current.deliveredAt).concurrency !== 'forbid') return;
      const then = definitionWhen(input, job, previous.deliveredAt);
      if (current.deliveredAt.getTime() < endOf(then, previous, input.completions)) {
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
      const last = item && jobs.get(item.jobId);
      const job = last && definitionWhen(input, last, skip.at);
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
    const last = jobs.get(sent.notification.jobId);
    const job = last && item && definitionWhen(input, last, new Date(item.at));
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
  // Dead-lettered, or was until an operator redrove it (its message was deleted then).
  'dead-lettered': (f) =>
    f.outcome.status === 'dead-lettered' || (f.input.deadLettersDeleted.get(f.item.key) ?? 0) > 0,
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
  // Its deadline had passed, and it was not done by then: not delivered (sqs, sns, eventbridge),
  // or no success reported (lambda, stepfunctions). A redrive clears the deadline it had.
  'deadline-missed': (f, sentAt) => {
    const deadlineMs = f.item.deadlineAtEpochMs;
    if (deadlineMs === undefined) return f.item.generation > 0;
    const by = (ms: number | undefined) => ms !== undefined && ms <= deadlineMs;
    const done = tracksCompletion(f.job)
      ? f.item.failure !== 'execution' &&
        f.deliveries.some((d) => by(f.input.completions.get(d.deliveryId)?.getTime()))
      : f.deliveries.some((d) => by(d.deliveredAt.getTime()));
    return sentAt.getTime() > deadlineMs && !done;
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

/** Whether an item says its run ended as a completion report said: succeeded, or failed running. */
const completedByReport = (item: RunItem) =>
  item.status === 'succeeded' || (item.status === 'failed' && item.failure === 'execution');

/**
 * No forged completion changes a run: the recorder records none of them, and every run that
 * ended `succeeded` or `failed(execution)` ended so by the report of a delivery its target
 * really ran (the report of that delivery reached the recorder, and the item's completion is
 * that report's).
 *
 * @example
 * forgeriesChangeNothing(input).detail //=> '2 forged completions, none recorded'
 */
export function forgeriesChangeNothing(input: OutcomeInput): Invariant {
  const forged = input.hostile.filter((h) => h.kind === 'forged-completion');
  const recorded = forged
    .filter((h) => h.recorded)
    .map((h) => `a forged completion of ${h.jobId} ${h.key?.slice(0, 8)} was recorded`);
  const byKey = deliveriesByKey(input.deliveries);
  const unran = [...input.items.values()]
    .filter((item) => completedByReport(item) && !reportedRun(input, item, byKey.get(item.key)))
    .map((item) => `${item.jobId} ${item.at} ${item.status} without a report of its target`);
  const broken = [...recorded, ...unran];
  return {
    name: 'no forged completion changes a run',
    ok: broken.length === 0,
    detail: `${plural(forged.length, 'forged completion')}, ${recorded.length === 0 ? 'none' : recorded.length} recorded${list(broken)}`,
  };
}

/** The item's completion is the report of one of its run's deliveries that reached the recorder. */
function reportedRun(
  input: OutcomeInput,
  item: RunItem,
  deliveries: readonly SimulatedDelivery[] | undefined,
): boolean {
  return (deliveries ?? []).some((d) => {
    const finished = input.completions.get(d.deliveryId);
    if (finished === undefined || !input.reported.has(d.deliveryId)) return false;
    return item.completedAt === undefined || item.completedAt === finished.toISOString();
  });
}

/**
 * No hostile event delivers a run: nothing a target received while the dispatcher handled a
 * tick from the distant past or the future, a malformed event, or a forged completion.
 *
 * @example
 * hostileDeliverNothing(input).detail //=> '3 hostile events, 0 deliveries'
 */
export function hostileDeliverNothing(input: OutcomeInput): Invariant {
  const delivering = input.hostile.filter((h) => h.deliveries > 0);
  const deliveries = input.hostile.reduce((sum, h) => sum + h.deliveries, 0);
  return {
    name: 'no hostile event delivers a run',
    ok: delivering.length === 0,
    detail: `${plural(input.hostile.length, 'hostile event')}, ${deliveries} deliver${deliveries === 1 ? 'y' : 'ies'}${list(delivering.map((h) => `${h.kind} at ${h.at} delivered ${h.key?.slice(0, 8) ?? 'a run'}`))}`,
  };
}

/**
 * Hostile events are ignored (and counted), never thrown: whatever an event holds, the
 * dispatcher and the recorder read it in bounded time and memory and return.
 *
 * @example
 * hostileNeverThrown(input).ok //=> false when a 20,000-deep event made the dispatcher throw
 */
export function hostileNeverThrown(input: OutcomeInput): Invariant {
  const thrown = input.hostile.filter((h) => h.threw !== null);
  return {
    name: 'hostile events ignored, never thrown',
    ok: thrown.length === 0,
    detail: `${plural(input.hostile.length - thrown.length, 'hostile event')} handled${list(thrown.map((h) => `${h.kind} to the ${h.to} at ${h.at} threw ${h.threw}`))}`,
  };
}

/** One gap of a job's runs: consecutive runs no tick of their own delivered. */
interface Gap {
  first: string;
  last: string;
  /** Runs of it the dispatcher delivered by catching up (a tick's or the sweep's catch-up). */
  caughtUp: number;
}

/**
 * At most `catchup.maxRuns` caught-up deliveries per gap (`latest`: one, `none`: none),
 * counted per gap, not per catch-up: a gap is a sequence of consecutive runs of a job (in one
 * window) that no tick of their own delivered, however many catch-ups decided it. Runs an
 * operator delivered (a backfill, `resume --catch-up`) are not the dispatcher's catch-up.
 *
 * @example
 * catchupPerGap(input, outcomes).ok //=> false when two sweeps caught up 2 runs of one `latest` gap
 */
export function catchupPerGap(
  input: OutcomeInput,
  outcomes: readonly RunOutcomeRecord[],
): Invariant {
  const byKey = deliveriesByKey(input.deliveries);
  const broken: string[] = [];
  let gaps = 0;
  for (const job of input.jobs) {
    for (const gap of gapsOf(
      input,
      byKey,
      outcomes.filter((o) => o.jobId === job.id),
    )) {
      gaps++;
      const then = jobAt(input, job.id, Date.parse(gap.last)) ?? job;
      const { policy, maxRuns } = then.catchup;
      const limit = { none: 0, latest: 1, all: maxRuns }[policy];
      if (gap.caughtUp > limit) {
        broken.push(
          `${job.id}: ${gap.caughtUp} caught up in the gap ${gap.first} to ${gap.last} (${policy}, ${limit})`,
        );
      }
    }
  }
  return {
    name: 'at most catchup.maxRuns caught up per gap',
    ok: broken.length === 0,
    detail: `${plural(gaps, 'gap')} checked${list(broken)}`,
  };
}

/** The gaps of one job's runs, in time order; a window's end ends a gap. */
function gapsOf(
  input: OutcomeInput,
  byKey: ReadonlyMap<string, readonly SimulatedDelivery[]>,
  runs: readonly RunOutcomeRecord[],
): Gap[] {
  const gaps: Gap[] = [];
  let open: Gap | undefined;
  let window = -1;
  for (const run of runs) {
    const w = input.windows.findIndex(
      (i) => Date.parse(run.at) > i.from.getTime() && Date.parse(run.at) <= i.to.getTime(),
    );
    if (w !== window) open = undefined;
    window = w;
    const item = input.items.get(run.key);
    const deliveries = byKey.get(run.key);
    const ours = deliveries !== undefined && !deliveredByOthers(input, deliveries);
    if (ours && item?.origin === 'tick') {
      open = undefined;
      continue;
    }
    if (!open) {
      open = { first: run.at, last: run.at, caughtUp: 0 };
      gaps.push(open);
    }
    open.last = run.at;
    if (ours && (item?.origin === 'catch-up' || item?.origin === 'sweep')) open.caughtUp++;
  }
  return gaps;
}

/** Origins of runs an operator's command decided, not the stack's schedules. */
const OPERATOR_ORIGINS: ReadonlySet<string> = new Set(['manual', 'backfill', 'redrive']);

/**
 * Nothing delivered that is not a run: every run the stack's own schedules delivered, due in
 * a window, is one the engine expects there, deploy by deploy. A deploy that changes a
 * schedule at `D` makes the new schedule's runs at or before `D` no runs: a catch-up that
 * delivers them breaks this. (An operator's and a hostile event's deliveries are held by
 * their own invariants; runs due after a window are the settling sweeps'.)
 *
 * @example
 * onlyRunsDelivered(input, outcomes).detail //=> '1,189 deliveries of runs the engine expects'
 */
export function onlyRunsDelivered(
  input: OutcomeInput,
  outcomes: readonly RunOutcomeRecord[],
): Invariant {
  const expected = new Set(outcomes.map((o) => o.key));
  const byKey = deliveriesByKey(input.deliveries);
  const inWindow = (atMs: number) =>
    input.windows.some((w) => atMs > w.from.getTime() && atMs <= w.to.getTime());
  const stray: string[] = [];
  let checked = 0;
  for (const [key, deliveries] of byKey) {
    const first = deliveries[0];
    if (!first || deliveredByOthers(input, deliveries)) continue;
    if (OPERATOR_ORIGINS.has(input.items.get(key)?.origin ?? '')) continue;
    if (!inWindow(Date.parse(first.envelope.scheduledAt))) continue;
    checked++;
    if (!expected.has(key)) stray.push(`${first.envelope.jobId} ${first.envelope.scheduledAt}`);
  }
  return {
    name: 'nothing delivered that is not a run',
    ok: stray.length === 0,
    detail: `${checked - stray.length} of ${checked} runs delivered are runs the engine expects${list(stray)}`,
  };
}
