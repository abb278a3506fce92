import type { SNSClient } from '@aws-sdk/client-sns';
import { DateTime } from 'luxon';
import type { Sender } from './aws-clients.ts';
import type { RunItem, Signal } from './ledger-item.ts';
import { zoneAbbreviation } from './zone-time.ts';

/**
 * One on-call notification: which job, which run, what happened, and the exact command to look
 * or act. Sent once per run and signal (docs/runbook.md, "Notifications").
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
};

/** The local time of an instant in a zone, with offset and abbreviation. */
function localTime(atIso: string, timezone: string | undefined): string {
  if (!timezone || !DateTime.fromISO(atIso, { zone: timezone }).isValid) return atIso;
  const at = new Date(atIso);
  const clock = DateTime.fromJSDate(at, { zone: timezone }).toFormat('yyyy-MM-dd HH:mm ZZ');
  const abbreviation = zoneAbbreviation(at, timezone);
  return `${clock}${abbreviation ? ` ${abbreviation}` : ''} (${timezone})`;
}

function outcomeOf(signal: Signal, item: RunItem): string {
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
  const history = `zonecron history ${item.jobId} --stack ${stack} --since ${item.at}`;
  const act: Partial<Record<Signal, string | undefined>> = {
    'dead-lettered': `zonecron dlq redrive --key ${item.key} --stack ${stack}`,
    'run-failed': `zonecron dlq redrive --key ${item.key} --stack ${stack}`,
    missed:
      item.status === 'skipped'
        ? `zonecron backfill ${item.jobId} --from ${new Date(Date.parse(item.at) - 60_000).toISOString()} --to ${item.at} --stack ${stack}`
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
    summary: `${item.jobId}: the run at ${local} ${WHAT[signal]}${outcomeOf(signal, item)}`,
    commands: { history, ...(act[signal] ? { act: act[signal] } : {}) },
  };
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
 * Sends notifications to the on-call SNS topic: the readable subject, the JSON body, and the
 * signal and job as message attributes so subscriptions can filter on them.
 *
 * @example
 * const notifier = createSnsNotifier(createAwsClients().sns, process.env.NOTIFY_TOPIC_ARN);
 */
export function createSnsNotifier(sns: Sender<SNSClient>, topicArn: string): Notifier {
  return {
    async notify(notification) {
      // Imported here: a Lambda loads the SNS client only when it notifies on-call.
      const { PublishCommand } = await import('@aws-sdk/client-sns');
      await sns.send(
        new PublishCommand({
          TopicArn: topicArn,
          Subject: notificationSubject(notification),
          Message: JSON.stringify(notification, null, 2),
          MessageAttributes: {
            signal: { DataType: 'String', StringValue: notification.signal },
            jobId: { DataType: 'String', StringValue: notification.jobId },
          },
        }),
      );
    },
  };
}

/** A {@link Notifier} that keeps what it was asked to send, for tests and the simulation. */
export class RecordingNotifier implements Notifier {
  readonly sent: RunNotification[] = [];
  failWith: Error | undefined;
  async notify(notification: RunNotification): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.sent.push(notification);
  }
  /** How many notifications of one signal were sent for one run key. */
  count(key: string, signal: Signal): number {
    return this.sent.filter((n) => n.key === key && n.signal === signal).length;
  }
}
