/**
 * `zonecron describe`: one job, its definition with defaults applied, its UTC covering, next
 * runs, and what the deployment says of it where it was read (pause, last runs, open signals,
 * the deployed schedule and its drift). Pure: the command reads, this builds the `--json`
 * document and the text.
 */
import type { DstPolicies, ScheduleKind } from '../../functions/schedule/index.ts';
import type { JobDefinition } from '../../functions/shared/job.ts';
import type { RunItem } from '../../functions/shared/ledger-item.ts';
import { formatUtc } from '../../functions/shared/zone-time.ts';
import { formatDurationSeconds } from '../../infra/config/duration.ts';
import type { CoveringSchedule } from '../../infra/covering/covering-cron.ts';
import { tickInput } from '../../infra/schedule-inputs.ts';
import type { DeployedSchedule } from '../aws/deployed-schedules.ts';
import type { PauseState } from '../aws/job-control.ts';
import { type ScheduleDrift, scheduleDrift } from '../aws/schedule-drift.ts';
import type { Colours } from './colour.ts';
import type { ListDeployment } from './job-list.ts';
import { lagMs, pauseLines, runHistoryLines } from './run-history.ts';
import { type RunPreview, runJson, runTableLines } from './run-preview.ts';
import { type RunSignal, runSignals } from './run-signals.ts';
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
  /** The pause from the ledger; undefined when the ledger was not read. */
  readonly pause?: PauseState;
  /** The newest runs from the ledger (`byJob`); undefined when not read. */
  readonly runs?: readonly RunItem[];
  /** How many of `runs` the text and `last` show; the signals look at all of them. */
  readonly lastCount: number;
  /** The job's schedule (`GetSchedule`), null when the group has none; undefined when not read. */
  readonly schedule?: DeployedSchedule | null;
  readonly deployment: ListDeployment;
}

/** `describe`'s findings: the input, the signals and the drift (null where not read). */
export interface JobDescription {
  readonly input: DescribeInput;
  readonly signals: readonly RunSignal[] | null;
  readonly drift: readonly ScheduleDrift[] | null;
}

/**
 * The signals among the runs read, and the drift of the deployed schedule from the jobs file:
 * its state, its expression against the covering, its input against the job's tick.
 *
 * @example
 * describeJob({ ...input, schedule: { name: 'nightly', state: 'ENABLED',
 *   expression: 'cron(30 1 * * ? *)', timezone: 'UTC', input: tickInput('nightly') } }).drift
 * //=> [{ kind: 'expression', text: "schedule fires on cron(30 1 * * ? *) in UTC, but …" }]
 */
export function describeJob(input: DescribeInput): JobDescription {
  const { job } = input;
  const expected = {
    jobId: job.id,
    enabled: job.enabled,
    expression: input.covering.awsExpression,
    input: tickInput(job.id),
  };
  return {
    input,
    signals: input.runs ? runSignals(job, input.runs, input.now) : null,
    drift:
      input.schedule === undefined ? null : scheduleDrift(expected, input.schedule ?? undefined),
  };
}

/**
 * The `--json` document of `describe` (docs/cli.md, "zonecron describe").
 *
 * @example
 * describeJson(describeJob(input)).covering //=> 'cron(30 0,1 * * ? *)'
 */
export function describeJson({ input, signals, drift }: JobDescription) {
  const { job, covering, preview } = input;
  return {
    file: input.file,
    after: input.after.toISOString(),
    job,
    sentence: input.sentence,
    hint: input.hint ?? null,
    kind: input.kind,
    policies: input.policies,
    covering: covering.awsExpression,
    coveringCron: covering.cron,
    ticksPerRun: covering.ticksPerRun,
    covers: covering.covers,
    next: preview.runs.map((run) => runJson(run, job.timezone)),
    skipped: preview.skipped,
    last: input.runs
      ? input.runs.slice(0, input.lastCount).map((run) => ({ ...run, lagMs: lagMs(run) ?? null }))
      : null,
    pause: input.pause ?? null,
    signals,
    deployedSchedule: deployedJson(input.schedule, job.id),
    drift,
    deployment: input.deployment,
  };
}

function deployedJson(schedule: DeployedSchedule | null | undefined, name: string) {
  if (schedule === undefined) return null;
  return schedule ?? { name, state: 'missing' };
}

/**
 * The text of `describe`: the definition, the next runs, then what the deployment says (the
 * last runs, the signals, the deployed schedule) or a note on why it is not shown.
 *
 * @example
 * describeText(describeJob(input), c).split('\n')[0]
 * //=> 'berlin-nightly-report: Nightly sales report for the Berlin office'
 */
export function describeText(description: JobDescription, c: Colours): string {
  return [
    headline(description.input, c),
    definitionLines(description.input),
    nextLines(description.input, c),
    lastLines(description.input, c),
    signalLines(description, c),
    scheduleLines(description.input),
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

function definitionLines(input: DescribeInput): string[] {
  const { job, covering, policies } = input;
  const catchup = job.catchup;
  return [
    field('schedule', `${job.schedule} in ${job.timezone}`),
    field('', input.sentence),
    ...(input.hint ? [field('hint', input.hint)] : []),
    field('', `${input.kind} schedule: gap ${policies.gap}, overlap ${policies.overlap}`),
    field(
      'UTC covering',
      `${covering.awsExpression}, ${Math.round(covering.ticksPerRun * 100) / 100} tick${covering.ticksPerRun === 1 ? '' : 's'} per run${job.enabled ? '' : ' (not deployed: the job is disabled)'}`,
    ),
    field('target', `${job.target.type} ${job.target.arn}`),
    field('payload', job.payload === null ? 'none' : JSON.stringify(job.payload)),
    field('enabled', job.enabled ? 'yes' : 'no (enabled: false)'),
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

function nextLines({ preview, after, job }: DescribeInput, c: Colours): string[] {
  const count = preview.runs.length;
  return [
    c.bold(`next ${count} run${count === 1 ? '' : 's'} after ${formatUtc(after)}`),
    ...runTableLines(preview, job.timezone, c),
  ];
}

function lastLines({ runs, lastCount }: DescribeInput, c: Colours): string[] {
  if (runs === undefined) return [];
  const shown = runs.slice(0, lastCount);
  if (shown.length === 0) return [c.bold('last runs: none in the ledger')];
  return [
    c.bold(`last ${shown.length} run${shown.length === 1 ? '' : 's'} (newest first)`),
    ...runHistoryLines(shown, c),
  ];
}

function signalLines({ input, signals, drift }: JobDescription, c: Colours): string[] {
  if (signals === null) return [];
  const lines = [
    ...(input.pause ? pauseLines(input.pause, c) : []),
    ...(drift ?? []).map((d) => c.red(wrap(`drift: ${d.text}`, '✗ '))),
    ...signals.map((s) =>
      (s.open ? c.yellow : c.red)(
        wrap(
          `${s.kind} ${s.key.slice(0, 7)} ${s.at.slice(0, 16)}Z: ${s.text}`,
          s.open ? '! ' : '✗ ',
        ),
      ),
    ),
  ];
  const read = input.runs?.length ?? 0;
  const title = `signals (pause, drift, and the last ${read} run${read === 1 ? '' : 's'} in the ledger)`;
  return [c.bold(title), ...(lines.length > 0 ? lines : [c.green('✓ none')])];
}

function scheduleLines({ schedule, deployment }: DescribeInput): string[] {
  if (schedule === undefined) return [];
  const group = deployment.scheduleGroup ?? '';
  if (schedule === null) return [wrap(`deployed schedule: none in group ${group}`, '')];
  const modified = schedule.lastModifiedAt ? `, last modified ${schedule.lastModifiedAt}` : '';
  return [
    wrap(
      `deployed schedule: ${schedule.name} in group ${group}, ${schedule.state}, ${schedule.expression ?? '?'} in ${schedule.timezone ?? 'UTC'}${modified}`,
      '',
    ),
  ];
}
