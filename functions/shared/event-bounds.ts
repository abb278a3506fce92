/**
 * The bounds of what a zonecron Lambda reads from an event, checked before anything recursive
 * (a schema, `JSON.stringify`, `String` of an array) touches it.
 *
 * Lambda hands a function an already-parsed object, and nothing in it is bounded: a 20,000-deep
 * nesting makes `JSON.stringify` and every recursive walk throw `RangeError` (the stack), a
 * 5 MB string makes a log line of 5 MB. {@link inspectEvent} walks the event once, iteratively,
 * and stops at the first bound it crosses, so what it costs is bounded whatever the event.
 */

/** How deep and how large an event may be. */
export interface EventBounds {
  /** Most levels of arrays and objects, the event itself being the first. */
  readonly maxDepth: number;
  /**
   * Most characters of the event as JSON, counted from below (a string's characters and
   * quotes, a key's, one per number and separator): an event that JSON states in fewer never
   * crosses it.
   */
  readonly maxChars: number;
}

/**
 * What zonecron's Lambdas accept: 256 KiB, the most EventBridge and EventBridge Scheduler
 * deliver (a tick, a sweep, a Lambda destination record or a Step Functions status change all
 * travel through one of them), and 256 levels: far more than a run envelope and a target's
 * response need (a job's payload nests inside three), far fewer than a recursive walk can take.
 */
export const DEFAULT_EVENT_BOUNDS: EventBounds = { maxDepth: 256, maxChars: 262_144 };

/** Longest first issue a log line about an unreadable event carries. */
export const MAX_ISSUE_CHARS = 300;

/** What a log line may say of an event: its type and a size estimate, never its content. */
export interface EventSummary {
  /** `object`, `array`, `null`, `string`, `number`, … */
  readonly type: string;
  /**
   * Characters counted before the walk ended: the event's size as JSON from below, or, when a
   * bound was crossed, how far the count got.
   */
  readonly sizeEstimate: number;
}

/** Whether an event is within its bounds, and what a log line may say of it. */
export type EventInspection =
  | { readonly ok: true; readonly summary: EventSummary }
  | { readonly ok: false; readonly summary: EventSummary; readonly issue: string };

/**
 * The type of a value as a log line names it.
 *
 * @example
 * typeOfValue([]) //=> 'array'
 * typeOfValue(null) //=> 'null'
 */
export function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Walks an event once, iteratively, and says whether it stays within `bounds`.
 *
 * Stops at the first bound crossed: a huge array costs at most `maxChars` steps, a cycle (only
 * possible when called directly) is refused at `maxDepth`. Never throws: a value that throws
 * when read (a getter, a proxy) is refused as unreadable.
 *
 * @example
 * inspectEvent({ jobId: 'daily' }) //=> { ok: true, summary: { type: 'object', sizeEstimate: 17 } }
 * inspectEvent(deeplyNested).issue //=> 'nested deeper than 256 levels'
 */
export function inspectEvent(
  event: unknown,
  bounds: EventBounds = DEFAULT_EVENT_BOUNDS,
): EventInspection {
  const walk = { chars: 0 };
  const type = typeOfValue(event);
  let issue: string | undefined;
  try {
    issue = walkWithin(event, bounds, walk);
  } catch (error) {
    issue = `unreadable: ${error instanceof Error ? error.name : typeof error}`;
  }
  const summary = { type, sizeEstimate: walk.chars };
  return issue === undefined ? { ok: true, summary } : { ok: false, summary, issue };
}

function walkWithin(
  event: unknown,
  bounds: EventBounds,
  walk: { chars: number },
): string | undefined {
  const pending: Array<{ value: unknown; depth: number }> = [{ value: event, depth: 0 }];
  const tooLarge = `larger than ${bounds.maxChars} characters`;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, depth } = next;
    if (typeof value === 'string') walk.chars += value.length + 2;
    else if (typeof value === 'number') walk.chars += 1;
    else if (typeof value === 'boolean' || value === null) walk.chars += 4;
    else if (typeof value === 'object') {
      if (depth >= bounds.maxDepth) return `nested deeper than ${bounds.maxDepth} levels`;
      const children = childrenOf(value, bounds.maxChars, walk);
      if (children === undefined) return tooLarge;
      for (const child of children) pending.push({ value: child, depth: depth + 1 });
    } else if (value !== undefined) return `holds a ${typeof value}, which JSON cannot`;
    if (walk.chars > bounds.maxChars) return tooLarge;
  }
  return undefined;
}

/**
 * The values inside an array or object, their brackets, separators and keys counted; undefined
 * once the count passes `maxChars` (checked before any value is read, so a huge array costs
 * nothing).
 */
function childrenOf(
  value: object,
  maxChars: number,
  walk: { chars: number },
): unknown[] | undefined {
  if (Array.isArray(value)) {
    walk.chars += 1 + value.length;
    if (walk.chars > maxChars) return undefined;
    return Array.from({ length: value.length }, (_, i) => value[i]);
  }
  const keys = Object.keys(value);
  walk.chars += 2 + keys.length;
  if (walk.chars > maxChars) return undefined;
  const record = value as Record<string, unknown>;
  const children: unknown[] = [];
  for (const key of keys) {
    walk.chars += key.length + 2;
    if (walk.chars > maxChars) return undefined;
    children.push(record[key]);
  }
  return children;
}

/**
 * A value as an issue message may quote it: a short excerpt of a string, the length of an
 * array, never the content of an object; bounded whatever the value.
 *
 * @example
 * preview('x'.repeat(5_000_000)) //=> '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" (5000000 characters)'
 * preview([1, 2]) //=> 'an array of 2'
 */
export function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    if (value.length <= 32) return JSON.stringify(value);
    return `${JSON.stringify(`${value.slice(0, 32)}…`)} (${value.length} characters)`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return `a${typeof value === 'object' ? 'n' : ''} ${typeof value}`;
}

/**
 * `text` cut to `max` characters, with `…` when cut.
 *
 * @example
 * clip('x'.repeat(500), 10) //=> 'xxxxxxxxx…'
 */
export function clip(text: string, max = MAX_ISSUE_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The fields of the one log line about an event a Lambda could not read: its type, its size
 * estimate and its first issue, cut short; never the event itself.
 *
 * @example
 * unreadableEventFields(inspectEvent(null).summary, ['(event): expected a JSON object'])
 * //=> { type: 'null', sizeEstimate: 4, issue: '(event): expected a JSON object', issueCount: 1 }
 */
export function unreadableEventFields(
  summary: EventSummary,
  issues: readonly string[],
): { type: string; sizeEstimate: number; issue: string; issueCount: number } {
  return {
    type: summary.type,
    sizeEstimate: summary.sizeEstimate,
    issue: clip(issues[0] ?? 'unreadable'),
    issueCount: issues.length,
  };
}
