/**
 * The `zonecron` command: a commander program with one file per command in `commands/`.
 *
 * Commands load their heavy parts (the SDK, dynalite, the dispatcher) only when they run, so
 * `zonecron next` and `--help` start fast. Every error ends here and becomes one line,
 * `zonecron: error: …`, with exit code 2 for a bad command line (a flag, a value, an expression,
 * a zone or a job id it names) and 1 for everything else (docs/cli.md, "Exit codes").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { packageRoot } from '../infra/packaging/package-root.ts';
import { registerBackfill } from './commands/backfill.ts';
import { registerCalendar } from './commands/calendar.ts';
import { registerCompletion } from './commands/completion.ts';
import { registerDescribe } from './commands/describe.ts';
import { registerDlq } from './commands/dlq.ts';
import { registerExplain } from './commands/explain.ts';
import { registerHistory } from './commands/history.ts';
import { registerInit } from './commands/init.ts';
import { registerList } from './commands/list.ts';
import { registerNext } from './commands/next.ts';
import { registerPause } from './commands/pause.ts';
import { registerRun } from './commands/run.ts';
import { registerSandbox } from './commands/sandbox.ts';
import { registerSimulate } from './commands/simulate.ts';
import { registerValidate } from './commands/validate.ts';
import { describeError, isCliError, USAGE_EXIT_CODE } from './errors.ts';

/** The package's version, from the repository's package.json (sources or bundle alike). */
function packageVersion(): string {
  const file = join(packageRoot(import.meta.url), 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function oneLine(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
}

function buildProgram(): Command {
  const program = new Command();
  program
    .name('zonecron')
    .description('serverless cron on AWS that gets daylight saving time right')
    .version(packageVersion())
    .showSuggestionAfterError(true)
    .configureOutput({
      outputError: (text, write) => write(`zonecron: ${oneLine(text)}\n`),
    })
    .exitOverride();
  registerInit(program);
  registerNext(program);
  registerExplain(program);
  registerCalendar(program);
  registerValidate(program);
  registerSimulate(program);
  registerList(program);
  registerDescribe(program);
  registerHistory(program);
  registerDlq(program);
  registerRun(program);
  registerPause(program);
  registerBackfill(program);
  registerSandbox(program);
  registerCompletion(program);
  program.addHelpText(
    'after',
    `
Exit codes: 0 success, 1 the command ran and something failed (an invalid
jobs file, a failed run), 2 the command line is wrong (docs/cli.md#exit-codes).

Examples:
  $ zonecron next "30 2 * * *" --tz Europe/Berlin -n 5
  $ zonecron explain "0 9 * * MON-FRI" --tz America/New_York
  $ zonecron validate jobs.yaml
  $ zonecron simulate        # jobs.yaml across the next DST changes, locally`,
  );
  return program;
}

/** What went wrong, once: stderr's message, the exit code, a jobs file's problems. */
interface Failure {
  readonly message: string;
  readonly exitCode: number;
  readonly problems?: readonly import('./format/validation-report.ts').Problem[];
}

/**
 * Writes what went wrong to stderr and returns the failure, by family (docs/architecture.md,
 * "Errors"): a `ConfigError` lists its issues; a `CliError` is printed as is with its exit
 * code; every other error (the engine's, the ledger's, the dispatcher's, the app's, the SDK's)
 * is one line from `describeError`, exit code 1.
 */
async function report(error: unknown): Promise<Failure> {
  const { isConfigError, formatConfigIssue } = await import('../infra/config/config-error.ts');
  if (isConfigError(error)) {
    const { problemOfIssue } = await import('./format/validation-report.ts');
    const issues = error.issues;
    const only = issues[0];
    const problems = issues.map(problemOfIssue);
    if (issues.length === 1 && only && only.line === 0) {
      // The file as a whole (missing, unreadable): one line says it all.
      const message = formatConfigIssue(only);
      process.stderr.write(`zonecron: error: ${message}\n`);
      return { message, exitCode: 1, problems };
    }
    for (const issue of issues) process.stderr.write(`${formatConfigIssue(issue)}\n`);
    const files = [...new Set(issues.map((i) => i.file))].join(', ');
    const message = `${issues.length} problem${issues.length === 1 ? '' : 's'} in ${files}`;
    process.stderr.write(`zonecron: error: ${message}\n`);
    return { message, exitCode: 1, problems };
  }
  const endpoint = (error as { endpoint?: string } | undefined)?.endpoint;
  const message = describeError(error, endpoint === undefined ? {} : { endpoint });
  process.stderr.write(`zonecron: error: ${message}\n`);
  if (process.env.ZONECRON_DEBUG && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  return { message, exitCode: isCliError(error) ? error.exitCode : 1 };
}

/**
 * Whether the command line asks for `--json` (before any `--`), and the command is not
 * `validate`, whose `--json` document says itself what went wrong.
 */
function wantsErrorDocument(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  const flags = end === -1 ? args : args.slice(0, end);
  return flags.includes('--json') && args.find((arg) => !arg.startsWith('-')) !== 'validate';
}

/** With `--json`, the failure as one document on stdout (`cli/format/error-document.ts`). */
async function writeErrorDocument(failure: Failure): Promise<void> {
  if (!wantsErrorDocument(process.argv)) return;
  const { errorDocument } = await import('./format/error-document.ts');
  const doc = errorDocument(failure.message, failure.exitCode, failure.problems);
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof InvalidArgumentError) {
    // A value a command checked itself (`history --since`): commander has not printed it.
    const message = oneLine(error.message);
    process.stderr.write(`zonecron: error: ${message}\n`);
    process.exitCode = USAGE_EXIT_CODE;
    await writeErrorDocument({ message, exitCode: USAGE_EXIT_CODE });
  } else if (error instanceof CommanderError) {
    // Commander printed it: a bad flag or value, or help for a missing subcommand.
    process.exitCode = error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
    if (error.exitCode !== 0) {
      const message = oneLine(error.message).replace(/^error: /, '');
      await writeErrorDocument({ message, exitCode: USAGE_EXIT_CODE });
    }
  } else {
    const failure = await report(error);
    process.exitCode = failure.exitCode;
    await writeErrorDocument(failure);
  }
}
