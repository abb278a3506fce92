import { execFile, spawn } from 'node:child_process';
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
 *
 * `--single-threaded-gc`: V8's parallel GC helpers cost more CPU than they save in processes
 * this short on the suite's cores (test/cli: 78 s of CPU with them, 69 s without); the command
 * does the same either way.
 *
 * `--liftoff-only`: a `validate` run with `CDK_VALIDATION: 'true'` runs aws-cdk-lib's template
 * validation (the others skip it, as the suite's synths do), a 9 MB WebAssembly engine; V8
 * compiles its hot functions a second time with its optimizing compiler, which costs more
 * than a process this short gains from it (one `validate` of the Berlin fixture: 7.4 s of
 * CPU, 4.0 s with baseline-compiled WebAssembly only). The engine computes the same either
 * way; commands without WebAssembly are unaffected.
 */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; bin?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--single-threaded-gc', '--liftoff-only', options.bin ?? BIN, ...args],
      {
        cwd: options.cwd ?? REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          TZ: process.env.TZ ?? 'UTC',
          FORCE_COLOR: '1',
          ZONECRON_FROM_SOURCE: '0',
          // As the suite's own synths (vitest.config.mts): a test that wants aws-cdk-lib's
          // CloudFormation validation passes CDK_VALIDATION: 'true' in options.env.
          CDK_VALIDATION: 'false',
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

const REPORT_EXIT = fileURLToPath(new URL('./fixtures/report-exit.mjs', import.meta.url));

/** A `zonecron` process on a pseudo-terminal that a test types into. */
export interface TerminalSession {
  /** Resolves once the terminal has shown `text` (stdout and stderr, as one stream). */
  shown(text: string): Promise<void>;
  /** Types keys on the terminal: `'\u0003'` is Ctrl-C. */
  type(keys: string): void;
  /** Resolves when the command ended: everything the terminal showed, and how it ended. */
  ended(): Promise<TerminalEnd>;
  /** Ends the session if it still runs (for `afterEach`). */
  stop(): void;
}

/** What a terminal session showed, and how its command ended. */
export interface TerminalEnd {
  readonly output: string;
  readonly code: number | null;
  readonly signal: string | null;
}

/**
 * Starts `zonecron` with stdin, stdout and stderr on a pseudo-terminal (util-linux `script`),
 * as a user at a terminal runs it: keys typed arrive through the terminal's line discipline,
 * so Ctrl-C becomes SIGINT for the command. The command's exit code and signal come from
 * `fixtures/report-exit.mjs`, which runs it on the same terminal.
 */
export function startCliOnTerminal(args: readonly string[]): TerminalSession {
  const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, REPORT_EXIT, process.execPath, BIN, ...args]
    .map(quote)
    .join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', TERM: 'xterm', ZONECRON_FROM_SOURCE: '0' },
  });
  let output = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const wait of waiting.filter((w) => output.includes(w.text))) {
      waiting.splice(waiting.indexOf(wait), 1);
      wait.resolve();
    }
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    shown: (text) =>
      output.includes(text)
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ text, resolve })),
    type: (keys) => {
      child.stdin.write(keys);
    },
    stop: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
    async ended() {
      await exited;
      const text = output.replaceAll('\r\n', '\n');
      const last = /\n\[exit code=(\d+|null) signal=(\w+)\]\n$/.exec(text);
      return {
        output: last ? text.slice(0, last.index) : text,
        code: last?.[1] === undefined || last[1] === 'null' ? null : Number(last[1]),
        signal: last?.[2] === undefined || last[2] === 'null' ? null : last[2],
      };
    },
  };
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
