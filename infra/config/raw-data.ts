/**
 * Questions about the file's raw data: what the YAML parser gave, before the schema judged it.
 *
 * The loader merges, locates and checks raw mappings before zod has said they are valid, so it
 * cannot rely on their types.
 */
import type { YamlPath } from './source-positions.ts';

/** A YAML mapping: an object that is neither null nor a list. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether `path` names a value in `root`, through mappings and lists.
 *
 * Tells a field a job sets itself from one it inherits from `defaults:`.
 */
export function hasValue(root: unknown, path: YamlPath): boolean {
  let current: unknown = root;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') {
      if (segment >= current.length) return false;
      current = current[segment];
    } else if (isPlainObject(current) && Object.hasOwn(current, String(segment))) {
      current = current[String(segment)];
    } else {
      return false;
    }
  }
  return true;
}

/** Where a job sits in the file's `jobs:` list, by its id, for the checks after parsing. */
export function jobIndex(rawJobs: readonly unknown[], jobId: string): number {
  return rawJobs.findIndex((raw) => isPlainObject(raw) && raw.id === jobId);
}
