/** A job's runs from the ledger and its pause, as `history` and `describe` show them. */
import type { RunItem, SkipRange } from '#ledger/index.ts';
import type { PauseState } from '../deployed/pause-state.ts';
import type { Colours } from './colour.ts';
import { shortDuration } from './durations.ts';
import { skipRangeLines } from './skip-ranges.ts';
import { type ColumnRow, columnTable, wrap } from './table.ts';

/**
 * How long after its instant a run was handed to its target (`dispatchedAt − at`), in
 * milliseconds; undefined when it was not.
 *
 * @example
 * lagMs({ at: '2026-11-29T09:00:00.000Z', dispatchedAt: '2026-11-29T09:00:01.250Z', … }) //=> 1250
 */
export function lagMs(run: Pick<RunItem, 'at' | 'dispatchedAt'>): number | undefined {
  if (!run.dispatchedAt) return undefined;
  return Date.parse(run.dispatchedAt) - Date.parse(run.at);
}

/**
 * The runs as a table, newest first (UTC instant, nominal slot, note, status, attempts, lag,
 * key prefix), each skip range a line of its own where it falls among them (by its end, just
 * after its last run), then the last error of the newest five failed runs.
 *
 * @example
 * runHistoryLines(runs, c)[0]
 * //=> 'at (UTC)          nominal           note    status  #  lag  key'
 */
export function runHistoryLines(
  runs: readonly RunItem[],
  c: Colours,
  ranges: readonly SkipRange[] = [],
): string[] {
  const rows: (ColumnRow | string)[] = [];
  const pending = [...ranges].sort((a, b) => b.beforeMs - a.beforeMs);
  for (const run of runs) {
    const atMs = Date.parse(run.at);
    while (pending[0] && pending[0].beforeMs > atMs) {
      rows.push(...skipRangeLines(pending.shift() as SkipRange, c));
    }
    rows.push(runRow(run, c));
  }
  for (const range of pending) rows.push(...skipRangeLines(range, c));
  const out = [columnTable(['at (UTC)', 'nominal', 'note', 'status', '#', 'lag', 'key'], rows)];
  for (const run of runs.filter((r) => r.lastError).slice(0, 5)) {
    out.push(c.dim(errorLine(run).slice(0, 80)));
  }
  return out;
}

/**
 * A run's last error under its current state: the error as it stands for a run that is
 * failed or awaiting a retry, else what the run is now, then the error it got over (a
 * redrive that succeeded keeps the item's `lastError`).
 *
 * @example
 * errorLine({ key: 'e471202…', status: 'succeeded', generation: 1, lastError: 'timeout', … })
 * //=> '  e471202: now succeeded (redrive 1); earlier: timeout'
 */
export function errorLine(run: RunItem): string {
  const key = run.key.slice(0, 7);
  if (run.status === 'failed' || run.status === 'delivery-failed') {
    return `  ${key}: ${run.lastError}`;
  }
  const redrive = run.generation > 0 ? ` (redrive ${run.generation})` : '';
  return `  ${key}: now ${run.status}${redrive}; earlier: ${run.lastError}`;
}

function runRow(run: RunItem, c: Colours): ColumnRow {
  const lag = lagMs(run);
  return [
    `${run.at.slice(0, 10)} ${run.at.slice(11, 16)}`,
    run.nominal,
    noteOf(run),
    statusColour(run.status, c),
    String(run.attempts),
    lag === undefined ? '' : shortDuration(lag),
    run.key.slice(0, 7),
  ];
}

function statusColour(status: string, c: Colours): string {
  if (status === 'failed') return c.red(status);
  return status === 'succeeded' || status === 'dispatched' ? c.green(status) : c.yellow(status);
}

/**
 * `manual`, `backfill`, a skip reason (`paused`, `overlap`, …), or the DST note; then
 * `deadline missed` when the run raised it.
 */
function noteOf(run: RunItem): string {
  const note = baseNoteOf(run);
  if (!run.signals.includes('deadline-missed')) return note;
  return note ? `${note}, deadline missed` : 'deadline missed';
}

function baseNoteOf(run: RunItem): string {
  if (run.manual) return 'manual';
  if (run.skipReason) return run.skipReason;
  if (run.origin === 'backfill') return 'backfill';
  return run.dst === 'none' ? '' : run.dst;
}

/**
 * A pause as a phrase after `paused`/`PAUSED`: since when, until when, by whom, why.
 *
 * @example
 * pauseText(pause)
 * //=> 'since 2026-11-30T15:29:01.713Z until 2026-11-30T18:00:00.000Z by alice@vm: migration'
 */
export function pauseText(pause: PauseState): string {
  const until = pause.until
    ? pause.ending
      ? ` until ${pause.until} (passed: it resumes at its next tick)`
      : ` until ${pause.until}`
    : '';
  return `since ${pause.pausedAt}${until} by ${pause.pausedBy}: ${pause.reason ?? ''}`;
}

/**
 * The pause in one sentence, `PAUSED since … by …: reason`, or nothing when not paused.
 *
 * @example
 * pauseLines(pause, c) //=> ['PAUSED since 2026-11-30T15:29:01.713Z by alice@vm: migration']
 */
export function pauseLines(pause: PauseState, c: Colours): string[] {
  if (!pause.paused) return [];
  return [c.yellow(wrap(`PAUSED ${pauseText(pause)}`, ''))];
}
