import { execFile } from 'node:child_process';

/** What a bash process printed and its exit code. */
export interface BashResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `bash -c <command> bash …args` with `script` in `$SCRIPT`, no rc files read. */
export function runBash(
  command: string,
  script: string,
  args: readonly string[] = [],
  cwd?: string,
): Promise<BashResult> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['--norc', '--noprofile', '-c', command, 'bash', ...args],
      { env: { PATH: process.env.PATH ?? '', SCRIPT: script }, ...(cwd ? { cwd } : {}) },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * The words bash offers on <TAB> after `words`, the last being the word under the cursor:
 * the completion `script` is sourced, `COMP_WORDS`/`COMP_CWORD` set as bash sets them, and
 * the completion function called, as `complete -F` would.
 */
export async function bashCompletions(
  script: string,
  words: readonly string[],
  options: { functionName?: string; cwd?: string } = {},
): Promise<string[]> {
  const fn = options.functionName ?? '_zonecron';
  const result = await runBash(
    `eval "$SCRIPT"; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); ${fn}; printf '%s\\n' "\${COMPREPLY[@]}"`,
    script,
    words,
    options.cwd,
  );
  if (result.code !== 0 || result.stderr !== '') {
    throw new Error(`bash completion failed (${result.code}): ${result.stderr}`);
  }
  return result.stdout.split('\n').filter((word) => word !== '');
}
