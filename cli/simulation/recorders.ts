import type { DeadLetterMessage, DeadLetters } from '#jobs/dead-letters.ts';
import type { Notifier, RunNotification } from '#ledger/index.ts';
import type { AppLogger, LogFields } from '#shared/logger.ts';

/**
 * The simulation's dead-letter queue: keeps every message that would have been sent to SQS
 * (`messages`, in order), and which of them an operator deleted since (a redrive that
 * delivered its run, a discard).
 */
export class RecordingDeadLetters implements DeadLetters {
  readonly messages: DeadLetterMessage[] = [];
  readonly #deleted = new Set<DeadLetterMessage>();

  async send(message: DeadLetterMessage): Promise<void> {
    this.messages.push(message);
  }

  /** The messages still in the queue, oldest first. */
  queued(): DeadLetterMessage[] {
    return this.messages.filter((m) => !this.#deleted.has(m));
  }

  /** Deletes one message from the queue (it stays in `messages`). */
  delete(message: DeadLetterMessage): void {
    this.#deleted.add(message);
  }

  /** How many messages of each run key were deleted (of one reason, if given). */
  deletedByKey(reason?: DeadLetterMessage['reason']): Map<string, number> {
    const counts = new Map<string, number>();
    for (const m of this.#deleted) {
      if (reason === undefined || m.reason === reason)
        counts.set(m.key, (counts.get(m.key) ?? 0) + 1);
    }
    return counts;
  }
}

/** One notification the on-call topic received, at the simulated time it was sent. */
export interface SentNotification {
  readonly notification: RunNotification;
  readonly sentAt: Date;
}

/**
 * One notification as `simulate --json` lists it: what it is about (`kind`: the signal), the
 * job, how many runs it covers and the first and last of them (UTC), and when it was sent.
 */
export interface NotificationRecord {
  readonly kind: string;
  readonly jobId: string;
  readonly runs: number;
  readonly first: string;
  readonly last: string;
  readonly sentAt: string;
}

/** What a notification may say of the runs it covers, besides its one run's instant. */
interface IncidentFields {
  readonly kind?: unknown;
  readonly runs?: unknown;
  readonly first?: unknown;
  readonly last?: unknown;
}

const utc = (iso: string) => new Date(iso).toISOString();

/**
 * A sent notification as `--json` lists it. Today's notifications are per run (`runs: 1`,
 * first and last the run's instant); a notification that names its runs (`runs`, `first`,
 * `last`) is read as it says.
 *
 * @example
 * notificationRecord({ notification: missedOf0130, sentAt })
 * //=> { kind: 'missed', jobId: 'nightly', runs: 1, first: '2027-03-28T01:30:00.000Z', last: '…', sentAt: '…' }
 */
export function notificationRecord(sent: SentNotification): NotificationRecord {
  const n = sent.notification;
  const incident = n as RunNotification & IncidentFields;
  const instant = (value: unknown) => (typeof value === 'string' ? utc(value) : utc(n.at));
  return {
    kind: typeof incident.kind === 'string' ? incident.kind : n.signal,
    jobId: n.jobId,
    runs: typeof incident.runs === 'number' ? incident.runs : 1,
    first: instant(incident.first),
    last: instant(incident.last),
    sentAt: sent.sentAt.toISOString(),
  };
}

/** The simulation's on-call topic: keeps every notification with the simulated time. */
export class TimedNotifier implements Notifier {
  readonly sent: SentNotification[] = [];
  readonly #clock: () => Date;

  constructor(clock: () => Date) {
    this.#clock = clock;
  }

  async notify(notification: RunNotification): Promise<void> {
    this.sent.push({ notification, sentAt: this.#clock() });
  }
}

/** One log line, at the simulated time it was written. */
export interface TimedLogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields;
  readonly at: Date;
}

/** The simulation's log: every line with the simulated time, as CloudWatch would stamp it. */
export class TimedLogger implements AppLogger {
  readonly entries: TimedLogEntry[] = [];
  readonly #clock: () => Date;

  constructor(clock: () => Date) {
    this.#clock = clock;
  }

  info(message: string, fields: LogFields = {}): void {
    this.entries.push({ level: 'info', message, fields, at: this.#clock() });
  }
  warn(message: string, fields: LogFields = {}): void {
    this.entries.push({ level: 'warn', message, fields, at: this.#clock() });
  }
  error(message: string, fields: LogFields = {}): void {
    this.entries.push({ level: 'error', message, fields, at: this.#clock() });
  }

  /** The lines whose `decision` field is this one. */
  decisions(decision: string): TimedLogEntry[] {
    return this.entries.filter((e) => e.fields.decision === decision);
  }
}
