/** One problem found in an event: where, and what was expected. */
type Issues = string[];

/**
 * An ISO 8601 instant with a zone designator; seconds and fractions optional. Every component
 * is checked against the calendar afterwards: `Date.parse` would read `2023-02-30` as March 2.
 */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))$/;

/**
 * True when `text` is a strict ISO 8601 instant naming a real calendar date and time.
 *
 * @example
 * isStrictInstant('2023-02-28T10:00:00Z') //=> true
 * isStrictInstant('2023-02-30T10:00:00Z') //=> false
 */
export function isStrictInstant(text: string): boolean {
  const m = ISO_INSTANT.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  const offsetHours = Number(m[8] ?? 0);
  const offsetMinutes = Number(m[9] ?? 0);
  if (offsetHours > 23 || offsetMinutes > 59) return false;
  if ((hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59) return false;
  const civil = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 0));
  return (
    civil.getUTCFullYear() === year &&
    civil.getUTCMonth() === (month ?? 1) - 1 &&
    civil.getUTCDate() === day
  );
}

function instant(record: Record<string, unknown>, field: string, issues: Issues): string {
  const value = record[field];
  if (typeof value !== 'string' || !isStrictInstant(value)) {
    issues.push(
      `${field}: expected an ISO 8601 instant with a zone designator naming a real date and time, got ${JSON.stringify(value) ?? 'nothing'}`,
    );
    return '';
  }
  return value;
}

function nonEmptyString(record: Record<string, unknown>, field: string, issues: Issues): string {
  const value = record[field];
  if (typeof value !== 'string' || value.length === 0) {
    issues.push(`${field}: expected a non-empty string, got ${JSON.stringify(value) ?? 'nothing'}`);
    return '';
  }
  return value;
}

function literalTrue(record: Record<string, unknown>, field: string, issues: Issues) {
  if (record[field] !== true)
    issues.push(`${field}: expected true, got ${JSON.stringify(record[field])}`);
}

function attemptNumber(record: Record<string, unknown>, issues: Issues): number | undefined {
  const value = record.attempt;
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    issues.push(`attempt: expected a whole number >= 0, got ${JSON.stringify(value)}`);
    return undefined;
  }
  return n;
}

/** A per-job tick from the job's EventBridge Scheduler schedule (architecture §4). */
export interface TickEvent {
  readonly kind: 'tick';
  readonly jobId: string;
  /** `scheduledTime` truncated to the whole minute: the tick's identity. */
  readonly scheduledAt: Date;
  readonly executionId?: string;
  readonly schedulerAttempt?: number;
}

/** The one-minute safety-net sweep. */
export interface SweepEvent {
  readonly kind: 'sweep';
  readonly scheduledAt: Date;
}

/** `zonecron run` against a deployed stack: run a job now, outside its schedule. */
export interface ManualEvent {
  readonly kind: 'manual';
  readonly jobId: string;
  /** The manual run's instant; the dispatcher's clock when absent. */
  readonly at?: Date;
}

/** `zonecron dlq redrive`: deliver one run again under its original key. */
export interface RedriveEvent {
  readonly kind: 'redrive';
  readonly jobId: string;
  readonly at: Date;
  readonly manual: boolean;
}

/** Every event the dispatcher accepts. */
export type DispatcherEvent = TickEvent | SweepEvent | ManualEvent | RedriveEvent;

/** An event that matches none of the accepted shapes. */
export class MalformedEventError extends Error {
  readonly event: unknown;
  readonly issues: string[];
  constructor(event: unknown, issues: string[]) {
    super(`malformed dispatcher event: ${issues.join('; ')}`);
    this.name = new.target.name;
    this.event = event;
    this.issues = issues;
  }
}

const truncateToMinute = (value: string): Date => {
  const ms = Date.parse(value);
  return new Date(ms - (((ms % 60_000) + 60_000) % 60_000));
};

/**
 * Validates and normalises a raw dispatcher event.
 *
 * Ticks are read from `scheduledTime` only (truncated to the minute), never from the clock:
 * a retried or late tick still stands for the run it was scheduled for.
 *
 * @example
 * parseEvent({ jobId: 'daily', scheduledTime: '2023-03-26T01:30:07Z', attempt: 1 })
 * //=> { kind: 'tick', jobId: 'daily', scheduledAt: 2023-03-26T01:30:00.000Z, schedulerAttempt: 1 }
 * parseEvent({ nope: 1 }) // throws MalformedEventError
 */
export function parseEvent(event: unknown): DispatcherEvent {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new MalformedEventError(event, ['(event): expected a JSON object']);
  }
  const record = event as Record<string, unknown>;
  const issues: Issues = [];
  const done = <T extends DispatcherEvent>(parsed: T): T => {
    if (issues.length > 0) throw new MalformedEventError(event, issues);
    return parsed;
  };
  if ('sweep' in record) {
    literalTrue(record, 'sweep', issues);
    const scheduledTime = instant(record, 'scheduledTime', issues);
    return done({ kind: 'sweep', scheduledAt: truncateToMinute(scheduledTime) });
  }
  if ('redrive' in record) {
    literalTrue(record, 'redrive', issues);
    const jobId = nonEmptyString(record, 'jobId', issues);
    const at = instant(record, 'at', issues);
    if (record.manual !== undefined && typeof record.manual !== 'boolean') {
      issues.push(`manual: expected a boolean, got ${JSON.stringify(record.manual)}`);
    }
    return done({ kind: 'redrive', jobId, at: new Date(at), manual: record.manual === true });
  }
  if ('manual' in record) {
    literalTrue(record, 'manual', issues);
    const jobId = nonEmptyString(record, 'jobId', issues);
    const at = record.at === undefined ? undefined : instant(record, 'at', issues);
    return done({ kind: 'manual', jobId, ...(at ? { at: truncateToMinute(at) } : {}) });
  }
  const jobId = nonEmptyString(record, 'jobId', issues);
  const scheduledTime = instant(record, 'scheduledTime', issues);
  const schedulerAttempt = attemptNumber(record, issues);
  if (record.executionId !== undefined && typeof record.executionId !== 'string') {
    issues.push(`executionId: expected a string, got ${JSON.stringify(record.executionId)}`);
  }
  const executionId = typeof record.executionId === 'string' ? record.executionId : undefined;
  return done({
    kind: 'tick',
    jobId,
    scheduledAt: truncateToMinute(scheduledTime),
    ...(executionId ? { executionId } : {}),
    ...(schedulerAttempt !== undefined ? { schedulerAttempt } : {}),
  });
}

/** True for `MalformedEventError`, also across two loaded copies of this module. */
export function isMalformedEventError(error: unknown): error is MalformedEventError {
  return (error as { name?: unknown } | null)?.name === 'MalformedEventError';
}
