/**
 * An executable reading of docs/semantics.md §6, "The fate of a run", used only by tests: given
 * jobs and a history around them (which ticks reach the dispatcher and when, outages, pauses,
 * invocations that fail, targets that refuse), the fate of every run and the notifications owed.
 *
 * It shares no code with the dispatcher, the recorder, the ledger or the CLI: only the engine
 * (which instants are runs) and the job type. Per job it keeps what §6 talks about — which runs
 * are decided, the first run, the gap's catch-up budget, the forbid slot — and none of how the
 * system keeps it (no watermark items, no leases, no DynamoDB). Invocations are all or nothing:
 * one that fails did nothing and is retried by Lambda a minute, then two minutes, later.
 *
 * The readings of §6 it makes, where the text leaves a choice, are marked "Reading:" below.
 */
import { type JobDefinition, scheduleSpecOf, tracksCompletion } from '#shared/job.ts';
import { occurrencesBetween } from '../../functions/schedule/index.ts';

/** A stretch of time, `[from, to)`. */
export interface Interval {
  readonly from: Date;
  readonly to: Date;
}

/** One copy of a job's tick for the run at `scheduledAt`, reaching the dispatcher at `arrivesAt`. */
export interface TickArrival {
  readonly jobId: string;
  readonly scheduledAt: Date;
  readonly arrivesAt: Date;
}

/** An invocation that fails (a crash, a throttled request): Lambda retries it. */
export interface FailedInvocation {
  readonly kind: 'tick' | 'sweep';
  /** The tick's job; none for a sweep. */
  readonly jobId?: string;
  readonly scheduledAt: Date;
  /** Lambda's attempt that fails: 1, 2 or 3. */
  readonly attempt: number;
}

/** An operator's pause of one job, resumed at `to` (with `--catch-up` or without). */
export interface ModelPause extends Interval {
  readonly jobId: string;
  readonly catchUp: boolean;
}

/** A job's target: refuses deliveries during `fail`; its runs take `runtimeMs` (tracked targets). */
export interface ModelTarget {
  readonly jobId: string;
  readonly fail?: Interval;
  readonly runtimeMs?: number;
}

/** Everything that happens around the jobs, in simulated time. */
export interface FateScenario {
  readonly jobs: readonly JobDefinition[];
  /** The runs are those in `(from, to]`. */
  readonly from: Date;
  readonly to: Date;
  /** Every job's first run is here (a stack that was running); none: a fresh deploy. */
  readonly runningSince?: Date;
  readonly ticks: readonly TickArrival[];
  /** No invocation reaches the dispatcher: no tick, no sweep, no retry. */
  readonly outages: readonly Interval[];
  readonly pauses: readonly ModelPause[];
  readonly failures: readonly FailedInvocation[];
  readonly targets: readonly ModelTarget[];
  /** How long after its minute a sweep arrives, and after a run ends its report. */
  readonly latencyMs: number;
  /** Sweeps go on this long after `to`. */
  readonly settleMs: number;
  readonly retentionDays?: number;
}

/** Why a run was decided not to run (§6, Fates). */
export type SkipReason =
  | 'paused'
  | 'overlap'
  | 'catch-up-none'
  | 'catch-up-latest'
  | 'max-runs'
  | 'outside-window';

/** The fate of one run; `open` (still being retried) and `undecided` are no fate at all. */
export interface RunFate {
  readonly jobId: string;
  /** UTC ISO instant. */
  readonly at: string;
  readonly status: 'delivered' | 'dead-lettered' | 'skipped' | 'open' | 'undecided';
  readonly reason: SkipReason | null;
  readonly deliveries: number;
}

/** The signals that notify on-call (§6, Signals and notifications). */
export type NotificationKind = 'missed' | 'late' | 'stuck' | 'dead-lettered' | 'overlap';

/** One notification owed: `missed` names a gap's missed runs, the others one run. */
export interface OwedNotification {
  readonly kind: NotificationKind;
  readonly jobId: string;
  readonly runs: number;
  readonly first: string;
  readonly last: string;
}

/** What the model says: every run's fate, in time order, and the notifications they owe. */
export interface FateResult {
  readonly runs: readonly RunFate[];
  readonly notifications: readonly OwedNotification[];
}

const MINUTE_MS = 60_000;
/** Lambda's two retries of a failed asynchronous invocation. */
const LAMBDA_RETRY_DELAYS_MS = [60_000, 120_000];
/** The wait before delivery retry n is 60 s × 2^(n−1), at most 900 s. */
const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 900_000;
const POLICY_REASON = {
  all: 'max-runs',
  latest: 'catch-up-latest',
  none: 'catch-up-none',
} as const;

interface ModelRun {
  readonly ms: number;
  fate?: {
    readonly status: 'delivered' | 'dead-lettered' | 'skipped';
    readonly reason?: SkipReason;
  };
  /** Delivery-failed, waiting for its retry: decided, but no fate yet. */
  failing: boolean;
  attempts: number;
  retryAtMs: number;
  dispatchedAtMs: number;
  reportAtMs: number;
}

interface JobModel {
  readonly job: JobDefinition;
  readonly runs: readonly ModelRun[];
  readonly byMs: ReadonlyMap<number, ModelRun>;
  readonly pauses: readonly ModelPause[];
  readonly target: ModelTarget | undefined;
  sinceMs: number | undefined;
  /** Runs caught up since a tick last delivered its own run on time. */
  spent: number;
  /** The run holding the forbid slot, and the skips of the current overlap incident. */
  holder: ModelRun | undefined;
  overlapSkips: number;
  /** Every run before this index is decided. */
  open: number;
  /** Runs the sweep still looks at: waiting for a delivery retry, or running on a tracked target. */
  readonly watched: Set<ModelRun>;
}

interface Invocation {
  readonly atMs: number;
  /** At one instant: retries and resumes first, then ticks, then the sweep. */
  readonly rank: number;
  readonly seq: number;
  readonly kind: 'tick' | 'sweep' | 'resume';
  readonly jobId?: string;
  readonly scheduledMs: number;
  readonly attempt: number;
  readonly pause?: ModelPause;
}

/** The world the model runs in: the jobs, the clock of the invocation at hand, what is owed. */
interface World {
  readonly scenario: FateScenario;
  readonly jobs: readonly JobModel[];
  readonly notifications: OwedNotification[];
  /** The sweep instants checked so far (architecture.md §7, The sweep). */
  sweptToMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const inside = (i: Interval | undefined, ms: number) =>
  i !== undefined && ms >= i.from.getTime() && ms < i.to.getTime();
const decided = (r: ModelRun) => r.fate !== undefined || r.failing;

/**
 * The fate of every run of the scenario's jobs in `(from, to]`, and the notifications owed.
 *
 * @example
 * const s = { jobs: [hourly], from, to, runningSince: from, ticks: onTimeTicks(hourly, from, to, 200), … };
 * fateOf(s).runs.every((r) => r.status === 'delivered') //=> true
 */
export function fateOf(scenario: FateScenario): FateResult {
  const world: World = {
    scenario,
    jobs: scenario.jobs.filter((j) => j.enabled).map((job) => jobModel(scenario, job)),
    notifications: [],
    sweptToMs: scenario.from.getTime(),
  };
  const queue = invocations(scenario);
  for (let inv = queue.shift(); inv; inv = queue.shift()) {
    if (inv.kind !== 'resume' && scenario.outages.some((o) => inside(o, inv.atMs))) continue;
    if (fails(scenario, inv)) {
      const delay = LAMBDA_RETRY_DELAYS_MS[inv.attempt - 1];
      if (delay !== undefined) {
        enqueue(queue, { ...inv, atMs: inv.atMs + delay, rank: 0, attempt: inv.attempt + 1 });
      }
      continue;
    }
    handle(world, inv);
  }
  const fromMs = scenario.from.getTime();
  const toMs = scenario.to.getTime();
  // Like the runs, the notifications carried by a run of the window: the sweeps after `to` also
  // catch up the runs after it, which are not the scenario's.
  const notifications = world.notifications.filter((n) => {
    const lastMs = Date.parse(n.last);
    return lastMs > fromMs && lastMs <= toMs;
  });
  return { runs: fatesOf(world), notifications };
}

function jobModel(scenario: FateScenario, job: JobDefinition): JobModel {
  const end = new Date(scenario.to.getTime() + scenario.settleMs);
  const runs = occurrencesBetween(scheduleSpecOf(job), scenario.from, end).map(
    (o): ModelRun => ({
      ms: o.at.getTime(),
      failing: false,
      attempts: 0,
      retryAtMs: 0,
      dispatchedAtMs: 0,
      reportAtMs: Number.POSITIVE_INFINITY,
    }),
  );
  return {
    job,
    runs,
    byMs: new Map(runs.map((r) => [r.ms, r])),
    pauses: scenario.pauses.filter((p) => p.jobId === job.id),
    target: scenario.targets.find((t) => t.jobId === job.id),
    sinceMs: scenario.runningSince?.getTime(),
    spent: 0,
    holder: undefined,
    overlapSkips: 0,
    open: 0,
    watched: new Set(),
  };
}

/** Every invocation the history sends, in arrival order: ticks, sweeps, catch-up resumes. */
function invocations(scenario: FateScenario): Invocation[] {
  const list: Invocation[] = [];
  let seq = 0;
  for (const t of scenario.ticks) {
    const base = { rank: 1, seq: seq++, kind: 'tick' as const, attempt: 1 };
    list.push({
      ...base,
      atMs: t.arrivesAt.getTime(),
      jobId: t.jobId,
      scheduledMs: t.scheduledAt.getTime(),
    });
  }
  const lastMs = scenario.to.getTime() + scenario.settleMs;
  const first = Math.floor(scenario.from.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let m = first; m <= lastMs; m += MINUTE_MS) {
    list.push({
      atMs: m + scenario.latencyMs,
      rank: 2,
      seq: seq++,
      kind: 'sweep',
      scheduledMs: m,
      attempt: 1,
    });
  }
  for (const p of scenario.pauses.filter((x) => x.catchUp)) {
    const at = p.to.getTime();
    list.push({
      atMs: at,
      rank: 0,
      seq: seq++,
      kind: 'resume',
      jobId: p.jobId,
      scheduledMs: at,
      attempt: 1,
      pause: p,
    });
  }
  return list.sort(byArrival);
}

function byArrival(a: Invocation, b: Invocation): number {
  return a.atMs - b.atMs || a.rank - b.rank || a.seq - b.seq;
}

function enqueue(queue: Invocation[], inv: Invocation): void {
  let i = queue.findIndex((q) => byArrival(inv, q) < 0);
  if (i < 0) i = queue.length;
  queue.splice(i, 0, inv);
}

function fails(scenario: FateScenario, inv: Invocation): boolean {
  return scenario.failures.some(
    (f) =>
      f.kind === inv.kind &&
      f.attempt === inv.attempt &&
      f.scheduledAt.getTime() === inv.scheduledMs &&
      (f.jobId ?? '') === (inv.jobId ?? ''),
  );
}

function handle(world: World, inv: Invocation): void {
  const m = world.jobs.find((j) => j.job.id === inv.jobId);
  if (inv.kind === 'sweep') sweep(world, inv.scheduledMs, inv.atMs);
  else if (m && inv.kind === 'tick') tick(world, m, inv.scheduledMs, inv.atMs);
  else if (m && inv.pause) resumeWithCatchUp(world, m, inv.pause, inv.atMs);
}

/**
 * §6 Pauses: a run due in `[pausedAt, end)` is skipped(paused); once a pause is resumed with
 * catch-up, its runs still undecided are the next gap's, like any other.
 */
function paused(m: JobModel, ms: number, nowMs: number): boolean {
  return m.pauses.some((p) => inside(p, ms) && !(p.catchUp && nowMs >= p.to.getTime()));
}

/** The job's undecided runs from its first run up to `upToMs` (or just before it), oldest first. */
function undecided(m: JobModel, upToMs: number, strictly: boolean): ModelRun[] {
  while (m.open < m.runs.length && decided(m.runs[m.open] as ModelRun)) m.open++;
  const gap: ModelRun[] = [];
  for (let i = m.open; i < m.runs.length; i++) {
    const r = m.runs[i] as ModelRun;
    if (r.ms > upToMs || (strictly && r.ms === upToMs)) break;
    if (!decided(r) && r.ms >= (m.sinceMs ?? Number.POSITIVE_INFINITY)) gap.push(r);
  }
  return gap;
}

/**
 * A tick of the run at S. Not a run, before the job's first run, or older than the job's
 * catch-up window or retention: ignored (§6, Instants that are not runs). A decided run keeps
 * its fate. Otherwise the gap before S is decided, then S itself, by its own tick.
 */
function tick(world: World, m: JobModel, sMs: number, nowMs: number): void {
  const run = m.byMs.get(sMs);
  const retentionMs = (world.scenario.retentionDays ?? 35) * 86_400_000;
  const maxAgeMs = Math.min(m.job.catchup.windowSeconds * 1000, retentionMs);
  // Older than its window or the ledger's memory, or beyond the clock skew (60 s) ahead.
  if (!run || nowMs - sMs > maxAgeMs || sMs > nowMs + 60_000) return;
  // §6 Deploys: a job's first run starts it; its runs before it are not runs.
  m.sinceMs ??= sMs;
  if (sMs < m.sinceMs || decided(run)) return;
  const gap = undecided(m, sMs, true);
  if (gap.length > 0) decideGap(world, m, gap, nowMs, sMs);
  if (paused(m, sMs, nowMs)) {
    skip(run, 'paused');
    return;
  }
  // §6: a tick that delivers its own run ends the gap; the next one has a budget of its own.
  m.spent = 0;
  attempt(world, m, run, nowMs, true);
}

/**
 * The one-minute sweep at M. It looks at the sweep instants since the last one it checked, at
 * most 30 minutes of them and never more than a day back (architecture.md §7): a job with an
 * undecided run due there (at an instant up to one of them minus the job's grace) has its
 * overdue runs (`at <= M − grace`) that no one decided decided as one gap, in one go. Then
 * delivery retries whose time came, and `stuck` runs.
 */
function sweep(world: World, mMs: number, nowMs: number): void {
  const fromMs = Math.min(mMs, Math.max(world.sweptToMs, mMs - 86_400_000));
  const toMs = Math.min(mMs, fromMs + 30 * MINUTE_MS);
  world.sweptToMs = Math.max(world.sweptToMs, toMs);
  for (const m of world.jobs) {
    if (m.sinceMs === undefined) continue;
    const graceMs = m.job.alarm.graceSeconds * 1000;
    const seen = undecided(m, toMs - graceMs, false).some((r) => r.ms > fromMs - graceMs);
    const dueMs = mMs - graceMs;
    if (seen) decideGap(world, m, undecided(m, dueMs, false), nowMs, dueMs);
  }
  for (const m of world.jobs) {
    for (const r of [...m.watched]) {
      if (r.failing && r.retryAtMs <= nowMs) attempt(world, m, r, nowMs, false);
      if (r.fate?.status !== 'delivered') continue;
      if (nowMs >= r.reportAtMs) m.watched.delete(r);
      else if (nowMs >= r.dispatchedAtMs + m.job.maxRuntimeSeconds * 1000) {
        m.watched.delete(r);
        notify(world, 'stuck', m, [r]);
      }
    }
  }
}

/**
 * §6 Gaps and catch-up: the runs of one gap decided together under the job's policy. The window
 * ends at the instant the gap is decided up to and is closed at its start. Runs in a pause are skipped(paused)
 * and left out of the policy (Reading: they still count as the gap's, and as newer runs).
 */
function decideGap(
  world: World,
  m: JobModel,
  gap: readonly ModelRun[],
  nowMs: number,
  upToMs: number,
): void {
  const { catchup, alarm } = m.job;
  const pastGrace = (r: ModelRun) => nowMs > r.ms + alarm.graceSeconds * 1000;
  const windowStartMs = upToMs - catchup.windowSeconds * 1000;
  const live = gap.filter((r) => !paused(m, r.ms, nowMs));
  for (const r of gap) if (paused(m, r.ms, nowMs)) skip(r, 'paused');
  const picks = policyPicks(m, gap, live, windowStartMs, nowMs);
  const missed: ModelRun[] = [];
  for (const r of live) {
    if (picks.includes(r)) {
      if (pastGrace(r)) missed.push(r);
      continue;
    }
    skip(r, r.ms < windowStartMs ? 'outside-window' : POLICY_REASON[catchup.policy]);
    // §6: a run the gap skips is missed unless it was skipped for a pause.
    missed.push(r);
  }
  m.spent += picks.length;
  if (missed.length > 0) notify(world, 'missed', m, missed);
  for (const r of picks) attempt(world, m, r, nowMs, false);
}

/** The runs of a gap its policy delivers, oldest first, within the budget the gap has left. */
function policyPicks(
  m: JobModel,
  gap: readonly ModelRun[],
  live: readonly ModelRun[],
  windowStartMs: number,
  nowMs: number,
): ModelRun[] {
  const { policy, maxRuns } = m.job.catchup;
  const inWindow = live.filter((r) => r.ms >= windowStartMs);
  if (policy === 'all') {
    return inWindow.slice(Math.max(0, inWindow.length - Math.max(0, maxRuns - m.spent)));
  }
  if (policy === 'none' || m.spent > 0) return [];
  // latest: the newest, when no newer run is decided or due (a newer run of the gap in a pause
  // is decided; the tick's own run is due).
  const newest = inWindow.at(-1);
  if (!newest || newest !== gap.at(-1)) return [];
  const next = m.runs[m.runs.indexOf(newest) + 1];
  return next && next.ms <= nowMs ? [] : [newest];
}

/**
 * `resume --catch-up` at the end of a pause: its runs not delivered (skipped for the pause, or
 * undecided) are one gap under the job's policy, and the ones it picks are delivered now.
 * Reading: a replay an operator asked for is not missed, and spends no budget of a gap.
 */
function resumeWithCatchUp(world: World, m: JobModel, pause: ModelPause, nowMs: number): void {
  const runs = m.runs.filter(
    (r) => inside(pause, r.ms) && r.ms >= (m.sinceMs ?? Number.POSITIVE_INFINITY),
  );
  const newest = runs.at(-1);
  if (!newest) return;
  const windowStartMs = pause.to.getTime() - m.job.catchup.windowSeconds * 1000;
  const replayable = runs.filter(
    (r) => r.ms >= windowStartMs && (!decided(r) || r.fate?.reason === 'paused'),
  );
  const { policy, maxRuns } = m.job.catchup;
  const picks =
    policy === 'all' ? replayable.slice(-maxRuns) : policy === 'latest' ? replayable.slice(-1) : [];
  for (const r of picks) {
    delete r.fate;
    attempt(world, m, r, nowMs, false);
  }
}

function skip(r: ModelRun, reason: SkipReason): void {
  r.failing = false;
  r.fate = { status: 'skipped', reason };
}

/** Whether run `h` can still be running at `nowMs`: it holds a forbid slot until then (§6 Overlap). */
function holds(m: JobModel, h: ModelRun, nowMs: number): boolean {
  if (h.fate?.status !== 'delivered') return false;
  if (tracksCompletion(m.job) && h.reportAtMs <= nowMs) return false;
  return nowMs <= h.dispatchedAtMs + m.job.maxRuntimeSeconds * 1000;
}

/**
 * One delivery attempt of a run decided to run: skipped(overlap) while another run of a forbid
 * job holds the slot; otherwise handed to the target, or failed and retried, dead-lettered when
 * every attempt of its round failed.
 */
function attempt(world: World, m: JobModel, r: ModelRun, nowMs: number, ownTick: boolean): void {
  const { job } = m;
  if (job.concurrency === 'forbid') {
    const holder = m.holder;
    if (holder && holder !== r && holds(m, holder, nowMs)) {
      skip(r, 'overlap');
      // §6 Overlap: the second run skipped in a row raises one notification for the incident.
      if (++m.overlapSkips === 2) notify(world, 'overlap', m, [r]);
      return;
    }
    if (holder !== r) m.overlapSkips = 0;
    m.holder = r;
  }
  r.attempts++;
  m.watched.delete(r);
  if (inside(m.target?.fail, nowMs)) {
    if (m.holder === r) m.holder = undefined;
    if (r.attempts >= job.retry.maxAttempts) {
      r.failing = false;
      r.fate = { status: 'dead-lettered' };
      notify(world, 'dead-lettered', m, [r]);
      return;
    }
    r.failing = true;
    r.retryAtMs = nowMs + Math.min(RETRY_BASE_MS * 2 ** (r.attempts - 1), RETRY_MAX_MS);
    m.watched.add(r);
    return;
  }
  r.failing = false;
  r.fate = { status: 'delivered' };
  r.dispatchedAtMs = nowMs;
  if (tracksCompletion(job)) {
    r.reportAtMs = nowMs + (m.target?.runtimeMs ?? 1_000) + world.scenario.latencyMs;
    m.watched.add(r);
  }
  // §6 Signals: late, when its own tick's first attempt was past grace.
  if (ownTick && r.attempts === 1 && nowMs > r.ms + job.alarm.graceSeconds * 1000) {
    notify(world, 'late', m, [r]);
  }
}

/** One notification: a gap's missed runs from the first to the last, or one run's signal. */
function notify(world: World, kind: NotificationKind, m: JobModel, runs: readonly ModelRun[]) {
  const first = runs[0] as ModelRun;
  const last = runs.at(-1) as ModelRun;
  world.notifications.push({
    kind,
    jobId: m.job.id,
    runs: runs.length,
    first: iso(first.ms),
    last: iso(last.ms),
  });
}

function fatesOf(world: World): RunFate[] {
  const fromMs = world.scenario.from.getTime();
  const toMs = world.scenario.to.getTime();
  const fates: RunFate[] = [];
  for (const m of world.jobs) {
    for (const r of m.runs) {
      if (r.ms <= fromMs || r.ms > toMs || r.ms < (m.sinceMs ?? Number.POSITIVE_INFINITY)) continue;
      const status = r.fate?.status ?? (r.failing ? 'open' : 'undecided');
      fates.push({
        jobId: m.job.id,
        at: iso(r.ms),
        status,
        reason: r.fate?.reason ?? null,
        deliveries: status === 'delivered' ? 1 : 0,
      });
    }
  }
  return fates.sort((a, b) => a.at.localeCompare(b.at) || a.jobId.localeCompare(b.jobId));
}

/**
 * Every run's tick of a job in `(from, to]`, each arriving `latencyMs` after its instant: the
 * history of a stack where nothing goes wrong, to edit by hand.
 *
 * @example
 * onTimeTicks(hourly, from, to, 200).length //=> the hourly runs in (from, to]
 */
export function onTimeTicks(
  job: JobDefinition,
  from: Date,
  to: Date,
  latencyMs: number,
): TickArrival[] {
  return occurrencesBetween(scheduleSpecOf(job), from, to).map((o) => ({
    jobId: job.id,
    scheduledAt: o.at,
    arrivesAt: new Date(o.at.getTime() + latencyMs),
  }));
}
