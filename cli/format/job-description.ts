/**
 * `zonecron describe`: one job, its definition with defaults applied, its UTC covering, next
 * runs, the zone data and its warnings, and what the deployment says of it where it was read
 * (pause, last runs, open signals, the deployed schedule and its drift). Pure: the command
 * reads, this builds the `--json` document and the text.
 */

import type { JobDefinition } from '#jobs/job.ts';
import type { RunItem } from '#ledger/index.ts';
import { formatUtc } from '#text/zone-time.ts';
import type { DstPolicies, ScheduleKind } from '../../functions/schedule/index.ts';
import { formatDurationSeconds } from '../../infra/config/duration.ts';
import type { CoveringSchedule } from '../../infra/covering/covering-cron.ts';
import type { DeployedSchedule } from '../deployed/deployed-schedule.ts';
import type { PauseState } from '../deployed/pause-state.ts';
import type { SkipRangesRead } from '../deployed/run-reads.ts';
import { expectedSchedule, type ScheduleDrift, scheduleDrift } from '../deployed/schedule-drift.ts';
import { type ZoneDataReport, zoneDataLines } from '../zone-data/report.ts';
import { type CalendarSkips, calendarSkipLines, calendarSkipsJson } from './calendar-skips.ts';
import type { Colours } from './colour.ts';
import type { HolidayDataInUse } from './config-warnings.ts';
import { holidayDataLine } from './config-warnings.ts';
import {
  boundsText,
  calendarText,
  deadlineText,
  endText,
  type JobEnd,
  jobEnd,
} from './job-bounds.ts';
import type { ListDeployment } from './job-list.ts';
import { lagMs, pauseText, runHistoryLines } from './run-history.ts';
import {
  neverJson,
  type RunPreview,
  runJson,
  runTableLines,
  skippedEntriesJson,
} from './run-preview.ts';
import { type RunSignal, runSignals } from './run-signals.ts';
import { count, skipRangesSummary } from './skip-ranges.ts';
import { wrap } from './table.ts';

/** What `describe` knows of a job: the jobs file's, and whatever of the deployment it read. */
export interface DescribeInput {
  readonly file: string;
  readonly job: JobDefinition;
  /** The clock's reading: open runs are judged against it. */
  readonly now: Date;
  /** The next runs are the first after this instant. */
  readonly after: Date;
  /** The expression in words (`explainCron`), and how to write it when it looks AWS-style. */
  readonly sentence: string;
  readonly hint: string | undefined;
  readonly kind: ScheduleKind;
  readonly policies: DstPolicies;
  /** The UTC covering the stack deploys for the job (`coveringSchedule`). */
  readonly covering: CoveringSchedule;
  readonly preview: RunPreview;
  /** The zone data in use and its warnings for this job (`zoneDataReport([job], after)`). */
  readonly zoneData: ZoneDataReport;
  /**
   * The `date-holidays` release the job's calendar's holidays come from; null or absent when
   * its calendar names none.
   */
  readonly holidayData?: HolidayDataInUse | null;
  /** The pause from the ledger; undefined when the ledger was not read. */
  readonly pause?: PauseState;
  /** The newest runs from the ledger (`byJob`); undefined when not read. */
  readonly runs?: readonly RunItem[];
  /**
   * The skip ranges (a long gap's older skipped runs) that end within the last
   * `retentionDays`, from `since`; undefined when not read.
   */
  readonly ranges?: {
    readonly since: Date;
    readonly retentionDays: number;
    readonly read: SkipRangesRead;
  };
  /**
   * The runs the job's calendar skipped among its last runs (computed: the ledger has no item
   * for them), the newest `lastCount`, and how many more; null without a calendar, undefined
   * when the ledger was not read.
   */
  readonly calendarSkipped?: { readonly skips: CalendarSkips; readonly notListed: number } | null;
  /** How many of `runs` the text and `last` show; the signals look at all of them. */
  readonly lastCount: number;
  /** The job's schedule (`GetSchedule`), null when the group has none; undefined when not read. */
  readonly schedule?: DeployedSchedule | null;
  readonly deployment: ListDeployment;
}

/** `describe`'s findings: the input, its state, the signals and the drift (null where not read). */
export interface JobDescription {
  readonly input: DescribeInput;
  /** `disabled` by the jobs file, `paused` in the ledger, else `enabled`. */
  readonly state: 'enabled' | 'paused' | 'disabled';
  readonly signals: readonly RunSignal[] | null;
  readonly drift: readonly ScheduleDrift[] | null;
  /** How the job ended by `now` (its `until:` passed, its `at:` run past); null while it runs. */
  readonly ended: JobEnd | null;
}

/**
 * The job's state, the signals among the runs read, and the drift of the deployed schedule
 * from the jobs file: its existence and state, its expression against the covering, its input
 * against the job's tick.
 *
 * @example
 * describeJob({ ...input, schedule: { name: 'nightly', state: 'ENABLED',
 *   expression: 'cron(30 1 * * ? *)', timezone: 'UTC', input: tickInput('nightly') } }).drift
 * //=> [{ kind: 'expression', text: "schedule fires on cron(30 1 * * ? *) in UTC, but …" }]
 */
export function describeJob(input: DescribeInput): JobDescription {
  const { job } = input;
  const expected = expectedSchedule(job, input.covering.awsExpression);
  return {
    input,
    state: !job.enabled ? 'disabled' : input.pause?.paused ? 'paused' : 'enabled',
    signals: input.runs ? runSignals(job, input.runs, input.now) : null,
    drift:
      input.schedule === undefined ? null : scheduleDrift(expected, input.schedule ?? undefined),
    ended: jobEnd(job, input.now),
  };
}

/**
 * The `--json` document of `describe` (docs/cli.md, "zonecron describe"): the jobs file's
 * view first, then the deployment's, `null` where it was not read.
 *
 * @example
 * describeJson(describeJob(input)).covering //=> 'cron(30 0,1 * * ? *)'
 */
export function describeJson({ input, state, signals, drift, ended }: JobDescription) {
  const { job, covering, preview } = input;
  return {
    file: input.file,
    after: input.after.toISOString(),
    job,
    state,
    sentence: input.sentence,
    hint: input.hint ?? null,
    kind: input.kind,
    policies: input.policies,
    covering: covering.awsExpression,
    coveringCron: covering.cron,
    ticksPerRun: covering.ticksPerRun,
    covers: covering.covers,
    next: preview.runs.map((run) => runJson(run, job.timezone)),
    ...skippedEntriesJson(preview, job.timezone),
    ...(preview.never === undefined ? {} : { never: neverJson(preview.never) }),
    zoneData: input.zoneData,
    deployment: input.deployment,
    pause: input.pause ?? null,
    last: input.runs
      ? input.runs.slice(0, input.lastCount).map((run) => ({ ...run, lagMs: lagMs(run) ?? null }))
      : null,
    ranges: input.ranges ? skipRangesSummary(input.ranges.read, input.ranges.since) : null,
    calendarSkipped: input.calendarSkipped
      ? {
          ...calendarSkipsJson(input.calendarSkipped.skips),
          notListed: input.calendarSkipped.notListed,
        }
      : null,
    signals,
    deployedSchedule: deployedJson(input.schedule, job.id),
    drift,
    ended,
    holidayData: input.holidayData ?? null,
  };
}

function deployedJson(schedule: DeployedSchedule | null | undefined, name: string) {
  if (schedule === undefined) return null;
  return schedule ?? { name, state: 'missing' };
}

/**
 * The text of `describe`: the definition, the next runs and the zone data, then what the
 * deployment says (the last runs, the signals, the deployed schedule and its drift) or a note
 * on why it is not shown.
 *
 * @example
 * describeText(describeJob(input), c).split('\n')[0]
 * //=> 'berlin-nightly-report: Nightly sales report for the Berlin office'
 */
export function describeText(description: JobDescription, c: Colours): string {
  const { input } = description;
  return [
    headline(input, c),
    definitionLines(description, c),
    nextLines(input, c),
    [
      ...zoneDataLines(input.zoneData, c),
      ...(input.holidayData ? [holidayDataLine(input.holidayData)] : []),
    ],
    lastLines(input, c),
    signalLines(description, c),
    scheduleLines(description, c),
  ]
    .filter((section) => section.length > 0)
    .map((section) => section.join('\n'))
    .join('\n\n');
}

function headline({ job, file, deployment }: DescribeInput, c: Colours): string[] {
  const { stack, table, scheduleGroup } = deployment;
  const where =
    table === null
      ? 'offline'
      : [stack && `stack ${stack}`, `ledger ${table}`, scheduleGroup && `group ${scheduleGroup}`]
          .filter(Boolean)
          .join(', ');
  return [
    wrap(`${c.bold(job.id)}: ${job.description}`, ''),
    wrap(`from ${file}, with its defaults · ${where}`, ''),
    ...deployment.notes.map((note) => wrap(note, 'note: ')),
  ];
}

/** A label and its value, the value wrapped under itself. */
function field(label: string, value: string): string {
  return wrap(value, `  ${label.padEnd(12)} `);
}

function definitionLines(description: JobDescription, c: Colours): string[] {
  const { job, covering, policies } = description.input;
  const catchup = job.catchup;
  const ticks = Math.round(covering.ticksPerRun * 100) / 100;
  return [
    field('schedule', `${job.schedule} in ${job.timezone}`),
    field('', description.input.sentence),
    ...(description.input.hint ? [c.yellow(field('hint', description.input.hint))] : []),
    field(
      '',
      `${description.input.kind} schedule: gap ${policies.gap}, overlap ${policies.overlap}`,
    ),
    field(
      'UTC covering',
      `${covering.awsExpression}, ${ticks} tick${ticks === 1 ? '' : 's'} per run${job.enabled ? '' : ' (not deployed: the job is disabled)'}`,
    ),
    ...calendarLines(job),
    stateLine(description, c),
    ...(description.ended ? [c.yellow(field('', endText(description.ended)))] : []),
    field('target', `${job.target.type} ${job.target.arn}`),
    field('payload', job.payload === null ? 'none' : JSON.stringify(job.payload)),
    field(
      'catch-up',
      `${catchup.policy}, within ${formatDurationSeconds(catchup.windowSeconds)}, at most ${catchup.maxRuns} runs`,
    ),
    field('retry', `${job.retry.maxAttempts} attempts, then the dead-letter queue`),
    field('concurrency', job.concurrency),
    field('max runtime', formatDurationSeconds(job.maxRuntimeSeconds)),
    field(
      'alarm',
      `grace ${formatDurationSeconds(job.alarm.graceSeconds)}, dedicated alarms ${job.alarm.dedicated ? 'yes' : 'no'}`,
    ),
  ];
}

/** The calendar, bounds or `at`, and deadline lines, those the job has. */
function calendarLines(job: JobDefinition): string[] {
  const lines: [string, string | undefined][] = [
    ['calendar', calendarText(job)],
    [job.at === undefined ? 'bounds' : 'at', boundsText(job)],
    ['deadline', deadlineText(job)],
  ];
  return lines.flatMap(([label, text]) => (text === undefined ? [] : [field(label, text)]));
}

/** Enabled, disabled in the file, or paused (who, since and until when, why). */
function stateLine({ input, state }: JobDescription, c: Colours): string {
  if (state === 'disabled') return field('state', `disabled in ${input.file} (enabled: false)`);
  if (state === 'paused' && input.pause) {
    return c.yellow(field('state', `PAUSED ${pauseText(input.pause)}`));
  }
  return field('state', input.pause ? 'enabled, not paused' : 'enabled (pause not read)');
}

function nextLines({ preview, after, job }: DescribeInput, c: Colours): string[] {
  const count = preview.runs.length;
  return [
    c.bold(
      `next ${count} run${count === 1 ? '' : 's'} after ${formatUtc(after)}${job.enabled ? '' : ', were it enabled'}`,
    ),
    ...runTableLines(preview, job.timezone, c),
  ];
}

function lastLines(input: DescribeInput, c: Colours): string[] {
  const { runs, lastCount } = input;
  if (runs === undefined) return [];
  const shown = runs.slice(0, lastCount);
  const ranges = [...rangesLines(input), ...calendarSkipSection(input, c)];
  if (shown.length === 0) return [c.bold('last runs: none in the ledger'), ...ranges];
  return [
    c.bold(`last ${shown.length} run${shown.length === 1 ? '' : 's'} (newest first)`),
    ...runHistoryLines(shown, c),
    ...ranges,
  ];
}

/** The calendar's skips among the last runs, as `history` prints them, and how many more. */
function calendarSkipSection({ calendarSkipped }: DescribeInput, c: Colours): string[] {
  if (!calendarSkipped) return [];
  const { skips, notListed } = calendarSkipped;
  const more = notListed > 0 ? [wrap(`and ${count(notListed)} older (see --last)`, '')] : [];
  return ['', ...calendarSkipLines(skips, c), ...more];
}

/** How many skipped runs the job's skip ranges of the retention period hold, if any. */
function rangesLines({ ranges, job }: DescribeInput): string[] {
  if (ranges === undefined || ranges.read.ranges.length === 0) return [];
  const { count: n, runs, pausedRuns } = skipRangesSummary(ranges.read, ranges.since);
  const what = `${ranges.read.truncated ? 'the newest ' : ''}${n} skip range${n === 1 ? '' : 's'}`;
  return [
    wrap(
      `and ${count(runs)} skipped run${runs === 1 ? '' : 's'} (${count(pausedRuns)} paused) ` +
        `without items of their own, in ${what} of the last ${ranges.retentionDays} days ` +
        `(a long gap's older runs): zonecron history ${job.id} --since ` +
        `${ranges.retentionDays}d lists them, --at <instant> answers for one`,
      '',
    ),
  ];
}

function signalLines({ input, signals }: JobDescription, c: Colours): string[] {
  if (signals === null) return [];
  const read = input.runs?.length ?? 0;
  const title = `signals among the last ${read} run${read === 1 ? '' : 's'} in the ledger`;
  if (signals.length === 0) return [c.bold(title), c.green('✓ none open, none raised')];
  return [
    c.bold(title),
    ...signals.map((s) =>
      (s.open ? c.yellow : c.red)(
        wrap(
          `${s.kind} ${s.key.slice(0, 7)} ${s.at.slice(0, 16)}Z: ${s.text}`,
          s.open ? '! ' : '✗ ',
        ),
      ),
    ),
  ];
}

function scheduleLines({ input, drift }: JobDescription, c: Colours): string[] {
  const { schedule, deployment, job } = input;
  if (schedule === undefined) return [];
  const group = deployment.scheduleGroup ?? '';
  const found = schedule
    ? [
        c.bold(wrap(`deployed schedule ${schedule.name} in group ${group}`, '')),
        field(
          'state',
          `${schedule.state}${schedule.lastModifiedAt ? `, last modified ${schedule.lastModifiedAt}` : ''}`,
        ),
        field('expression', `${schedule.expression ?? '?'} in ${schedule.timezone ?? 'UTC'}`),
      ]
    : [c.bold(wrap(`deployed schedule: none named ${job.id} in group ${group}`, ''))];
  const lines = (drift ?? []).map((d) => c.red(wrap(`drift (${d.kind}): ${d.text}`, '✗ ')));
  return [...found, ...(lines.length > 0 ? lines : [c.green('✓ as the jobs file says')])];
}
