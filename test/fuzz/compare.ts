/**
 * How the fuzzer compares the model's fates with the system's (test/fuzz/fuzzer.ts):
 * exactly without chaos; with crashes or throttling, which fail an invocation half-way, within
 * the tolerances below, each argued in its docblock with the real effect that still shows.
 */

import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { LAMBDA_RETRY_DELAYS_MS } from '../../cli/simulation/event-loop.ts';
import { EVENT_DELAY_MS } from '../../cli/simulation/world.ts';
import { deadlineAt, nextOccurrences } from '../../functions/schedule/index.ts';
import {
  DEFAULT_DISPATCHER_TIMEOUT_SECONDS,
  LEASE_MARGIN_SECONDS,
} from '../../functions/shared/defaults.ts';
import type { FateResult, RunFate } from '../reference/fate-model.ts';
import type { SystemObservation, SystemRun } from './drive.ts';

const fateText = (r: { status: string; reason: string | null; deliveries: number }) =>
  `${r.status}${r.reason ? `(${r.reason})` : ''}${r.deliveries > 1 ? ` ×${r.deliveries}` : ''}`;

/** A run's identity: its job and its key instant (its `at`, unless a calendar moved it, §7). */
const runId = (r: { jobId: string; at: string; key?: string }) =>
  r.key === undefined ? `${r.jobId} ${r.at}` : `${r.jobId} ${r.key} (at ${r.at})`;

function sameFate(model: RunFate, system: SystemRun): boolean {
  return (
    model.status === system.status &&
    model.reason === system.reason &&
    model.deliveries === system.deliveries
  );
}

/** Every run and every notification the same, as multisets. */
export function compareExactly(
  model: FateResult,
  seen: SystemObservation,
  from: Date,
  to: Date,
): string[] {
  const violations: string[] = [];
  const modelRuns = new Map(model.runs.map((r) => [runId(r), r]));
  // A run one side has and the other has not is no disagreement while it has no fate: the old
  // schedule's runs still undecided when a deploy took effect, the new one's before it (§6).
  for (const s of seen.runs) {
    const m = modelRuns.get(runId(s));
    if (!m && s.status !== 'undecided') {
      violations.push(`${runId(s)}: the model has no such run; the system: ${fateText(s)}`);
    } else if (m && !sameFate(m, s)) {
      violations.push(`${runId(s)}: the model says ${fateText(m)}; the system: ${fateText(s)}`);
    }
    modelRuns.delete(runId(s));
  }
  for (const m of modelRuns.values()) {
    if (m.status === 'undecided') continue;
    violations.push(`${runId(m)}: the system has no such run; the model says ${fateText(m)}`);
  }
  const inWindow = (n: { last: string }) =>
    Date.parse(n.last) > from.getTime() && Date.parse(n.last) <= to.getTime();
  const text = (n: { kind: string; jobId: string; runs: number; first: string; last: string }) =>
    `${n.kind} ${n.jobId} runs ${n.runs} from ${n.first} to ${n.last}`;
  const owed = model.notifications.map(text);
  const sent = seen.notifications.filter(inWindow).map(text);
  for (const n of difference(owed, sent)) violations.push(`notification owed, not sent: ${n}`);
  for (const n of difference(sent, owed)) violations.push(`notification sent, not owed: ${n}`);
  return violations;
}

/** The items of `a` that `b` lacks, counting repeats. */
function difference(a: readonly string[], b: readonly string[]): string[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    return n === 0;
  });
}

/**
 * With crashes and throttling: each run's fate is one the model gives with the failed
 * invocations or without them; a run delivered more than once only where the dispatcher counted
 * a possible redelivery; dead-lettered only if the model delivers it and every attempt was made;
 * skipped(outside-window) where the model decides it otherwise only if an invocation failed
 * around it (a failure may hold the job's catch-up lease, LEASE_SECONDS, and the window is
 * measured when the gap is decided), or if a late tick of a newer run at most one window newer
 * failed before it was decided (that tick's catch-up had it inside the window); skipped(overlap)
 * only if an invocation failed within a lease and `maxRuntime` before it (§6 Overlap: a run
 * whose attempt died unrecorded may have been invoked, and holds the slot that long), or if its
 * own tick failed and a newer run took the slot before its claim's lease ended; dead-lettered
 * where the model skips it only if every attempt was made, none reached a target, and a tick of
 * the job or a sweep failed for each; delivered where the model skips it for overlap only if an
 * invocation failed before its delivery and the previous run had ended by then; delivered by its
 * own tick, or by the sweep as the orphan that tick left, where the model skips it under the
 * policy only if that tick failed, or by its own late tick only if failures held the sweep's
 * decision off until it came, or after a catch-up whose gap held it died having skipped only
 * older runs of it, or within its grace if every newer run's tick before it came within a
 * lease of a failed invocation (also skipped(overlap)); skipped(catch-up-latest) where the model
 * delivers it only if failed invocations held its decision off until the job's next run was
 * due, or if its own tick failed and the sweep, before the tick's retry could take the run,
 * found the gap's budget spent, or if a catch-up of an older run of its gap, which the model
 * does not deliver, spent that budget and died; skipped(max-runs) where the model delivers it
 * or skips it outside the window only if it was beyond the budget of the window its gap was
 * decided with, and a failure moved that decision; skipped(catch-up-latest) or
 * skipped(catch-up-none) where the model skips it outside the window only if it was inside the
 * window its gap was decided with (under latest, its next run due), and an invocation failed
 * right after; skipped(catch-up-none) where the model delivers it only if its own tick failed
 * before the skip and the catch-up that wrote it died right after; dead-lettered short of its
 * attempts only if a dispatcher that could have claimed it died before a deploy that no longer
 * lists its job; caught up where the model skips it for the gap's budget only if a tick that
 * failed, or one that came after a dying catch-up (above), delivered its own run and so began
 * the system's gap, which stayed within its policy. Each reads the job's definition in force
 * at the run (a deploy may change its concurrency, maxRuntime, grace or window).
 */
export function compareTolerantly(
  jobs: readonly JobDefinition[],
  models: readonly FateResult[],
  seen: SystemObservation,
  deploys: readonly Deploy[],
): string[] {
  const violations: string[] = [];
  const byId = models.map((m) => new Map(m.runs.map((r) => [runId(r), r])));
  for (const s of seen.runs) {
    const candidates = byId.map((m) => m.get(runId(s))).filter((m): m is RunFate => !!m);
    const once = { ...s, deliveries: Math.min(s.deliveries, 1) };
    const versions = jobs.filter((j) => j.id === s.jobId);
    const job = inForceAt(s, versions[0], deploys);
    // A deploy may have changed retry.maxAttempts: the fewest any version allowed.
    const maxAttempts = Math.min(...versions.map((j) => j.retry.maxAttempts), 1_000);
    const noFate = candidates.length === 0 && s.status === 'undecided';
    const ok =
      noFate ||
      (s.deliveries <= 1 + s.redelivered &&
        (candidates.some(
          (m) =>
            sameFate(m, once) ||
            (m.status === 'delivered' && s.status === 'dead-lettered' && s.attempts >= maxAttempts),
        ) ||
          (candidates.length > 0 &&
            (lateForAFailure(s, job, seen) ||
              heldForAFailure(s, job, seen) ||
              takenByANewerRun(s, job, seen) ||
              diedAtEveryAttempt(s, job, maxAttempts, candidates, seen) ||
              claimedWhenItsJobWasRemoved(s, candidates, seen, deploys) ||
              freedForAFailure(s, candidates, seen) ||
              mootForAFailure(s, job, candidates, seen) ||
              beyondTheBudgetWhenDecided(s, job, candidates, seen) ||
              skippedByADyingCatchUp(s, job, candidates, seen) ||
              spentBeforeItsRetriedTick(s, job, candidates, seen) ||
              claimedByItsFailedTick(s, candidates, seen) ||
              beforeItsGapUnderAHeldLease(s, job, candidates, seen) ||
              heldOffUntilItsTick(s, job, candidates, seen) ||
              leftByADyingCatchUp(s, job, candidates, seen) ||
              spentElsewhereInItsGap(s, byId, seen) ||
              spentByADyingCatchUp(s, job, byId, seen) ||
              skippedBeforeItsRetriedTick(s, candidates, seen) ||
              renewedByAFailedTick(s, job, byId, seen)))));
    if (!ok) {
      const said = [...new Set(candidates.map(fateText))].join(' or ');
      violations.push(
        `${runId(s)}: the model says ${said || 'nothing'}; the system: ${fateText(s)}`,
      );
    }
  }
  return [...violations, ...deadlinesTolerantly(jobs, models, seen, deploys)];
}

/**
 * With crashes and throttling, the `deadline-missed` notifications sent: each for a run of a job
 * with a `deadline` (in the definition in force at the run), and owed by the model with the
 * failed invocations or without them, unless the system's own record of the run shows it was
 * not done by its deadline: not delivered (dead-lettered, open, skipped after a claim that
 * raised it: a takeover of a dead dispatcher's expired claim finds the run undelivered past its
 * deadline, then the retry may be skipped for overlap), delivered after it, or delivered to a
 * target that reports its end (when the report was recorded is not in the record; the fate
 * tolerances above let such a run be delivered later than the model says). Notifications owed
 * and not sent are not compared, as the others are not: a run whose fate differs from the
 * model's within the tolerances owes what its own fate owes. A notification for a run of a job
 * without a deadline is a violation whatever failed; so is one for a run the record shows
 * delivered to a queue-like target before its deadline, unless the dispatcher that delivered it
 * died right after (a crash after the delivery: the ledger never heard of it, and the sweep
 * that took the claim over found the run undelivered past its deadline).
 */
function deadlinesTolerantly(
  jobs: readonly JobDefinition[],
  models: readonly FateResult[],
  seen: SystemObservation,
  deploys: readonly Deploy[],
): string[] {
  const owed = new Set(
    models.flatMap((m) =>
      m.notifications
        .filter((n) => n.kind === 'deadline-missed')
        .map((n) => `${n.jobId} ${n.last}`),
    ),
  );
  const runs = new Map(seen.runs.map((r) => [runId(r), r]));
  const violations: string[] = [];
  for (const n of seen.notifications.filter((x) => x.kind === 'deadline-missed')) {
    const id = `${n.jobId} ${n.last}`;
    const run = runs.get(id);
    const job = inForceAt(
      { jobId: n.jobId, at: n.last },
      jobs.find((j) => j.id === n.jobId),
      deploys,
    );
    if (!job?.deadline) {
      violations.push(`${id}: deadline-missed sent for a job without a deadline`);
      continue;
    }
    if (owed.has(id) || !run) continue;
    const deadlineMs = deadlineAt(job.deadline, new Date(run.at), job.timezone).getTime();
    const tracked = job.target.type === 'lambda' || job.target.type === 'stepfunctions';
    const deliveredInTime =
      run.status === 'delivered' &&
      !tracked &&
      run.firstDeliveredAt !== null &&
      Date.parse(run.firstDeliveredAt) <= deadlineMs &&
      !diedRightAfter(seen, Date.parse(run.firstDeliveredAt));
    if (deliveredInTime) {
      violations.push(`${id}: deadline-missed sent for a run delivered by its deadline`);
    }
  }
  return violations;
}

const LEASE_MS = (DEFAULT_DISPATCHER_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS) * 1000;

/** How often the sweep runs. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * A run caught up where the model skips it for the gap's budget (`max-runs`, `catch-up-latest`),
 * while the system delivered no more runs of that gap than the model did. A failure tolerated
 * elsewhere (an older run of the gap skipped outside-window where the model delivered it) leaves
 * the system's budget unspent; the gap's runs since its job's last run delivered by its own
 * tick still never exceed the policy (§6: per gap, not per event).
 */
function spentElsewhereInItsGap(
  run: SystemRun,
  models: readonly Map<string, RunFate>[],
  seen: SystemObservation,
): boolean {
  const budget = (m: RunFate | undefined) =>
    m?.reason === 'max-runs' || m?.reason === 'catch-up-latest';
  if (run.status !== 'delivered' || !models.some((m) => budget(m.get(runId(run))))) return false;
  const earlier = seen.runs.filter((r) => r.jobId === run.jobId && r.at <= run.at);
  const endedBy = earlier.findLast(
    (r) => r.at < run.at && r.status === 'delivered' && r.origin === 'tick',
  );
  const gap = earlier.filter((r) => !endedBy || r.at > endedBy.at);
  const delivered = gap.filter((r) => r.status === 'delivered').length;
  return models.some(
    (m) => gap.filter((r) => m.get(runId(r))?.status === 'delivered').length >= delivered,
  );
}

/**
 * A run caught up where the model skips it for the gap's budget (`max-runs`, `catch-up-latest`):
 * the job's last run before it delivered by its own tick was claimed by a tick that failed (it
 * died after the claim, a takeover delivered the run), or was one the model skips under the
 * policy that its own late tick delivered after a catch-up whose gap held it died
 * ({@link leftByADyingCatchUp}), or one its own late tick delivered past its grace because
 * failed sweeps and ticks held the sweep's decision off until then ({@link sweepHeldOff}: a
 * sweep that died holding the job's catch-up lease, which the model's sweep, with no lease,
 * does not wait for: it catches the run up and spends the budget), and the system's gap since
 * that run delivered no more than the
 * policy allows (`maxRuns`; one for `latest`). A tick that delivers its own run ends the gap and
 * renews the budget (§6: `maxRuns` counts every run caught up since a tick last delivered its
 * own run); the model, whose invocations are all or nothing, loses that tick whole (or has the
 * dead catch-up's retry skip the run first), and so counts the runs after it in the gap before
 * it. A gap that caught up more than its policy since a tick last delivered its own run, or a
 * budget renewed by a tick the model sees deliver its run too, is a violation.
 */
function renewedByAFailedTick(
  run: SystemRun,
  job: JobDefinition | undefined,
  models: readonly Map<string, RunFate>[],
  seen: SystemObservation,
): boolean {
  if (!job || run.status !== 'delivered' || run.origin === 'tick') return false;
  const candidatesOf = (r: SystemRun) =>
    models.map((m) => m.get(runId(r))).filter((m): m is RunFate => !!m);
  const budget = (m: RunFate) => m.reason === 'max-runs' || m.reason === 'catch-up-latest';
  if (!candidatesOf(run).some(budget)) return false;
  const earlier = seen.runs.filter((r) => r.jobId === run.jobId && r.at < run.at);
  const endedBy = earlier.findLast((r) => r.status === 'delivered' && r.origin === 'tick');
  if (!endedBy) return false;
  const endedMs = Date.parse(endedBy.at);
  const deliveredMs = Date.parse(endedBy.firstDeliveredAt ?? endedBy.at);
  const tickFailed =
    seen.failed.some(
      (f) => f.kind === 'tick' && f.jobId === run.jobId && f.scheduledAt.getTime() === endedMs,
    ) ||
    leftByADyingCatchUp(endedBy, job, candidatesOf(endedBy), seen) ||
    (deliveredMs > endedMs + job.alarm.graceSeconds * 1000 &&
      sweepHeldOff(job, run.jobId, { atMs: endedMs, deliveredMs }, seen));
  const caughtUp = [...earlier.filter((r) => r.at > endedBy.at), run].filter(
    (r) => r.status === 'delivered' || r.status === 'dead-lettered',
  ).length;
  const allowed = { all: job.catchup.maxRuns, latest: 1, none: 0 }[job.catchup.policy];
  return tickFailed && caughtUp <= allowed;
}

/** Whether an invocation failed in `[fromMs, toMs]`. */
const failedIn = (seen: SystemObservation, fromMs: number, toMs: number) =>
  seen.failed.some((f) => f.arrivesAt.getTime() >= fromMs && f.arrivesAt.getTime() <= toMs);

/** How long after a write its invocation may still fail: a lease, then Lambda's last retry. */
const DIED_WITHIN_MS = LEASE_MS + Math.max(...LAMBDA_RETRY_DELAYS_MS);

/** Whether an invocation failed right after `writtenMs`: the one that wrote may have died. */
const diedRightAfter = (seen: SystemObservation, writtenMs: number) =>
  failedIn(seen, writtenMs, writtenMs + DIED_WITHIN_MS);

/** A forbid run skipped for overlap within a lease and `maxRuntime` after a failed invocation. */
function heldForAFailure(
  run: SystemRun,
  job: JobDefinition | undefined,
  seen: SystemObservation,
): boolean {
  if (!job || run.status !== 'skipped' || run.reason !== 'overlap') return false;
  const atMs = Date.parse(run.at);
  return failedIn(seen, atMs - LEASE_MS - job.maxRuntimeSeconds * 1000, atMs);
}

/**
 * A forbid run skipped for overlap because a newer run took the slot while its own claim waited:
 * its own tick failed after the claim, whose lease bars a takeover until it ends, and a newer
 * run of the job was delivered from that failure until the lease ended and a sweep passed. The
 * takeover, which came after, found the slot held by the newer run (§6 Overlap: the newest goes
 * first, the older find the slot held). The model, whose invocations are all or nothing, has no
 * claim left by the failed tick and delivers the run at the tick's retry, before the newer run.
 * A run skipped while no newer run had been delivered since its tick failed (the slot held by
 * nobody, or by an older run past its hold), or whose own tick did not fail, is a violation.
 */
function takenByANewerRun(
  run: SystemRun,
  job: JobDefinition | undefined,
  seen: SystemObservation,
): boolean {
  if (job?.concurrency !== 'forbid' || run.status !== 'skipped' || run.reason !== 'overlap') {
    return false;
  }
  const atMs = Date.parse(run.at);
  const newerDeliveredIn = (fromMs: number, toMs: number) =>
    seen.runs.some((r) => {
      const ms = r.firstDeliveredAt === null ? Number.NaN : Date.parse(r.firstDeliveredAt);
      return r.jobId === run.jobId && r.at > run.at && ms >= fromMs && ms <= toMs;
    });
  return seen.failed.some(
    (f) =>
      f.kind === 'tick' &&
      f.jobId === run.jobId &&
      f.scheduledAt.getTime() === atMs &&
      newerDeliveredIn(failedAtMs(f), failedAtMs(f) + LEASE_MS + SWEEP_INTERVAL_MS),
  );
}

/**
 * A run dead-lettered where the model skips it (for overlap, or outside its window): every
 * attempt was made, a target received it at most once per attempt, and at least as many of the
 * job's ticks and the sweeps failed from the run's instant until its last attempt could have
 * been taken: its grace (the sweep's first claim), then a lease and a sweep per attempt. Each
 * attempt's dispatcher died after its claim (before the slot and the Invoke) or after the
 * target took the run (before it recorded the dispatch: the next attempt's takeover counts it
 * Redelivered), and the sweep dead-letters the run (`dispatcher stopped during delivery attempt
 * N`). The model, whose invocations are all or nothing, makes none of those attempts and
 * decides the run later, outside its window or while a newer run holds the slot. A run
 * dead-lettered with fewer attempts, received more often than it was attempted, or without a
 * failed tick of the job or sweep for each of its attempts, is a violation.
 */
function diedAtEveryAttempt(
  run: SystemRun,
  job: JobDefinition | undefined,
  maxAttempts: number,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  if (!job || run.status !== 'dead-lettered' || run.deliveries > run.attempts) return false;
  if (run.attempts < maxAttempts || !candidates.some((m) => m.status === 'skipped')) return false;
  const atMs = Date.parse(run.at);
  const untilMs =
    atMs + job.alarm.graceSeconds * 1000 + maxAttempts * (LEASE_MS + SWEEP_INTERVAL_MS);
  // Only the job's own ticks and the sweeps claim its runs.
  const failures = seen.failed.filter(
    (f) =>
      (f.kind === 'sweep' || f.jobId === run.jobId) &&
      failedAtMs(f) >= atMs &&
      failedAtMs(f) <= untilMs,
  );
  return failures.length >= maxAttempts;
}

/** A deploy of the plan, as the model is given it. */
export type Deploy = { readonly at: Date; readonly jobs: readonly JobDefinition[] };

/**
 * The definition a run's tolerances read (its concurrency, maxRuntime, grace, window): the one
 * of the newest deploy at or before the run's instant that lists its job, else its first.
 * @example
 * inForceAt({ jobId: 'j3', at: '…T00:31:00Z' }, j3, [{ at: …T00:00:30Z, jobs: [j3Forbid] }]) //=> j3Forbid
 */
function inForceAt(
  run: Pick<SystemRun, 'jobId' | 'at'>,
  first: JobDefinition | undefined,
  deploys: readonly Deploy[],
): JobDefinition | undefined {
  const atMs = Date.parse(run.at);
  const listing = deploys.filter(
    (d) => d.at.getTime() <= atMs && d.jobs.some((j) => j.id === run.jobId),
  );
  return listing.at(-1)?.jobs.find((j) => j.id === run.jobId) ?? first;
}

/**
 * A run dead-lettered with fewer attempts than its round allows, where the model delivers it or
 * leaves it undecided: an invocation that could claim it (its job's tick, a sweep) failed from
 * its instant until a deploy that no longer lists the job took effect (that deploy's first
 * sweep, a sweep after its `at`). The dying dispatcher left the run claimed; the sweep of the
 * new bundle finds the claim's lease over and has no definition to retry it with, so it
 * dead-letters the run (§6, a job removed: a run of it being delivered then). The model, whose
 * invocations are all or nothing, has no claim left: its tick delivers the run, or the retry
 * comes too late and the run is undecided when the job ends. A run dead-lettered short of its
 * attempts while its job is still listed, or with no failure before the removal to leave its
 * claim, or where the model skips it, is a violation.
 */
function claimedWhenItsJobWasRemoved(
  run: SystemRun,
  candidates: readonly RunFate[],
  seen: SystemObservation,
  deploys: readonly Deploy[],
): boolean {
  if (run.status !== 'dead-lettered') return false;
  if (!candidates.some((m) => m.status === 'delivered' || m.status === 'undecided')) return false;
  const atMs = Date.parse(run.at);
  const removedByMs = deploys
    .filter((d) => d.at.getTime() > atMs && !d.jobs.some((j) => j.id === run.jobId))
    .map((d) => d.at.getTime() + SWEEP_INTERVAL_MS + EVENT_DELAY_MS)[0];
  if (removedByMs === undefined) return false;
  return seen.failed.some(
    (f) =>
      (f.kind === 'sweep' || f.jobId === run.jobId) &&
      failedAtMs(f) >= atMs &&
      failedAtMs(f) <= removedByMs,
  );
}

/**
 * A forbid run delivered where the model skips it for overlap: an invocation failed between the
 * run's instant and its delivery, and the delivery started only once the previous run had ended.
 * A catch-up that dies half-way delivers the rest of its gap in a later invocation (the sweep's
 * orphans), when the run that held the slot may have ended: the model, whose invocations are all
 * or nothing, delivers the gap at one instant. A delivery while the previous run still ran is a
 * violation whatever failed (`startedWhileAnotherRan`).
 */
function freedForAFailure(
  run: SystemRun,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  if (run.status !== 'delivered' || run.firstDeliveredAt === null) return false;
  if (run.startedWhileAnotherRan) return false;
  if (!candidates.some((m) => m.status === 'skipped' && m.reason === 'overlap')) return false;
  return failedIn(seen, Date.parse(run.at), Date.parse(run.firstDeliveredAt));
}

/** Whether the model skips the run under the catch-up policy (the budget, or `none`). */
const policySkip = (m: RunFate) =>
  m.status === 'skipped' &&
  ['catch-up-latest', 'max-runs', 'catch-up-none'].includes(m.reason ?? '');

/**
 * A run delivered where the model skips it under the catch-up policy, its own tick having
 * failed: after its claim landed (the run's item is the tick's; a takeover delivered it), or,
 * the claim not yet written, after the fast path moved W onto the run (`swapWatermark` comes
 * before the claim): the sweep then finds the run at or before W with no item, an orphan, and
 * delivers it (origin sweep) after the failure, as the dying tick meant to. Either way the tick
 * decided its run before a catch-up reached it (§6: a tick's own run is delivered whatever the
 * policy; W says every run at or before it is decided), and the model, whose invocations are all
 * or nothing, loses the tick whole and lets the catch-up skip the run. Under `none` the sweep
 * delivers nothing but orphans, so a run it delivers whose own tick did not fail before, or one
 * a late tick's catch-up delivered (origin catch-up), is a violation.
 */
function claimedByItsFailedTick(
  run: SystemRun,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  if (run.status !== 'delivered' || run.firstDeliveredAt === null) return false;
  if (run.origin !== 'tick' && run.origin !== 'sweep') return false;
  if (!candidates.some(policySkip)) return false;
  const atMs = Date.parse(run.at);
  const deliveredMs = Date.parse(run.firstDeliveredAt);
  return seen.failed.some(
    (f) =>
      f.kind === 'tick' &&
      f.jobId === run.jobId &&
      f.scheduledAt.getTime() === atMs &&
      (run.origin === 'tick' || failedAtMs(f) <= deliveredMs),
  );
}

/**
 * A run its own tick decided (delivered, or skipped(overlap) with a newer run in the slot) where
 * the model skips it under the catch-up policy: each newer run of its job that its tick delivered
 * before (at most the run's grace on, when the sweep would decide it) came within a lease of a
 * failed sweep or tick of the job, which may have died holding the job's catch-up lease. Such a
 * tick delivers only its own run (catch-up.ts, catchUpJob: the holder decides the rest), so the
 * older run stays undecided and its own late tick, within grace, takes it. The model, which
 * cannot know a lease was held, lets the first newer tick decide the gap. A run whose tick came
 * after a newer tick that held no failure's lease, or past its grace, is a violation.
 */
function beforeItsGapUnderAHeldLease(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  const overlap = run.status === 'skipped' && run.reason === 'overlap';
  if (!job || run.origin !== 'tick' || (run.status !== 'delivered' && !overlap)) return false;
  if (!candidates.some(policySkip)) return false;
  const graceEndMs = Date.parse(run.at) + job.alarm.graceSeconds * 1000 + EVENT_DELAY_MS;
  const tickMs = run.firstDeliveredAt === null ? graceEndMs : Date.parse(run.firstDeliveredAt);
  if (tickMs > graceEndMs) return false;
  const newerTicksMs = seen.runs
    .filter((r) => r.jobId === run.jobId && r.at > run.at && r.origin === 'tick')
    .map((r) => (r.firstDeliveredAt === null ? Number.NaN : Date.parse(r.firstDeliveredAt)))
    .filter((ms) => ms <= tickMs);
  const leaseHeldAt = (ms: number) =>
    seen.failed.some(
      (f) =>
        (f.kind === 'sweep' || f.jobId === run.jobId) &&
        failedAtMs(f) <= ms &&
        ms <= failedAtMs(f) + LEASE_MS,
    );
  return newerTicksMs.length > 0 && newerTicksMs.every(leaseHeldAt);
}

/**
 * When the system delivered `run` by its own tick where the model skips it under the catch-up
 * policy: the instants it was due and first delivered; undefined otherwise.
 */
function ownTickDeliveryThePolicySkips(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
): { atMs: number; deliveredMs: number } | undefined {
  if (!job || run.status !== 'delivered' || run.origin !== 'tick') return undefined;
  if (run.firstDeliveredAt === null || !candidates.some(policySkip)) return undefined;
  return { atMs: Date.parse(run.at), deliveredMs: Date.parse(run.firstDeliveredAt) };
}

/**
 * A run delivered by its own tick, past its grace, where the model skips it under the catch-up
 * policy: from the sweep after its grace until the tick's delivery, failed sweeps and ticks of
 * its job held the sweep's decision off, each within a lease and a sweep of the one before (a
 * failure may hold the job's catch-up lease, and the sweeps defer the job), so the late tick
 * came first and delivered its own run (§6: a tick's own run is delivered whatever the policy,
 * and raises `late`). The model cannot know the lease was held and skips the run at the sweep
 * after its grace. A tick's own run delivered while a sweep could have decided it first, or
 * with no failure to hold that sweep off, is a violation.
 */
function heldOffUntilItsTick(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  const own = ownTickDeliveryThePolicySkips(run, job, candidates);
  return !!job && !!own && sweepHeldOff(job, run.jobId, own, seen);
}

/**
 * Whether failed sweeps and ticks of job `jobId` held the sweep's decision of its run at `atMs`
 * off until its own tick delivered it at `deliveredMs` (the argument of
 * {@link heldOffUntilItsTick}).
 */
function sweepHeldOff(
  job: JobDefinition,
  jobId: string,
  { atMs, deliveredMs }: { atMs: number; deliveredMs: number },
  seen: SystemObservation,
): boolean {
  // Only its job's ticks and the sweeps take its catch-up lease.
  const failures = seen.failed
    .filter((f) => f.kind === 'sweep' || f.jobId === jobId)
    .map(failedAtMs)
    .filter((ms) => ms >= atMs && ms <= deliveredMs);
  return decisionHeldUntilMs(job, atMs, failures) >= deliveredMs;
}

/**
 * A run delivered by its own tick, past its grace, where the model skips it under the catch-up
 * policy: a catch-up whose gap held it (the skip line of an older run of its job names an
 * `upTo` at or after it, no later than the skip was written less the sweep's grace) wrote that
 * skip before the delivery and failed: a sweep, for the sweep's skip, or a tick of the job, for
 * a tick's catch-up, whose failed attempt began at most a lease before the write. A catch-up
 * records its skips oldest first and moves W only once all are written (catch-up.ts,
 * decideGap), so one that dies half-way leaves the gap's older runs decided and its newer ones
 * undecided, and its budget unspent. The sweeps after it, a sweep's own retry among them,
 * check the same minutes again and find those older runs decided: they reach the newer ones
 * only when their backlog gets to those runs' minutes (30 minutes a sweep); a tick, its retry
 * among them, finds the job's catch-up lease held while the dispatcher that died holding it
 * keeps it, and delivers only its own run. The run's own tick came first and delivered it (§6:
 * a tick's own run is delivered whatever the policy when it comes before the gap is decided,
 * and raises `late`). The model,
 * whose invocations are all or nothing, loses that catch-up whole, so the next sweep still
 * finds the gap's oldest run undecided and decides the whole gap, the run with it. A run
 * delivered within its grace, by anything but its own tick, or with no catch-up of its gap
 * dying before the delivery, is a violation.
 */
function leftByADyingCatchUp(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  const own = ownTickDeliveryThePolicySkips(run, job, candidates);
  if (!job || !own) return false;
  const { atMs, deliveredMs } = own;
  if (deliveredMs <= atMs + job.alarm.graceSeconds * 1000) return false;
  return seen.runs.some((r) => {
    if (r.jobId !== run.jobId || r.at >= run.at || !r.gapSkip) return false;
    const upToMs = Date.parse(r.gapSkip.upTo);
    const writtenMs = Date.parse(r.gapSkip.writtenAt);
    const graceMs = r.origin === 'sweep' ? job.alarm.graceSeconds * 1000 : 0;
    if (upToMs < atMs || upToMs > writtenMs - graceMs || writtenMs > deliveredMs) return false;
    return writerFailed(seen, r, writtenMs);
  });
}

/**
 * Whether the invocation that wrote a gap's skip at `writtenMs` failed: a sweep, for a skip the
 * sweep wrote, or a tick of the run's job, for a tick's catch-up, that failed (its attempt
 * began) at most a lease before the write and not after it.
 */
function writerFailed(seen: SystemObservation, skipped: SystemRun, writtenMs: number): boolean {
  const bySweep = skipped.origin === 'sweep';
  return seen.failed.some(
    (f) =>
      (bySweep ? f.kind === 'sweep' : f.kind === 'tick' && f.jobId === skipped.jobId) &&
      failedAtMs(f) <= writtenMs &&
      failedAtMs(f) >= writtenMs - LEASE_MS,
  );
}

/**
 * A `latest` run skipped (catch-up-latest) where the model delivers it: from the sweep after
 * its grace until the job's next run was due, failed invocations held the decision off, each
 * within a lease and a sweep of the one before. A failure may hold the job's catch-up lease
 * (LEASE_SECONDS), so the sweeps defer the job, and the gap is decided only once the next run
 * is due, which makes the older one moot (§6: latest catches up only the newest run due when
 * the gap is decided). The model cannot know the lease was held, and decides the gap at the
 * sweep after the run's grace. Each failure is taken when it happened, not when its retry
 * arrived (the failed list's stamp), and the sweep at the grace arrives EVENT_DELAY_MS after
 * its minute: that sweep failing is what holds the decision off. A run skipped while it was
 * still the newest due, or with no failure to hold it off, is a violation.
 */
function mootForAFailure(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  if (!job || run.status !== 'skipped' || run.reason !== 'catch-up-latest') return false;
  if (!candidates.some((m) => m.status === 'delivered')) return false;
  const atMs = Date.parse(run.at);
  const nextMs = nextOccurrences(scheduleSpecOf(job), new Date(atMs), 1)[0]?.at.getTime();
  if (nextMs === undefined) return false;
  // Each failure when it happened (seen.failed stamps it with its retry's arrival).
  const failures = seen.failed.map(failedAtMs).filter((ms) => ms >= atMs && ms <= nextMs);
  return decisionHeldUntilMs(job, atMs, failures) >= nextMs;
}

/**
 * Up to when failures (when each happened) may have kept the run at `atMs` undecided: the
 * sweep after its grace (its arrival), then each failure within the hold, a lease and a sweep
 * on from it.
 */
function decisionHeldUntilMs(job: JobDefinition, atMs: number, failures: readonly number[]) {
  let heldUntilMs = atMs + job.alarm.graceSeconds * 1000 + EVENT_DELAY_MS;
  for (const ms of [...failures].sort((a, b) => a - b)) {
    if (ms > heldUntilMs) break;
    heldUntilMs = Math.max(heldUntilMs, ms + LEASE_MS + SWEEP_INTERVAL_MS);
  }
  return heldUntilMs;
}

/**
 * A run skipped for its gap's budget (max-runs; catch-up-latest, a budget of one run) where the
 * model delivers it or skips it outside the window: the system decided its gap at another
 * instant than the model, and at that instant the run was inside the window and older than its
 * newest maxRuns runs (under `latest`, than its newest run; §6: the window ends where the gap
 * is decided). The skip's line names the gap's `upTo`, which must be no later than the skip
 * was written (a tick's own run; the sweep's minute less grace). Where the model delivers it,
 * those newer runs (a tick's own run not among them) were all delivered: a budget lost, spent
 * twice or never renewed delivers fewer, and stays a violation; and an invocation failed
 * between the run and its decision (failures held the gap's lease, so it was decided later
 * than the model, with no lease, decides it). Where the model skips it outside the window, an
 * invocation failed right after the skip was written (within its lease and Lambda's retry
 * delay; the failed list stamps a failure with its retry's arrival): the catch-up died half-way
 * and its skips stay (conditional writes, first one wins), while the model, whose invocations
 * are all or nothing, decides the gap later, when the run is older than the window.
 */
function beyondTheBudgetWhenDecided(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  const budget = { 'max-runs': job?.catchup.maxRuns, 'catch-up-latest': 1 }[run.reason ?? ''];
  if (!job || run.status !== 'skipped' || budget === undefined || !run.gapSkip) return false;
  const atMs = Date.parse(run.at);
  const upToMs = Date.parse(run.gapSkip.upTo);
  const writtenMs = Date.parse(run.gapSkip.writtenAt);
  const bySweep = run.origin === 'sweep';
  // The run at upTo is the gap's when the sweep decided it; a tick's own run is not, but under
  // `latest` it is the newer run due that the skip is for.
  const atUpTo = bySweep || run.reason === 'catch-up-latest';
  if (upToMs > writtenMs - (bySweep ? job.alarm.graceSeconds * 1000 : 0)) return false;
  if (atMs < upToMs - job.catchup.windowSeconds * 1000 || atMs >= upToMs) return false;
  const newer = seen.runs.filter((r) => {
    const ms = Date.parse(r.at);
    return r.jobId === run.jobId && ms > atMs && (ms < upToMs || (atUpTo && ms === upToMs));
  });
  if (newer.length < budget) return false;
  if (candidates.some((m) => m.status === 'delivered')) {
    const delivered = newer.filter((r) => r.status === 'delivered' || r.status === 'dead-lettered');
    return delivered.length >= budget && failedIn(seen, atMs, writtenMs);
  }
  if (!candidates.some((m) => m.reason === 'outside-window')) return false;
  return diedRightAfter(seen, writtenMs);
}

/**
 * A run skipped(catch-up-latest) or skipped(catch-up-none) where the model skips it outside
 * the window: the catch-up that wrote its skip decided the gap up to the skip line's `upTo` (no
 * later than the skip was written: a tick's own run; the sweep's minute less grace), when the
 * run was inside the window that ends there (under `latest`, its job's next run already due),
 * and an invocation failed right after the skip was written (within its lease and Lambda's
 * retry delay; the failed list stamps a failure with its retry's arrival). That sweep or tick
 * decided the gap and then died (a later request of it throttled: every part of a sweep runs
 * to its end before it throws); its skips stay (conditional writes, first one wins), while the
 * model, whose invocations are all or nothing, decides the gap later, when the run is older
 * than the window (§6: the window ends where the gap is decided; under `none` a run inside it
 * is catch-up-none, one before it outside-window). The argument of
 * {@link beyondTheBudgetWhenDecided} for max-runs. A run outside the window at its `upTo`, a
 * `latest` run still the newest due when skipped (latest delivers it), a reason that is not
 * its job's policy's, or no failure right after the skip, stays a violation.
 */
function skippedByADyingCatchUp(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  const policy = job?.catchup.policy;
  const reason = policy === 'latest' ? 'catch-up-latest' : 'catch-up-none';
  if (!job || policy === 'all' || run.status !== 'skipped' || run.reason !== reason) return false;
  if (!run.gapSkip || !candidates.some((m) => m.reason === 'outside-window')) return false;
  const atMs = Date.parse(run.at);
  const upToMs = Date.parse(run.gapSkip.upTo);
  const writtenMs = Date.parse(run.gapSkip.writtenAt);
  const graceMs = run.origin === 'sweep' ? job.alarm.graceSeconds * 1000 : 0;
  if (upToMs > writtenMs - graceMs) return false;
  if (atMs < upToMs - job.catchup.windowSeconds * 1000 || atMs > upToMs) return false;
  if (policy === 'latest') {
    const nextMs = nextOccurrences(scheduleSpecOf(job), new Date(atMs), 1)[0]?.at.getTime();
    if (nextMs === undefined || nextMs > writtenMs) return false;
  }
  return diedRightAfter(seen, writtenMs);
}

/**
 * A run skipped outside its window when an invocation failed within a lease of its decision.
 * The failure is taken when it happened, the failed attempt's arrival: `seen.failed` dates a
 * retried failure by its retry's arrival, a minute or two later, past a decision the failure
 * held off (a sweep at `at + grace` that failed holding the job's lease). Or a late tick of a
 * newer run S of its job, at most one window newer and taken within S's window, failed before
 * the skip was written: that tick's catch-up, up to S, has the run inside its window however
 * late the tick arrives, and it died half-way; its retry found the job's catch-up lease held (by
 * a failed sweep) and delivered only S, so the gap was decided later, up to a later run, when
 * this one was older than the window (§6: the window ends where the gap is decided). The model,
 * whose invocations are all or nothing, has that tick or its retry decide the gap up to S. Or
 * the skip's own writer decided the gap up to the skip line's `upTo` (no later than the skip
 * was written: a tick's own run; the sweep's minute less grace), when the run was older than
 * the window that ends there, and an invocation failed right after the skip was written: that
 * sweep or tick died after deciding (a later request throttled), its skips stay (conditional
 * writes, first one wins), while the model drops it whole and has a later invocation decide
 * the gap up to an older run (a late tick's own), whose window still holds the run (the
 * argument of {@link beyondTheBudgetWhenDecided}). A run skipped outside its window with no
 * such failure is a violation.
 */
function lateForAFailure(
  run: SystemRun,
  job: JobDefinition | undefined,
  seen: SystemObservation,
): boolean {
  if (!job || run.status !== 'skipped' || run.reason !== 'outside-window') return false;
  const atMs = Date.parse(run.at);
  const windowMs = job.catchup.windowSeconds * 1000;
  // The last sweep whose window holds the run, as it arrives (its minute, plus the delay).
  const untilMs = atMs + job.alarm.graceSeconds * 1000 + windowMs + EVENT_DELAY_MS;
  const decidedMs = run.gapSkip ? Date.parse(run.gapSkip.writtenAt) : Number.POSITIVE_INFINITY;
  const heldInsideByItsTick = (f: SystemObservation['failed'][number]) => {
    const sMs = f.scheduledAt.getTime();
    const ms = failedAtMs(f);
    return (
      f.kind === 'tick' &&
      f.jobId === run.jobId &&
      sMs > atMs &&
      sMs - windowMs <= atMs &&
      ms - sMs <= windowMs &&
      ms <= decidedMs
    );
  };
  return (
    seen.failed.some((f) => {
      const ms = failedAtMs(f);
      return (ms >= atMs - LEASE_MS && ms <= untilMs) || heldInsideByItsTick(f);
    }) || outsideWhenADyingCatchUpDecided(run, job, seen)
  );
}

/** The last clause of {@link lateForAFailure}: outside the window of a catch-up that then died. */
function outsideWhenADyingCatchUpDecided(
  run: SystemRun,
  job: JobDefinition,
  seen: SystemObservation,
): boolean {
  if (!run.gapSkip) return false;
  const upToMs = Date.parse(run.gapSkip.upTo);
  const writtenMs = Date.parse(run.gapSkip.writtenAt);
  const graceMs = run.origin === 'sweep' ? job.alarm.graceSeconds * 1000 : 0;
  if (upToMs > writtenMs - graceMs) return false;
  if (Date.parse(run.at) >= upToMs - job.catchup.windowSeconds * 1000) return false;
  return diedRightAfter(seen, writtenMs);
}

/** When a failed invocation failed: its retry's arrival less Lambda's delay (drive.ts, watch). */
const failedAtMs = (f: SystemObservation['failed'][number]) =>
  f.arrivesAt.getTime() - (LAMBDA_RETRY_DELAYS_MS[f.attempt - 1] ?? 0);

/**
 * A `latest` run skipped (catch-up-latest) by the sweep where the model delivers it: its own
 * tick failed before it claimed the run, the sweep at its grace came before the tick's retry
 * (or the retry came older than the job's window, an `ancient-event` that both ignore), and
 * the gap's budget was spent, as the system's own runs show: the job's newest run delivered
 * before it was caught up (by the sweep or a late tick's catch-up), not delivered by its tick,
 * so no tick had ended the gap (§6: `latest` catches up at most one run per gap). The model
 * loses a failed invocation whole: a sweep that failed after it decided the gap (throttled on a
 * later request) decided nothing there, and the retried tick delivers the run as its own,
 * which ends the gap, so the job's next runs are also delivered there where the system, its
 * budget still spent, skips them; or, with the retry ignored, the model's gap still has its
 * budget and the sweep delivers the run. A run skipped while a tick had delivered its own since
 * the last catch-up, or whose tick did not fail, or whose retry came in time to deliver it, is
 * a violation.
 */
function spentBeforeItsRetriedTick(
  run: SystemRun,
  job: JobDefinition | undefined,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  if (job?.catchup.policy !== 'latest' || run.origin !== 'sweep') return false;
  if (run.status !== 'skipped' || run.reason !== 'catch-up-latest') return false;
  if (!candidates.some((m) => m.status === 'delivered')) return false;
  const atMs = Date.parse(run.at);
  const sweptMs = atMs + job.alarm.graceSeconds * 1000 + EVENT_DELAY_MS;
  // The retry came after that sweep, or too old to be taken: older than the job's window
  // (semantics.md, Instants that are not runs; the ledger's retention is longer).
  const retryTooLate = (arrivesMs: number) =>
    arrivesMs > sweptMs || arrivesMs - atMs > job.catchup.windowSeconds * 1000;
  const tickFailed = seen.failed.some(
    (f) =>
      f.kind === 'tick' &&
      f.jobId === run.jobId &&
      f.attempt === 1 &&
      f.scheduledAt.getTime() === atMs &&
      retryTooLate(f.arrivesAt.getTime()),
  );
  const before = seen.runs.filter(
    (r) => r.jobId === run.jobId && r.at < run.at && r.status === 'delivered',
  );
  const origin = before.at(-1)?.origin;
  return tickFailed && (origin === 'sweep' || origin === 'catch-up');
}

/**
 * A `latest` run skipped(catch-up-latest) where the model delivers it, its gap's budget spent
 * by a catch-up that died: since the job's last run delivered by its own tick, an older run was
 * caught up (by the sweep or a tick's catch-up: delivered, or dead-lettered when its attempts
 * died) that the same model does not deliver, and an invocation failed between that run and a
 * lease and Lambda's retry delay after its grace. §6 records the budget before the delivery it
 * pays for, so a catch-up that claimed the run and died has spent it, and the gap's newer run is
 * skipped; the model, whose invocations are all or nothing, loses that catch-up whole and
 * decides the older run later (outside the window, say), its budget unspent. A skip with no run
 * caught up in the system's gap (the system itself would deliver it), one whose caught-up run
 * the model delivers too, or no failure near it, stays a violation.
 */
function spentByADyingCatchUp(
  run: SystemRun,
  job: JobDefinition | undefined,
  models: readonly Map<string, RunFate>[],
  seen: SystemObservation,
): boolean {
  if (job?.catchup.policy !== 'latest') return false;
  if (run.status !== 'skipped' || run.reason !== 'catch-up-latest') return false;
  const earlier = seen.runs.filter((r) => r.jobId === run.jobId && r.at < run.at);
  const endedBy = earlier.findLast((r) => r.status === 'delivered' && r.origin === 'tick');
  const spent = earlier.filter(
    (r) =>
      (!endedBy || r.at > endedBy.at) &&
      (r.origin === 'sweep' || r.origin === 'catch-up') &&
      (r.status === 'delivered' || r.status === 'dead-lettered'),
  );
  const diedWithinMs = job.alarm.graceSeconds * 1000 + DIED_WITHIN_MS;
  return spent.some((r) => {
    const unspent = models.some(
      (m) => m.get(runId(run))?.status === 'delivered' && m.get(runId(r))?.status !== 'delivered',
    );
    const atMs = Date.parse(r.at);
    return unspent && failedIn(seen, atMs, atMs + diedWithinMs);
  });
}

/**
 * A run skipped(catch-up-none) where the model delivers it: its own tick failed before the skip
 * was written, so it claimed nothing, and its retry came after; the catch-up that wrote the skip
 * (a newer run's tick, or the sweep) decided the run's gap under policy none and then died,
 * an invocation failing within a lease and Lambda's retry delay of the skip. Its skips stay
 * (conditional writes, first one wins), while the model, whose invocations are all or nothing,
 * loses that catch-up whole and lets the tick's retry deliver the run as its own. Had the
 * catch-up lived, the model would decide the gap there too; a skip with no such failure after
 * it, or whose tick did not fail before it, stays a violation.
 */
function skippedBeforeItsRetriedTick(
  run: SystemRun,
  candidates: readonly RunFate[],
  seen: SystemObservation,
): boolean {
  if (run.status !== 'skipped' || run.reason !== 'catch-up-none' || !run.gapSkip) return false;
  if (!candidates.some((m) => m.status === 'delivered')) return false;
  const atMs = Date.parse(run.at);
  const writtenMs = Date.parse(run.gapSkip.writtenAt);
  const tickFailed = seen.failed.some(
    (f) =>
      f.kind === 'tick' &&
      f.jobId === run.jobId &&
      f.scheduledAt.getTime() === atMs &&
      failedAtMs(f) <= writtenMs &&
      f.arrivesAt.getTime() >= writtenMs,
  );
  return tickFailed && diedRightAfter(seen, writtenMs);
}
