import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { decodeRun, type LedgerStore } from '#ledger/index.ts';
import { runKeyOf } from '../../functions/dispatcher/planned-run.ts';
import { previousRun } from '../../functions/dispatcher/tick.ts';
import type { Occurrence } from '../../functions/schedule/index.ts';
import type { LastRun } from '../deployed/run-reads.ts';

/**
 * The runs whose items tell a job's last run, newest first: the latest run due at or before
 * `now`, and, while that one is still within the job's grace (its tick may not have come
 * yet), the one before it too. None for a job the jobs file disables (it has no schedule).
 *
 * @example
 * lastRunCandidates(berlinNightly, new Date('2027-03-28T12:00Z')).map((o) => o.at)
 * //=> [2027-03-28T01:30:00.000Z]
 */
export function lastRunCandidates(job: JobDefinition, now: Date): Occurrence[] {
  if (!job.enabled) return [];
  const spec = scheduleSpecOf(job);
  const latest = previousRun(spec, new Date(now.getTime() + 1));
  if (latest === undefined) return [];
  if (now.getTime() - latest.at.getTime() > job.alarm.graceSeconds * 1000) return [latest];
  const before = previousRun(spec, latest.at);
  return before === undefined ? [latest] : [latest, before];
}

/**
 * The last scheduled run of every enabled job, read by key: the engine says which runs were
 * due last ({@link lastRunCandidates}), one `BatchGetItem` per 100 of their keys reads them
 * (eventually consistent: half the cost, and a list is a glance). The newest with an item is
 * the last run; when none has one, the oldest candidate without its item.
 *
 * A manual run (`zonecron run`) has a key of its own and is not a scheduled run: `history`
 * shows it.
 *
 * @example
 * const last = await readLastRuns(store, config.jobs, new Date());
 * last.get('berlin-nightly-report')?.run?.status //=> 'dispatched'
 */
export async function readLastRuns(
  store: Pick<LedgerStore, 'batchGet'>,
  jobs: readonly JobDefinition[],
  now: Date,
): Promise<Map<string, LastRun>> {
  const candidates = jobs.map((job) => ({
    job,
    runs: lastRunCandidates(job, now).map((o) => ({
      at: o.at.toISOString(),
      nominal: o.nominal,
      key: runKeyOf(job.id, o),
    })),
  }));
  const items = await store.batchGet(
    candidates.flatMap((c) => c.runs.map((r) => r.key)),
    false,
  );
  const last = new Map<string, LastRun>();
  for (const { job, runs } of candidates) {
    const found = runs.find((r) => items.has(r.key)) ?? runs.at(-1);
    if (found === undefined) continue;
    const item = items.get(found.key);
    last.set(job.id, { ...found, run: item ? decodeRun(item) : undefined });
  }
  return last;
}
