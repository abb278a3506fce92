/**
 * How an error message shows what someone typed: a short, printable excerpt of it, and the
 * allowed name closest to it ("did you mean …?").
 *
 * Used by the engine's zone check, the jobs-file loader and the CLI, so that every "did you
 * mean" picks its suggestion the same way.
 */

/** Longest excerpt of user input a message repeats. */
export const MAX_EXCERPT_LENGTH = 60;

/**
 * `text` made safe to print inside a one-line message: control characters (a NUL, a tab, an
 * escape sequence) written as `\u0000`, and anything past `max` characters cut with `…`.
 *
 * @example
 * excerpt('Europe/Berlin')
 * //=> 'Europe/Berlin'
 * excerpt('a\u0000b')
 * //=> 'a\\u0000b'
 * excerpt('x'.repeat(100), 10)
 * //=> 'xxxxxxxxx…'
 */
export function excerpt(text: string, max = MAX_EXCERPT_LENGTH): string {
  const characters = [...text];
  const clipped = characters.length > max ? [...characters.slice(0, max - 1), '…'] : characters;
  return clipped
    .map((character) => {
      const code = character.codePointAt(0) ?? 0;
      const control = code < 0x20 || (code >= 0x7f && code < 0xa0);
      return control ? `\\u${code.toString(16).padStart(4, '0')}` : character;
    })
    .join('');
}

/**
 * The Levenshtein distance: how many single-character insertions, deletions and
 * substitutions turn `a` into `b`.
 *
 * @example
 * editDistance('timezon', 'timezone')
 * //=> 1
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** How `closestName` compares. */
export interface ClosestNameOptions {
  /** Largest distance that still counts as a likely typo. */
  readonly maxDistance: number;
  /**
   * The forms of a candidate to compare with (default: the candidate itself), e.g. a zone
   * and its city alone. The candidate is returned whichever form matched.
   */
  readonly formsOf?: (candidate: string) => readonly string[];
}

/**
 * The candidate closest to `input`, ignoring case, when it is at most `maxDistance` edits
 * away; the first one listed wins a tie.
 *
 * @example
 * closestName('timezon', ['schedule', 'timezone'], { maxDistance: 2 })
 * //=> 'timezone'
 * closestName('berlin', ['Europe/Berlin'], {
 *   maxDistance: 2,
 *   formsOf: (zone) => [zone, zone.slice(zone.lastIndexOf('/') + 1)],
 * })
 * //=> 'Europe/Berlin'
 */
export function closestName(
  input: string,
  candidates: Iterable<string>,
  options: ClosestNameOptions,
): string | undefined {
  const typed = input.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    for (const form of options.formsOf?.(candidate) ?? [candidate]) {
      const distance = editDistance(typed, form.toLowerCase());
      if (distance <= options.maxDistance && (best === undefined || distance < best.distance)) {
        best = { name: candidate, distance };
      }
    }
  }
  return best?.name;
}
