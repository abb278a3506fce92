import type { SNSClient } from '@aws-sdk/client-sns';
import { DateTime } from 'luxon';
import type { Sender } from '#shared/aws-clients.ts';
import { zoneAbbreviation } from '#text/zone-time.ts';
import type { ZoneDriftFinding } from '#zone-drift/zone-drift.ts';
import { compareZoneDataVersions } from '#zone-drift/zone-fingerprint.ts';
import type { RunItem, Signal } from './ledger-item.ts';

/**
 * One on-call notification: which job, which run, what happened, and the exact command to look
 * or act. Sent once per run and signal (docs/runbook.md, "Notifications"); `overlap` once per
 * incident, by its second skipped run.
 */
export interface RunNotification {
  readonly version: 1;
  readonly signal: Signal;
  readonly stack: string;
  readonly jobId: string;
  readonly key: string;
  /** The run's UTC instant, ISO 8601. */
  readonly at: string;
  /** The run's local time with offset and zone: `2027-03-28 03:30 +02:00 CEST (Europe/Berlin)`. */
  readonly local: string;
  /** The local wall-clock slot the run stands for, `YYYY-MM-DDTHH:mm`. */
  readonly nominal: string;
  readonly dst: string;
  readonly status: RunItem['status'];
  readonly skipReason?: string;
  readonly attempts: number;
  readonly lastError?: string;
  /**
   * How many runs it tells of: 1, or a gap's missed runs (one notification per incident), from
   * `first` to `last` (UTC ISO instants).
   */
  readonly runs: number;
  readonly first: string;
  readonly last: string;
  /** `overlap`: the first run skipped in the incident, UTC ISO (this run is the second). */
  readonly overlapSince?: string;
  /** `deadline-missed`: the run's deadline, UTC ISO. */
  readonly deadlineAt?: string;
  /** `deadline-missed`: the deadline's local time, as `local` shows the run's. */
  readonly deadlineLocal?: string;
  /** One sentence for a human. */
  readonly summary: string;
  /** The `zonecron` commands to look at the run and to act on it. */
  readonly commands: { readonly history: string; readonly act?: string };
}

/** Where notifications go. */
export interface Notifier {
  notify(notification: RunNotification): Promise<void>;
}

/** SNS's limit on a subject: under 100 characters of printable ASCII (SNS API, Publish). */
const MAX_SUBJECT_LENGTH = 99;

const WHAT: Record<Signal, string> = {
  missed: 'was due and no tick of its own delivered it',
  late: 'was delivered later than its grace',
  stuck: 'has not finished within its maxRuntime',
  'dead-lettered': 'ran out of delivery attempts and is in the dead-letter queue',
  'run-failed': 'ran and its target reported failure',
  overlap: "was skipped: a previous run still holds the job's concurrency: forbid slot",
  'deadline-missed': 'was not done by its deadline',
};

/** What a `deadline-missed` run had come to when it was raised, by its status. */
const DEADLINE_OUTCOME: Record<RunItem['status'], string> = {
  claimed: 'not delivered yet',
  'delivery-failed': 'not delivered yet, its delivery being retried',
  dispatched: 'delivered, no end reported yet',
  succeeded: 'it succeeded after the deadline',
  failed: 'it failed',
  skipped: 'skipped',
};

/** The local time of an instant in a zone, with offset and abbreviation. */
function localTime(atIso: string, timezone: string | undefined): string {
  if (!timezone || !DateTime.fromISO(atIso, { zone: timezone }).isValid) return atIso;
  const at = new Date(atIso);
  const clock = DateTime.fromJSDate(at, { zone: timezone }).toFormat('yyyy-MM-dd HH:mm ZZ');
  const abbreviation = zoneAbbreviation(at, timezone);
  return `${clock}${abbreviation ? ` ${abbreviation}` : ''} (${timezone})`;
}

function outcomeOf(signal: Signal, item: RunItem, timezone: string | undefined): string {
  if (signal === 'overlap') {
    const since = item.overlapSince ? ` since ${localTime(item.overlapSince, timezone)}` : '';
    return `; the second run in a row skipped for overlap${since} (${item.lastError ?? 'previous run still running'}); the incident's later skips are not notified`;
  }
  if (signal === 'deadline-missed') {
    const deadline = new Date(item.deadlineAtEpochMs ?? 0).toISOString();
    return ` ${localTime(deadline, timezone)} (${deadline}); ${DEADLINE_OUTCOME[item.status]}`;
  }
  if (signal !== 'missed') return '';
  switch (item.status) {
    case 'skipped':
      return `; skipped (${item.skipReason ?? 'catch-up policy'})`;
    case 'dispatched':
    case 'succeeded':
      return '; delivered late by a catch-up';
    default:
      return `; caught up, now ${item.status}`;
  }
}

/**
 * Builds the notification of one signal of one run.
 *
 * @example
 * buildNotification('missed', item, 'Europe/Berlin', 'Zonecron').summary
 * //=> "nightly-report: the run at 2027-03-28 03:30 +02:00 CEST (Europe/Berlin) was due and no tick of its own delivered it; delivered late by a catch-up"
 */
export function buildNotification(
  signal: Signal,
  item: RunItem,
  timezone: string | undefined,
  stack: string,
): RunNotification {
  const local = localTime(item.at, timezone);
  const incident = signal === 'missed' ? item.incident : undefined;
  const first = incident?.first ?? item.at;
  const from = signal === 'overlap' && item.overlapSince ? item.overlapSince : first;
  const history = `zonecron history ${item.jobId} --stack ${stack} --since ${from}`;
  const backfill = `zonecron backfill ${item.jobId} --from ${new Date(Date.parse(first) - 60_000).toISOString()} --to ${item.at} --stack ${stack}`;
  const act: Partial<Record<Signal, string | undefined>> = {
    'dead-lettered': `zonecron dlq redrive --key ${item.key} --stack ${stack}`,
    'run-failed': `zonecron dlq redrive --key ${item.key} --stack ${stack}`,
    'deadline-missed':
      item.status === 'failed'
        ? `zonecron dlq redrive --key ${item.key} --stack ${stack}`
        : undefined,
    missed:
      item.status === 'skipped' || (incident && incident.delivered < incident.runs)
        ? backfill
        : undefined,
  };
  return {
    version: 1,
    signal,
    stack,
    jobId: item.jobId,
    key: item.key,
    at: item.at,
    local,
    nominal: item.nominal,
    dst: item.dst,
    status: item.status,
    ...(item.skipReason ? { skipReason: item.skipReason } : {}),
    attempts: item.attempts,
    ...(item.lastError ? { lastError: item.lastError } : {}),
    runs: incident?.runs ?? 1,
    first,
    last: incident?.last ?? item.at,
    ...(signal === 'overlap' && item.overlapSince ? { overlapSince: item.overlapSince } : {}),
    ...(signal === 'deadline-missed' ? deadlineFields(item, timezone) : {}),
    summary: incident
      ? incidentSummary(item.jobId, incident, timezone)
      : `${item.jobId}: the run at ${local}${signal === 'deadline-missed' ? ` (${item.at})` : ''} ${WHAT[signal]}${outcomeOf(signal, item, timezone)}`,
    commands: { history, ...(act[signal] ? { act: act[signal] } : {}) },
  };
}

/** The deadline of a `deadline-missed` notification, UTC and local. */
function deadlineFields(item: RunItem, timezone: string | undefined) {
  const deadlineAt = new Date(item.deadlineAtEpochMs ?? 0).toISOString();
  return { deadlineAt, deadlineLocal: localTime(deadlineAt, timezone) };
}

/** The sentence of a gap's one missed notification. */
function incidentSummary(
  jobId: string,
  incident: NonNullable<RunItem['incident']>,
  timezone: string | undefined,
): string {
  const skipped = incident.runs - incident.delivered;
  const span =
    incident.runs === 1
      ? `the run at ${localTime(incident.last, timezone)} was`
      : `${incident.runs} runs from ${localTime(incident.first, timezone)} to ${localTime(incident.last, timezone)} were`;
  return `${jobId}: ${span} due and no tick of their own delivered them; ${incident.delivered} delivered late by a catch-up, ${skipped} skipped by the catch-up policy`;
}

/**
 * The subject line of a notification: stack, signal, job and local time, ASCII, under 100
 * characters.
 *
 * @example
 * notificationSubject(notification) //=> '[Zonecron] missed: nightly-report at 2027-03-28 03:30 +02:00 CEST'
 */
export function notificationSubject(notification: RunNotification): string {
  const when = notification.local.replace(/ \([^)]*\)$/, '');
  const text = `[${notification.stack}] ${notification.signal}: ${notification.jobId} at ${when}`;
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_SUBJECT_LENGTH);
}

/**
 * The on-call notification that a job's covering schedule was computed with zone data the
 * runtime disagrees with: sent once per deploy, runtime zone data and job (docs/runbook.md,
 * "ZoneDataDrift").
 */
export interface ZoneDriftNotification {
  readonly version: 1;
  readonly signal: 'zone-data-drift';
  readonly stack: string;
  readonly jobId: string;
  readonly timezone: string;
  readonly expression: string;
  /** The deploy: when synth ran. */
  readonly synthesizedAt: string;
  /** The tz database releases of synth's and the dispatcher's Node.js. */
  readonly synthZoneData: string;
  readonly runtimeZoneData: string;
  /** UTC ISO instant where the two first disagree, and what each says there. */
  readonly firstDisagreementAt: string;
  readonly synth: string;
  readonly runtime: string;
  /** The first run the two place at different instants; null when every run agrees. */
  readonly firstRunDifferenceAt: string | null;
  /** What it means, in one sentence. */
  readonly summary: string;
  /** What to do, in one sentence. */
  readonly todo: string;
  /** The commands that show the versions and redeploy. */
  readonly commands: { readonly versions: string; readonly redeploy: string };
}

/** Where zone-drift notifications go. */
export interface ZoneDriftNotifier {
  notifyZoneDrift(notification: ZoneDriftNotification): Promise<void>;
}

/** The commands a zone-drift notification names. */
export const ZONE_DATA_COMMANDS = {
  versions: 'npx zonecron validate   (or: node -p process.versions.tz)',
  redeploy: 'npx cdk deploy --all',
} as const;

/**
 * Builds the notification of one job's zone-data drift; what to do depends on which side is
 * newer.
 *
 * @example
 * buildZoneDriftNotification(finding, { stack: 'Zonecron', synthesizedAt,
 *   synthZoneData: '2025c', runtimeZoneData: '2026d' }).todo
 * //=> 'Redeploy from a machine whose Node.js has zone data 2026d or newer …'
 */
export function buildZoneDriftNotification(
  finding: ZoneDriftFinding,
  deploy: {
    readonly stack: string;
    readonly synthesizedAt: string;
    readonly synthZoneData: string;
    readonly runtimeZoneData: string;
  },
): ZoneDriftNotification {
  const { synthZoneData: synth, runtimeZoneData: runtime } = deploy;
  return {
    version: 1,
    signal: 'zone-data-drift',
    stack: deploy.stack,
    jobId: finding.jobId,
    timezone: finding.timezone,
    expression: finding.expression,
    synthesizedAt: deploy.synthesizedAt,
    synthZoneData: synth,
    runtimeZoneData: runtime,
    firstDisagreementAt: finding.firstDisagreementAt,
    synth: finding.synth,
    runtime: finding.runtime,
    firstRunDifferenceAt: finding.firstRunDifferenceAt ?? null,
    summary: `${finding.jobId} (${finding.timezone}): its covering schedule was computed at synth with zone data ${synth}, and the dispatcher's ${runtime} first disagrees at ${finding.firstDisagreementAt} (synth: ${finding.synth}; runtime: ${finding.runtime}). ${consequence(finding)}`,
    todo: zoneDriftTodo(synth, runtime),
    commands: ZONE_DATA_COMMANDS,
  };
}

function consequence(finding: ZoneDriftFinding): string {
  if (finding.firstRunDifferenceAt !== undefined) {
    return `From ${finding.firstRunDifferenceAt} on, runs the covering does not fire for are delivered late by the sweep.`;
  }
  return finding.runsCompared
    ? 'Its runs are the same instants on both sides, so none is late; only the zone no longer matches.'
    : 'Its runs were not all compared (too many where the offsets differ): assume some are delivered late by the sweep.';
}

function zoneDriftTodo(synth: string, runtime: string): string {
  const { versions, redeploy } = ZONE_DATA_COMMANDS;
  const order = compareZoneDataVersions(synth, runtime);
  if (order !== undefined && order > 0) {
    return `The Lambda runtime's zone data (${runtime}) is older than synth's (${synth}): the dispatcher computes this job's runs with the older rules until AWS updates the runtime. Meanwhile a redeploy from a machine with ${runtime} makes the covering match the runtime (${redeploy}).`;
  }
  if (order === 0) {
    return `Both sides report zone data ${runtime} yet compute different runs: redeploy (${redeploy}) from a machine with the runtime's Node.js major version, and report the drift as a zonecron bug if it stays.`;
  }
  return `Redeploy from a machine whose Node.js has zone data ${runtime} or newer, so the coverings are recomputed: check with ${versions}, then ${redeploy}.`;
}

/**
 * The subject line of a zone-drift notification, ASCII, under 100 characters.
 *
 * @example
 * zoneDriftSubject(notification) //=> '[Zonecron] zone-data-drift: nightly (Europe/Berlin)'
 */
export function zoneDriftSubject(notification: ZoneDriftNotification): string {
  const text = `[${notification.stack}] ${notification.signal}: ${notification.jobId} (${notification.timezone})`;
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, MAX_SUBJECT_LENGTH);
}

/**
 * Sends notifications to the on-call SNS topic: the readable subject, the JSON body, and the
 * signal and job as message attributes so subscriptions can filter on them.
 *
 * @example
 * const notifier = createSnsNotifier(createAwsClients().sns, process.env.NOTIFY_TOPIC_ARN);
 */
export function createSnsNotifier(
  sns: Sender<SNSClient>,
  topicArn: string,
): Notifier & ZoneDriftNotifier {
  const publish = async (
    subject: string,
    notification: { readonly signal: string; readonly jobId: string },
  ) => {
    // Imported here: a Lambda loads the SNS client only when it notifies on-call.
    const { PublishCommand } = await import('@aws-sdk/client-sns');
    await sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Subject: subject,
        Message: JSON.stringify(notification, null, 2),
        MessageAttributes: {
          signal: { DataType: 'String', StringValue: notification.signal },
          jobId: { DataType: 'String', StringValue: notification.jobId },
        },
      }),
    );
  };
  return {
    notify: (notification) => publish(notificationSubject(notification), notification),
    notifyZoneDrift: (notification) => publish(zoneDriftSubject(notification), notification),
  };
}

/** A {@link Notifier} that keeps what it was asked to send, for tests and the simulation. */
export class RecordingNotifier implements Notifier, ZoneDriftNotifier {
  readonly sent: RunNotification[] = [];
  /** The zone-drift notifications, apart from the runs'. */
  readonly zoneDrift: ZoneDriftNotification[] = [];
  failWith: Error | undefined;
  async notify(notification: RunNotification): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.sent.push(notification);
  }
  async notifyZoneDrift(notification: ZoneDriftNotification): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.zoneDrift.push(notification);
  }
  /** How many notifications of one signal were sent for one run key. */
  count(key: string, signal: Signal): number {
    return this.sent.filter((n) => n.key === key && n.signal === signal).length;
  }
}
