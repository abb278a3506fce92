import { typeOfValue } from './event-bounds.ts';

/** Longest description of a thrown value in the ledger and the DLQ. */
const MAX_ERROR_CHARS = 1000;

/**
 * A short, single-line description of a thrown value for the ledger and the DLQ.
 *
 * Bounded whatever was thrown: the text is cut before it is rewritten, and a value that cannot
 * be made a string (a deeply nested array, an object whose `toString` throws) is named by its
 * type.
 *
 * @example
 * describeError(new TypeError('bad\n input')) //=> 'TypeError: bad input'
 */
export function describeError(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}`;
  } catch {
    text = `thrown: ${typeOfValue(error)} that cannot be printed`;
  }
  return text
    .slice(0, 4 * MAX_ERROR_CHARS)
    .replace(/\s+/g, ' ')
    .slice(0, MAX_ERROR_CHARS);
}
