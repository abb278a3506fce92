import { describe, expect, it } from 'vitest';
import { bashCompletions, runBash } from './bash-completion.ts';
import { runCli } from './run-cli.ts';

/** The command names `zonecron --help` lists under "Commands:". */
async function topLevelCommands(): Promise<string[]> {
  const { stdout } = await runCli(['--help']);
  const section = stdout.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

async function script(shell: string): Promise<string> {
  const result = await runCli(['completion', shell]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

describe('zonecron completion bash', () => {
  it('prints a script bash parses, which registers _zonecron for zonecron', async () => {
    const bash = await script('bash');
    expect(await runBash('bash -n <<<"$SCRIPT"', bash)).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect((await runBash('eval "$SCRIPT"; complete -p zonecron', bash)).stdout).toBe(
      'complete -F _zonecron zonecron\n',
    );
  });

  it('offers every top-level command that zonecron --help lists, and nothing else', async () => {
    const commands = await topLevelCommands();
    expect(commands).toEqual(
      expect.arrayContaining(['next', 'validate', 'list', 'describe', 'dlq', 'completion', 'help']),
    );
    expect(await bashCompletions(await script('bash'), ['zonecron', ''])).toEqual(commands);
  });

  it.each(
    [
      { line: 'zonecron dl<TAB>', words: ['dl'], offered: ['dlq'] },
      { line: 'zonecron de<TAB>', words: ['de'], offered: ['describe'] },
      {
        line: 'zonecron list --no<TAB>',
        words: ['list', '--no'],
        offered: ['--no-expressions'],
      },
      { line: 'zonecron next --g<TAB>', words: ['next', '--g'], offered: ['--gap'] },
      {
        line: 'zonecron next --gap <TAB>',
        words: ['next', '--gap', ''],
        offered: ['shift', 'transition', 'skip'],
      },
      {
        line: 'zonecron dlq <TAB>',
        words: ['dlq', ''],
        offered: ['list', 'redrive', 'discard', 'help'],
      },
      {
        line: 'zonecron dlq list --dl<TAB>',
        words: ['dlq', 'list', '--dl'],
        offered: ['--dlq-url'],
      },
      { line: 'zonecron completion <TAB>', words: ['completion', ''], offered: ['bash', 'zsh'] },
    ].map((c) => ({ ...c, shown: c.offered.join(' ') })),
  )('offers $shown for $line', async ({ words, offered }) => {
    expect(await bashCompletions(await script('bash'), ['zonecron', ...words])).toEqual(offered);
  });
});

describe('zonecron completion zsh', () => {
  it('prints a #compdef script that describes every top-level command', async () => {
    const zsh = await script('zsh');
    expect(zsh.split('\n')[0]).toBe('#compdef zonecron');
    for (const command of await topLevelCommands()) expect(zsh).toContain(`'${command}:`);
  });
});

describe('zonecron completion on bad input', () => {
  it('rejects a shell it has no script for as a usage error, exit code 2', async () => {
    const result = await runCli(['completion', 'fish']);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "zonecron: error: command-argument value 'fish' is invalid for argument 'shell'. Allowed choices are bash, zsh.\n",
    );
    expect(result.code).toBe(2);
  });
});
