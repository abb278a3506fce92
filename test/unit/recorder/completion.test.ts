import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_LAST_ERROR_CHARS,
  parseCompletionEvent,
} from '../../../functions/recorder/completion.ts';
import { runDurationMs } from '../../../functions/recorder/record.ts';
import { HOSTILE_DEPTH, HOSTILE_EVENTS } from '../../support/hostile-events.ts';

const key = createHash('sha256').update('nightly:2026-03-29-01:00-UTC').digest('hex');
const envelope = {
  version: 1,
  jobId: 'nightly',
  key,
  scheduledAt: '2026-03-29T01:00:00.000Z',
  nominal: '2026-03-29T02:00',
  timezone: 'Europe/Berlin',
  dst: 'gap',
  attempt: 1,
  logicalDate: '2026-03-29',
  payload: { table: 'orders' },
  stack: 'Zonecron',
};
const functionArn = 'arn:aws:lambda:eu-central-1:123456789012:function:nightly:$LATEST';

function destination(
  overrides: Record<string, unknown> = {},
  context: Record<string, unknown> = {},
) {
  return {
    version: '1.0',
    timestamp: '2026-03-29T01:00:09.250Z',
    requestContext: {
      requestId: 'c0ffee00-0000-4000-8000-000000000001',
      functionArn,
      condition: 'Success',
      approximateInvokeCount: 1,
      ...context,
    },
    requestPayload: envelope,
    responseContext: { statusCode: 200, executedVersion: '$LATEST' },
    responsePayload: { ok: true },
    ...overrides,
  };
}

function sfnEvent(detail: Record<string, unknown>) {
  return {
    version: '0',
    id: 'e1',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    account: '123456789012',
    time: '2026-03-29T01:04:00Z',
    region: 'eu-central-1',
    resources: ['arn:aws:states:eu-central-1:123456789012:execution:etl:run-1'],
    detail: {
      executionArn: 'arn:aws:states:eu-central-1:123456789012:execution:etl:run-1',
      stateMachineArn: 'arn:aws:states:eu-central-1:123456789012:stateMachine:etl',
      name: 'run-1',
      status: 'SUCCEEDED',
      startDate: Date.parse('2026-03-29T01:00:01.000Z'),
      stopDate: Date.parse('2026-03-29T01:03:31.500Z'),
      input: JSON.stringify(envelope),
      output: '{}',
      error: null,
      cause: null,
      ...detail,
    },
  };
}

describe('lambda destination records', () => {
  it('reads a Success record as a succeeded run finished at the record timestamp', () => {
    const parsed = parseCompletionEvent(destination());
    expect(parsed.kind).toBe('completion');
    if (parsed.kind !== 'completion') return;
    expect(parsed.completion).toMatchObject({
      source: 'lambda-destination',
      status: 'succeeded',
      lastError: undefined,
      completionId: 'c0ffee00-0000-4000-8000-000000000001',
      target: { type: 'lambda', arn: functionArn },
      attempts: 1,
    });
    expect(parsed.completion.finishedAt.toISOString()).toBe('2026-03-29T01:00:09.250Z');
    expect(parsed.completion.startedAt).toBeUndefined();
    expect(parsed.completion.envelope).toEqual(envelope);
  });

  it.each([
    [
      'an unhandled error after retries',
      { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      {
        responseContext: {
          statusCode: 200,
          executedVersion: '$LATEST',
          functionError: 'Unhandled',
        },
        responsePayload: { errorType: 'Error', errorMessage: 'boom', trace: ['at x'] },
      },
      'lambda RetriesExhausted after 3 attempt(s) (Unhandled error): Error: boom',
    ],
    [
      'an event that aged out in the async queue',
      { condition: 'EventAgeExceeded', approximateInvokeCount: 0 },
      { responseContext: undefined, responsePayload: undefined },
      'lambda EventAgeExceeded after 0 attempt(s)',
    ],
    [
      'a function error reported with a Success condition',
      { condition: 'Success', approximateInvokeCount: 1 },
      {
        responseContext: { statusCode: 200, functionError: 'Handled' },
        responsePayload: 'plain text',
      },
      'lambda Success after 1 attempt(s) (Handled error): plain text',
    ],
  ])('reads %s as a failed run with a one-line error', (_name, context, overrides, lastError) => {
    const parsed = parseCompletionEvent(destination(overrides, context));
    expect(parsed.kind).toBe('completion');
    if (parsed.kind !== 'completion') return;
    expect(parsed.completion.status).toBe('failed');
    expect(parsed.completion.lastError).toBe(lastError);
    expect(parsed.completion.attempts).toBe(context.approximateInvokeCount);
  });

  it('cuts a long error message to the stored maximum', () => {
    const parsed = parseCompletionEvent(
      destination(
        { responsePayload: { errorType: 'Error', errorMessage: 'x'.repeat(5000) } },
        { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
      ),
    );
    if (parsed.kind !== 'completion') throw new Error(`unexpected ${parsed.kind}`);
    expect(parsed.completion.lastError).toHaveLength(MAX_LAST_ERROR_CHARS);
    expect(parsed.completion.lastError?.endsWith('…')).toBe(true);
  });
});

describe('step functions status changes', () => {
  it('reads SUCCEEDED with its start and stop dates (epoch milliseconds)', () => {
    const parsed = parseCompletionEvent(sfnEvent({}));
    if (parsed.kind !== 'completion') throw new Error(`unexpected ${parsed.kind}`);
    expect(parsed.completion).toMatchObject({
      source: 'stepfunctions',
      status: 'succeeded',
      completionId: 'arn:aws:states:eu-central-1:123456789012:execution:etl:run-1',
      target: {
        type: 'stepfunctions',
        arn: 'arn:aws:states:eu-central-1:123456789012:stateMachine:etl',
      },
    });
    expect(parsed.completion.startedAt?.toISOString()).toBe('2026-03-29T01:00:01.000Z');
    expect(parsed.completion.finishedAt.toISOString()).toBe('2026-03-29T01:03:31.500Z');
  });

  it.each([
    [
      'FAILED',
      { error: 'States.TaskFailed', cause: 'disk full' },
      'execution FAILED: States.TaskFailed: disk full',
    ],
    ['TIMED_OUT', {}, 'execution TIMED_OUT'],
    ['ABORTED', { cause: 'stopped by operator' }, 'execution ABORTED: stopped by operator'],
  ])('reads %s as a failed run', (status, extra, lastError) => {
    const parsed = parseCompletionEvent(sfnEvent({ status, ...extra }));
    if (parsed.kind !== 'completion') throw new Error(`unexpected ${parsed.kind}`);
    expect(parsed.completion.status).toBe('failed');
    expect(parsed.completion.lastError).toBe(lastError);
  });

  it('accepts ISO dates as well as epoch milliseconds', () => {
    const parsed = parseCompletionEvent(
      sfnEvent({ startDate: '2026-10-25T00:30:00.000Z', stopDate: '2026-10-25T00:31:00.000Z' }),
    );
    if (parsed.kind !== 'completion') throw new Error(`unexpected ${parsed.kind}`);
    expect(parsed.completion.finishedAt.toISOString()).toBe('2026-10-25T00:31:00.000Z');
  });

  it('treats a RUNNING execution as not terminal', () => {
    expect(parseCompletionEvent(sfnEvent({ status: 'RUNNING', stopDate: null }))).toEqual({
      kind: 'not-terminal',
      status: 'RUNNING',
      executionArn: 'arn:aws:states:eu-central-1:123456789012:execution:etl:run-1',
    });
  });
});

describe('unrecognised events', () => {
  it.each([
    ['null', null],
    ['a string', 'hello'],
    ['an S3 notification', { Records: [{ eventSource: 'aws:s3' }] }],
    ['a destination record without a timestamp', destination({ timestamp: undefined })],
    [
      'a destination record whose payload is not a run envelope',
      destination({ requestPayload: { hello: 1 } }),
    ],
    [
      'a destination record whose envelope has a bad key',
      destination({ requestPayload: { ...envelope, key: 'nope' } }),
    ],
    [
      'an envelope without its nominal slot',
      destination({ requestPayload: { ...envelope, nominal: undefined } }),
    ],
    [
      'an envelope of another version',
      destination({ requestPayload: { ...envelope, version: 2 } }),
    ],
    ['an sfn event without input', sfnEvent({ input: null })],
    ['an sfn event whose input is not JSON', sfnEvent({ input: '{' })],
    ['an sfn event whose input is not an envelope', sfnEvent({ input: '{"a":1}' })],
    ['a terminal sfn event without stopDate', sfnEvent({ stopDate: null })],
    ['another EventBridge event', { source: 'aws.ec2', 'detail-type': 'EC2 State', detail: {} }],
  ])('does not accept %s', (_name, event) => {
    const parsed = parseCompletionEvent(event);
    expect(parsed.kind).toBe('unrecognised');
    if (parsed.kind === 'unrecognised') expect(parsed.reason.length).toBeGreaterThan(0);
  });
});

describe('events nobody legitimate sends', () => {
  /** A field longer than any real one, yet well within the event's 256 KiB. */
  const long = 'x'.repeat(100_000);

  it.each<readonly [string, unknown]>([
    ...HOSTILE_EVENTS,
    [
      'an envelope whose job id is 100,000 characters',
      destination({ requestPayload: { ...envelope, jobId: long } }),
    ],
    [
      'a destination record whose function ARN is 100,000 characters',
      destination({}, { functionArn: long }),
    ],
    ['an sfn event whose status is 100,000 characters', sfnEvent({ status: long })],
    [
      'an sfn event whose execution ARN is 100,000 characters',
      sfnEvent({ status: 'RUNNING', executionArn: long }),
    ],
    [
      'an sfn event whose input nests 20,000 deep',
      sfnEvent({
        input: JSON.stringify({ ...envelope, payload: 0 }).replace(
          '"payload":0',
          `"payload":${'['.repeat(HOSTILE_DEPTH)}${']'.repeat(HOSTILE_DEPTH)}`,
        ),
      }),
    ],
  ])('refuses %s with a short reason, without throwing', (_name, event) => {
    const parsed = parseCompletionEvent(event);
    expect(parsed.kind).toBe('unrecognised');
    if (parsed.kind !== 'unrecognised') return;
    expect(parsed.reason.length).toBeGreaterThan(0);
    expect(parsed.reason.length).toBeLessThanOrEqual(300);
    expect(typeof parsed.event.type).toBe('string');
  });

  it('never throws for arbitrary values, alone or in place of a field: a result with a short reason', () => {
    const anyValue = fc.oneof(
      fc.jsonValue({ maxDepth: 5 }),
      fc.anything({ maxDepth: 4, maxKeys: 6, withNullPrototype: true, withBigInt: true }),
    );
    const anyEvent = fc.oneof(
      anyValue,
      fc
        .tuple(
          fc.constantFrom(
            'version',
            'timestamp',
            'requestContext',
            'requestPayload',
            'responseContext',
            'responsePayload',
          ),
          anyValue,
        )
        .map(([field, value]) => destination({ [field]: value })),
      fc
        .tuple(fc.constantFrom(...Object.keys(envelope)), anyValue)
        .map(([field, value]) => destination({ requestPayload: { ...envelope, [field]: value } })),
      fc
        .tuple(
          fc.constantFrom('status', 'startDate', 'stopDate', 'input', 'error', 'cause', 'name'),
          anyValue,
        )
        .map(([field, value]) => sfnEvent({ [field]: value })),
    );
    fc.assert(
      fc.property(anyEvent, (event) => {
        const parsed = parseCompletionEvent(event);
        expect(['completion', 'not-terminal', 'unrecognised']).toContain(parsed.kind);
        if (parsed.kind === 'unrecognised') expect(parsed.reason.length).toBeLessThanOrEqual(300);
      }),
      { numRuns: 300 },
    );
  });
});

describe('lambda results through the default event bus', () => {
  it.each([
    ['Success', 'succeeded'],
    ['Failure', 'failed'],
  ] as const)('reads the invocation record of a %s event', (result, status) => {
    const record =
      result === 'Success'
        ? destination()
        : destination(
            { responseContext: { statusCode: 200, functionError: 'Unhandled' } },
            { condition: 'RetriesExhausted', approximateInvokeCount: 3 },
          );
    const parsed = parseCompletionEvent({
      version: '0',
      source: 'lambda',
      'detail-type': `Lambda Function Invocation Result - ${result}`,
      detail: record,
    });
    expect(parsed).toMatchObject({
      kind: 'completion',
      completion: { source: 'lambda-destination', status, envelope: { key, stack: 'Zonecron' } },
    });
  });
});

describe('the delivery secret', () => {
  const secret = '5e'.repeat(16);

  it('takes the secret out of the envelope of a destination record and of an execution input', () => {
    const withSecret = { ...envelope, deliverySecret: secret };
    const lambda = parseCompletionEvent(destination({ requestPayload: withSecret }));
    const sfn = parseCompletionEvent(sfnEvent({ input: JSON.stringify(withSecret) }));
    for (const parsed of [lambda, sfn]) {
      expect(parsed).toMatchObject({ kind: 'completion', completion: { secret } });
      if (parsed.kind !== 'completion') continue;
      expect(parsed.completion.envelope).toEqual(envelope);
      expect(JSON.stringify(parsed.completion.envelope)).not.toContain(secret);
    }
  });

  it.each([
    ['missing', undefined],
    ['not a string', 42],
  ])('reads an envelope whose secret is %s as a completion without one', (_what, value) => {
    const parsed = parseCompletionEvent(
      destination({ requestPayload: { ...envelope, deliverySecret: value } }),
    );
    expect(parsed).toMatchObject({ kind: 'completion', completion: { secret: undefined } });
  });
});

describe('run duration', () => {
  const run = { dispatchedAt: '2026-03-29T01:00:02.000Z' };

  it('measures an async lambda run from dispatchedAt to the destination record', () => {
    const parsed = parseCompletionEvent(destination());
    if (parsed.kind !== 'completion') throw new Error('no completion');
    expect(runDurationMs(parsed.completion, run)).toBe(7250);
  });

  it('measures a step functions run from its own start to stop', () => {
    const parsed = parseCompletionEvent(sfnEvent({}));
    if (parsed.kind !== 'completion') throw new Error('no completion');
    expect(runDurationMs(parsed.completion, run)).toBe(210_500);
  });

  it('never reports a negative duration when clocks disagree', () => {
    const parsed = parseCompletionEvent(destination({ timestamp: '2026-03-29T01:00:01.000Z' }));
    if (parsed.kind !== 'completion') throw new Error('no completion');
    expect(runDurationMs(parsed.completion, run)).toBe(0);
  });
});
