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
import { pauseText } from './run-history.ts';
import {
  type ColumnRow,
  columnTable,
  columnWidths,
  hardWrap,
  TERMINAL_COLUMNS,
  wrap,
} from './table.ts';

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

/** Widest schedule or zone before it wraps; job ids get what is left of 80 columns. */
const SCHEDULE_WIDTH = 20;
/** Narrowest a job id wraps at, however wide the other columns. */
const MIN_ID_WIDTH = 12;
/** Widest run status before it wraps (`skipped (catch-up-latest)`). */
const STATUS_WIDTH = 20;

/** The table's head: two lines per column, like its rows; the last run's only when read. */
const HEAD: ColumnRow = ['job\ntarget', 'schedule\nzone', 'next run: local\nUTC'];
const LAST_HEAD = 'last run: status\nUTC';

/**
 * The text of `list`: a headline, the notes on what was not read, one two-line row per job
 * (pause and drift under it), and the group's drift.
 *
 * @example
 * listText(jobList(input), c).split('\n')[0]
 * //=> 'jobs.yaml: 6 jobs (6 enabled) · offline, from the jobs file alone'
 */
export function listText(list: JobList, c: Colours): string {
  const withLast = list.input.lastRuns !== undefined;
  const head = withLast ? [...HEAD, LAST_HEAD] : HEAD;
  const rest = list.jobs.map((job) => restOfRow(job, withLast, c));
  const restWidth = columnWidths([head.slice(1), ...rest]).reduce((sum, w) => sum + w + 2, 0);
  const idWidth = Math.max(MIN_ID_WIDTH, TERMINAL_COLUMNS - restWidth);
  const rows = list.jobs.flatMap((job, i) => [
    [idCell(job, idWidth, c), ...(rest[i] ?? [])],
    ...notesUnder(job, c),
  ]);
  return [
    ...headline(list.input, list.jobs),
    '',
    columnTable(
      head.map((title) => title.split('\n').map(c.dim).join('\n')),
      rows,
    ),
    ...groupLines(list, c),
  ].join('\n');
}

function headline(input: JobListInput, jobs: readonly ListedJob[]): string[] {
  const count = (state: ListedJob['state']) => jobs.filter((j) => j.state === state).length;
  const parts = [`${count('enabled') + count('paused')} enabled`];
  if (count('paused') > 0) parts.push(`${count('paused')} paused`);
  if (count('disabled') > 0) parts.push(`${count('disabled')} disabled`);
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

function idCell(job: ListedJob, width: number, c: Colours): string {
  const state =
    job.state === 'paused' ? c.yellow('paused') : job.state === 'disabled' ? c.dim('disabled') : '';
  return `${hardWrap(job.id, width)}\n${state ? `${job.target} · ${state}` : job.target}`;
}

/** The cells after the job's: schedule and zone, next run, and the last run when read. */
function restOfRow(job: ListedJob, withLast: boolean, c: Colours): ColumnRow {
  const cells = [
    `${wrap(job.schedule, '', SCHEDULE_WIDTH)}\n${hardWrap(job.timezone, SCHEDULE_WIDTH)}`,
    job.next ? `${job.nextLocal}\n${utcMinute(job.next)}` : c.dim('—'),
  ];
  if (!withLast) return cells;
  const last = job.last
    ? `${wrap(lastStatus(job.last, c), '', STATUS_WIDTH)}\n${utcMinute(job.last.at)}`
    : c.dim('—');
  return [...cells, last];
}

/** `2026-12-01 01:30 UTC` */
function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function lastStatus(last: LastRunJson, c: Colours): string {
  if (last.status === 'not-recorded') return c.yellow('not recorded');
  if (last.status === 'skipped') return c.yellow(`skipped (${last.skipReason ?? 'unknown'})`);
  if (last.status === 'failed') {
    return c.red(last.failure === 'delivery' ? 'dead-lettered' : 'failed');
  }
  if (last.status === 'claimed' || last.status === 'delivery-failed') return c.yellow(last.status);
  return c.green(last.status);
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
