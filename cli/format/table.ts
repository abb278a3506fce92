import Table from 'cli-table3';

/** The widest line the CLI prints on its own: a classic terminal. */
export const TERMINAL_COLUMNS = 80;

const NO_BORDERS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/** A cell that spans `colSpan` columns, such as a note under a row. */
export interface SpanningCell {
  readonly colSpan: number;
  readonly content: string;
}

/**
 * A borderless table whose columns are separated by two spaces, so it can be read on a
 * terminal and copied into a ticket alike.
 */
export function plainTable(
  head: string[],
  rows: (string | SpanningCell)[][],
  options: { colWidths?: number[] } = {},
): string {
  const table = new Table({
    head,
    ...(options.colWidths ? { colWidths: options.colWidths, wordWrap: true } : {}),
    chars: NO_BORDERS,
    style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [], compact: true },
  });
  for (const row of rows)
    table.push(row.map((cell) => (typeof cell === 'string' ? cell : { ...cell })));
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what it removes
const ANSI_ESCAPE = /\u001b\[[0-9;]*m/g;

/**
 * How many columns `text` takes on a terminal: colour escapes take none, every other
 * character (code point) one.
 *
 * @example
 * visibleWidth('\u001b[1mnext\u001b[22m ↳')
 * //=> 6
 */
export function visibleWidth(text: string): number {
  return [...text.replace(ANSI_ESCAPE, '')].length;
}

/**
 * Wraps a sentence at word boundaries so that no line, indent included, is wider than `width`
 * columns on a terminal (colour escapes in it take no room).
 *
 * @example
 * wrap('02:30 does not exist on 2027-03-28 in Europe/Berlin', '  ↳ ', 40)
 * //=> '  ↳ 02:30 does not exist on 2027-03-28\n    in Europe/Berlin'
 */
export function wrap(text: string, indent: string, width = TERMINAL_COLUMNS): string {
  const lines: string[] = [];
  let line = '';
  const indentWidth = visibleWidth(indent);
  for (const word of text.split(/\s+/)) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (indentWidth + visibleWidth(candidate) > width && line !== '') {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line !== '') lines.push(line);
  const hanging = ' '.repeat(indentWidth);
  return lines.map((l, i) => (i === 0 ? indent : hanging) + l).join('\n');
}
