import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { fitWidths, truncate, visibleWidth, wrap } from '../../../../cli/format/table.ts';

const colour = pc.createColors(true);
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing ANSI escapes on purpose
const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

const SENTENCE =
  '02:30 happens twice on 2027-10-31 in Europe/Berlin — runs at both; this is the first (CEST), and the second follows an hour later';

describe('visibleWidth', () => {
  it.each([
    ['plain text', 'next 3 runs', 11],
    ['colour escapes take no columns', colour.bold(colour.yellow('next')), 4],
    ['a character outside the BMP takes one column', '↳ 😀', 3],
  ])('%s', (_name, text, width) => {
    expect(visibleWidth(text)).toBe(width);
  });
});

describe('wrap', () => {
  it('keeps every line, indent included, within the width', () => {
    const lines = wrap(SENTENCE, '  ↳ ', 40).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(40);
    expect(lines[1]?.startsWith('    ')).toBe(true);
  });

  it('breaks coloured words where it breaks the same words without colour', () => {
    const coloured = SENTENCE.split(' ')
      .map((word, i) => (i % 2 === 0 ? colour.bold(word) : colour.yellow(word)))
      .join(' ');
    expect(stripAnsi(wrap(coloured, colour.dim('  ↳ '), 40))).toBe(wrap(SENTENCE, '  ↳ ', 40));
  });
});

describe('truncate', () => {
  it.each([
    ['keeps a text that fits', 'UTC', 5, 'UTC'],
    ['ends a cut text in an ellipsis, within the width', 'America/New_York', 10, 'America/N…'],
  ])('%s', (_name, text, width, expected) => {
    expect(truncate(text, width)).toBe(expected);
  });
});

describe('fitWidths', () => {
  it('narrows the widest shrinkable column first until the row fits', () => {
    expect(fitWidths([21, 15, 16, 21], [false, true, true, false], 74)).toEqual([21, 13, 13, 21]);
  });

  it('never narrows a column that may not shrink, nor one below the minimum', () => {
    expect(fitWidths([70, 10], [false, true], 60)).toEqual([70, 6]);
  });
});
