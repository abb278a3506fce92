/**
 * An executable reading of docs/semantics.md §6, "The fate of a run", used only by tests: given
 * jobs and a history around them (which ticks reach the dispatcher and when, outages, pauses,
 * deploys, operators' commands, invocations that fail, targets that refuse), the fate of every
 * run and the notifications owed.
 *
 * It shares no code with the dispatcher, the recorder, the ledger or the CLI: only the engine
 * (which instants are runs) and the job type. Per job it keeps what §6 talks about — which runs
 * are decided, the first run, the schedule in force, the gap's budget, the forbid slot — and none
 * of how the system keeps it. Invocations are all or nothing: one that fails did nothing and is
 * retried by Lambda a minute, then two minutes, later. Forged completions change nothing, so the
 * model has none. Its readings, where §6 leaves a choice, are marked "Reading:".
 */
import { type JobDefinition, scheduleIdOf, scheduleSpecOf, tracksCompletion } from '#shared/job.ts';
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
/** From `at` on, the dispatchers run with another jobs file (it takes effect per job, §6). */
export interface ModelDeploy {
  readonly at: Date;
  readonly jobs: readonly JobDefinition[];
}
/** An on-call engineer's command at `at`: `zonecron run`, `backfill`, `dlq redrive`. */
export type ModelOperatorStep =
  | { readonly at: Date; readonly action: 'run'; readonly jobId: string }
  | ({ readonly at: Date; readonly action: 'backfill'; readonly jobId: string } & Interval)
  | { readonly at: Date; readonly action: 'redrive'; readonly jobId: string; readonly run: Date };

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
  readonly deploys?: readonly ModelDeploy[];
  readonly operator?: readonly ModelOperatorStep[];
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
/** The fate of one run (a manual one's job is `manual:<id>`); `open` and `undecided` are none. */
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
const LAMBDA_RETRY_DELAYS_MS = [60_000, 120_000];
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
  /** Set when delivered: when its report comes (tracked targets) and its maxRuntime ends. */
  reportAtMs: number;
  runtimeEndMs: number;
  /** Delivered by an operator's backfill although the schedule had it as no run. */
  byOperator?: boolean;
}

interface JobModel {
  readonly id: string;
  /** The definition in force; `listed` false once a deploy without the job took effect. */
  job: JobDefinition;
  listed: boolean;
  /** The runs of the schedule in force, after its deploy instant; `past`, those of earlier ones. */
  runs: ModelRun[];
  byMs: Map<number, ModelRun>;
  readonly past: ModelRun[];
  readonly manual: ModelRun[];
  /** A deploy that has not taken effect for the job yet: its definition, or null (removed). */
  pending: JobDefinition | null | undefined;
  sinceMs: number | undefined;
  /** Runs caught up since a tick last delivered its own run on time. */
  spent: number;
  holder: ModelRun | undefined;
  overlapSkips: number;
  /** Every run before this index is decided. */
  open: number;
  /** Runs the sweep still looks at: waiting for a delivery retry, or running on a tracked target. */
  readonly watched: Set<ModelRun>;
}

interface Invocation {
  readonly atMs: number;
  /** At one instant: retries, resumes, deploys and operators first, then ticks, then the sweep. */
  readonly rank: number;
  readonly seq: number;
  readonly kind: 'tick' | 'sweep' | 'resume' | 'deploy' | 'operator';
  readonly jobId?: string;
  readonly scheduledMs: number;
  readonly attempt: number;
  readonly pause?: ModelPause;
  readonly deploy?: ModelDeploy;
  readonly step?: ModelOperatorStep;
}

interface World {
  readonly scenario: FateScenario;
  readonly jobs: Map<string, JobModel>;
  readonly notifications: OwedNotification[];
  /** The sweep instants checked so far (architecture.md §7, The sweep). */
  sweptToMs: number;
  endMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const inside = (i: Interval | undefined, ms: number) =>
  i !== undefined && ms >= i.from.getTime() && ms < i.to.getTime();
const decided = (r: ModelRun) => r.fate !== undefined || r.failing;
const newRun = (ms: number): ModelRun => ({
  ms,
  failing: false,
  attempts: 0,
  retryAtMs: 0,
  reportAtMs: 0,
  runtimeEndMs: 0,
});
const runsOf = (job: JobDefinition, afterMs: number, toMs: number) =>
  occurrencesBetween(scheduleSpecOf(job), new Date(afterMs), new Date(toMs)).map((o) =>
    newRun(o.at.getTime()),
  );

/**
 * The fate of every run of the scenario's jobs in `(from, to]`, and the notifications owed.
 *
 * @example
 * const s = { jobs: [hourly], from, to, runningSince: from, ticks: onTimeTicks(hourly, from, to, 200), … };
 * fateOf(s).runs.every((r) => r.status === 'delivered') //=> true
 */
export function fateOf(scenario: FateScenario): FateResult {
  const fromMs = scenario.from.getTime();
  const toMs = scenario.to.getTime();
  const world: World = {
    scenario,
    jobs: new Map(),
    notifications: [],
    sweptToMs: fromMs,
    endMs: toMs + scenario.settleMs,
  };
  for (const job of scenario.jobs.filter((j) => j.enabled)) {
    const m = listJob(world, job, fromMs);
    m.sinceMs = scenario.runningSince?.getTime();
  }
  const queue = invocations(scenario);
  for (let inv = queue.shift(); inv; inv = queue.shift()) {
    if (inv.kind === 'deploy' || inv.kind === 'operator' || inv.kind === 'resume') {
      handle(world, inv);
      continue;
    }
    if (scenario.outages.some((o) => inside(o, inv.atMs))) continue;
    if (!fails(scenario, inv)) handle(world, inv);
    else if (inv.attempt <= LAMBDA_RETRY_DELAYS_MS.length) {
      const atMs = inv.atMs + (LAMBDA_RETRY_DELAYS_MS[inv.attempt - 1] ?? 0);
      enqueue(queue, { ...inv, atMs, rank: 0, attempt: inv.attempt + 1 });
    }
  }
  // Like the runs, the notifications carried by a run of the window.
  const notifications = world.notifications.filter((n) => {
    const lastMs = Date.parse(n.last);
    return lastMs > fromMs && lastMs <= toMs;
  });
  return { runs: fatesOf(world), notifications };
}

/** A job listed (again, or for the first time) from `afterMs` on: its runs after that instant. */
function listJob(world: World, job: JobDefinition, afterMs: number): JobModel {
  const runs = runsOf(job, afterMs, world.endMs);
  const old = world.jobs.get(job.id);
  const m: JobModel = old ?? {
    id: job.id,
    job,
    listed: true,
    runs,
    byMs: new Map(),
    past: [],
    manual: [],
    pending: undefined,
    sinceMs: undefined,
    spent: 0,
    holder: undefined,
    overlapSkips: 0,
    open: 0,
    watched: new Set(),
  };
  Object.assign(m, {
    job,
    listed: true,
    runs,
    byMs: new Map(runs.map((r) => [r.ms, r])),
    open: 0,
    spent: 0,
  });
  world.jobs.set(job.id, m);
  return m;
}

/**
 * §6 The life of a job: the pending deploy takes effect for the job at `atMs`, its deploy instant.
 * A new schedule (or a job listed again) ends the old schedule's runs there, undecided ones
 * staying so, and starts its own after it; a removed job ends there; anything else (target,
 * payload, policies) moves nothing, the new definition deciding from now on. Reading: a new
 * schedule starts with a budget of its own, and a removed job's runs still open are left open.
 */
function takeEffect(world: World, m: JobModel, atMs: number): void {
  const next = m.pending;
  m.pending = undefined;
  if (next === undefined) return;
  const moved = !next || !m.listed || scheduleIdOf(next) !== scheduleIdOf(m.job);
  if (!moved) {
    m.job = next;
    return;
  }
  const since = m.sinceMs ?? Number.POSITIVE_INFINITY;
  if (m.listed)
    m.past.push(...m.runs.filter((r) => r.ms < atMs && (r.ms >= since || r.byOperator)));
  if (!next) {
    m.listed = false;
    m.watched.clear();
    return;
  }
  const relisted = !m.listed;
  listJob(world, next, atMs);
  if (relisted) m.sinceMs = atMs;
}

/** Every invocation the history sends, in arrival order; deploys and operators among them. */
function invocations(s: FateScenario): Invocation[] {
  const list: Invocation[] = [];
  const add = (inv: Omit<Invocation, 'seq' | 'attempt'>) =>
    list.push({ ...inv, seq: list.length, attempt: 1 });
  for (const t of s.ticks) {
    const atMs = t.arrivesAt.getTime();
    add({ atMs, rank: 1, kind: 'tick', jobId: t.jobId, scheduledMs: t.scheduledAt.getTime() });
  }
  const first = Math.floor(s.from.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let m = first; m <= s.to.getTime() + s.settleMs; m += MINUTE_MS) {
    add({ atMs: m + s.latencyMs, rank: 2, kind: 'sweep', scheduledMs: m });
  }
  for (const pause of s.pauses.filter((x) => x.catchUp)) {
    const atMs = pause.to.getTime();
    add({ atMs, rank: 0, kind: 'resume', jobId: pause.jobId, scheduledMs: atMs, pause });
  }
  for (const deploy of s.deploys ?? []) {
    add({ atMs: deploy.at.getTime(), rank: 0, kind: 'deploy', scheduledMs: 0, deploy });
  }
  for (const step of s.operator ?? []) {
    add({
      atMs: step.at.getTime(),
      rank: 0,
      kind: 'operator',
      jobId: step.jobId,
      scheduledMs: 0,
      step,
    });
  }
  return list.sort(byArrival);
}

const byArrival = (a: Invocation, b: Invocation) =>
  a.atMs - b.atMs || a.rank - b.rank || a.seq - b.seq;

function enqueue(queue: Invocation[], inv: Invocation): void {
  const i = queue.findIndex((q) => byArrival(inv, q) < 0);
  queue.splice(i < 0 ? queue.length : i, 0, inv);
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
  const m = world.jobs.get(inv.jobId ?? '');
  if (inv.kind === 'sweep') sweep(world, inv.scheduledMs, inv.atMs);
  else if (inv.deploy) deploy(world, inv.deploy);
  else if (inv.kind === 'tick') tick(world, inv.jobId ?? '', inv.scheduledMs, inv.atMs);
  else if (m?.listed && inv.pause) resumeWithCatchUp(world, m, inv.pause, inv.atMs);
  else if (m?.listed && inv.step) operate(world, m, inv.step, inv.atMs);
}

/** A deploy at its `at`: every job it lists, drops or changes waits for its deploy instant. */
function deploy(world: World, d: ModelDeploy): void {
  const enabled = d.jobs.filter((j) => j.enabled);
  for (const m of world.jobs.values()) m.pending = enabled.find((j) => j.id === m.id) ?? null;
  for (const job of enabled.filter((j) => !world.jobs.has(j.id))) {
    // A job never listed before: its first tick starts it (§6, a job's first run).
    const m = listJob(world, job, d.at.getTime());
    m.pending = job;
  }
}

/** §6 Pauses: a run due in `[pausedAt, end)` is skipped(paused), until a resume with catch-up. */
function paused(world: World, m: JobModel, ms: number, nowMs: number): boolean {
  return world.scenario.pauses.some(
    (p) => p.jobId === m.id && inside(p, ms) && !(p.catchUp && nowMs >= p.to.getTime()),
  );
}

/** The job's undecided runs from its first run up to `upToMs` (or just before it), oldest first. */
function undecided(m: JobModel, upToMs: number, strictly: boolean): ModelRun[] {
  while (m.open < m.runs.length && decided(m.runs[m.open] as ModelRun)) m.open++;
  const gap: ModelRun[] = [];
  for (const r of m.runs.slice(m.open)) {
    if (r.ms > upToMs || (strictly && r.ms === upToMs)) break;
    if (!decided(r) && r.ms >= (m.sinceMs ?? Number.POSITIVE_INFINITY)) gap.push(r);
  }
  return gap;
}

/**
 * A tick of the run at S, read with the jobs deployed now. Not a run, before the job's first run,
 * older than its catch-up window or retention, beyond the clock skew ahead: ignored (§6,
 * Instants that are not runs). The job's pending deploy takes effect just before S. A decided run
 * keeps its fate; otherwise the gap before S is decided, then S itself, by its own tick.
 */
function tick(world: World, jobId: string, sMs: number, nowMs: number): void {
  const m = world.jobs.get(jobId);
  const job = m?.pending === undefined ? m?.listed && m.job : m.pending;
  if (!m || !job || runsOf(job, sMs - 1, sMs).length === 0) return;
  const maxAgeMs = Math.min(
    job.catchup.windowSeconds * 1000,
    (world.scenario.retentionDays ?? 35) * 86_400_000,
  );
  if (nowMs - sMs > maxAgeMs || sMs > nowMs + 60_000) return;
  takeEffect(world, m, sMs - 1);
  const run = m.byMs.get(sMs);
  m.sinceMs ??= sMs;
  if (!run || sMs < m.sinceMs || decided(run)) return;
  const gap = undecided(m, sMs, true);
  if (gap.length > 0) decideGap(world, m, gap, nowMs, sMs);
  if (paused(world, m, sMs, nowMs)) return skip(run, 'paused');
  // §6: a tick that delivers its own run ends the gap; the next one has a budget of its own.
  m.spent = 0;
  attempt(world, m, run, nowMs, 'tick');
}

/**
 * The one-minute sweep at M: every pending deploy takes effect at M. It looks at the sweep
 * instants since the last one it checked, at most 30 minutes of them and never more than a day
 * back (architecture.md §7): a job with an undecided run due there has its overdue runs
 * (`at <= M − grace`) decided as one gap, in one go. Then delivery retries, and `stuck` runs.
 */
function sweep(world: World, mMs: number, nowMs: number): void {
  for (const m of world.jobs.values()) takeEffect(world, m, mMs);
  const fromMs = Math.min(mMs, Math.max(world.sweptToMs, mMs - 86_400_000));
  const toMs = Math.min(mMs, fromMs + 30 * MINUTE_MS);
  world.sweptToMs = Math.max(world.sweptToMs, toMs);
  for (const m of world.jobs.values()) {
    if (m.sinceMs === undefined || !m.listed) continue;
    const graceMs = m.job.alarm.graceSeconds * 1000;
    const seen = undecided(m, toMs - graceMs, false).some((r) => r.ms > fromMs - graceMs);
    const dueMs = mMs - graceMs;
    if (seen) decideGap(world, m, undecided(m, dueMs, false), nowMs, dueMs);
  }
  for (const m of world.jobs.values()) {
    for (const r of [...m.watched]) {
      if (r.failing && r.retryAtMs <= nowMs) attempt(world, m, r, nowMs, 'retry');
      if (r.fate?.status !== 'delivered') continue;
      if (nowMs >= r.reportAtMs) m.watched.delete(r);
      else if (nowMs >= r.runtimeEndMs) {
        m.watched.delete(r);
        notify(world, 'stuck', m.id, [r]);
      }
    }
  }
}

/**
 * §6 Gaps and catch-up: the runs of one gap decided together under the job's policy. The window
 * ends at the instant the gap is decided up to and is closed at its start. Runs in a pause are
 * skipped(paused) and left out of the policy (Reading: they still count as the gap's, and as
 * newer runs).
 */
function decideGap(
  world: World,
  m: JobModel,
  gap: readonly ModelRun[],
  nowMs: number,
  upToMs: number,
) {
  const { catchup, alarm } = m.job;
  const windowStartMs = upToMs - catchup.windowSeconds * 1000;
  const live = gap.filter((r) => !paused(world, m, r.ms, nowMs));
  for (const r of gap) if (!live.includes(r)) skip(r, 'paused');
  const picks = policyPicks(m, gap, live, windowStartMs, nowMs);
  // §6: a run the gap delivers past its grace is missed; one it skips is missed all the same.
  const missed = live.filter((r) => !picks.includes(r) || nowMs > r.ms + alarm.graceSeconds * 1000);
  for (const r of live) {
    if (!picks.includes(r))
      skip(r, r.ms < windowStartMs ? 'outside-window' : POLICY_REASON[catchup.policy]);
  }
  m.spent += picks.length;
  if (missed.length > 0) notify(world, 'missed', m.id, missed);
  for (const r of picks) attempt(world, m, r, nowMs, 'gap');
}

/** The runs of a gap its policy delivers, oldest first, within the budget the gap has left. */
function policyPicks(
  m: JobModel,
  gap: readonly ModelRun[],
  live: readonly ModelRun[],
  windowStartMs: number,
  nowMs: number,
) {
  const { policy, maxRuns } = m.job.catchup;
  const inWindow = live.filter((r) => r.ms >= windowStartMs);
  if (policy === 'all')
    return inWindow.slice(Math.max(0, inWindow.length - Math.max(0, maxRuns - m.spent)));
  if (policy === 'none' || m.spent > 0) return [];
  // latest: the newest, when no newer run is decided or due (a paused one is decided).
  const newest = inWindow.at(-1);
  if (!newest || newest !== gap.at(-1)) return [];
  const next = m.runs[m.runs.indexOf(newest) + 1];
  return next && next.ms <= nowMs ? [] : [newest];
}

/** The policy's picks among `runs` (oldest first), as an operator's catch-up takes them. */
function operatorPicks(job: JobDefinition, runs: readonly ModelRun[]): readonly ModelRun[] {
  const { policy, maxRuns } = job.catchup;
  return policy === 'all' ? runs.slice(-maxRuns) : policy === 'latest' ? runs.slice(-1) : [];
}

/**
 * `resume --catch-up` at the end of a pause: its runs not delivered (skipped for the pause, or
 * undecided) are one gap under the job's policy, and the ones it picks are delivered now.
 * Reading: a replay an operator asked for is not missed, and spends no budget of a gap.
 */
function resumeWithCatchUp(world: World, m: JobModel, pause: ModelPause, nowMs: number): void {
  const windowStartMs = pause.to.getTime() - m.job.catchup.windowSeconds * 1000;
  const replayable = m.runs.filter(
    (r) =>
      inside(pause, r.ms) &&
      r.ms >= Math.max(windowStartMs, m.sinceMs ?? Number.POSITIVE_INFINITY) &&
      (!decided(r) || r.fate?.reason === 'paused'),
  );
  for (const r of operatorPicks(m.job, replayable)) {
    delete r.fate;
    attempt(world, m, r, nowMs, 'operator');
  }
}

/**
 * An operator's command (docs/cli.md), with the job as deployed now. `run`: a manual run of the
 * minute, under a key of its own. `backfill`: the engine's runs of `[from, to]`, oldest first,
 * each delivered unless it is delivered, dead-lettered or being retried (a skipped or undecided
 * one is delivered now, not missed, spending no budget); it stops at a refused delivery or an
 * overlap. `redrive`: one more attempt of a dead-lettered run; failed, it stays dead-lettered.
 */
function operate(world: World, m: JobModel, step: ModelOperatorStep, nowMs: number): void {
  if (step.action === 'run') {
    const run = newRun(Math.floor(nowMs / MINUTE_MS) * MINUTE_MS);
    m.manual.push(run);
    attempt(world, m, run, nowMs, 'operator');
  } else if (step.action === 'redrive') {
    const run = m.byMs.get(step.run.getTime()) ?? m.past.find((r) => r.ms === step.run.getTime());
    if (run?.fate?.status === 'dead-lettered') attempt(world, m, run, nowMs, 'operator');
  } else {
    for (const o of runsOf(m.job, step.from.getTime() - 1, step.to.getTime())) {
      let run = m.byMs.get(o.ms) ?? m.past.find((r) => r.ms === o.ms);
      if (!run || (run.ms < (m.sinceMs ?? Number.POSITIVE_INFINITY) && !run.byOperator)) {
        run = Object.assign(o, { byOperator: true });
        m.past.push(run);
      }
      if (run.fate !== undefined && run.fate.status !== 'skipped') continue;
      if (run.failing) continue;
      delete run.fate;
      if (!attempt(world, m, run, nowMs, 'operator')) return;
    }
  }
}

function skip(r: ModelRun, reason: SkipReason): void {
  r.failing = false;
  r.fate = { status: 'skipped', reason };
}

const targetOf = (world: World, m: JobModel) =>
  world.scenario.targets.find((t) => t.jobId === m.id);

/** Whether run `h` can still be running at `nowMs`: it holds a forbid slot until then (§6 Overlap). */
const holds = (h: ModelRun, nowMs: number) =>
  h.fate?.status === 'delivered' && h.reportAtMs > nowMs && nowMs <= h.runtimeEndMs;

/**
 * One delivery attempt of a run decided to run: skipped(overlap) while another run of a forbid
 * job holds the slot; otherwise handed to the target, or failed and retried, dead-lettered when
 * every attempt of its round failed (a redrive's one attempt: dead-lettered again, silently).
 * A delivered run keeps when its report comes and its maxRuntime ends, as claimed: a later
 * deploy moves neither.
 */
function attempt(
  world: World,
  m: JobModel,
  r: ModelRun,
  nowMs: number,
  how: 'tick' | 'gap' | 'retry' | 'operator',
): boolean {
  const { job } = m;
  if (job.concurrency === 'forbid') {
    if (m.holder && m.holder !== r && holds(m.holder, nowMs)) {
      skip(r, 'overlap');
      // §6 Overlap: the second run skipped in a row raises one notification for the incident.
      if (++m.overlapSkips === 2) notify(world, 'overlap', m.id, [r]);
      return false;
    }
    if (m.holder !== r) m.overlapSkips = 0;
    m.holder = r;
  }
  const redrive = r.fate?.status === 'dead-lettered';
  r.attempts++;
  m.watched.delete(r);
  const target = targetOf(world, m);
  if (inside(target?.fail, nowMs)) {
    if (m.holder === r) m.holder = undefined;
    if (redrive || r.attempts >= job.retry.maxAttempts) {
      r.failing = false;
      r.fate = { status: 'dead-lettered' };
      if (!redrive) notify(world, 'dead-lettered', m.id, [r]);
      return false;
    }
    r.failing = true;
    r.retryAtMs = nowMs + Math.min(60_000 * 2 ** (r.attempts - 1), 900_000);
    m.watched.add(r);
    return false;
  }
  r.failing = false;
  r.fate = { status: 'delivered' };
  const tracked = tracksCompletion(job);
  r.reportAtMs = tracked
    ? nowMs + (target?.runtimeMs ?? 1_000) + world.scenario.latencyMs
    : Number.POSITIVE_INFINITY;
  r.runtimeEndMs = nowMs + job.maxRuntimeSeconds * 1000;
  if (tracked) m.watched.add(r);
  // §6 Signals: late, when its own tick's first attempt was past grace.
  if (how === 'tick' && r.attempts === 1 && nowMs > r.ms + job.alarm.graceSeconds * 1000) {
    notify(world, 'late', m.id, [r]);
  }
  return true;
}

/** One notification: a gap's missed runs from the first to the last, or one run's signal. */
function notify(world: World, kind: NotificationKind, jobId: string, runs: readonly ModelRun[]) {
  const first = iso((runs[0] as ModelRun).ms);
  world.notifications.push({
    kind,
    jobId,
    runs: runs.length,
    first,
    last: iso((runs.at(-1) as ModelRun).ms),
  });
}

function fatesOf(world: World): RunFate[] {
  const fromMs = world.scenario.from.getTime();
  const toMs = world.scenario.to.getTime();
  const fates: RunFate[] = [];
  const add = (jobId: string, r: ModelRun) => {
    const status = r.fate?.status ?? (r.failing ? 'open' : 'undecided');
    const deliveries = status === 'delivered' ? 1 : 0;
    fates.push({ jobId, at: iso(r.ms), status, reason: r.fate?.reason ?? null, deliveries });
  };
  for (const m of world.jobs.values()) {
    const since = m.sinceMs ?? Number.POSITIVE_INFINITY;
    const current = m.listed ? m.runs.filter((r) => r.ms >= since || r.byOperator) : [];
    for (const r of [...m.past, ...current]) if (r.ms > fromMs && r.ms <= toMs) add(m.id, r);
    for (const r of m.manual) add(`manual:${m.id}`, r);
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
