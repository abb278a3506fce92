/**
 * A gap's skip range (docs/architecture.md §5, "Skip ranges") as `history` and `describe`
 * show it: one line for the thousands of skipped runs that have no item of their own, and the
 * `--json` form of it. Pure.
 */
import { reasonInRange, type SkipRange, type SkipReason } from '#ledger/index.ts';
import type { SkipRangesRead } from '../deployed/run-reads.ts';
import type { Colours } from './colour.ts';
import { TERMINAL_COLUMNS, wrap } from './table.ts';

/** One stretch of a range whose runs were all skipped for one reason: `[fromMs, toMs)`. */
export interface RangeReason {
  readonly fromMs: number;
  readonly toMs: number;
  readonly reason: SkipReason;
}

/**
 * The stretches of a range and why their runs were skipped, oldest first: `outside-window`
 * before the window, the policy's reason in it, `paused` inside a pause; the first starts
 * (exclusively) at the range's start, the last ends at its end.
 *
 * @example
 * rangeReasons(range).map((r) => r.reason) //=> ['outside-window', 'paused', 'outside-window', 'max-runs']
 */
export function rangeReasons(range: SkipRange): RangeReason[] {
  const { afterMs, beforeMs } = range;
  const inside = (ms: number) => ms > afterMs && ms < beforeMs;
  const cuts = [range.windowStartMs, ...range.pauses.flatMap((p) => [p.fromMs, p.toMs])];
  const bounds = [...new Set([afterMs, ...cuts.filter(inside), beforeMs])].sort((a, b) => a - b);
  const out: RangeReason[] = [];
  for (const [i, fromMs] of bounds.slice(0, -1).entries()) {
    const toMs = bounds[i + 1] as number;
    const probeMs = fromMs === afterMs ? fromMs + 1 : fromMs;
    const reason = probeMs < toMs ? reasonInRange(range, new Date(probeMs)) : undefined;
    if (reason === undefined) continue;
    const last = out.at(-1);
    if (last?.reason === reason && last.toMs === fromMs) out[out.length - 1] = { ...last, toMs };
    else out.push({ fromMs, toMs, reason });
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A range in `--json`: its exclusive ends `after` and `before` (UTC), how many runs it holds
 * and how many of them a pause skipped (counted from `countedFrom`, the retention), its
 * stretches with their reasons, and when the gap was decided.
 *
 * @example
 * skipRangeJson(range).reasons //=> [{ from: '…07:00:00.000Z', to: '…07:31:00.000Z', reason: 'outside-window' }, …]
 */
export function skipRangeJson(range: SkipRange) {
  return {
    after: iso(range.afterMs),
    before: iso(range.beforeMs),
    runs: range.runs,
    pausedRuns: range.pausedRuns,
    countedFrom: iso(range.countedFromMs),
    reasons: rangeReasons(range).map((r) => ({
      from: iso(r.fromMs),
      to: iso(r.toMs),
      reason: r.reason,
    })),
    decidedAt: range.decidedAt,
  };
}

/** `YYYY-MM-DD HH:mm` (UTC), as the history table writes an instant. */
export function tableTime(ms: number): string {
  const text = iso(ms);
  return `${text.slice(0, 10)} ${text.slice(11, 16)}`;
}

/** `HH:mm` on the day of `refMs`, `MM-DD HH:mm` in its year, else the whole `tableTime`. */
function timeNear(ms: number, refMs: number): string {
  const [text, ref] = [tableTime(ms), tableTime(refMs)];
  if (text.slice(0, 10) === ref.slice(0, 10)) return text.slice(11);
  return text.slice(0, 4) === ref.slice(0, 4) ? text.slice(5) : text;
}

/** A whole number with thousands separators: `11,423`. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * A range as one line of the history table (wrapped to the terminal under itself): the runs
 * it holds (after the watermark its gap started from, through its last minute), how many it
 * skipped and why, and when the gap was decided.
 *
 * @example
 * skipRangeLines(range, c)
 * //=> ['after 2023-06-01 07:00 through 08:18: skipped ×78 (outside-window before 07:31,',
 * //    '  max-runs from 07:31; paused ×0), decided 2023-06-01 10:01']
 */
export function skipRangeLines(range: SkipRange, c: Colours): string[] {
  const counted =
    range.countedFromMs > range.afterMs
      ? `; counted from ${timeNear(range.countedFromMs, range.beforeMs)}, the retention`
      : '';
  const stretches = rangeReasons(range);
  const reasons = stretches.map((r, i) => {
    if (stretches.length === 1) return r.reason;
    return i === 0
      ? `${r.reason} before ${timeNear(r.toMs, range.beforeMs)}`
      : `${r.reason} from ${timeNear(r.fromMs, range.beforeMs)}`;
  });
  const text =
    `after ${tableTime(range.afterMs)} through ${timeNear(range.beforeMs - 1, range.afterMs)}: ` +
    `${c.yellow(`skipped ×${count(range.runs)}`)} ` +
    `(${reasons.join(', ')}; paused ×${count(range.pausedRuns)}${counted}), ` +
    `decided ${tableTime(Date.parse(range.decidedAt))}`;
  const lines = wrap(text, '', TERMINAL_COLUMNS - 2).split('\n');
  return lines.map((line, i) => (i === 0 ? line : `  ${line}`));
}

/**
 * What `describe` says of the ranges it read: how many, how many runs they hold (and how
 * many a pause skipped), whether more were left unread, and each as in `history --json`.
 *
 * @example
 * skipRangesSummary(read, since) //=> { since: '…', count: 1, runs: 78, pausedRuns: 0, truncated: false, items: [...] }
 */
export function skipRangesSummary(read: SkipRangesRead, since: Date) {
  return {
    since: since.toISOString(),
    count: read.ranges.length,
    runs: read.ranges.reduce((sum, r) => sum + r.runs, 0),
    pausedRuns: read.ranges.reduce((sum, r) => sum + r.pausedRuns, 0),
    truncated: read.truncated,
    items: read.ranges.map(skipRangeJson),
  };
}
