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

/**
 * Breaks a word that has no spaces (a job id, a zone name) into lines of at most `width`
 * characters, where `wrap` cannot break it.
 *
 * @example
 * hardWrap('berlin-nightly-report', 10) //=> 'berlin-nig\nhtly-repor\nt'
 */
export function hardWrap(text: string, width: number): string {
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += width) lines.push(text.slice(i, i + width));
  return lines.join('\n');
}

/** A row of {@link columnTable}: one text per column, several lines each (`\n`). */
export type ColumnRow = readonly string[];

/**
 * A borderless table like {@link plainTable}, in linear time for thousands of rows (cli-table3
 * takes seconds for 10,000): each column as wide as its widest line, two spaces apart, a
 * cell's lines under each other, colour escapes taking no room. Cells must already fit the
 * width the caller wants (`wrap`, `hardWrap`); a line that is not a row (a note under one) is
 * given as a string and printed as it is.
 *
 * @example
 * columnTable(['job', 'next'], [['nightly\nlambda', '02:30'], '  ↳ paused'])
 * //=> 'job      next\nnightly  02:30\nlambda\n  ↳ paused'
 */
export function columnTable(head: ColumnRow, rows: readonly (ColumnRow | string)[]): string {
  const widths = columnWidths([head, ...rows]);
  const pad = (text: string, width: number) => text + ' '.repeat(width - visibleWidth(text));
  const render = (row: ColumnRow): string[] => {
    const split = row.map((cell) => cell.split('\n'));
    const height = Math.max(...split.map((lines) => lines.length));
    return Array.from({ length: height }, (_, line) =>
      split
        .map((lines, i) => pad(lines[line] ?? '', widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  };
  return [head, ...rows]
    .flatMap((row) => (typeof row === 'string' ? [row] : render(row)))
    .join('\n');
}

/**
 * The width of each column of {@link columnTable}: its widest line (colour escapes take no
 * room); lines that are not rows take none.
 *
 * @example
 * columnWidths([['job', 'next'], ['nightly\nlambda', '02:30'], '  ↳ paused']) //=> [7, 5]
 */
export function columnWidths(rows: readonly (ColumnRow | string)[]): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    if (typeof row === 'string') continue;
    row.forEach((cell, i) => {
      for (const line of cell.split('\n')) widths[i] = Math.max(widths[i] ?? 0, visibleWidth(line));
    });
  }
  return widths;
}

/**
 * Cuts `text` to at most `width` columns, ending in `…` when it was longer, so a column can
 * be narrowed without wrapping its row onto a second line.
 *
 * @example
 * truncate('America/New_York', 10) //=> 'America/N…'
 * truncate('UTC', 10)              //=> 'UTC'
 */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 0 ? '' : `${chars.slice(0, width - 1).join('')}…`;
}

/**
 * Narrows columns until a row of them, two spaces apart, fits `maxColumns`: the widest of the
 * shrinkable ones loses a column at a time, none below `minWidth`. Columns not shrinkable
 * (a job id, which a reader greps for) keep their width, even when the row then stays wider.
 *
 * @example
 * fitWidths([21, 15, 16, 21], [false, true, true, false], 74)
 * //=> [21, 13, 13, 21]
 */
export function fitWidths(
  widths: readonly number[],
  shrinkable: readonly boolean[],
  maxColumns: number,
  minWidth = 6,
): number[] {
  const fitted = [...widths];
  const total = () => fitted.reduce((sum, w) => sum + w, 0) + 2 * (fitted.length - 1);
  while (total() > maxColumns) {
    let widest = -1;
    fitted.forEach((w, i) => {
      if (shrinkable[i] && w > minWidth && (widest < 0 || w > (fitted[widest] ?? 0))) widest = i;
    });
    if (widest < 0) break;
    fitted[widest] = (fitted[widest] ?? 0) - 1;
  }
  return fitted;
}
