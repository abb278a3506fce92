import type { Colours } from './colour.ts';
import { wrap } from './table.ts';

/** One term of the legend and what it means. */
interface LegendEntry {
  readonly term: string;
  readonly meaning: string;
}

/** The terms every report shows, in the order a reader meets them. */
const ENTRIES: readonly LegendEntry[] = [
  {
    term: 'UTC covering',
    meaning:
      'the UTC schedule the stack deploys for the job: it fires at every UTC time a run' +
      " can fall on in any of the zone's offsets; the dispatcher decides which fires are runs",
  },
  { term: 'local, UTC', meaning: "when a run was due, in the job's zone and in UTC" },
  {
    term: 'key',
    meaning:
      "the run's ledger key (first 8 hex digits): the same for every copy of its tick, so" +
      ' only one copy claims the run',
  },
  { term: 'dup', meaning: "copies of the run's tick the ledger refused as duplicates" },
  {
    term: '↳  ✗  ⋮',
    meaning:
      'what DST did to the run · local times skipped because they do not exist · ordinary' +
      ' runs folded (--all lists them)',
  },
  {
    term: 'sweeps',
    meaning:
      "the dispatcher's one-minute safety net: it catches up runs no tick decided and" +
      ' settles runs still open',
  },
];

/** The terms only a report with `--faults` shows. */
const FAULT_ENTRIES: readonly LegendEntry[] = [
  {
    term: 'signals',
    meaning:
      'notifications to the on-call topic: missed, late, stuck, dead-lettered, deadline-missed',
  },
];

const TERM_INDENT = '  ';

/** What the legend depends on: the terms of `--faults`, the copies of each tick. */
export interface LegendOptions {
  readonly faults: boolean;
  readonly duplicateTicks: number;
}

/**
 * The legend of the simulation report: what its columns and terms mean, once per report.
 *
 * The report is the first thing `npm start` shows a newcomer, and it speaks the project's
 * words (covering schedules, sweeps, ledger keys); the legend says what they mean in one line
 * or two each. `--no-legend` leaves it out; `--json` never has it.
 *
 * @example
 * legendLines({ faults: false, duplicateTicks: 2 }, plainColours)[0]
 * //=> 'How to read it'
 */
export function legendLines(options: LegendOptions, c: Colours): string[] {
  const ticks: LegendEntry = {
    term: 'covering ticks',
    meaning: `fires of the covering schedules, each delivered ${options.duplicateTicks}× (--duplicate-ticks)`,
  };
  const entries = [...ENTRIES, ticks, ...(options.faults ? FAULT_ENTRIES : [])];
  const termWidth = Math.max(...entries.map((e) => [...e.term].length)) + 2;
  const hanging = ' '.repeat(TERM_INDENT.length + termWidth);
  const lines = entries.map((entry) => {
    const text = wrap(entry.meaning, hanging);
    const term = `${TERM_INDENT}${entry.term}`.padEnd(hanging.length, ' ');
    return c.dim(`${term}${text.slice(hanging.length)}`);
  });
  return [c.bold('How to read it'), ...lines, c.dim(`${TERM_INDENT}(--no-legend leaves this out)`)];
}
