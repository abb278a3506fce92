/**
 * `zonecron list`: one row per job of the jobs file, and what the deployment says of it when
 * it was read (pause, last run, deployed schedule). Pure: the command reads, this builds the
 * rows, the `--json` document and the text.
 */
import { DateTime } from 'luxon';
import { type JobDefinition, scheduleSpecOf, type TargetType } from '#jobs/job.ts';
import type { RunStatus } from '#ledger/index.ts';
import { zoneAbbreviation } from '#text/zone-time.ts';
import { nextOccurrences } from '../../functions/schedule/index.ts';
import type { DeployedSchedule } from '../deployed/deployed-schedule.ts';
import type { PauseState } from '../deployed/pause-state.ts';
import type { LastRun } from '../deployed/run-reads.ts';
import {
  expectedSchedule,
  type GroupDrift,
  groupDrift,
  type ScheduleDrift,
  scheduleDrift,
} from '../deployed/schedule-drift.ts';
import type { Colours } from './colour.ts';
import { type JobEnd, jobEnd } from './job-bounds.ts';
import { pauseText } from './run-history.ts';
import { columnTable, columnWidths, fitWidths, TERMINAL_COLUMNS, truncate, wrap } from './table.ts';

/** What `list` knows: the jobs file, and whatever of the deployment it read. */
export interface JobListInput {
  readonly file: string;
  readonly jobs: readonly JobDefinition[];
  /** Next runs are the first after this instant. */
  readonly after: Date;
  /** Pauses from the ledger; undefined when the ledger was not read. */
  readonly pauses?: ReadonlyMap<string, PauseState>;
  /** Last scheduled runs from the ledger; undefined when the ledger was not read. */
  readonly lastRuns?: ReadonlyMap<string, LastRun>;
  /**
   * The schedule group's schedules (`ListSchedules`), those of enabled jobs with their
   * expressions and inputs (`GetSchedule`) when compared; undefined when not read.
   */
  readonly schedules?: ReadonlyMap<string, DeployedSchedule>;
  /**
   * The covering `cron(…)` the jobs file gives each enabled job with a deployed schedule, to
   * compare its expression with; undefined when expressions were not compared.
   */
  readonly coverings?: ReadonlyMap<string, string>;
  /** Where the deployed state came from, and what was not read and why. */
  readonly deployment: ListDeployment;
}

/** Where `list` read the deployed state; `stack`, `table` and `scheduleGroup` null when not. */
export interface ListDeployment {
  readonly stack: string | null;
  readonly table: string | null;
  readonly scheduleGroup: string | null;
  /** What was not read, and how to read it. */
  readonly notes: readonly string[];
}

/** A job's last scheduled run in `--json`. */
export interface LastRunJson {
  readonly at: string;
  readonly nominal: string;
  readonly key: string;
  /** The ledger's status, or `not-recorded` when the ledger has no item for the run. */
  readonly status: RunStatus | 'not-recorded';
  readonly skipReason: string | null;
  readonly failure: 'delivery' | 'execution' | null;
  readonly signals: readonly string[];
}

/** One job of `list --json` (docs/cli.md, "zonecron list"). */
export interface ListedJob {
  readonly id: string;
  readonly schedule: string;
  readonly timezone: string;
  readonly target: TargetType;
  readonly enabled: boolean;
  /** `disabled` by the jobs file, `paused` in the ledger, else `enabled`. */
  readonly state: 'enabled' | 'paused' | 'disabled';
  /** The pause, when the ledger says the job is paused. */
  readonly pause: PauseState | null;
  /** UTC ISO instant of the schedule's next run; null for a disabled job. */
  readonly next: string | null;
  /** The same in the job's zone: `2026-12-01 02:30 CET`. */
  readonly nextLocal: string | null;
  readonly last: LastRunJson | null;
  /** The schedule's state in the group (`ENABLED`, `DISABLED`, `missing`); null when not read. */
  readonly deployedSchedule: string | null;
  /** How the deployed schedule differs from the jobs file; null when not compared. */
  readonly drift: readonly ScheduleDrift[] | null;
  /** How the job ended by `after` (its `until:` passed, its `at:` run past); null while it runs. */
  readonly ended: JobEnd | null;
}

/** What `list` shows: its input, the rows, and the group's drift (null when not read). */
export interface JobList {
  readonly input: JobListInput;
  readonly jobs: readonly ListedJob[];
  readonly group: GroupDrift | null;
}

/**
 * The rows of `list`: every job of the file with its next run, and its pause, last run and
 * schedule drift where those were read; the schedules no job owns and the sweep's state.
 *
 * @example
 * jobList({ file: 'jobs.yaml', jobs, after, deployment: offline }).jobs[0]
 * //=> { id: 'berlin-nightly-report', state: 'enabled', next: '2027-03-28T01:30:00.000Z',
 * //     nextLocal: '2027-03-28 03:30 CEST', pause: null, last: null, drift: null, … }
 */
export function jobList(input: JobListInput): JobList {
  const ids = input.jobs.map((job) => job.id);
  return {
    input,
    jobs: listedJobs(input),
    group: input.schedules ? groupDrift(ids, input.schedules) : null,
  };
}

function listedJobs(input: JobListInput): ListedJob[] {
  return input.jobs.map((job) => {
    const pause = input.pauses?.get(job.id);
    const next = job.enabled ? nextOccurrences(scheduleSpecOf(job), input.after, 1)[0] : undefined;
    const deployed = input.schedules?.get(job.id);
    const last = input.lastRuns?.get(job.id);
    return {
      id: job.id,
      schedule: job.schedule,
      timezone: job.timezone,
      target: job.target.type,
      enabled: job.enabled,
      state: !job.enabled ? 'disabled' : pause?.paused ? 'paused' : 'enabled',
      pause: pause?.paused ? pause : null,
      next: next ? next.at.toISOString() : null,
      nextLocal: next ? localMinute(next.at, job.timezone) : null,
      last: last ? lastRunJson(last) : null,
      deployedSchedule: input.schedules ? (deployed?.state ?? 'missing') : null,
      drift: input.schedules
        ? scheduleDrift(expectedSchedule(job, input.coverings?.get(job.id)), deployed)
        : null,
      ended: jobEnd(job, input.after),
    };
  });
}

/**
 * Abbreviations by zone and offset: reading one costs ICU about half a millisecond (several
 * locales are tried), and 10,000 jobs share a few dozen zones and offsets.
 */
const abbreviations = new Map<string, string>();

/** `2026-12-01 02:30 CET`: the minute in the zone and its abbreviation (or `+0545`). */
function localMinute(at: Date, zone: string): string {
  const dt = DateTime.fromJSDate(at, { zone });
  const key = `${zone} ${dt.offset}`;
  let label = abbreviations.get(key);
  if (label === undefined) {
    label = zoneAbbreviation(at, zone) ?? dt.toFormat('ZZZ');
    abbreviations.set(key, label);
  }
  return `${dt.toFormat('yyyy-LL-dd HH:mm')} ${label}`;
}

function lastRunJson(last: LastRun): LastRunJson {
  const run = last.run;
  return {
    at: last.at,
    nominal: last.nominal,
    key: last.key,
    status: run?.status ?? 'not-recorded',
    skipReason: run?.skipReason ?? null,
    failure: run?.failure ?? null,
    signals: run?.signals ?? [],
  };
}

/**
 * The `--json` document of `list`: `{"file", "after", "deployment", "jobs", "group"}`; `group`
 * (schedules no job owns, the sweep's state) is null when the schedules were not read.
 *
 * @example
 * JSON.stringify(listJson(jobList(input)))
 * //=> '{"file":"jobs.yaml","after":"…","deployment":{…},"jobs":[…],"group":null}'
 */
export function listJson({ input, jobs, group }: JobList) {
  return {
    file: input.file,
    after: input.after.toISOString(),
    deployment: input.deployment,
    jobs,
    group,
  };
}

/** The colours a cell of `list` may take. */
type Tint = 'dim' | 'yellow' | 'red' | 'green';

/** A column of the `list` table: its head, its cell for a job, whether it may be cut. */
interface ListColumn {
  readonly head: string;
  /** The cell as plain text (it is cut before it is coloured), and its colour. */
  readonly cell: (job: ListedJob) => { readonly text: string; readonly colour?: Tint };
  /** False for the job id: a reader greps for it, so it is never cut. */
  readonly shrinkable: boolean;
}

const JOB_COLUMN: ListColumn = { head: 'job', cell: (j) => ({ text: j.id }), shrinkable: false };
const SCHEDULE_COLUMN: ListColumn = {
  head: 'schedule',
  cell: (j) => ({ text: j.schedule }),
  shrinkable: true,
};
const ZONE_COLUMN: ListColumn = {
  head: 'zone',
  cell: (j) => ({ text: j.timezone }),
  shrinkable: true,
};
const NEXT_COLUMN: ListColumn = { head: 'next run', cell: nextCell, shrinkable: false };
const LAST_COLUMN: ListColumn = { head: 'last run', cell: lastCell, shrinkable: true };

/** `-o wide` only: what the default table leaves out, never cut. */
const WIDE_COLUMNS: Record<string, ListColumn> = {
  target: { head: 'target', cell: (j) => ({ text: j.target }), shrinkable: false },
  state: { head: 'state', cell: stateCell, shrinkable: false },
  nextUtc: {
    head: 'next run (UTC)',
    cell: (j) => (j.next ? { text: utcMinute(j.next) } : { text: '—', colour: 'dim' }),
    shrinkable: false,
  },
  lastUtc: {
    head: 'last run (UTC)',
    cell: (j) => (j.last ? { text: utcMinute(j.last.at) } : { text: '—', colour: 'dim' }),
    shrinkable: false,
  },
};

/** How `list` lays its table out: `table` fits 80 columns, `wide` shows every column whole. */
export type ListLayout = 'table' | 'wide';

function columnsFor(layout: ListLayout, withLast: boolean): ListColumn[] {
  const { target, state, nextUtc, lastUtc } = WIDE_COLUMNS;
  if (layout === 'table') {
    return [
      JOB_COLUMN,
      SCHEDULE_COLUMN,
      ZONE_COLUMN,
      NEXT_COLUMN,
      ...(withLast ? [LAST_COLUMN] : []),
    ];
  }
  const wide = [JOB_COLUMN, target, state, SCHEDULE_COLUMN, ZONE_COLUMN, NEXT_COLUMN, nextUtc];
  return (withLast ? [...wide, LAST_COLUMN, lastUtc] : wide).filter(
    (column): column is ListColumn => column !== undefined,
  );
}

/**
 * The text of `list`: a headline, the notes on what was not read, one line per job (its id
 * whole, so `zonecron list | grep <id>` finds it; pause and drift on lines of their own under
 * it), and the group's drift. The `table` layout fits 80 columns by cutting the schedule, the
 * zone and the last run with `…`; `wide` cuts nothing and adds target, state and UTC times.
 *
 * @example
 * listText(jobList(input), c).split('\n')[0]
 * //=> 'jobs.yaml: 6 jobs (6 enabled) · offline, from the jobs file alone'
 */
export function listText(list: JobList, c: Colours, layout: ListLayout = 'table'): string {
  const columns = columnsFor(layout, list.input.lastRuns !== undefined);
  const cells = list.jobs.map((job) => columns.map((column) => column.cell(job)));
  const natural = columnWidths([
    columns.map((column) => column.head),
    ...cells.map((row) => row.map((cell) => cell.text)),
  ]);
  const widths =
    layout === 'wide'
      ? natural
      : fitWidths(
          natural,
          columns.map((column) => column.shrinkable),
          TERMINAL_COLUMNS,
        );
  const render = (text: string, i: number, colour?: Tint) => {
    const cut = truncate(text, widths[i] ?? text.length);
    return colour ? c[colour](cut) : cut;
  };
  const rows = list.jobs.flatMap((job, j) => [
    (cells[j] ?? []).map((cell, i) => render(cell.text, i, cell.colour)),
    ...notesUnder(job, c),
  ]);
  return [
    ...headline(list.input, list.jobs),
    '',
    columnTable(
      columns.map((column, i) => c.dim(render(column.head, i))),
      rows,
    ),
    ...groupLines(list, c),
  ].join('\n');
}

/** The next run in the job's zone; `disabled`, `paused` or `ended` instead when it will not run. */
function nextCell(job: ListedJob): { text: string; colour?: Tint } {
  if (job.state === 'disabled') return { text: 'disabled', colour: 'dim' };
  if (job.state === 'paused') return { text: 'paused', colour: 'yellow' };
  if (job.ended) return { text: 'ended', colour: 'dim' };
  return job.nextLocal ? { text: job.nextLocal } : { text: '—', colour: 'dim' };
}

function stateCell(job: ListedJob): { text: string; colour?: Tint } {
  if (job.state === 'paused') return { text: 'paused', colour: 'yellow' };
  if (job.state === 'disabled') return { text: 'disabled', colour: 'dim' };
  if (job.ended) return { text: 'ended', colour: 'dim' };
  return { text: 'enabled' };
}

function headline(input: JobListInput, jobs: readonly ListedJob[]): string[] {
  const count = (state: ListedJob['state']) => jobs.filter((j) => j.state === state).length;
  const parts = [`${count('enabled') + count('paused')} enabled`];
  if (count('paused') > 0) parts.push(`${count('paused')} paused`);
  if (count('disabled') > 0) parts.push(`${count('disabled')} disabled`);
  const ended = jobs.filter((j) => j.state !== 'disabled' && j.ended).length;
  if (ended > 0) parts.push(`${ended} ended`);
  const drifted = jobs.filter((j) => (j.drift?.length ?? 0) > 0).length;
  if (drifted > 0) parts.push(`${drifted} drifted`);
  const { stack, table, scheduleGroup } = input.deployment;
  const where =
    table === null
      ? 'offline, from the jobs file alone'
      : [stack && `stack ${stack}`, `ledger ${table}`, scheduleGroup && `group ${scheduleGroup}`]
          .filter(Boolean)
          .join(', ');
  return [
    wrap(
      `${input.file}: ${jobs.length} job${jobs.length === 1 ? '' : 's'} (${parts.join(', ')}) · ${where}`,
      '',
    ),
    ...input.deployment.notes.map((note) => wrap(note, 'note: ')),
    `next runs after ${input.after.toISOString()}`,
  ];
}

/** `2026-12-01 01:30 UTC` */
function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The last scheduled run's status, coloured by what it asks of a reader. */
function lastCell(job: ListedJob): { text: string; colour?: Tint } {
  const last = job.last;
  if (!last) return { text: '—', colour: 'dim' };
  if (last.status === 'not-recorded') return { text: 'not recorded', colour: 'yellow' };
  if (last.status === 'skipped') {
    return { text: `skipped (${last.skipReason ?? 'unknown'})`, colour: 'yellow' };
  }
  if (last.status === 'failed') {
    return { text: last.failure === 'delivery' ? 'dead-lettered' : 'failed', colour: 'red' };
  }
  if (last.status === 'claimed' || last.status === 'delivery-failed') {
    return { text: last.status, colour: 'yellow' };
  }
  return { text: last.status, colour: 'green' };
}

function notesUnder(job: ListedJob, c: Colours): string[] {
  const notes: string[] = [];
  if (job.pause) notes.push(c.yellow(wrap(`paused ${pauseText(job.pause)}`, '  ↳ ')));
  for (const drift of job.drift ?? []) {
    notes.push(c.red(wrap(`drift (${drift.kind}): ${drift.text}`, '  ✗ ')));
  }
  return notes;
}

function groupLines({ input, group }: JobList, c: Colours): string[] {
  if (!group) return [];
  const lines: string[] = [];
  if (group.sweep !== 'ENABLED') {
    lines.push(
      c.red(
        wrap(
          `drift (sweep): the sweep's schedule (zonecron.sweep) is ${group.sweep.toLowerCase()}: missed runs are not caught up and no missed, late or stuck signal is raised; npx cdk deploy --all puts it back`,
          '✗ ',
        ),
      ),
    );
  }
  if (group.extra.length > 0) {
    const names = group.extra.map((s) => `${s.name} (${s.state})`).join(', ');
    lines.push(
      c.red(
        wrap(
          `drift (extra): ${group.extra.length} schedule${group.extra.length === 1 ? '' : 's'} in the group that no job of ${input.file} owns: ${names}`,
          '✗ ',
        ),
      ),
    );
  }
  return lines.length > 0 ? ['', ...lines] : [];
}
