import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Argument, Command, Option } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bashCompletion,
  completionTree,
  shellQuote,
  zshCompletion,
} from '../../../../cli/format/completion-script.ts';
import { bashCompletions, runBash } from '../../../cli/bash-completion.ts';

/** A small program with every shape completion handles. */
function toyProgram(): Command {
  const program = new Command('toy');
  program
    .command('greet')
    .description('say hello\nto someone, at length')
    .argument('[file]', 'a file of names')
    .argument('[greeting]', 'what to say')
    .option('-n, --count <n>', 'how many times')
    .addOption(new Option('--tone <tone>', 'how it sounds').choices(['calm', 'loud']))
    .addOption(new Option('--secret <word>', 'not shown').hideHelp())
    .option('--shout', 'in capitals')
    .option('--out <file>', 'where to write');
  const remote = program.command('remote').description('manage remotes');
  remote.command('add').argument('<name>').argument('<dir...>', 'directories');
  remote.command('remove').alias('rm').option('--force', 'even when in use');
  program
    .command('shell')
    .description('pick a shell')
    .addArgument(new Argument('<kind>').choices(['bash', 'zsh']));
  return program;
}

const nodes = completionTree(toyProgram());
const bash = bashCompletion(nodes, 'toy');
const complete = (...words: string[]) =>
  bashCompletions(bash, ['toy', ...words], { functionName: '_toy' });

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A directory holding `a.yaml`, `b.txt` and a folder `sub`. */
function sampleDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-completion-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'a.yaml'), '');
  writeFileSync(join(dir, 'b.txt'), '');
  mkdirSync(join(dir, 'sub'));
  return dir;
}

describe('completionTree', () => {
  const node = (path: string) => nodes.find((n) => n.path.join(' ') === path);

  it('lists the commands, with the help command commander adds, and their first lines', () => {
    expect(node('')?.subcommands).toEqual([
      { name: 'greet', aliases: [], summary: 'say hello' },
      { name: 'remote', aliases: [], summary: 'manage remotes' },
      { name: 'shell', aliases: [], summary: 'pick a shell' },
      { name: 'help', aliases: [], summary: 'display help for command' },
    ]);
  });

  it('gives each option its flags and what its value may be, leaving hidden options out', () => {
    expect(node('greet')?.options).toEqual([
      { flags: ['-n', '--count'], summary: 'how many times', value: { kind: 'any' } },
      {
        flags: ['--tone'],
        summary: 'how it sounds',
        value: { kind: 'choices', choices: ['calm', 'loud'] },
      },
      { flags: ['--shout'], summary: 'in capitals' },
      { flags: ['--out'], summary: 'where to write', value: { kind: 'file' } },
      { flags: ['-h', '--help'], summary: 'display help for command' },
    ]);
  });

  it('reads files, directories and choices from the arguments', () => {
    expect(node('greet')?.arguments).toEqual([
      { kind: 'file', variadic: false },
      { kind: 'any', variadic: false },
    ]);
    expect(node('remote add')?.arguments).toEqual([
      { kind: 'any', variadic: false },
      { kind: 'dir', variadic: true },
    ]);
    expect(node('shell')?.arguments).toEqual([
      { kind: 'choices', choices: ['bash', 'zsh'], variadic: false },
    ]);
  });

  it('completes the help command with the names of its sibling commands', () => {
    expect(node('help')?.arguments).toEqual([
      { kind: 'choices', choices: ['greet', 'remote', 'shell'], variadic: false },
    ]);
    expect(node('remote help')?.arguments).toEqual([
      { kind: 'choices', choices: ['add', 'remove'], variadic: false },
    ]);
  });

  it('keeps a subcommand alias', () => {
    expect(node('remote')?.subcommands.find((s) => s.name === 'remove')?.aliases).toEqual(['rm']);
  });
});

describe('bashCompletion', () => {
  it('is a script bash parses', async () => {
    const result = await runBash('bash -n <<<"$SCRIPT"', bash);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('registers its function for the program', async () => {
    const result = await runBash('eval "$SCRIPT"; complete -p toy', bash);
    expect(result.stdout).toBe('complete -F _toy toy\n');
  });

  it.each(
    [
      { line: 'toy <TAB>', words: [''], offered: ['greet', 'remote', 'shell', 'help'] },
      { line: 'toy re<TAB>', words: ['re'], offered: ['remote'] },
      { line: 'toy remote r<TAB>', words: ['remote', 'r'], offered: ['remove'] },
      {
        line: 'toy remote rm --<TAB>',
        words: ['remote', 'rm', '--'],
        offered: ['--force', '--help'],
      },
      {
        line: 'toy greet --<TAB>',
        words: ['greet', '--'],
        offered: ['--count', '--tone', '--shout', '--out', '--help'],
      },
      { line: 'toy greet --tone <TAB>', words: ['greet', '--tone', ''], offered: ['calm', 'loud'] },
      {
        line: 'toy greet --tone=<TAB>',
        words: ['greet', '--tone', '='],
        offered: ['calm', 'loud'],
      },
      { line: 'toy greet --tone=l<TAB>', words: ['greet', '--tone', '=', 'l'], offered: ['loud'] },
      { line: 'toy greet -n 3 --s<TAB>', words: ['greet', '-n', '3', '--s'], offered: ['--shout'] },
      { line: 'toy greet -n <TAB>', words: ['greet', '-n', ''], offered: [] },
      { line: 'toy greet x <TAB>', words: ['greet', 'x', ''], offered: [] },
      { line: 'toy shell <TAB>', words: ['shell', ''], offered: ['bash', 'zsh'] },
      { line: 'toy help <TAB>', words: ['help', ''], offered: ['greet', 'remote', 'shell'] },
    ].map((c) => ({ ...c, shown: c.offered.join(' ') || 'nothing' })),
  )('offers $shown for $line', async ({ words, offered }) => {
    expect(await complete(...words)).toEqual(offered);
  });

  it('offers file names for a file argument, even after an option and its value', async () => {
    const cwd = sampleDir();
    const offered = await bashCompletions(bash, ['toy', 'greet', '-n', '3', ''], {
      functionName: '_toy',
      cwd,
    });
    expect(offered.sort()).toEqual(['a.yaml', 'b.txt', 'sub']);
  });

  it('offers only directories for a variadic directory argument, at any position', async () => {
    const cwd = sampleDir();
    const words = ['toy', 'remote', 'add', 'origin', 'sub', ''];
    expect(await bashCompletions(bash, words, { functionName: '_toy', cwd })).toEqual(['sub']);
  });
});

describe('shellQuote', () => {
  it('quotes text so that bash reads it back unchanged', async () => {
    const text = `it's "quoted" $HOME \\ \`date\` ; *`;
    const result = await runBash('eval "printf %s $SCRIPT"', shellQuote(text));
    expect(result.stdout).toBe(text);
  });
});

describe('zshCompletion', () => {
  it('starts with #compdef for the program, as a file on $fpath must', () => {
    expect(zshCompletion(nodes, 'toy').split('\n')[0]).toBe('#compdef toy');
  });

  it('describes each command as name:summary, escaping a colon in the name', () => {
    const program = new Command('toy');
    program.command('db:migrate').description('run migrations');
    const script = zshCompletion(completionTree(program), 'toy');
    expect(script).toContain(`'db\\:migrate:run migrations'`);
  });
});
