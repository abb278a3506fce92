/**
 * The one `--json` document of a command that failed (docs/cli.md, "Errors"), so a script
 * that asked for JSON always gets one document on stdout, whatever went wrong; stderr still
 * gets the `zonecron: error: …` line for the person.
 */
import type { Problem } from './validation-report.ts';

/** What kind of failure: by exit code, and an invalid jobs file on its own. */
export type ErrorCode = 'usage' | 'invalid-config' | 'failure';

/** `{"error": {…}}`: what `--json` prints on stdout when a command fails. */
export interface ErrorDocument {
  readonly error: {
    readonly code: ErrorCode;
    /** The message stderr's `zonecron: error:` line gives, without that prefix. */
    readonly message: string;
    /** The exit code the command ends with, 1 or 2 (docs/cli.md, "Exit codes"). */
    readonly exitCode: number;
    /** The jobs file's problems, as `validate --json` gives them; [] for other failures. */
    readonly problems: readonly Problem[];
  };
}

/**
 * The document of a failure, its code taken from the exit code unless the jobs file was
 * invalid.
 *
 * @example
 * errorDocument("unknown job 'x' in jobs.yaml", 2)
 * //=> { error: { code: 'usage', message: "unknown job 'x' in jobs.yaml", exitCode: 2,
 * //              problems: [] } }
 */
export function errorDocument(
  message: string,
  exitCode: number,
  problems: readonly Problem[] = [],
): ErrorDocument {
  const code: ErrorCode =
    problems.length > 0 ? 'invalid-config' : exitCode === 2 ? 'usage' : 'failure';
  return { error: { code, message, exitCode, problems } };
}
