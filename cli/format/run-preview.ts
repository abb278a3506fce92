/**
 * The next runs of a schedule as `next` and `describe` show them: the engine's occurrences,
 * each with its DST note in plain words, the slots a `skip` policy drops, and what a calendar
 * or a bound moves or removes.
 */

import { formatLocal, formatUtc } from '#text/zone-time.ts';
import {
  type NeverRunsReason,
  nextOccurrences,
  nextRun,
  type Occurrence,
  type ScheduleSpec,
  type SkippedRun,
} from '../../functions/schedule/index.ts';
import {
  MAX_LISTED_SKIPS,
  movedJson,
  movedNote,
  removedRuns,
  skippedJson,
  skippedNote,
} from './calendar-notes.ts';
import type { Colours } from './colour.ts';
import { occurrenceNote, type SkippedSlot, transitionReports } from './dst-notes.ts';
import { plainTable, wrap } from './table.ts';

/** One run with its DST note (undefined for an ordinary one). */
export interface PreviewRun extends Occurrence {
  readonly note: string | undefined;
}

/** The next runs of a schedule and the slots skipped among them. */
export interface RunPreview {
  readonly runs: readonly PreviewRun[];
  /**
   * What a `skip` gap policy drops between `after` and the last run, one sentence per group of
   * slots with the same outcome (`01:00, 01:30 do not exist on … — skipped (gap policy skip)`).
   */
  readonly skipped: readonly string[];
  /** The same slots one by one, for `--json`. Absent from a preview built before it existed. */
  readonly dstSkipped?: readonly SkippedSlot[];
  /**
   * What a calendar or a bound removed after `after`, up to the last run, in time order; empty
   * for a schedule without either. Absent from a preview built before it existed.
   */
  readonly removed?: readonly SkippedRun[];
  /** Why there is no run at all after `after`; undefined when there is one. */
  readonly never: NeverRunsReason | undefined;
}

/**
 * The next `count` runs after `after`, with their DST notes and the skipped slots.
 *
 * @example
 * previewRuns({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, new Date('2027-03-27T12:00Z'), 1)
 * //=> { runs: [{ at: 2027-03-28T01:30:00.000Z, nominal: '2027-03-28T02:30', dst: 'gap',
 * //     note: '02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST' }],
 * //     skipped: [] }
 */
export function previewRuns(spec: ScheduleSpec, after: Date, count: number): RunPreview {
  const occurrences = nextOccurrences(spec, after, count);
  const last = occurrences.at(-1);
  const answer = last === undefined ? nextRun(spec, after) : undefined;
  const skippedLines = last
    ? transitionReports(spec, after, last.at).flatMap((r) => r.lines.filter((l) => l.skipped))
    : [];
  return {
    never: answer?.kind === 'never' ? answer.reason : undefined,
    runs: occurrences.map((o) => ({ ...o, note: occurrenceNote(spec, o) })),
    skipped: skippedLines.map((l) => l.text),
    dstSkipped: skippedLines.flatMap((l) => l.skippedSlots),
    removed: last === undefined ? [] : removedRuns(spec, after, last.at),
  };
}

/**
 * The runs as a table (local, UTC, nominal) with each DST note, and where a calendar moved it
 * from, under its run; then the slots a DST night skips and the runs a calendar or a bound
 * removed (at most {@link MAX_LISTED_SKIPS} of the latter; the rest counted).
 *
 * @example
 * runTableLines(preview, 'Europe/Berlin', c)[1]
 * //=> 'Sun 2027-03-28 03:30 +02:00 CEST  2027-03-28T01:30:00Z  2027-03-28T02:30'
 */
export function runTableLines(preview: RunPreview, zone: string, c: Colours): string[] {
  if (preview.never !== undefined) return neverLines(preview.never).map((l) => c.yellow(l));
  const table = plainTable(
    ['local', 'UTC', 'nominal'],
    preview.runs.map((run) => [formatLocal(run.at, zone), formatUtc(run.at), run.nominal]),
  ).split('\n');
  const out = [c.dim(table[0] ?? '')];
  preview.runs.forEach((run, i) => {
    out.push(table[i + 1] ?? '');
    const notes = [run.note, movedNote(run, zone)].filter((n) => n !== undefined);
    if (notes.length > 0) out.push(c.yellow(wrap(notes.join('; '), '  ↳ ')));
  });
  const removed = preview.removed ?? [];
  const listed = removed.slice(0, MAX_LISTED_SKIPS);
  const more = removed.length - listed.length;
  const skipped = [
    ...preview.skipped,
    ...listed.map((s) => skippedNote(s, zone)),
    ...(more > 0 ? [`and ${more} more runs removed by its calendar or bounds`] : []),
  ];
  if (skipped.length > 0) {
    out.push('');
    for (const line of skipped) out.push(c.yellow(wrap(line, '  ✗ ')));
  }
  return out;
}

/**
 * One run in `--json`: `{"at", "local", "nominal", "dst", "note"}`.
 *
 * @example
 * runJson(run, 'Europe/Berlin')
 * //=> { at: '2027-03-28T01:30:00.000Z', local: 'Sun 2027-03-28 03:30 +02:00 CEST',
 * //     nominal: '2027-03-28T02:30', dst: 'gap', note: '02:30 does not exist …' }
 */
export function runJson(run: PreviewRun, zone: string) {
  const moved = movedJson(run, zone);
  return {
    at: run.at.toISOString(),
    local: formatLocal(run.at, zone),
    nominal: run.nominal,
    dst: run.dst,
    note: run.note ?? null,
    ...(moved === undefined ? {} : { moved }),
  };
}

/**
 * What the preview leaves out, in `--json`: one object of one shape per run, in order of its
 * local slot, `{"at", "local", "nominal", "reason", "detail", "note"}`, whatever left it out.
 * A slot a DST night skips has reason `gap` or `overlap` (the engine's `dst` words) and `at`
 * and `local` null (a local time that does not exist has no instant); a run a calendar or a
 * bound removed has reason `calendar`, `from` or `until` and the instant it would have had.
 * At most {@link MAX_LISTED_SKIPS} of the latter; `skippedNotListed` counts the rest.
 *
 * A script reads one shape, not sentences beside objects.
 *
 * @example
 * skippedEntriesJson(previewRuns({ cron: '30 1 * * *', timezone: 'Europe/London',
 *   dst: { gap: 'skip' } }, new Date('2027-03-27T12:00Z'), 1), 'Europe/London').skipped[0]
 * //=> { at: null, local: null, nominal: '2027-03-28T01:30', reason: 'gap',
 * //     detail: '01:30 does not exist on 2027-03-28 in Europe/London',
 * //     note: '01:30 does not exist on 2027-03-28 in Europe/London — skipped (gap policy skip)' }
 */
export function skippedEntriesJson(preview: RunPreview, zone: string) {
  const removed = preview.removed ?? [];
  const listed = removed.slice(0, MAX_LISTED_SKIPS);
  const entries = [
    ...(preview.dstSkipped ?? []).map((slot) => ({
      at: null,
      local: null,
      nominal: slot.nominal,
      reason: slot.kind,
      detail: slot.why,
      note: slot.text,
    })),
    ...listed.map((s) => skippedJson(s, zone)),
  ];
  // Stable: a DST slot and a calendar run of one minute keep the DST slot first.
  entries.sort((a, b) => (a.nominal < b.nominal ? -1 : a.nominal > b.nominal ? 1 : 0));
  const more = removed.length - listed.length;
  return { skipped: entries, ...(more > 0 ? { skippedNotListed: more } : {}) };
}

/**
 * A schedule that never runs, in words: the reason, then how far the search went and why
 * nothing can come later.
 *
 * @example
 * neverLines(reason)
 * //=> ["never runs: every local time it matches falls in Europe/Berlin's spring-forward gap …",
 * //    '  searched up to 2600-01-04T00:00:00Z; what comes later repeats what came before …']
 */
export function neverLines(reason: NeverRunsReason): string[] {
  const lines = [wrap(`never runs: ${reason.message}`, '')];
  if (reason.cause === 'gap-skip') {
    lines.push(
      wrap(
        `searched up to ${formatUtc(reason.searchedUntil)}; what comes later repeats what came before (the calendar every 400 years, and so do ${reason.timezone}'s rules by then), so no later run can come`,
        '  ',
      ),
    );
  }
  return lines;
}

/**
 * Why a schedule never runs, in `--json`: `{"cause", "message", "searchedUntil", "firstSkipped"}`.
 *
 * @example
 * neverJson(reason)
 * //=> { cause: 'gap-skip', message: 'every local time it matches …',
 * //     searchedUntil: '2600-01-04T00:00:00.000Z', firstSkipped: '2027-03-28T02:30' }
 */
export function neverJson(reason: NeverRunsReason) {
  return {
    cause: reason.cause,
    message: reason.message,
    searchedUntil: reason.searchedUntil.toISOString(),
    firstSkipped: reason.firstSkipped?.nominal ?? null,
  };
}
