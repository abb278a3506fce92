import { type EventSummary, inspectEvent, preview } from '#shared/event-bounds.ts';
import { DispatcherError } from './errors.ts';

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

/**
 * Longest job id an event may name: ids become AWS resource names (a Scheduler schedule name
 * is at most 64 characters; the loader's `MAX_JOB_ID_LENGTH`).
 */
export const MAX_EVENT_JOB_ID_CHARS = 64;
/** Longest Scheduler execution id a tick may carry (Scheduler's are 16 characters). */
export const MAX_EXECUTION_ID_CHARS = 128;
/** Highest Scheduler attempt number a tick may carry (Scheduler retries at most 185 times). */
export const MAX_SCHEDULER_ATTEMPT = 1_000;
/** Longest instant text read (`2023-03-26T01:30:07.123456789+02:00` is 35 characters). */
const MAX_INSTANT_CHARS = 64;

/** The event's own field `name`: never one inherited (a `__proto__` key, a prototype's). */
function own(record: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

function instant(record: Record<string, unknown>, field: string, issues: Issues): string {
  const value = own(record, field);
  if (typeof value !== 'string' || value.length > MAX_INSTANT_CHARS || !isStrictInstant(value)) {
    issues.push(
      `${field}: expected an ISO 8601 instant with a zone designator naming a real date and time, got ${preview(value)}`,
    );
    return '';
  }
  return value;
}

function boundedString(
  record: Record<string, unknown>,
  field: string,
  maxChars: number,
  issues: Issues,
): string {
  const value = own(record, field);
  if (typeof value !== 'string' || value.length === 0 || value.length > maxChars) {
    issues.push(
      `${field}: expected a non-empty string of at most ${maxChars} characters, got ${preview(value)}`,
    );
    return '';
  }
  return value;
}

function literalTrue(record: Record<string, unknown>, field: string, issues: Issues) {
  const value = own(record, field);
  if (value !== true) issues.push(`${field}: expected true, got ${preview(value)}`);
}

function attemptNumber(record: Record<string, unknown>, issues: Issues): number | undefined {
  const value = own(record, 'attempt');
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_SCHEDULER_ATTEMPT) {
    issues.push(
      `attempt: expected a whole number from 0 to ${MAX_SCHEDULER_ATTEMPT}, got ${preview(value)}`,
    );
    return undefined;
  }
  return n;
}

/** Scheduler's execution id; an empty one is as good as none. */
function executionIdOf(record: Record<string, unknown>, issues: Issues): string | undefined {
  const value = own(record, 'executionId');
  if (value === undefined || value === '') return undefined;
  return boundedString(record, 'executionId', MAX_EXECUTION_ID_CHARS, issues) || undefined;
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
export class MalformedEventError extends DispatcherError {
  readonly event: unknown;
  readonly issues: string[];
  constructor(event: unknown, issues: string[]) {
    super(`malformed dispatcher event: ${issues.join('; ')}`);
    this.event = event;
    this.issues = issues;
  }
}

const truncateToMinute = (value: string): Date => {
  const ms = Date.parse(value);
  return new Date(ms - (((ms % 60_000) + 60_000) % 60_000));
};

/** What reading an event found: the event, or why it is none (bounded, whatever it held). */
export type EventReading =
  | { readonly ok: true; readonly event: DispatcherEvent }
  | { readonly ok: false; readonly issues: readonly string[]; readonly summary: EventSummary };

/**
 * Validates and normalises a raw dispatcher event; never throws.
 *
 * The event's depth and size are bounded first, by one iterative walk (`inspectEvent`), before
 * anything else reads it; every issue quotes at most a short excerpt of a value. Ticks are read
 * from `scheduledTime` only (truncated to the minute), never from the clock: a retried or late
 * tick still stands for the run it was scheduled for.
 *
 * @example
 * readEvent({ jobId: 'daily', scheduledTime: '2023-03-26T01:30:07Z', attempt: 1 })
 * //=> { ok: true, event: { kind: 'tick', jobId: 'daily', scheduledAt: 2023-03-26T01:30:00.000Z,
 * //     schedulerAttempt: 1 } }
 * readEvent([]) //=> { ok: false, issues: ['(event): expected a JSON object, got an array of 0'], … }
 */
export function readEvent(event: unknown): EventReading {
  const inspection = inspectEvent(event);
  const refused = (issues: readonly string[]): EventReading => ({
    ok: false,
    issues,
    summary: inspection.summary,
  });
  if (!inspection.ok) return refused([`(event): ${inspection.issue}`]);
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    return refused([`(event): expected a JSON object, got ${preview(event)}`]);
  }
  const record = event as Record<string, unknown>;
  const issues: Issues = [];
  const parsed = readFields(record, issues);
  return issues.length > 0 ? refused(issues) : { ok: true, event: parsed };
}

/** The event its marker field names (`sweep`, `redrive`, `manual`; a tick has none). */
function readFields(record: Record<string, unknown>, issues: Issues): DispatcherEvent {
  if (Object.hasOwn(record, 'sweep')) {
    literalTrue(record, 'sweep', issues);
    const scheduledTime = instant(record, 'scheduledTime', issues);
    return { kind: 'sweep', scheduledAt: truncateToMinute(scheduledTime) };
  }
  if (Object.hasOwn(record, 'redrive')) return readRedrive(record, issues);
  if (Object.hasOwn(record, 'manual')) {
    literalTrue(record, 'manual', issues);
    const jobId = boundedString(record, 'jobId', MAX_EVENT_JOB_ID_CHARS, issues);
    const at = own(record, 'at') === undefined ? undefined : instant(record, 'at', issues);
    return { kind: 'manual', jobId, ...(at ? { at: truncateToMinute(at) } : {}) };
  }
  const jobId = boundedString(record, 'jobId', MAX_EVENT_JOB_ID_CHARS, issues);
  const scheduledTime = instant(record, 'scheduledTime', issues);
  const schedulerAttempt = attemptNumber(record, issues);
  const executionId = executionIdOf(record, issues);
  return {
    kind: 'tick',
    jobId,
    scheduledAt: truncateToMinute(scheduledTime),
    ...(executionId ? { executionId } : {}),
    ...(schedulerAttempt !== undefined ? { schedulerAttempt } : {}),
  };
}

function readRedrive(record: Record<string, unknown>, issues: Issues): RedriveEvent {
  literalTrue(record, 'redrive', issues);
  const jobId = boundedString(record, 'jobId', MAX_EVENT_JOB_ID_CHARS, issues);
  const at = instant(record, 'at', issues);
  const manual = own(record, 'manual');
  if (manual !== undefined && typeof manual !== 'boolean') {
    issues.push(`manual: expected a boolean, got ${preview(manual)}`);
  }
  return { kind: 'redrive', jobId, at: new Date(at), manual: manual === true };
}

/**
 * {@link readEvent} for callers that want an exception: the event, or `MalformedEventError`
 * with the issues.
 *
 * @example
 * parseEvent({ jobId: 'daily', scheduledTime: '2023-03-26T01:30:07Z', attempt: 1 })
 * //=> { kind: 'tick', jobId: 'daily', scheduledAt: 2023-03-26T01:30:00.000Z, schedulerAttempt: 1 }
 * parseEvent({ nope: 1 }) // throws MalformedEventError
 */
export function parseEvent(event: unknown): DispatcherEvent {
  const reading = readEvent(event);
  if (!reading.ok) throw new MalformedEventError(event, [...reading.issues]);
  return reading.event;
}

/** True for `MalformedEventError`, also across two loaded copies of this module. */
export function isMalformedEventError(error: unknown): error is MalformedEventError {
  return (error as { name?: unknown } | null)?.name === 'MalformedEventError';
}
