import { z } from 'zod';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { TargetType } from '#jobs/job.ts';
import { clip, type EventSummary, inspectEvent } from '#shared/event-bounds.ts';

/**
 * Longest job id, nominal time, zone, DST tag, logical date and status a completion may carry:
 * the envelope's own fields are short (a job id is at most 64 characters), and every one of
 * them goes into the recorder's log lines.
 */
const MAX_ID_CHARS = 64;
/** Longest stack name, request id, execution name and error name read from a completion. */
const MAX_NAME_CHARS = 256;
/** Longest ARN AWS issues. */
const MAX_ARN_CHARS = 2048;

/** An ISO instant with an offset, of a sane length (zod allows any number of fraction digits). */
const instantSchema = z.iso.datetime({ offset: true }).max(MAX_ID_CHARS);

/**
 * The run envelope v1 (architecture §6) as it comes back from a target.
 *
 * Loose: v1 only ever gains fields, and whatever the target received passes through to the
 * dead-letter message untouched.
 */
const runEnvelopeSchema = z.looseObject({
  version: z.literal(1),
  jobId: z.string().min(1).max(MAX_ID_CHARS),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  scheduledAt: instantSchema,
  nominal: z.string().max(MAX_ID_CHARS),
  timezone: z.string().max(MAX_ID_CHARS),
  dst: z.string().max(MAX_ID_CHARS),
  attempt: z.number().int().positive(),
  logicalDate: z.string().max(MAX_ID_CHARS),
  payload: z.unknown(),
  stack: z.string().max(MAX_NAME_CHARS).optional(),
  // Anything but a string is no secret: the completion is then a forgery, not unreadable.
  deliverySecret: z.unknown().optional(),
});

/** The envelope as a run envelope, and the delivery secret it carried, apart. */
function toEnvelope(parsed: z.infer<typeof runEnvelopeSchema>): {
  envelope: RunEnvelope;
  secret: string | undefined;
} {
  const { deliverySecret, ...rest } = parsed;
  return {
    envelope: { ...rest, payload: rest.payload ?? null, stack: rest.stack ?? '' },
    secret: typeof deliverySecret === 'string' ? deliverySecret : undefined,
  };
}

/** What Lambda puts on an event bus for an asynchronous invocation's outcome. */
const LAMBDA_RESULT_DETAIL_TYPES = [
  'Lambda Function Invocation Result - Success',
  'Lambda Function Invocation Result - Failure',
];

/**
 * The invocation record inside an event, whichever way it came: straight from a destination,
 * or through EventBridge (`source: lambda`, the record in `detail`).
 */
function invocationRecord(event: object): unknown {
  const e = event as { source?: unknown; 'detail-type'?: unknown; detail?: unknown };
  const detailType = e['detail-type'];
  if (
    e.source === 'lambda' &&
    typeof detailType === 'string' &&
    LAMBDA_RESULT_DETAIL_TYPES.includes(detailType)
  ) {
    return e.detail;
  }
  return 'requestContext' in event ? event : undefined;
}

const destinationRecordSchema = z.object({
  version: z.string().max(MAX_ID_CHARS),
  timestamp: instantSchema,
  requestContext: z.object({
    requestId: z.string().min(1).max(MAX_NAME_CHARS),
    functionArn: z.string().min(1).max(MAX_ARN_CHARS),
    condition: z.string().min(1).max(MAX_ID_CHARS),
    approximateInvokeCount: z.number().int().nonnegative(),
  }),
  requestPayload: z.unknown(),
  responseContext: z
    .object({
      statusCode: z.number().optional(),
      executedVersion: z.string().max(MAX_ID_CHARS).optional(),
      functionError: z.string().max(MAX_NAME_CHARS).optional(),
    })
    .optional(),
  responsePayload: z.unknown().optional(),
});

const epochMsOrIso = z.union([z.number().int(), instantSchema]);

const sfnStatusChangeSchema = z.object({
  source: z.literal('aws.states'),
  'detail-type': z.literal('Step Functions Execution Status Change'),
  time: z.string().optional(),
  detail: z.object({
    executionArn: z.string().min(1).max(MAX_ARN_CHARS),
    stateMachineArn: z.string().min(1).max(MAX_ARN_CHARS),
    name: z.string().max(MAX_NAME_CHARS),
    status: z.string().min(1).max(MAX_ID_CHARS),
    startDate: epochMsOrIso,
    stopDate: epochMsOrIso.nullish(),
    input: z.string().nullish(),
    error: z.string().nullish(),
    cause: z.string().nullish(),
  }),
});

const sfnTerminalStatuses = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/** Longest `lastError` stored in the ledger and the DLQ message; the rest is cut off. */
export const MAX_LAST_ERROR_CHARS = 1000;

/**
 * How a run's target reported it finished, whichever way it arrived.
 *
 * `durationFrom` says what the duration is measured from: for Step Functions the execution's
 * own `startDate`, for an asynchronous Lambda invocation the run's `dispatchedAt` in the
 * ledger (Lambda's destination record carries only the time it was written, so the duration
 * includes Lambda's internal queueing and its retries: the time from hand-off to outcome).
 */
export interface Completion {
  readonly source: 'lambda-destination' | 'stepfunctions';
  /** The run envelope the target received, without its delivery secret. */
  readonly envelope: RunEnvelope;
  /**
   * The delivery secret the envelope carried back (`deliverySecret`), undefined when it had
   * none: the proof that the report is about a delivery this stack made. Never logged.
   */
  readonly secret: string | undefined;
  readonly status: 'succeeded' | 'failed';
  /** When the target finished: the destination record's `timestamp`, or SFN `stopDate`. */
  readonly finishedAt: Date;
  /** SFN `startDate`; undefined for Lambda, where `dispatchedAt` is used instead. */
  readonly startedAt: Date | undefined;
  /** One line saying why it failed; undefined on success. */
  readonly lastError: string | undefined;
  /** Identifies this completion: Lambda's request id, or the execution ARN. */
  readonly completionId: string;
  /** Where it ran: the function ARN (with qualifier) or the state machine ARN. */
  readonly target: {
    readonly type: Extract<TargetType, 'lambda' | 'stepfunctions'>;
    readonly arn: string;
  };
  /** Lambda's `approximateInvokeCount`; 1 for Step Functions. */
  readonly attempts: number;
}

/** Why an event could not be turned into a {@link Completion}. */
export type ParseResult =
  | { readonly kind: 'completion'; readonly completion: Completion }
  | { readonly kind: 'not-terminal'; readonly status: string; readonly executionArn: string }
  | {
      readonly kind: 'unrecognised';
      /** Why, in at most `MAX_ISSUE_CHARS` characters. */
      readonly reason: string;
      /** What a log line may say of the event: its type and size, never its content. */
      readonly event: EventSummary;
    };

function truncate(text: string): string {
  return text.length > MAX_LAST_ERROR_CHARS ? `${text.slice(0, MAX_LAST_ERROR_CHARS - 1)}…` : text;
}

function toDate(value: number | string): Date {
  return typeof value === 'number' ? new Date(value) : new Date(value);
}

function lambdaError(
  condition: string,
  attempts: number,
  functionError: string | undefined,
  responsePayload: unknown,
): string {
  const parts = [`lambda ${condition} after ${attempts} attempt(s)`];
  if (functionError) parts[0] += ` (${functionError} error)`;
  if (responsePayload && typeof responsePayload === 'object') {
    const { errorType, errorMessage } = responsePayload as Record<string, unknown>;
    if (typeof errorType === 'string' || typeof errorMessage === 'string') {
      parts.push([errorType, errorMessage].filter((x) => typeof x === 'string').join(': '));
    }
  } else if (typeof responsePayload === 'string' && responsePayload.length > 0) {
    parts.push(responsePayload);
  }
  return truncate(parts.join(': '));
}

function summariseIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** A refusal, its reason cut short. */
function unrecognised(reason: string, event: EventSummary): ParseResult {
  return { kind: 'unrecognised', reason: clip(reason), event };
}

/**
 * Turns a Lambda destination record or a Step Functions status-change event into a
 * {@link Completion}.
 *
 * Never throws: anything it cannot use comes back as `unrecognised` with a reason, so the
 * recorder can log and count it instead of failing (and being retried) on an event that will
 * never parse.
 *
 * @example
 * parseCompletionEvent({ version: '1.0', timestamp: '2026-03-29T01:00:07.000Z',
 *   requestContext: { requestId: 'r1', functionArn: 'arn:…:function:job:$LATEST',
 *     condition: 'Success', approximateInvokeCount: 1 },
 *   requestPayload: envelope, responseContext: { statusCode: 200 }, responsePayload: null });
 * //=> { kind: 'completion', completion: { status: 'succeeded', source: 'lambda-destination', … } }
 */
export function parseCompletionEvent(event: unknown): ParseResult {
  const inspection = inspectEvent(event);
  const summary = inspection.summary;
  if (!inspection.ok) return unrecognised(`event: ${inspection.issue}`, summary);
  const invocation = event && typeof event === 'object' ? invocationRecord(event) : undefined;
  if (invocation !== undefined) return parseLambdaResult(invocation, summary);
  if (event && typeof event === 'object' && Object.hasOwn(event, 'detail-type')) {
    return parseSfnChange(event, summary);
  }
  return unrecognised('neither a lambda destination record nor a sfn event', summary);
}

/** A Lambda invocation record (the destination record an EventBridge event carries). */
function parseLambdaResult(invocation: unknown, summary: EventSummary): ParseResult {
  const record = destinationRecordSchema.safeParse(invocation);
  if (!record.success) {
    return unrecognised(`destination record: ${summariseIssues(record.error)}`, summary);
  }
  const envelope = runEnvelopeSchema.safeParse(record.data.requestPayload);
  if (!envelope.success) {
    return unrecognised(
      `destination record payload is not a run envelope: ${summariseIssues(envelope.error)}`,
      summary,
    );
  }
  const { requestContext, responseContext, responsePayload } = record.data;
  const succeeded = requestContext.condition === 'Success' && !responseContext?.functionError;
  return {
    kind: 'completion',
    completion: {
      source: 'lambda-destination',
      ...toEnvelope(envelope.data),
      status: succeeded ? 'succeeded' : 'failed',
      finishedAt: new Date(record.data.timestamp),
      startedAt: undefined,
      lastError: succeeded
        ? undefined
        : lambdaError(
            requestContext.condition,
            requestContext.approximateInvokeCount,
            responseContext?.functionError,
            responsePayload,
          ),
      completionId: requestContext.requestId,
      target: { type: 'lambda', arn: requestContext.functionArn },
      attempts: requestContext.approximateInvokeCount,
    },
  };
}

/** A Step Functions `Execution Status Change` event; only terminal statuses complete a run. */
function parseSfnChange(event: object, summary: EventSummary): ParseResult {
  const change = sfnStatusChangeSchema.safeParse(event);
  if (!change.success) {
    return unrecognised(`eventbridge event: ${summariseIssues(change.error)}`, summary);
  }
  const { detail } = change.data;
  const status = detail.status as (typeof sfnTerminalStatuses)[number];
  if (!sfnTerminalStatuses.includes(status)) {
    return { kind: 'not-terminal', status: detail.status, executionArn: detail.executionArn };
  }
  if (detail.stopDate === null || detail.stopDate === undefined) {
    return unrecognised(`execution ${detail.status} without stopDate`, summary);
  }
  const envelope = executionEnvelope(detail.input);
  if (typeof envelope === 'string') return unrecognised(envelope, summary);
  const succeeded = status === 'SUCCEEDED';
  return {
    kind: 'completion',
    completion: {
      source: 'stepfunctions',
      ...envelope,
      status: succeeded ? 'succeeded' : 'failed',
      finishedAt: toDate(detail.stopDate),
      startedAt: toDate(detail.startDate),
      lastError: succeeded ? undefined : executionError(status, detail.error, detail.cause),
      completionId: detail.executionArn,
      target: { type: 'stepfunctions', arn: detail.stateMachineArn },
      attempts: 1,
    },
  };
}

/** The run envelope an execution was started with (and its secret), or why there is none. */
function executionEnvelope(
  input: string | null | undefined,
): ReturnType<typeof toEnvelope> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input ?? '');
  } catch {
    return 'execution input is missing or not JSON';
  }
  // A string in the event, so within its size; its nesting is bounded here.
  const inspection = inspectEvent(parsed);
  if (!inspection.ok) return `execution input: ${inspection.issue}`;
  const envelope = runEnvelopeSchema.safeParse(parsed);
  if (!envelope.success) {
    return `execution input is not a run envelope: ${summariseIssues(envelope.error)}`;
  }
  return toEnvelope(envelope.data);
}

function executionError(status: string, error: unknown, cause: unknown): string {
  return truncate(
    [`execution ${status}`, error, cause]
      .filter((x): x is string => typeof x === 'string' && x.length > 0)
      .join(': '),
  );
}
