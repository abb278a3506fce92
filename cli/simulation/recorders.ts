import type { Notifier, RunNotification } from '#ledger/index.ts';
import type { DeadLetterMessage, DeadLetters } from '#shared/dead-letters.ts';
import type { AppLogger, LogFields } from '#shared/logger.ts';

/** The simulation's dead-letter queue: keeps what would have been sent to SQS. */
export class RecordingDeadLetters implements DeadLetters {
  readonly messages: DeadLetterMessage[] = [];

  async send(message: DeadLetterMessage): Promise<void> {
    this.messages.push(message);
  }
}

/** One notification the on-call topic received, at the simulated time it was sent. */
export interface SentNotification {
  readonly notification: RunNotification;
  readonly sentAt: Date;
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
