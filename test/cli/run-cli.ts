import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (where `jobs.yaml` and `bin/` live). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The command's entry, `bin/zonecron.mjs`. */
export const BIN = fileURLToPath(new URL('../../bin/zonecron.mjs', import.meta.url));

/** What a finished `zonecron` process left behind. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `zonecron` as a user would: `node bin/zonecron.mjs …` in a child process, stdout and
 * stderr captured (so neither is a terminal).
 *
 * `FORCE_COLOR` is set on purpose: colour must still stay off when output is not a TTY.
 * `ZONECRON_FROM_SOURCE=0` makes these tests run the bundle in dist/cli and fail, rather than
 * fall back to the sources, when it is missing or stale (`npm run build:cli`; `npm test`
 * builds it first). A test may pass `ZONECRON_FROM_SOURCE: '1'` to run the sources.
 */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; bin?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [options.bin ?? BIN, ...args],
      {
        cwd: options.cwd ?? REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          TZ: process.env.TZ ?? 'UTC',
          FORCE_COLOR: '1',
          ZONECRON_FROM_SOURCE: '0',
          ...options.env,
        },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs `zonecron` with stdout on a pseudo-terminal, through util-linux `script`, so that it
 * prints colour as on a terminal; line ends come back as `\n`.
 */
export function runCliOnTerminal(args: readonly string[]): Promise<CliResult> {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    execFile(
      'script',
      ['-qec', command, '/dev/null'],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', TZ: 'UTC', TERM: 'xterm', ZONECRON_FROM_SOURCE: '0' },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: stdout.replaceAll('\r\n', '\n'), stderr });
      },
    );
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing ANSI escapes on purpose
const ANSI_ESCAPES = /\u001b\[[0-9;]*m/g;

/** The text without its colour escapes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_ESCAPES, '');
}

/** Lines wider than a classic terminal. */
export function overlongLines(text: string, width = 80): string[] {
  return text.split('\n').filter((line) => [...line].length > width);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for ANSI escapes on purpose
const ANSI = /\u001b\[/;

/** True when the text has ANSI colour escapes. */
export function hasAnsi(text: string): boolean {
  return ANSI.test(text);
}
