import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { visibleWidth, wrap } from '../../../../cli/format/table.ts';

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
