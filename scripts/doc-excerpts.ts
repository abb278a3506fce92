#!/usr/bin/env -S npx tsx
/**
 * The command output quoted in README.md and docs/, made by running the commands.
 *
 * A quoted run is a fenced block right after an `<!-- excerpt -->` line; every line of the
 * block that starts with `$ zonecron ` (or `$ npx zonecron `) is a command, and the lines up to
 * the next command are what it printed (stdout, then stderr). `npm run docs:excerpts` runs each
 * command through `node bin/zonecron.mjs` and writes what it printed into the block;
 * test/cli/doc-excerpts.test.ts runs the same and fails where a block differs. Only commands
 * whose output depends on nothing but their arguments belong in such a block: a fixed
 * `--after`/`--from`, no AWS, no machine facts. `<!-- excerpt omit-timing -->` writes a
 * `took 1.2 s` line as `took … s`. Output quoted any other way is illustrative, and says so.
 *
 *   npm run docs:excerpts            rewrite every block
 *   npm run docs:excerpts -- --check exit 1, naming file and block, where one is stale
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

const MARKER = /^<!-- excerpt(?: (omit-timing|help))? -->$/;
const COMMAND = /^\$ (?:npx )?zonecron (.*)$/;
const FENCE = /^```/;
const TIMING = /^(\s*took )\d+(?:\.\d+)? s$/;

/** One marked block of one file: where it is, its commands and what it says now. */
export interface ExcerptBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fenced block's inner lines as the file has them. */
  readonly text: string;
  /** Each command as written after `$ `, and its arguments. */
  readonly commands: readonly { readonly shown: string; readonly args: readonly string[] }[];
  /** `omit-timing`, `help`, or none. */
  readonly mode: 'omit-timing' | 'help' | undefined;
  /** Line indexes (0-based) of the inner lines in the file. */
  readonly from: number;
  readonly to: number;
}

/** The markdown files the excerpts live in: README.md and every page of docs/. */
export function excerptFiles(root = REPO_ROOT): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs.sort()];
}

/**
 * Splits a command line the way a POSIX shell splits words (single and double quotes, no
 * expansion).
 *
 * @example
 * shellWords(`next "30 2 * * *" --tz Europe/Berlin`) //=> ['next', '30 2 * * *', '--tz', 'Europe/Berlin']
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= '';
    } else if (char === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** Every marked block of one markdown file. */
export function blocksOf(file: string, text = readFileSync(file, 'utf8')): ExcerptBlock[] {
  const lines = text.split('\n');
  const blocks: ExcerptBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i] as string);
    if (!marker) continue;
    const open = i + 1;
    if (!FENCE.test(lines[open] ?? '')) {
      throw new Error(
        `${relative(REPO_ROOT, file)}:${i + 1}: an excerpt marker must precede a fenced block`,
      );
    }
    let close = open + 1;
    while (close < lines.length && !FENCE.test(lines[close] as string)) close++;
    const inner = lines.slice(open + 1, close);
    const commands = inner.flatMap((l) => {
      const m = COMMAND.exec(l);
      return m ? [{ shown: l.slice(2), args: shellWords(m[1] as string) }] : [];
    });
    blocks.push({
      file,
      line: open + 1,
      text: inner.join('\n'),
      commands,
      mode: marker[1] as ExcerptBlock['mode'],
      from: open + 1,
      to: close,
    });
    i = close;
  }
  return blocks;
}

/** What one command prints: stdout, then stderr, without the final line end. */
export function runCommand(args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'bin/zonecron.mjs'), ...args],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          TZ: 'UTC',
          NO_COLOR: '1',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          ...(process.env.ZONECRON_FROM_SOURCE
            ? { ZONECRON_FROM_SOURCE: process.env.ZONECRON_FROM_SOURCE }
            : {}),
        },
        maxBuffer: 16 * 1024 * 1024,
      },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`.replace(/\n+$/, '')),
    );
  });
}

/** One command's output lines as the block's mode shows them. */
function shape(output: string, mode: ExcerptBlock['mode']): string[] {
  const lines = output.split('\n');
  if (mode === 'omit-timing') return lines.map((l) => l.replace(TIMING, '$1… s'));
  if (mode !== 'help') return lines;
  const examples = lines.findIndex((l) => /^Examples?:$/.test(l));
  const kept = examples < 0 ? lines : lines.slice(0, examples);
  while (kept.at(-1) === '') kept.pop();
  return kept;
}

/** The block's text as the commands print it now. */
export async function renderBlock(block: ExcerptBlock): Promise<string> {
  const outputs = await Promise.all(block.commands.map((c) => runCommand(c.args)));
  return block.commands
    .map((c, i) => {
      return [`$ ${c.shown}`, ...shape(outputs[i] as string, block.mode)].join('\n');
    })
    .join('\n');
}

/** A block whose text differs from what its commands print now. */
export interface StaleBlock {
  readonly block: ExcerptBlock;
  readonly expected: string;
}

/** Runs every block of `files` (in parallel) and returns those that differ. */
export async function staleBlocks(files = excerptFiles()): Promise<StaleBlock[]> {
  const blocks = files.flatMap((file) => blocksOf(file));
  const rendered = await Promise.all(blocks.map(renderBlock));
  return blocks.flatMap((block, i) =>
    rendered[i] === block.text ? [] : [{ block, expected: rendered[i] as string }],
  );
}

/** Writes each stale block's new text into its file. */
export function rewrite(stale: readonly StaleBlock[]): void {
  const byFile = new Map<string, StaleBlock[]>();
  for (const s of stale) byFile.set(s.block.file, [...(byFile.get(s.block.file) ?? []), s]);
  for (const [file, entries] of byFile) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const { block, expected } of [...entries].sort((a, b) => b.block.from - a.block.from)) {
      lines.splice(block.from, block.to - block.from, ...expected.split('\n'));
    }
    writeFileSync(file, lines.join('\n'));
  }
}

/** `file:line (first command)`, how a block is named in messages. */
export function blockName(block: ExcerptBlock): string {
  const first = block.commands[0]?.shown ?? '(no command)';
  return `${relative(REPO_ROOT, block.file)}:${block.line} (${first})`;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale = await staleBlocks();
  for (const { block } of stale) {
    console.log(`${check ? 'stale' : 'rewrote'} ${blockName(block)}`);
  }
  if (check) {
    process.exitCode = stale.length > 0 ? 1 : 0;
    return;
  }
  rewrite(stale);
  if (stale.length === 0) console.log('doc-excerpts: every block is up to date');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
