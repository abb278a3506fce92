/**
 * What a business calendar and a job's `from`/`until` bounds do to its runs, in words and in
 * `--json`, as `next` and `explain` show them: a moved run with the closed day it left and the
 * convention that moved it, a removed run with its reason.
 */

import { DateTime } from 'luxon';
import { formatLocal, zoneLabel } from '#text/zone-time.ts';
import {
  type Occurrence,
  type ScheduleSpec,
  type SkippedRun,
  scheduleBetween,
  WEEKDAY_NAMES,
} from '../../functions/schedule/index.ts';

/** Most removed runs `next` lists for one job; the rest are counted. */
export const MAX_LISTED_SKIPS = 100;

/** Whether a spec has anything that moves or removes runs: a calendar or a bound. */
export function hasCalendarOrBounds(spec: ScheduleSpec): boolean {
  return spec.calendar !== undefined || spec.from !== undefined || spec.until !== undefined;
}

/**
 * A local minute with its weekday and zone label, for sentences.
 *
 * @example
 * localMinute(new Date('2026-12-25T08:00Z'), 'Europe/Berlin') //=> 'Fri 2026-12-25 09:00 CET'
 */
export function localMinute(at: Date, zone: string): string {
  const text = DateTime.fromJSDate(at, { zone })
    .setLocale('en-US')
    .toFormat('ccc yyyy-LL-dd HH:mm');
  return `${text} ${zoneLabel(at, zone)}`;
}

/** `following business day`, or the way a modified convention turned, in words. */
function conventionWords(moved: NonNullable<Occurrence['moved']>, at: Date): string {
  const forward = at.getTime() > moved.nominalAt.getTime();
  const day = forward ? 'following business day' : 'preceding business day';
  const plain = forward ? 'following' : 'preceding';
  return moved.convention === plain ? day : `${day}, ${moved.convention}`;
}

/**
 * A moved run in words: the closed day it left, why, and where it runs.
 *
 * @example
 * movedNote(run, 'Europe/Berlin')
 * //=> 'Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — runs Mon 2026-12-28 09:00 (following business day)'
 */
export function movedNote(run: Occurrence, zone: string): string | undefined {
  const moved = run.moved;
  if (moved === undefined) return undefined;
  const to = DateTime.fromJSDate(run.at, { zone })
    .setLocale('en-US')
    .toFormat('ccc yyyy-LL-dd HH:mm');
  return `${localMinute(moved.nominalAt, zone)} — closed: ${moved.reason} — runs ${to} (${conventionWords(moved, run.at)})`;
}

/**
 * A removed run in words: where it would have been and why it is not a run.
 *
 * @example
 * skippedNote({ at, nominal: '2026-12-25T09:00', reason: 'calendar', detail: 'Christmas Day (DE-BE)' }, 'Europe/Berlin')
 * //=> 'Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — skipped'
 */
export function skippedNote(skip: SkippedRun, zone: string): string {
  const why = skip.reason === 'calendar' ? `closed: ${skip.detail}` : skip.detail;
  return `${localMinute(skip.at, zone)} — ${why} — skipped`;
}

/**
 * The runs a calendar or a bound removed after `after` up to `through` (inclusive), in order;
 * none for a spec without either.
 */
export function removedRuns(spec: ScheduleSpec, after: Date, through: Date): SkippedRun[] {
  if (!hasCalendarOrBounds(spec) || through.getTime() <= after.getTime()) return [];
  return scheduleBetween(spec, after, through).skipped;
}

/**
 * A moved run's `moved` in `--json`: its nominal instant, why, by which convention, in words.
 *
 * @example
 * movedJson(run, 'Europe/Berlin')
 * //=> { nominalAt: '2026-12-25T08:00:00.000Z', reason: 'Christmas Day (DE-BE)',
 * //     convention: 'following', note: 'Fri 2026-12-25 09:00 CET — closed: … (following business day)' }
 */
export function movedJson(run: Occurrence, zone: string) {
  const moved = run.moved;
  if (moved === undefined) return undefined;
  return {
    nominalAt: moved.nominalAt.toISOString(),
    reason: moved.reason,
    convention: moved.convention,
    note: movedNote(run, zone),
  };
}

/**
 * A removed run in `--json`: `{"at", "local", "nominal", "reason", "detail", "note"}`.
 *
 * @example
 * skippedJson(skip, 'Europe/Berlin')
 * //=> { at: '2026-12-25T08:00:00.000Z', local: 'Fri 2026-12-25 09:00 +01:00 CET',
 * //     nominal: '2026-12-25T09:00', reason: 'calendar', detail: 'Christmas Day (DE-BE)',
 * //     note: 'Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — skipped' }
 */
export function skippedJson(skip: SkippedRun, zone: string) {
  return {
    at: skip.at.toISOString(),
    local: formatLocal(skip.at, zone),
    nominal: skip.nominal,
    reason: skip.reason,
    detail: skip.detail,
    note: skippedNote(skip, zone),
  };
}

/** What a calendar and bounds do to a schedule over a window, as `explain` says it. */
export interface CalendarEffects {
  /** One sentence per moved run and per run removed on a closed date or by a bound. */
  readonly lines: readonly string[];
  /** Runs removed because their date is a weekend day, by weekday name: counted, not listed. */
  readonly weekendSkips: ReadonlyMap<string, number>;
}

/** The reason the engine gives a run skipped for falling on a weekend day: the weekday's name. */
const WEEKDAY_REASONS: ReadonlySet<string> = new Set(WEEKDAY_NAMES);

/**
 * Every run a calendar or bound moves or removes between `from` and `to`, in time order, in
 * words; runs skipped for falling on a weekend day only counted, so a year fits a screen.
 *
 * @example
 * calendarEffects(spec, new Date('2026-12-20T00:00Z'), new Date('2027-01-01T00:00Z')).lines[0]
 * //=> 'Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — runs Mon 2026-12-28 09:00 (following business day)'
 */
export function calendarEffects(spec: ScheduleSpec, from: Date, to: Date): CalendarEffects {
  const zone = spec.timezone;
  const { runs, skipped } = scheduleBetween(spec, from, to);
  const weekendSkips = new Map<string, number>();
  const dated: { at: number; text: string }[] = [];
  for (const run of runs) {
    const note = movedNote(run, zone);
    if (note !== undefined && run.moved)
      dated.push({ at: run.moved.nominalAt.getTime(), text: note });
  }
  for (const skip of skipped) {
    if (skip.reason === 'calendar' && WEEKDAY_REASONS.has(skip.detail)) {
      weekendSkips.set(skip.detail, (weekendSkips.get(skip.detail) ?? 0) + 1);
    } else {
      dated.push({ at: skip.at.getTime(), text: skippedNote(skip, zone) });
    }
  }
  dated.sort((a, b) => a.at - b.at);
  return { lines: dated.map((d) => d.text), weekendSkips };
}
