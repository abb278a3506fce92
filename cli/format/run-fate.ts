/** `history --at`: one run's fate, as a sentence and as one JSON document. Pure. */
import type { RunFate } from '../deployed/run-reads.ts';
import type { Colours } from './colour.ts';
import { lagMs, runHistoryLines } from './run-history.ts';
import { count, skipRangeJson, skipRangeLines } from './skip-ranges.ts';
import { wrap } from './table.ts';

/**
 * The `--json` document of `history --at`: `{ jobId, at, nominal, status, reason, source,
 * run?, range? }`; `status` and `reason` null when the ledger has no record of the run; for a
 * run its calendar removed, source `calendar` with `detail`, `calendar` and `definition`.
 *
 * @example
 * runFateJson(fate) //=> { jobId: 'minutely', at: '…', status: 'skipped', reason: 'max-runs', source: 'range', range: {…} }
 */
export function runFateJson(fate: RunFate) {
  const head = { jobId: fate.jobId, at: fate.at.toISOString() };
  if (fate.source === 'calendar') {
    return {
      ...head,
      nominal: fate.skipped.nominal,
      status: 'skipped',
      reason: fate.skipped.reason,
      source: fate.source,
      detail: fate.skipped.detail,
      calendar: fate.calendar,
      definition: fate.definition,
    };
  }
  if (fate.source === 'item') {
    const { run } = fate;
    return {
      ...head,
      nominal: run.nominal,
      status: run.status,
      reason: run.skipReason ?? null,
      source: fate.source,
      run: { ...run, lagMs: lagMs(run) ?? null },
    };
  }
  if (fate.source === 'range') {
    return {
      ...head,
      nominal: fate.occurrence.nominal,
      status: 'skipped',
      reason: fate.reason,
      source: fate.source,
      range: skipRangeJson(fate.range),
    };
  }
  return {
    ...head,
    nominal: fate.occurrence.nominal,
    status: null,
    reason: null,
    source: fate.source,
  };
}

/**
 * The fate in words: the run's item as a history row, the range that skipped it, or that the
 * ledger has no record of it.
 *
 * @example
 * runFateLines(fate, c)[0]
 * //=> "minutely run at 2023-06-01T07:30:00.000Z (nominal 2023-06-01T07:30): skipped (max-runs) — …"
 */
export function runFateLines(fate: RunFate, c: Colours): string[] {
  const title = `${c.bold(fate.jobId)} run at ${fate.at.toISOString()}`;
  if (fate.source === 'item') {
    const { run } = fate;
    const reason = run.skipReason ? ` (${run.skipReason})` : '';
    return [
      wrap(`${title}: ${run.status}${reason}, by its own item`, ''),
      '',
      ...runHistoryLines([run], c),
    ];
  }
  if (fate.source === 'calendar') {
    const { skipped } = fate;
    return [
      wrap(
        `${title} (nominal ${skipped.nominal}): ${c.yellow(`skipped (calendar: ${skipped.detail})`)}` +
          ` — decided by calendar ${fate.calendar}; computed from the ${fate.definition} ` +
          'definition, not in the ledger (the dispatcher writes no item for it)',
        '',
      ),
    ];
  }
  const nominal = `(nominal ${fate.occurrence.nominal})`;
  if (fate.source === 'range') {
    const { range } = fate;
    return [
      wrap(
        `${title} ${nominal}: ${c.yellow(`skipped (${fate.reason})`)} — one of ` +
          `${count(range.runs)} runs of a gap decided at ${range.decidedAt}, recorded as a range`,
        '',
      ),
      '',
      ...skipRangeLines(range, c),
    ];
  }
  return [
    wrap(
      `${title} ${nominal}: no record in the ledger (not decided yet, or older than ` +
        `retention.days, ${fate.retentionDays})`,
      '',
    ),
  ];
}
