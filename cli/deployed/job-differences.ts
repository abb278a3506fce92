import type { JobDefinition } from '#jobs/job.ts';

/** Fields compared as a whole: a payload is the target's business, one value however deep. */
const WHOLE = new Set(['payload']);

/**
 * The fields in which two definitions of one job differ, as dotted paths in the jobs file's
 * shape (`target.arn`, `retry.maxAttempts`, `payload`), in the definition's order; empty
 * when they agree.
 *
 * @example
 * jobDifferences(local, { ...local, retry: { maxAttempts: 5 }, payload: { v: 2 } })
 * //=> ['payload', 'retry.maxAttempts']
 */
export function jobDifferences(local: JobDefinition, deployed: JobDefinition): string[] {
  return differences(local, deployed, '');
}

function differences(a: unknown, b: unknown, path: string): string[] {
  if (isRecord(a) && isRecord(b) && !WHOLE.has(path)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) => differences(a[key], b[key], path ? `${path}.${key}` : key));
  }
  return canonical(a) === canonical(b) ? [] : [path];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted, so key order never counts as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : 1))) : v,
  );
}
