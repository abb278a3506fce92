/**
 * Maps a path into the parsed YAML (`['jobs', 2, 'target', 'type']`) to a line and column.
 *
 * zod reports problems by path; the `yaml` package knows where each node came from. When the
 * path names something absent (a missing required key), the nearest existing parent stands in,
 * so the message still points into the right job.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';

/** A path through mappings (string keys) and lists (indices). */
export type YamlPath = readonly (string | number)[];

/** A 1-based source position, and how much of the path it actually reached. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
  /** True when the whole path exists, false when a parent stands in for it. */
  readonly exact: boolean;
}

function keyOf(node: unknown): unknown {
  return isScalar(node) ? node.value : node;
}

interface Step {
  readonly node: Node | null;
  readonly key: Node | null;
}

/** Walks `path`; returns the steps that exist, the last one deepest. */
function walk(doc: Document, path: YamlPath): Step[] {
  const steps: Step[] = [{ node: doc.contents as Node | null, key: null }];
  let current: unknown = doc.contents;
  for (const segment of path) {
    if (isAlias(current)) current = current.resolve(doc);
    if (isMap(current)) {
      const pair = current.items.find((item) => String(keyOf(item.key)) === String(segment));
      if (!pair) break;
      steps.push({ node: (pair.value as Node | null) ?? null, key: pair.key as Node | null });
      current = pair.value;
    } else if (isSeq(current) && typeof segment === 'number') {
      const item = current.items[segment];
      if (item === undefined) break;
      steps.push({ node: item as Node | null, key: null });
      current = item;
    } else {
      break;
    }
  }
  return steps;
}

function start(node: Node | null | undefined): number | undefined {
  return node?.range?.[0];
}

/**
 * True when every segment of `path` exists in the document.
 *
 * @example
 * hasPath(parseDocument('a: { b: 1 }'), ['a', 'b']) //=> true
 * hasPath(parseDocument('a: { b: 1 }'), ['a', 'c']) //=> false
 */
export function hasPath(doc: Document, path: YamlPath): boolean {
  return walk(doc, path).length === path.length + 1;
}

/**
 * The position of the node at `path`, or of its nearest existing parent.
 *
 * With `pointAtKey`, a mapping entry is located by its key (`timezon:`) rather than its value:
 * that is where an unknown key is. A key whose value is empty is located by the key too.
 *
 * @example
 * // jobs:
 * //   - id: a
 * //     target: { type: lamda, arn: … }
 * positionOf(doc, counter, ['jobs', 0, 'target', 'type']) //=> { line: 3, column: 21, exact: true }
 */
export function positionOf(
  doc: Document,
  lineCounter: LineCounter,
  path: YamlPath,
  pointAtKey = false,
): SourcePosition {
  const steps = walk(doc, path);
  const exact = steps.length === path.length + 1;
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    const step = steps[i];
    const offset =
      pointAtKey && exact && i === steps.length - 1
        ? (start(step?.key) ?? start(step?.node))
        : (start(step?.node) ?? start(step?.key));
    if (offset !== undefined) {
      const { line, col } = lineCounter.linePos(offset);
      return { line, column: col, exact: exact && i === steps.length - 1 };
    }
  }
  return { line: 1, column: 1, exact: false };
}
