/**
 * An executable reading of docs/semantics.md §6, "The fate of a run", for tests: given jobs and
 * a history around them (ticks as they reach the dispatcher, outages, pauses, deploys, operators'
 * commands, invocations that fail, targets that refuse), every run's fate and the notifications
 * owed. It shares no code with the dispatcher, recorder, ledger or CLI: only the engine (which
 * instants are runs) and the job type. Invocations are all or nothing: one that fails did nothing
 * and Lambda retries it a minute, then two, later. A forged completion changes nothing, so the
 * model has none. Its readings, where §6 leaves a choice, are marked "Reading:".
 */
import { type JobDefinition, scheduleIdOf, scheduleSpecOf, tracksCompletion } from '#jobs/job.ts';
import { deadlineAt, occurrencesBetween } from '../../functions/schedule/index.ts';

/** A stretch of time, `[from, to)`. */
export type Interval = Readonly<{ from: Date; to: Date }>;
/** One copy of a job's tick for the run at `scheduledAt`, reaching the dispatcher at `arrivesAt`. */
export type TickArrival = Readonly<{ jobId: string; scheduledAt: Date; arrivesAt: Date }>;
/** An invocation (a tick has a job) that fails at Lambda's `attempt` (1–3): a crash, throttling. */
export type FailedInvocation = Readonly<{ kind: 'tick' | 'sweep'; jobId?: string }> &
  Readonly<{ scheduledAt: Date; attempt: number }>;
/** An operator's pause of one job, resumed at `to` (with `--catch-up` or without). */
export type ModelPause = Interval & Readonly<{ jobId: string; catchUp: boolean }>;
/** A job's target: refuses deliveries during `fail`; its runs take `runtimeMs` (tracked targets). */
export type ModelTarget = Readonly<{ jobId: string; fail?: Interval; runtimeMs?: number }>;
/** From `at` on, the dispatchers run with another jobs file (taking effect job by job, §6). */
export type ModelDeploy = Readonly<{ at: Date; jobs: readonly JobDefinition[] }>;
/** An on-call engineer's command at `at`: `zonecron run`, `backfill`, `dlq redrive`. */
export type ModelOperatorStep = Readonly<
  | { at: Date; jobId: string; action: 'run' }
  | { at: Date; jobId: string; action: 'backfill'; from: Date; to: Date }
  | { at: Date; jobId: string; action: 'redrive'; run: Date }
>;
/**
 * The history, in simulated time: the runs are those in `(from, to]`; every job's first run is at
 * `runningSince` (none: a fresh deploy); in `outages` no invocation reaches the dispatcher; a sweep
 * comes `latencyMs` after its minute (a report after its run's end), until `settleMs` after `to`.
 */
export type FateScenario = Readonly<{ jobs: readonly JobDefinition[]; from: Date; to: Date }> &
  Readonly<{ runningSince?: Date; ticks: readonly TickArrival[]; outages: readonly Interval[] }> &
  Readonly<{ pauses: readonly ModelPause[]; failures: readonly FailedInvocation[] }> &
  Readonly<{ targets: readonly ModelTarget[]; deploys?: readonly ModelDeploy[] }> &
  Readonly<{ operator?: readonly ModelOperatorStep[]; retentionDays?: number }> &
  Readonly<{ latencyMs: number; settleMs: number }>;
/** Why a run was decided not to run (§6, Fates). */
export type SkipReason = 'paused' | 'overlap' | (typeof REASON)[Policy] | 'outside-window';
/** A run's fate; `open` (being retried) and `undecided` are none. */
export type Status = 'delivered' | 'dead-lettered' | 'skipped' | 'open' | 'undecided';
/**
 * The fate of one run at `at` (UTC ISO); a manual run's job is `manual:<id>`. A run a calendar
 * moved is identified by `key`, the instant the schedule named (§7): several runs can share `at`.
 */
export type RunFate = Readonly<{ jobId: string; at: string; status: Status; key?: string }> &
  Readonly<{ reason: SkipReason | null; deliveries: number }>;
/** The signals that notify on-call (§6, Signals and notifications). */
export type NotificationKind =
  | 'missed'
  | 'late'
  | 'stuck'
  | 'dead-lettered'
  | 'overlap'
  | 'deadline-missed';
/** One notification owed: `missed` names a gap's missed runs, the others one run. */
export type OwedNotification = Readonly<{ kind: NotificationKind; jobId: string; runs: number }> &
  Readonly<{ first: string; last: string }>;
/** What the model says: every run's fate, in time order, and the notifications they owe. */
export type FateResult = Readonly<{ runs: RunFate[]; notifications: OwedNotification[] }>;
type Policy = JobDefinition['catchup']['policy'];
const REASON = { all: 'max-runs', latest: 'catch-up-latest', none: 'catch-up-none' } as const;
const MINUTE_MS = 60_000;
const LAMBDA_RETRY_DELAYS_MS = [60_000, 120_000];
/** How long a dead letter's writer holds its outbox: the sweep looks at the run after it. */
const OUTBOX_LEASE_MS = 120_000;
/** The model's own state, written on as it goes. */
type State<T> = { -readonly [K in keyof T]: T[K] };
/**
 * A run at `ms`, named by its key instant `key` (`ms` unless a calendar moved it): `failing` while awaiting a delivery retry (decided, no fate yet); as claimed, when its
 * report comes and its maxRuntime ends; `byOperator`, a run only because a backfill made it one.
 */
type ModelRun = State<{ ms: number; key: number; fate?: { status: Status; reason?: SkipReason } }> &
  State<{ failing?: boolean; attempts: number; retryAtMs: number; byOperator?: boolean }> &
  State<{ reportAtMs: number; runtimeEndMs: number }> &
  State<{ deadlineMs?: number; deadlineRaised?: boolean; deadlineFromMs?: number }>;
/**
 * A job: its definition in force (`listed` false once a deploy without it took effect), its
 * schedule's runs after their deploy instant (`past`: earlier schedules'), a deploy not in effect
 * yet (`pending`; null: a removal), the runs caught up since a tick last delivered its own
 * (`spent`), the forbid slot, and what the sweep watches (retries, runs on tracked targets; for
 * their deadline, runs retried, dead-lettered or still running).
 */
type JobModel = State<{ id: string; job: JobDefinition; listed: boolean; runs: ModelRun[] }> &
  State<{ byKey: Map<number, ModelRun>; byMs: Map<number, ModelRun[]> }> &
  State<{ past: ModelRun[]; manual: ModelRun[] }> &
  State<{ pending?: JobDefinition | null; sinceMs?: number; spent: number; holder?: ModelRun }> &
  State<{ overlapSkips: number; watched: Set<ModelRun>; deadlines: Set<ModelRun> }>;
/** An invocation, or a deploy, a resume or an operator's command (`other`, never lost). */
type Invocation = State<{ atMs: number; rank: number; kind: 'tick' | 'sweep' | 'other' }> &
  State<{ jobId?: string; scheduledMs: number; attempt: number; pause?: ModelPause }> &
  State<{ deploy?: ModelDeploy; step?: ModelOperatorStep }>;
/** The jobs, what is owed, and the sweep instants checked so far (architecture.md §7). */
type World = State<{ s: FateScenario; jobs: Map<string, JobModel>; owed: OwedNotification[] }> &
  State<{ sweptToMs: number; endMs: number; coldSweep: boolean }>;
const iso = (ms: number) => new Date(ms).toISOString();
const inside = (i: Interval | undefined, ms: number) =>
  i !== undefined && ms >= i.from.getTime() && ms < i.to.getTime();
const decided = (r: ModelRun) => r.fate !== undefined || r.failing === true;
const sinceOf = (m: JobModel) => m.sinceMs ?? Number.POSITIVE_INFINITY;
const ZERO = { attempts: 0, retryAtMs: 0, reportAtMs: 0, runtimeEndMs: 0 };
const runsOf = (job: JobDefinition, afterMs: number, toMs: number): ModelRun[] =>
  occurrencesBetween(scheduleSpecOf(job), new Date(afterMs), new Date(toMs)).map(asRun);
const asRun = (o: { at: Date; moved?: { nominalAt: Date } }): ModelRun => ({
  ms: +o.at,
  key: +(o.moved?.nominalAt ?? o.at),
  ...ZERO,
});
const newestOf = <T>(list: T[], n: number) => list.slice(Math.max(0, list.length - Math.max(0, n)));
/** At one instant: retries, resumes, deploys and operators first, then ticks, then the sweep. */
const byArrival = (a: Invocation, b: Invocation) => a.atMs - b.atMs || a.rank - b.rank;
/**
 * The fate of every run of the scenario's jobs in `(from, to]`, and the notifications owed.
 * @example
 * const s = { jobs: [hourly], from, to, runningSince: from, ticks: onTimeTicks(hourly, from, to, 200), … };
 * fateOf(s).runs.every((r) => r.status === 'delivered') //=> true
 */
export function fateOf(s: FateScenario): FateResult {
  const [fromMs, toMs] = [s.from.getTime(), s.to.getTime()];
  const endMs = toMs + s.settleMs;
  const world: World = { s, jobs: new Map(), owed: [], sweptToMs: fromMs, endMs, coldSweep: false };
  for (const job of s.jobs.filter((j) => j.enabled)) {
    const m = listJob(world, job, fromMs);
    if (s.runningSince) m.sinceMs = s.runningSince.getTime();
  }
  const keyOf = (i: Partial<Invocation>, ms: number) => [i.kind, i.jobId, ms, i.attempt].join();
  const failed = new Set(s.failures.map((f) => keyOf(f, +f.scheduledAt)));
  const queue = invocations(s);
  for (let inv = queue.shift(); inv; inv = queue.shift()) {
    const key = keyOf(inv, inv.scheduledMs);
    const m = world.jobs.get(inv.jobId ?? '');
    const out = inv.kind !== 'other' && s.outages.some((o) => inside(o, inv.atMs));
    const lost = out || failed.has(key);
    if (inv.kind === 'sweep' && !lost) sweep(world, inv.scheduledMs, inv.atMs);
    else if (inv.kind === 'tick' && !lost) tick(world, inv.jobId ?? '', inv.scheduledMs, inv.atMs);
    else if (inv.deploy) deploy(world, inv.deploy);
    else if (m?.listed && inv.pause) resumeWithCatchUp(world, m, inv.pause, inv.atMs);
    else if (m && inv.step) operate(world, m, inv.step, inv.atMs);
    else if (!out && failed.has(key) && inv.attempt <= LAMBDA_RETRY_DELAYS_MS.length) {
      const retry = { ...inv, rank: 0, attempt: inv.attempt + 1 };
      retry.atMs += LAMBDA_RETRY_DELAYS_MS[inv.attempt - 1] ?? 0;
      const i = queue.findIndex((q) => byArrival(retry, q) < 0);
      queue.splice(i < 0 ? queue.length : i, 0, retry);
    }
  }
  // Like the runs, the notifications carried by a run of the window.
  const owed = world.owed.filter((n) => Date.parse(n.last) > fromMs && Date.parse(n.last) <= toMs);
  return { runs: fatesOf(world), notifications: owed };
}
/** Every invocation the history sends, in arrival order; deploys and operators among them. */
function invocations(s: FateScenario): Invocation[] {
  const list: Invocation[] = [];
  const add = (rank: number, kind: Invocation['kind'], atMs: number, more: Partial<Invocation>) =>
    list.push({ atMs, rank, kind, scheduledMs: 0, attempt: 1, ...more });
  for (const { jobId, scheduledAt, arrivesAt } of s.ticks) {
    add(1, 'tick', arrivesAt.getTime(), { jobId, scheduledMs: scheduledAt.getTime() });
  }
  const first = Math.floor(s.from.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  for (let m = first; m <= s.to.getTime() + s.settleMs; m += MINUTE_MS) {
    add(2, 'sweep', m + s.latencyMs, { scheduledMs: m });
  }
  for (const pause of s.pauses.filter((p) => p.catchUp)) {
    add(0, 'other', pause.to.getTime(), { jobId: pause.jobId, pause });
  }
  for (const deploy of s.deploys ?? []) add(0, 'other', deploy.at.getTime(), { deploy });
  for (const step of s.operator ?? []) add(0, 'other', +step.at, { jobId: step.jobId, step });
  return list.sort(byArrival);
}
/** A job listed (again, or for the first time) from `afterMs` on: its runs after that instant. */
function listJob(world: World, job: JobDefinition, afterMs: number): JobModel {
  const runs = runsOf(job, afterMs, world.endMs);
  const m = world.jobs.get(job.id) ?? {
    ...{ id: job.id, job, listed: true, runs, byKey: new Map(), byMs: new Map() },
    ...{ past: [], manual: [] },
    ...{ spent: 0, overlapSkips: 0, watched: new Set<ModelRun>(), deadlines: new Set<ModelRun>() },
  };
  const byKey = new Map(runs.map((r) => [r.key, r]));
  // §7: every run due at one instant is decided by whoever decides the instant.
  const byMs = new Map<number, ModelRun[]>();
  for (const r of runs) byMs.set(r.ms, [...(byMs.get(r.ms) ?? []), r]);
  Object.assign(m, { job, listed: true, runs, byKey, byMs, spent: 0 });
  world.jobs.set(job.id, m);
  return m;
}
/** A deploy at its `at`: every job it lists, drops or changes waits for its deploy instant. */
function deploy(world: World, d: ModelDeploy): void {
  const enabled = d.jobs.filter((j) => j.enabled);
  world.coldSweep = true;
  for (const m of world.jobs.values()) m.pending = enabled.find((j) => j.id === m.id) ?? null;
  // A job never listed before: its first tick starts it (§6, a job's first run).
  for (const job of enabled.filter((j) => !world.jobs.has(j.id))) {
    listJob(world, job, d.at.getTime()).pending = job;
  }
}
/**
 * §6 The life of a job: a pending deploy takes effect at the job's deploy instant. A new schedule
 * (or the job listed again) ends the old one's runs there, undecided ones staying so, and starts
 * its own after it; a removal ends the job; a new target, payload or policies move nothing.
 * Reading: a new schedule's gaps have a budget of their own; a removed job's retries stay open.
 */
function takeEffect(world: World, m: JobModel, atMs: number): void {
  const next = m.pending;
  if (next === undefined) return;
  delete m.pending;
  if (next && m.listed && scheduleIdOf(next) === scheduleIdOf(m.job)) {
    m.job = next;
    return;
  }
  if (m.listed)
    m.past.push(...m.runs.filter((r) => r.ms < atMs && (r.ms >= sinceOf(m) || r.byOperator)));
  const relisted = !m.listed;
  m.listed = false;
  if (!next) m.watched.clear();
  // A removed job's running runs report to no one; its retried and dead-lettered ones stay open.
  if (!next) for (const r of m.deadlines) if (r.fate?.status === 'delivered') m.deadlines.delete(r);
  if (next) listJob(world, next, atMs);
  if (next && relisted) m.sinceMs = atMs;
}
/** §6 Pauses: a run due in `[pausedAt, end)` is skipped(paused), but what a catch-up replays. */
const paused = (w: World, m: JobModel, ms: number) =>
  w.s.pauses.some((p) => p.jobId === m.id && inside(p, ms));
/** The job's undecided runs from its first run up to `upToMs`, oldest first. */
const undecided = (m: JobModel, upToMs: number) =>
  m.runs.filter((r) => !decided(r) && r.ms >= sinceOf(m) && r.ms <= upToMs);
/**
 * A tick of the run at S, with the jobs deployed now; ignored when S is no run, before the first
 * run, older than the window or retention, or beyond the clock skew (§6, Instants that are not
 * runs). A pending deploy takes effect just before S; the gap before S is decided, then S.
 */
function tick(world: World, jobId: string, sMs: number, nowMs: number): void {
  const m = world.jobs.get(jobId);
  const job = m?.pending === undefined ? m?.listed && m.job : m.pending;
  if (!m || !job || runsOf(job, sMs - 1, sMs).length === 0 || sMs > nowMs + 60_000) return;
  const retentionMs = (world.s.retentionDays ?? 35) * 86_400_000;
  if (nowMs - sMs > Math.min(job.catchup.windowSeconds * 1000, retentionMs)) return;
  takeEffect(world, m, sMs - 1);
  // Its runs: one, or several a calendar moved onto S (§7), in run order.
  const runs = (m.byMs.get(sMs) ?? []).filter((r) => !decided(r));
  m.sinceMs ??= sMs;
  if (runs.length === 0 || sMs < m.sinceMs) return;
  const gap = undecided(m, sMs - 1);
  const own = !paused(world, m, sMs);
  const forbid = m.job.concurrency === 'forbid'; // §6 Overlap: newest first
  if (own && forbid) for (const r of [...runs].reverse()) attempt(world, m, r, nowMs, 'tick');
  if (gap.length > 0) decideGap(world, m, gap, nowMs, sMs);
  if (!own) for (const r of runs) skip(r, 'paused');
  // §6: a tick that delivers its own run ends the gap; the next one has a budget of its own.
  if (own) m.spent = 0;
  if (own && !forbid) for (const r of runs) attempt(world, m, r, nowMs, 'tick');
}
/**
 * The sweep at M: pending deploys take effect just before M. It checks the sweep instants since
 * the last checked, at most 30 minutes and a day back, and the newest minute (architecture.md
 * §7); the first sweep of a new jobs bundle (a cold container) every overdue run: a job with an
 * undecided run due there has its overdue runs (`at <= M − grace`) decided as one gap. Then
 * deadlines, retries, and `stuck` runs.
 */
function sweep(world: World, mMs: number, nowMs: number): void {
  const cold = world.coldSweep;
  world.coldSweep = false;
  for (const m of world.jobs.values()) takeEffect(world, m, mMs - 1);
  const fromMs = Math.min(mMs, Math.max(world.sweptToMs, mMs - 86_400_000));
  const toMs = Math.min(mMs, fromMs + 30 * MINUTE_MS);
  world.sweptToMs = Math.max(world.sweptToMs, toMs);
  const newestMs = Math.max(toMs, mMs - MINUTE_MS);
  for (const m of world.jobs.values()) {
    const graceMs = m.job.alarm.graceSeconds * 1000;
    const due = m.listed ? undecided(m, mMs - graceMs) : [];
    const seen = (r: ModelRun) =>
      cold || r.ms + graceMs > (r.ms + graceMs <= toMs ? fromMs : newestMs);
    if (due.some(seen)) decideGap(world, m, due, nowMs, mMs - graceMs);
    for (const r of [...m.deadlines]) {
      if (nowMs <= (r.deadlineMs ?? Infinity) || nowMs < (r.deadlineFromMs ?? 0)) continue;
      raiseDeadline(world, m, r);
    }
    // Due retries oldest retry time first, those due together newest first (§6 Overlap).
    const retries = [...m.watched].filter((r) => r.failing && r.retryAtMs <= nowMs);
    retries.sort((a, b) => a.retryAtMs - b.retryAtMs || b.key - a.key);
    for (const r of retries) attempt(world, m, r, nowMs, 'retry');
    for (const r of [...m.watched]) {
      const ended =
        r.fate?.status === 'delivered' && nowMs >= Math.min(r.reportAtMs, r.runtimeEndMs);
      if (ended) m.watched.delete(r);
      if (ended && nowMs < r.reportAtMs) notify(world, 'stuck', m.id, [r]);
    }
  }
}
/**
 * §6 Gaps and catch-up: a gap's runs decided together under the job's policy, in a window that
 * ends where the gap is decided up to, closed at its start. Runs in a pause are skipped(paused),
 * out of the policy, but still the gap's newer runs (§6 Pauses). Missed: every run it skips, and
 * those it delivers past their grace.
 */
function decideGap(world: World, m: JobModel, gap: ModelRun[], nowMs: number, upToMs: number) {
  const { catchup, alarm } = m.job;
  const windowStartMs = upToMs - catchup.windowSeconds * 1000;
  const live = gap.filter((r) => !paused(world, m, r.ms));
  for (const r of gap) if (!live.includes(r)) skip(r, 'paused');
  const inWindow = live.filter((r) => r.ms >= windowStartMs);
  let picks = catchup.policy === 'all' ? newestOf(inWindow, catchup.maxRuns - m.spent) : [];
  // latest: the newest, when no newer run is decided or due (a paused one is decided).
  const newest = inWindow.at(-1);
  const next = newest && m.runs[m.runs.indexOf(newest) + 1];
  if (catchup.policy === 'latest' && m.spent === 0 && newest && newest === gap.at(-1)) {
    picks = next && next.ms <= nowMs ? [] : [newest];
  }
  const missed = live.filter((r) => !picks.includes(r) || nowMs > r.ms + alarm.graceSeconds * 1000);
  const skipped = live.filter((r) => !picks.includes(r));
  for (const r of skipped)
    skip(r, r.ms < windowStartMs ? 'outside-window' : REASON[catchup.policy]);
  m.spent += picks.length;
  if (missed.length > 0) notify(world, 'missed', m.id, missed);
  if (m.job.concurrency === 'forbid') picks.reverse();
  for (const r of picks) attempt(world, m, r, nowMs, 'gap');
}
/**
 * `resume --catch-up`: the pause's runs not delivered (skipped for it, or undecided) within the
 * window back from the resume that the job's policy picks (`all`: the newest maxRuns; `latest`:
 * the newest), delivered now; the others stay the pause's. Reading: not missed, no budget spent.
 */
function resumeWithCatchUp(world: World, m: JobModel, pause: ModelPause, nowMs: number): void {
  const { policy, maxRuns, windowSeconds } = m.job.catchup;
  const fromMs = Math.max(pause.to.getTime() - windowSeconds * 1000, sinceOf(m));
  const replayable = m.runs.filter(
    (r) => inside(pause, r.ms) && r.ms >= fromMs && (!decided(r) || r.fate?.reason === 'paused'),
  );
  const picks = newestOf(replayable, policy === 'all' ? maxRuns : policy === 'latest' ? 1 : 0);
  for (const r of picks) attempt(world, m, r, nowMs, 'operator');
}
/**
 * An operator's command (docs/cli.md), with the jobs deployed now. `run`: a manual run of the
 * minute (one per minute: a second is the same run), outside the forbid slot. `backfill`: the runs of `[from, to]`, oldest first, each not
 * delivered, dead-lettered nor being retried delivered now (not missed, no budget spent),
 * stopping at a refused delivery or an overlap. `redrive`: one more attempt of a dead letter.
 */
function operate(world: World, m: JobModel, step: ModelOperatorStep, nowMs: number): void {
  // An operator names a run by its key instant (§7).
  const find = (key: number) => m.byKey.get(key) ?? m.past.find((r) => r.key === key);
  if (step.action === 'run') {
    // A manual run is a minute of its own: no calendar moves or skips it.
    const { calendar: _calendar, ...plain } = m.job;
    const minute = { ...plain, schedule: '* * * * *', timezone: 'UTC' };
    for (const run of runsOf(minute, nowMs - MINUTE_MS, nowMs)) {
      if (m.manual.some((r) => r.ms === run.ms)) continue;
      m.manual.push(run);
      attempt(world, m, run, nowMs, 'manual');
    }
  } else if (step.action === 'redrive') {
    const run = find(step.run.getTime());
    if (run?.fate?.status === 'dead-lettered') attempt(world, m, run, nowMs, 'operator');
  } else {
    for (const o of runsOf(m.pending ?? m.job, step.from.getTime() - 1, step.to.getTime())) {
      let run = find(o.key);
      if (!run || (run.ms < sinceOf(m) && !run.byOperator)) {
        run = Object.assign(o, { byOperator: true });
        m.past.push(run);
      }
      if (run.failing || (run.fate && run.fate.status !== 'skipped')) continue;
      if (!attempt(world, m, run, nowMs, 'operator')) return;
    }
  }
}
const skip = (r: ModelRun, reason: SkipReason) =>
  Object.assign(r, { failing: false, fate: { status: 'skipped', reason } });
/**
 * One delivery attempt, true when delivered: skipped(overlap) while another run of a forbid job
 * holds the slot (till it reported, or its maxRuntime passed); else delivered, or retried, or
 * dead-lettered once its round's attempts failed (§6 Redrives: a redrive's one, silently).
 */
function attempt(world: World, m: JobModel, r: ModelRun, nowMs: number, how: string): boolean {
  const { job, holder } = m;
  if (job.concurrency === 'forbid' && how !== 'manual') {
    const held = holder?.fate?.status === 'delivered' && holder.reportAtMs > nowMs;
    if (holder && holder !== r && held && nowMs <= holder.runtimeEndMs) {
      skip(r, 'overlap');
      // The second run skipped in a row raises one notification for the incident.
      if (++m.overlapSkips === 2) notify(world, 'overlap', m.id, [r]);
      return false;
    }
    if (holder !== r) m.overlapSkips = 0;
    m.holder = r;
  }
  const redrive = r.fate?.status === 'dead-lettered';
  deadlineOf(m, r, how);
  delete r.fate;
  r.attempts++;
  m.watched.delete(r);
  const target = world.s.targets.find((t) => t.jobId === m.id);
  r.failing = inside(target?.fail, nowMs);
  if (r.failing && m.holder === r) delete m.holder;
  if (r.failing && (redrive || r.attempts >= job.retry.maxAttempts)) {
    r.failing = false;
    r.fate = { status: 'dead-lettered' };
    if (!redrive) notify(world, 'dead-lettered', m.id, [r]);
    r.deadlineFromMs = nowMs + OUTBOX_LEASE_MS;
  } else if (r.failing) {
    r.retryAtMs = nowMs + Math.min(60_000 * 2 ** (r.attempts - 1), 900_000);
    m.watched.add(r);
  }
  if (r.fate || r.failing) return watchDeadline(world, m, r, nowMs, false);
  r.fate = { status: 'delivered' };
  const tracked = tracksCompletion(job);
  r.reportAtMs = tracked ? nowMs + (target?.runtimeMs ?? 1_000) + world.s.latencyMs : Infinity;
  r.runtimeEndMs = nowMs + job.maxRuntimeSeconds * 1000;
  if (tracked) m.watched.add(r);
  // Late: its own tick's first attempt was past grace.
  if (how === 'tick' && r.attempts === 1 && nowMs > r.ms + job.alarm.graceSeconds * 1000) {
    notify(world, 'late', m.id, [r]);
  }
  return watchDeadline(world, m, r, nowMs, !tracked || r.reportAtMs <= (r.deadlineMs ?? 0));
}
/**
 * §6 Deadlines: the runs the dispatcher decides to deliver (a tick, a gap) have their job's
 * deadline; an operator's delivery (a backfill, a redrive, a manual run) has none, and a
 * redrive clears the one the run had. A retry keeps it.
 */
function deadlineOf(m: JobModel, r: ModelRun, how: string): void {
  const { deadline, timezone } = m.job;
  if (how === 'tick' || how === 'gap') {
    if (deadline) r.deadlineMs = deadlineAt(deadline, new Date(r.ms), timezone).getTime();
    else delete r.deadlineMs;
  } else if (how !== 'retry') {
    delete r.deadlineMs;
    m.deadlines.delete(r);
  }
}
/**
 * After an attempt: a run past its deadline undelivered (retried, dead-lettered) or delivered
 * raises `deadline-missed` now, or, a retry, at the next sweep; one before it is watched by the
 * sweep until its deadline unless it was `done` (delivered, and on a tracked target reported
 * succeeded by then). Returns whether the run was delivered.
 */
function watchDeadline(w: World, m: JobModel, r: ModelRun, nowMs: number, done: boolean): boolean {
  const delivered = r.fate?.status === 'delivered';
  if (r.deadlineMs === undefined || r.deadlineRaised) return delivered;
  if (nowMs > r.deadlineMs && !r.failing) raiseDeadline(w, m, r);
  else if (delivered && done) m.deadlines.delete(r);
  else m.deadlines.add(r);
  return delivered;
}
/** `deadline-missed`, once per run, never for one decided not to run (a retry skipped). */
function raiseDeadline(world: World, m: JobModel, r: ModelRun): void {
  m.deadlines.delete(r);
  if (r.deadlineRaised || r.deadlineMs === undefined || r.fate?.status === 'skipped') return;
  r.deadlineRaised = true;
  notify(world, 'deadline-missed', m.id, [r]);
}
/** One notification: a gap's missed runs from the first to the last, or one run's signal. */
function notify(world: World, kind: NotificationKind, jobId: string, runs: readonly ModelRun[]) {
  const [first, last] = [iso(runs[0]?.ms ?? 0), iso(runs.at(-1)?.ms ?? 0)];
  world.owed.push({ kind, jobId, runs: runs.length, first, last });
}
function fatesOf(world: World): RunFate[] {
  const [fromMs, toMs] = [world.s.from.getTime(), world.s.to.getTime()];
  const fates: RunFate[] = [];
  const add = (jobId: string, r: ModelRun) => {
    const status = r.fate?.status ?? (r.failing ? 'open' : 'undecided');
    const deliveries = status === 'delivered' ? 1 : 0;
    const key = r.key === r.ms ? {} : { key: iso(r.key) };
    fates.push({
      jobId,
      at: iso(r.ms),
      ...key,
      status,
      reason: r.fate?.reason ?? null,
      deliveries,
    });
  };
  for (const m of world.jobs.values()) {
    const current = m.listed ? m.runs.filter((r) => r.ms >= sinceOf(m) || r.byOperator) : [];
    for (const r of [...m.past, ...current]) if (r.ms > fromMs && r.ms <= toMs) add(m.id, r);
    for (const r of m.manual) add(`manual:${m.id}`, r);
  }
  const keyOf = (f: RunFate) => f.key ?? f.at;
  return fates.sort(
    (a, b) =>
      a.at.localeCompare(b.at) ||
      a.jobId.localeCompare(b.jobId) ||
      keyOf(a).localeCompare(keyOf(b)),
  );
}
/**
 * Every run's tick of a job in `(from, to]`, each arriving `latencyMs` after its instant: the
 * history of a stack where nothing goes wrong, to edit by hand. @example
 * onTimeTicks(hourly, from, to, 200).length //=> the hourly runs in (from, to]
 */
export function onTimeTicks(job: JobDefinition, from: Date, to: Date, latencyMs: number) {
  const arrival = (at: Date): TickArrival =>
    Object.freeze({ jobId: job.id, scheduledAt: at, arrivesAt: new Date(+at + latencyMs) });
  return occurrencesBetween(scheduleSpecOf(job), from, to).map((o) => arrival(o.at));
}
