import { DateTime } from 'luxon';
import type { JobDefinition } from '#jobs/job.ts';
import { scheduleSpecOf } from '#jobs/job.ts';
import { formatLocal, formatUtc } from '#text/zone-time.ts';
import {
  occurrencesBetween,
  type ScheduleSpec,
  zoneTransitions,
} from '../../functions/schedule/index.ts';
import type { SimulationCheck } from '../simulation/check.ts';
import type { SimulatedRun, SimulationResult } from '../simulation/run-simulation.ts';
import type { SimulationWindow } from '../simulation/windows.ts';
import { type Colours, coloursFor } from './colour.ts';
import { occurrenceNote, transitionReports } from './dst-notes.ts';
import { explainCron } from './explain.ts';
import { legendLines } from './simulation-legend.ts';
import { plainTable, wrap } from './table.ts';

/** What {@link renderSimulation} shows. */
export interface SimulationReportInput {
  readonly file: string;
  readonly jobs: readonly JobDefinition[];
  readonly result: SimulationResult;
  readonly check: SimulationCheck;
  /** How the windows were chosen, in words. */
  readonly windowsChosen: string;
  readonly duplicateTicks: number;
  readonly elapsedMs: number;
  /** List every run instead of the ones near DST changes. */
  readonly all: boolean;
  /** Explain the report's columns and terms once, after the windows (`--no-legend`: false). */
  readonly legend: boolean;
  /** The `--faults` plan, when one was injected. */
  readonly faults: { readonly file: string; readonly seed: number } | undefined;
}

/** Runs of one job in one window shown in full up to this many. */
const FULL_LIST_MAX = 12;
/** Around a transition, runs this close are always shown. */
const NEAR_TRANSITION_MS = 90 * 60_000;

const n = (value: number) => value.toLocaleString('en-US');
const plural = (count: number, word: string, words = `${word}s`) =>
  `${n(count)} ${count === 1 ? word : words}`;

function minuteIso(date: Date): string {
  return `${date.toISOString().slice(0, 16)}Z`;
}

/** Indexes of the runs worth showing: near a transition, DST-tagged, first and last. */
function shownIndexes(runs: readonly SimulatedRun[], transitions: readonly Date[]): Set<number> {
  const shown = new Set<number>([0, runs.length - 1]);
  runs.forEach((run, i) => {
    const near = transitions.some(
      (t) => Math.abs(run.at.getTime() - t.getTime()) <= NEAR_TRANSITION_MS,
    );
    if (near || run.dst !== 'none') shown.add(i);
  });
  return shown;
}

/** The windows of a job with no DST change, summed into one line (unless `--all`). */
interface QuietWindows {
  readonly windows: number[];
  runs: number;
  /** Windows in which the engine has no run of the job at all. */
  readonly noneScheduled: number[];
}

/** A job's heading, its covering expression, and a block per window. */
function jobBlock(job: JobDefinition, input: SimulationReportInput, c: Colours): string[] {
  const runs = input.result.runs.filter((r) => r.jobId === job.id);
  const quiet: QuietWindows = { windows: [], runs: 0, noneScheduled: [] };
  const blocks: string[][] = [];
  input.result.windows.forEach((window, w) => {
    const inWindow = runs.filter((r) => r.window === w);
    const transitions = zoneTransitions(job.timezone, window.from, window.to).map((t) => t.at);
    if (transitions.length === 0 && !input.all) {
      quiet.windows.push(w + 1);
      quiet.runs += inWindow.length;
      if (!engineHasRuns(job, window)) quiet.noneScheduled.push(w + 1);
      return;
    }
    blocks.push(windowBlock(job, { window, index: w, runs: inWindow, transitions }, input, c));
  });
  return [
    ...jobHeading(job, input.result, runs.length, c),
    ...(quiet.windows.length > 0 ? [quietLine(job, quiet, input.result.windows.length)] : []),
    ...blocks.flat(),
  ];
}

/** `id · schedule · zone → target`, then its covering expression, runs and duplicates. */
function jobHeading(
  job: JobDefinition,
  result: SimulationResult,
  runCount: number,
  c: Colours,
): string[] {
  const duplicates = result.duplicatesByJob.get(job.id) ?? 0;
  return [
    wrap(`${c.bold(job.id)} · ${job.schedule} · ${job.timezone} → ${job.target.type}`, ''),
    c.dim(
      wrap(
        `UTC covering ${result.coverings.get(job.id) ?? '?'} · ${plural(runCount, 'run')}` +
          ` · ${plural(duplicates, 'duplicate')} refused`,
        '  ',
      ),
    ),
  ];
}

/** Whether the engine has any run of the job in the window (what the simulation expects). */
function engineHasRuns(job: JobDefinition, window: SimulationWindow): boolean {
  return occurrencesBetween(scheduleSpecOf(job), window.from, window.to).length > 0;
}

/** `windows 1, 3: 8 runs, no DST change in Europe/Berlin`, and why none when there are none. */
function quietLine(job: JobDefinition, quiet: QuietWindows, windowCount: number): string {
  const which =
    quiet.windows.length === windowCount
      ? windowCount === 1
        ? 'the window'
        : `all ${quiet.windows.length} windows`
      : `window${quiet.windows.length === 1 ? '' : 's'} ${quiet.windows.join(', ')}`;
  const why =
    quiet.runs === 0 && quiet.noneScheduled.length === quiet.windows.length
      ? ` — the schedule has none in ${quiet.windows.length === 1 ? 'it' : 'them'} (${scheduleInWords(job)})`
      : '';
  return hangingWrap(
    `${which}: ${plural(quiet.runs, 'run')}, no DST change in ${job.timezone}${why}`,
  );
}

/** A line of a job's block at indent 2, its continuation lines at indent 4. */
function hangingWrap(text: string): string {
  const wrapped = wrap(text, '    ');
  return `  ${wrapped.slice(4)}`;
}

/** The schedule in words (`explainCron`), `H` resolved for the job. */
function scheduleInWords(job: JobDefinition): string {
  return explainCron(job.schedule, { jobId: job.id });
}

/** A local instant to the minute, with its weekday: `Sat 2027-03-13 02:00`. */
function localMinute(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).setLocale('en-US').toFormat('ccc yyyy-LL-dd HH:mm');
}

/**
 * Why a job has no run in a window, when the engine has none there either: the window's
 * bounds in the job's local time and the schedule in words. A weekday job in a window that
 * spans a weekend reads `the schedule has none between Sat 2027-03-13 02:00 and Mon
 * 2027-03-15 03:00 local (at 09:00 on Monday through Friday)`.
 *
 * @example
 * noRunsReason(nyWeekdayJob, { from: new Date('2027-03-13T07:00Z'), to: new Date('2027-03-15T07:00Z'), reasons: [] })
 * //=> 'the schedule has none between Sat 2027-03-13 02:00 and Mon 2027-03-15 03:00 local (at 09:00 on Monday through Friday)'
 */
export function noRunsReason(job: JobDefinition, window: SimulationWindow): string {
  const from = localMinute(window.from, job.timezone);
  const to = localMinute(window.to, job.timezone);
  return `the schedule has none between ${from} and ${to} local (${scheduleInWords(job)})`;
}

/** One window of a job whose zone changes clocks in it (or any window, with `--all`). */
interface WindowOfJob {
  readonly window: SimulationWindow;
  readonly index: number;
  readonly runs: readonly SimulatedRun[];
  readonly transitions: readonly Date[];
}

/** `window 2: 3 runs`, the runs worth showing, and the local times the schedule skipped. */
function windowBlock(
  job: JobDefinition,
  part: WindowOfJob,
  input: SimulationReportInput,
  c: Colours,
): string[] {
  const { result } = input;
  const label = result.windows.length > 1 ? `window ${part.index + 1}` : 'window';
  const count = plural(part.runs.length, 'run');
  const block =
    part.runs.length === 0 && !engineHasRuns(job, part.window)
      ? [hangingWrap(`${label}: ${count} — ${noRunsReason(job, part.window)}`)]
      : [`  ${label}: ${count}`];
  if (part.runs.length > 0) block.push(...runLines(job, part, input, c));
  block.push(...skippedSlotLines(scheduleSpecOf(job), part.window, c));
  return block;
}

/** The runs' table: all of them, or those near a transition, the folded ones counted. */
function runLines(
  job: JobDefinition,
  part: WindowOfJob,
  input: SimulationReportInput,
  c: Colours,
): string[] {
  const spec = scheduleSpecOf(job);
  const shown =
    input.all || part.runs.length <= FULL_LIST_MAX
      ? new Set(part.runs.map((_, i) => i))
      : shownIndexes(part.runs, part.transitions);
  const table = runTable(job, part.runs, input.result).split('\n');
  const lines = [c.dim(`    ${table[0] ?? ''}`)];
  let hidden = 0;
  part.runs.forEach((run, i) => {
    if (!shown.has(i)) {
      hidden++;
      return;
    }
    if (hidden > 0) lines.push(c.dim(`    ⋮ ${plural(hidden, 'more run')} without DST effect`));
    hidden = 0;
    lines.push(`    ${table[i + 1] ?? ''}`);
    const note = occurrenceNote(spec, run);
    if (note) lines.push(c.yellow(wrap(note, '      ↳ ')));
  });
  return lines;
}

function runTable(
  job: JobDefinition,
  runs: readonly SimulatedRun[],
  result: SimulationResult,
): string {
  return plainTable(
    ['local', 'UTC', 'key', 'dup'],
    runs.map((run) => [
      formatLocal(run.at, job.timezone),
      formatUtc(run.at),
      run.key.slice(0, 8),
      String(result.duplicatesByKey.get(run.key) ?? 0),
    ]),
  );
}

/** `✗ 01:00, 01:15 do not exist on … — skipped`: the local times the job's gap policy skips. */
function skippedSlotLines(spec: ScheduleSpec, window: SimulationWindow, c: Colours): string[] {
  const lines: string[] = [];
  for (const report of transitionReports(spec, window.from, window.to)) {
    for (const line of report.lines) {
      if (line.skipped) lines.push(c.yellow(wrap(line.text, '    ✗ ')));
    }
  }
  return lines;
}

/**
 * The human-readable report of a simulation: the windows, a timeline per job, a summary, the
 * faults injected and the invariants held.
 *
 * Every line fits 80 columns; colour only when stdout is a terminal.
 *
 * @example
 * process.stdout.write(renderSimulation({ file: 'jobs.yaml', jobs, result, check,
 *   windowsChosen: 'the window given by --from/--to', duplicateTicks: 2, elapsedMs: 1200,
 *   all: false, legend: true, faults: undefined }));
 */
export function renderSimulation(input: SimulationReportInput): string {
  const c = coloursFor(process.stdout);
  const out = [...headerLines(input, c)];
  if (input.legend) {
    const legend = { faults: input.faults !== undefined, duplicateTicks: input.duplicateTicks };
    out.push('', ...legendLines(legend, c));
  }
  for (const job of input.jobs) {
    out.push('');
    if (!job.enabled) {
      out.push(`${c.bold(job.id)}: disabled, not simulated`);
      continue;
    }
    out.push(...jobBlock(job, input, c));
  }
  out.push('', c.bold('Summary'), ...summaryLines(input, c));
  if (input.faults) out.push('', ...faultLines(input.result, input.faults, c));
  out.push('', c.bold('Invariants'), ...invariantLines(input.result, c));
  out.push(c.dim(`  took ${(input.elapsedMs / 1000).toFixed(1)} s`));
  return `${out.join('\n')}\n`;
}

function headerLines(input: SimulationReportInput, c: Colours): string[] {
  const { result } = input;
  const enabled = input.jobs.filter((j) => j.enabled);
  const out = [
    wrap(
      `${c.bold(`Simulating ${input.file}`)}: ${plural(enabled.length, 'enabled job')}, the real` +
        ` dispatcher and ledger (in-process DynamoDB), every job tick delivered` +
        ` ${input.duplicateTicks}×`,
      '',
    ),
  ];
  if (input.faults) {
    out.push(wrap(`Faults: ${input.faults.file}, seed ${input.faults.seed}`, ''));
  }
  out.push(
    wrap(
      `${result.windows.length === 1 ? 'Window' : `${result.windows.length} windows`}: ${input.windowsChosen}`,
      '',
    ),
  );
  result.windows.forEach((w, i) => {
    out.push(`  ${i + 1}. ${minuteIso(w.from)} → ${minuteIso(w.to)}`);
    for (const reason of w.reasons) out.push(c.dim(wrap(reason, '       ')));
  });
  return out;
}

function summaryLines(input: SimulationReportInput, c: Colours): string[] {
  const { result } = input;
  const minutes = result.windows.reduce(
    (sum, w) => sum + (w.to.getTime() - w.from.getTime()) / 60_000,
    0,
  );
  const days = Math.round((minutes / 1440) * 10) / 10;
  const out = [
    wrap(
      `simulated ${days} day${days === 1 ? '' : 's'}: ${plural(result.counts.sweeps, 'sweep')}` +
        ` (one a minute) and ${plural(result.counts.ticks, 'covering tick')}, each delivered` +
        ` ${input.duplicateTicks}× (${plural(result.counts.events, 'event')})`,
      '  ',
    ),
  ];
  out.push(...(input.faults ? outcomeLines(result) : checkLines(input, c)));
  out.push(
    wrap(
      `${c.green('✓')} ${`${n(result.duplicatesSuppressed)} duplicate deliver${result.duplicatesSuppressed === 1 ? 'y' : 'ies'}`} refused by the ledger`,
      '  ',
    ),
  );
  if (!input.faults && result.deadLettered.length > 0) {
    out.push(`  ${c.red('✗')} ${plural(result.deadLettered.length, 'run')} dead-lettered`);
  }
  return out;
}

/** Without faults: the result held against the engine, every run exactly once. */
function checkLines(input: SimulationReportInput, c: Colours): string[] {
  const { result, check } = input;
  if (check.ok) {
    return [
      wrap(
        `${c.green('✓')} ${plural(result.runs.length, 'run')} delivered: every run the engine` +
          ' expects, exactly once',
        '  ',
      ),
    ];
  }
  const out = [
    wrap(
      `${c.red('✗')} ${plural(result.runs.length, 'run')} delivered, ${n(check.expected)} expected:` +
        ` ${n(check.missing.length)} missing, ${n(check.doubled.length)} delivered twice,` +
        ` ${n(check.unexpected.length)} unexpected`,
      '  ',
    ),
  ];
  for (const m of check.missing.slice(0, 10)) {
    out.push(`    missing ${m.jobId} at ${m.at.toISOString()} (${m.nominal})`);
  }
  for (const d of check.doubled.slice(0, 10)) {
    out.push(`    ${d.times}× ${d.run.jobId} at ${d.run.at.toISOString()}`);
  }
  for (const u of check.unexpected.slice(0, 10)) {
    out.push(`    unexpected ${u.jobId} at ${u.at.toISOString()}`);
  }
  return out;
}

/** With faults: how the engine's runs ended, by status and skip reason. */
function outcomeLines(result: SimulationReportInput['result']): string[] {
  const byStatus = new Map<string, number>();
  const reasons = new Map<string, number>();
  for (const o of result.outcomes) {
    byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    if (o.reason) reasons.set(o.reason, (reasons.get(o.reason) ?? 0) + 1);
  }
  const statuses = [...byStatus.entries()].map(([status, count]) => `${n(count)} ${status}`);
  const why = [...reasons.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, count]) => `${n(count)} ${reason}`);
  return [
    wrap(
      `${plural(result.outcomes.length, 'run')} the engine expects: ${statuses.join(', ')}` +
        `${why.length > 0 ? ` (skipped: ${why.join(', ')})` : ''};` +
        ` ${plural(result.runs.length, 'delivery', 'deliveries')} in all`,
      '  ',
    ),
  ];
}

function faultLines(
  result: SimulationReportInput['result'],
  faults: { readonly file: string; readonly seed: number },
  c: Colours,
): string[] {
  const f = result.faults;
  const s = result.signals;
  return [
    c.bold(`Faults injected (${faults.file}, seed ${faults.seed})`),
    wrap(
      `${plural(f.droppedByOutage, 'event')} lost to outages · ${plural(f.lateTicks, 'tick')} late` +
        ` · ${plural(f.crashes['after-claim'], 'crash', 'crashes')} after a claim` +
        ` · ${plural(f.crashes['after-delivery'], 'crash', 'crashes')} after a delivery` +
        ` · ${plural(f.throttled, 'ledger request')} throttled · ${plural(f.targetFailures, 'target failure')}` +
        ` · ${plural(f.lambdaRetries, 'Lambda retry', 'Lambda retries')}` +
        ` · ${plural(f.invocationsGivenUp, 'invocation')} given up after Lambda's retries`,
      '  ',
    ),
    wrap(
      `signals raised: ${n(s.missed)} missed · ${n(s.late)} late · ${n(s.stuck)} stuck` +
        ` · ${n(s.deadLettered)} dead-lettered` +
        // Shown when a job has a deadline to miss: reports of jobs without one stay as they were.
        (s.deadlineMissed > 0 ? ` · ${n(s.deadlineMissed)} deadline-missed` : '') +
        ` · ${plural(s.redelivered, 'possible redelivery', 'possible redeliveries')}` +
        ` · ${plural(result.coldStarts, 'dispatcher cold start')}`,
      '  ',
    ),
    ...replayLines(result),
  ];
}

/** What the plan's operators and hostile events did, when it has any. */
function replayLines(result: SimulationReportInput['result']): string[] {
  const { operator, hostile } = result;
  if (operator.length === 0 && hostile.length === 0) return [];
  const refused = operator.filter((o) => !o.ok).length;
  const counted = hostile.filter((h) => h.counted.length > 0).length;
  const thrown = hostile.filter((h) => h.threw !== null).length;
  return [
    wrap(
      `${plural(operator.length, 'operator action')} (${n(refused)} refused or failed)` +
        ` · ${plural(hostile.length, 'hostile event')} (${n(counted)} counted by the` +
        ` functions, ${n(thrown)} thrown)`,
      '  ',
    ),
  ];
}

function invariantLines(result: SimulationReportInput['result'], c: Colours): string[] {
  return result.invariants.map((i) => {
    // Wrapped under the text, not under the mark (whose colour codes take no column).
    const body = wrap(`${i.name}: ${i.detail}`, '    ');
    return `  ${i.ok ? c.green('✓') : c.red('✗')} ${body.slice(4)}`;
  });
}
