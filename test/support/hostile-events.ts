/**
 * Events nobody legitimate sends, as Lambda would hand them to a handler (already parsed), for
 * the dispatcher's and the recorder's tests.
 */

/** Nesting that makes `JSON.stringify`, `String` of an array and any recursive walk throw. */
export const HOSTILE_DEPTH = 20_000;

/** A 5 MB string. */
export const FIVE_MB = 'x'.repeat(5 * 1024 * 1024);

/**
 * An object nested `depth` levels under `key`, built iteratively.
 *
 * @example
 * deepObject(2, 'a') //=> { a: { a: {} } }
 */
export function deepObject(depth: number, key = 'detail'): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

/**
 * An array nested `depth` levels, built iteratively.
 *
 * @example
 * deepArray(2) //=> [[[]]]
 */
export function deepArray(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** An object that holds itself: impossible in JSON, possible when a test calls a core directly. */
export function cyclicObject(): Record<string, unknown> {
  const event: Record<string, unknown> = { jobId: 'cyclic' };
  event.self = event;
  return event;
}

/**
 * Hostile events that are neither a dispatcher event nor a completion, whatever the reader:
 * every one must be ignored and counted, never throw.
 */
export const HOSTILE_EVENTS: ReadonlyArray<readonly [string, unknown]> = [
  ['a 20,000-deep object', deepObject(HOSTILE_DEPTH)],
  ['a 20,000-deep array', deepArray(HOSTILE_DEPTH)],
  ['a 20,000-deep array as a field', { jobId: deepArray(HOSTILE_DEPTH), 'detail-type': 'x' }],
  [
    'a 20,000-deep array as detail-type',
    { source: 'lambda', 'detail-type': deepArray(HOSTILE_DEPTH) },
  ],
  ['a 5 MB string field', { jobId: FIVE_MB, scheduledTime: FIVE_MB, 'detail-type': FIVE_MB }],
  ['a 5 MB string', FIVE_MB],
  ['an array', [{ jobId: 'daily', scheduledTime: '2023-06-01T10:00:00Z' }]],
  ['a million-element array', new Array(1_000_000).fill(0)],
  ['null', null],
  ['a number', 42],
  ['1e400 (Infinity once parsed)', JSON.parse('{"attempt": 1e400, "jobId": 1e400}')],
  ['a __proto__ key', JSON.parse('{"__proto__": {"jobId": "daily", "sweep": true}}')],
  ['a cyclic object', cyclicObject()],
];

/**
 * The longest a log line about a hostile event may be, as JSON: a type, a size estimate and the
 * first issue, cut short.
 */
export const MAX_HOSTILE_LOG_CHARS = 2_000;

/**
 * What a call returned, or the name and message of what it threw, never the thrown value: an
 * error that holds a hostile event (a 20,000-deep one) would crash the test runner's worker
 * when it reports the failure.
 *
 * @example
 * await settled(dispatcher.handle(deepObject(HOSTILE_DEPTH)))
 * //=> { kind: 'ignored', reason: 'malformed' }, or { threw: 'RangeError: Maximum call stack…' }
 */
export async function settled(call: Promise<unknown>): Promise<unknown> {
  try {
    return await call;
  } catch (error) {
    return { threw: error instanceof Error ? `${error.name}: ${error.message}` : typeof error };
  }
}
