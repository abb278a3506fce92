/**
 * The next runs of a schedule as `next` and `describe` show them: the engine's occurrences,
 * each with its DST note in plain words, and the slots a `skip` policy drops.
 */

import { formatLocal, formatUtc } from '#text/zone-time.ts';
import {
  type NeverRunsReason,
  nextOccurrences,
  nextRun,
  type Occurrence,
  type ScheduleSpec,
} from '../../functions/schedule/index.ts';
import type { Colours } from './colour.ts';
import { occurrenceNote, transitionReports } from './dst-notes.ts';
import { plainTable, wrap } from './table.ts';

/** One run with its DST note (undefined for an ordinary one). */
export interface PreviewRun extends Occurrence {
  readonly note: string | undefined;
}

/** The next runs of a schedule and the slots skipped among them. */
export interface RunPreview {
  readonly runs: readonly PreviewRun[];
  /** What a `skip` gap policy drops between `after` and the last run, one sentence each. */
  readonly skipped: readonly string[];
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
  return {
    never: answer?.kind === 'never' ? answer.reason : undefined,
    runs: occurrences.map((o) => ({ ...o, note: occurrenceNote(spec, o) })),
    skipped: last
      ? transitionReports(spec, after, last.at).flatMap((r) =>
          r.lines.filter((l) => l.skipped).map((l) => l.text),
        )
      : [],
  };
}

/**
 * The runs as a table (local, UTC, nominal) with each DST note under its run, then the
 * skipped slots.
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
    if (run.note) out.push(c.yellow(wrap(run.note, '  ↳ ')));
  });
  if (preview.skipped.length > 0) {
    out.push('');
    for (const line of preview.skipped) out.push(c.yellow(wrap(line, '  ✗ ')));
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
  return {
    at: run.at.toISOString(),
    local: formatLocal(run.at, zone),
    nominal: run.nominal,
    dst: run.dst,
    note: run.note ?? null,
  };
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
