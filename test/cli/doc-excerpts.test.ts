// The command output quoted in README.md and docs/ (the blocks after `<!-- excerpt -->`) is
// what the commands print: each block's commands run as a user would run them, and a block
// that differs fails, named by file, line and first command (`npm run docs:excerpts` rewrites
// it). Every command runs at once; they are short and share nothing.
import { describe, expect, it } from 'vitest';
import {
  blockName,
  blocksOf,
  excerptFiles,
  renderBlock,
  shellWords,
} from '../../scripts/doc-excerpts.ts';

const blocks = excerptFiles().flatMap((file) => blocksOf(file));
const rendered = Promise.all(blocks.map(renderBlock));

describe('doc excerpts', () => {
  it('finds marked blocks in README.md and docs/, each with a command', () => {
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks) expect(block.commands.length, blockName(block)).toBeGreaterThan(0);
  });

  it.each(blocks.map((block, i) => [blockName(block), i] as const))(
    '%s is what the command prints',
    async (_name, i) => {
      const block = blocks[i];
      if (!block) throw new Error(`no block ${i}`);
      expect(block.text, `${blockName(block)} is stale: npm run docs:excerpts`).toBe(
        (await rendered)[i],
      );
    },
  );

  it('splits command lines as a shell does', () => {
    expect(shellWords(`next "30 2 * * *" --tz Europe/Berlin --reason 'a b'`)).toEqual([
      'next',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--reason',
      'a b',
    ]);
  });
});
