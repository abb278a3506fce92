import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { OperatorEvent, RunItem, RunLedger } from '#ledger/index.ts';
import { readJobRuns } from './job-runs.ts';

/**
 * How far before the window `history` looks for runs that happened in it though scheduled
 * earlier: a sweep's retry, a late catch-up, a run that completed in the window.
 */
export const HAPPENED_LOOKBACK_MS = 86_400_000;

/** The most runs read from the day before the window, and from each backfill's range. */
const EARLIER_RUNS_READ = 500;

/** What {@link readRunsInWindow} reads: the ledger's `byJob` index and its runs by key. */
export interface WindowSources {
  readonly client: Pick<DynamoDBClient, 'send'>;
  readonly tableName: string;
  readonly ledger: Pick<RunLedger, 'getRuns'>;
}

/**
 * Whether anything happened to the run at or after `since`: scheduled, handed to its target,
 * started, completed or dead-lettered then.
 *
 * @example
 * happenedSince({ at: '2026-11-30T01:30:00.000Z', dispatchedAt: '2026-12-02T09:00:00.000Z', … },
 *   new Date('2026-12-01T12:00Z'))
 * //=> true
 */
export function happenedSince(run: RunItem, since: Date): boolean {
  const sinceMs = since.getTime();
  return [run.at, run.dispatchedAt, run.startedAt, run.completedAt, run.deadLetteredAt].some(
    (instant) => instant !== undefined && Date.parse(instant) >= sinceMs,
  );
}

/**
 * A job's runs that happened in the window `[since, now]`, newest first by instant, at most
 * `limit`: those scheduled in it; those of the day before that were delivered, completed or
 * dead-lettered in it; the runs of every backfill recorded in it (its range) that it
 * delivered; and the runs its manual runs and redrives name. So yesterday's run backfilled
 * today shows in `--since 24h`, as does a run redriven today.
 *
 * @example
 * await readRunsInWindow(sources, 'nightly', since, 50, events)
 * //=> [{ key: '9f5b…', at: '2026-11-30T01:30:00.000Z', origin: 'backfill', … }, …]
 */
export async function readRunsInWindow(
  sources: WindowSources,
  jobId: string,
  window: { readonly since: Date; readonly limit: number },
  events: readonly OperatorEvent[],
): Promise<RunItem[]> {
  const { since, limit } = window;
  const read = (from: Date, count: number) =>
    readJobRuns(sources.client, sources.tableName, jobId, { since: from, limit: count });
  const byKey = new Map<string, RunItem>();
  const add = (runs: readonly RunItem[], keep: (r: RunItem) => boolean) => {
    for (const run of runs) if (keep(run)) byKey.set(run.key, run);
  };
  add(await read(since, limit), () => true);
  const earlier = new Date(since.getTime() - HAPPENED_LOOKBACK_MS);
  add(await read(earlier, EARLIER_RUNS_READ), (r) => happenedSince(r, since));
  for (const e of events) {
    if (e.action !== 'backfilled' || !e.from || !e.to) continue;
    const inRange = await readBetween(sources, jobId, new Date(e.from), new Date(e.to));
    add(inRange, (r) => happenedSince(r, since));
  }
  const named = events.flatMap((e) =>
    (e.action === 'ran' || e.action === 'redriven') && e.runKey ? [e.runKey] : [],
  );
  if (named.length > 0) add([...(await sources.ledger.getRuns(named)).values()], () => true);
  return [...byKey.values()].sort((a, b) => Date.parse(b.at) - Date.parse(a.at)).slice(0, limit);
}

/** A backfill's runs, `[from, to]`, newest first. */
function readBetween(
  sources: WindowSources,
  jobId: string,
  from: Date,
  to: Date,
): Promise<RunItem[]> {
  return readJobRuns(sources.client, sources.tableName, jobId, {
    since: from,
    until: to,
    limit: EARLIER_RUNS_READ,
  });
}
