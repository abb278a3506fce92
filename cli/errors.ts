const CLI_ERROR_BRAND = Symbol.for('zonecron.cli.CliError');

/**
 * An error meant for the person at the terminal: its message is printed as is, on one line.
 *
 * The base class of the CLI's error family. Commands throw it (or a subclass that names the
 * refusal: `PauseEndInPastError`, `StackNotFoundError`, …) for bad input they detect
 * themselves (a bad date, an unknown job id); `main.ts` turns it into
 * `zonecron: error: <message>` and exit code `exitCode`.
 */
export class CliError extends Error {
  override readonly name: string = 'CliError';
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.exitCode = options.exitCode ?? 1;
    Object.defineProperty(this, CLI_ERROR_BRAND, { value: true });
  }
}

/**
 * Tells whether `value` is a `CliError`, from any loaded copy of this module (the bundled CLI
 * and its sources may both be loaded, as in the tests).
 *
 * @example
 * isCliError(usageError("unknown job 'x'")) //=> true
 * isCliError(new Error('x'))                //=> false
 */
export function isCliError(value: unknown): value is CliError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[CLI_ERROR_BRAND] === true
  );
}

/** Exit code for a command line that could not be understood (unknown flag, bad value). */
export const USAGE_EXIT_CODE = 2;

/** A usage error: the command line itself is wrong, exit code 2. */
export function usageError(message: string): CliError {
  return new CliError(message, { exitCode: USAGE_EXIT_CODE });
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'TimeoutError',
  'RequestTimeout',
]);

/** Finds a network failure code anywhere in an error's cause chain or aggregate. */
function networkCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const code = errorCode(error);
  if (code && NETWORK_CODES.has(code)) return code;
  const name = (error as { name?: unknown }).name;
  if (typeof name === 'string' && NETWORK_CODES.has(name)) return name;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) {
    for (const e of inner) {
      const found = networkCode(e, depth + 1);
      if (found) return found;
    }
  }
  return networkCode((error as { cause?: unknown }).cause, depth + 1);
}

function firstLine(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
}

/**
 * One line that says what went wrong, for any error a command can raise.
 *
 * AWS SDK errors carry their service exception name; network failures are reported by their
 * code because Node's own messages for them are often empty (an `AggregateError` per address).
 */
export function describeError(error: unknown, context: { endpoint?: string } = {}): string {
  if (isCliError(error)) return firstLine(error.message);
  const net = networkCode(error);
  if (net) {
    const where = context.endpoint ? ` ${context.endpoint}` : ' the AWS endpoint';
    return `cannot reach${where} (${net})`;
  }
  if (error instanceof Error) {
    const message = firstLine(error.message);
    const isAws =
      typeof (error as { $metadata?: unknown }).$metadata === 'object' ||
      typeof (error as { $fault?: unknown }).$fault === 'string';
    if (isAws && error.name && error.name !== 'Error') {
      return message ? `${error.name}: ${message}` : error.name;
    }
    if (message) return message;
    return error.name || 'unknown error';
  }
  return firstLine(String(error));
}

/**
 * Runs one step against AWS, turning any failure but a `CliError` into one line that says
 * what could not be done: `cannot <doing>: <the error in one line>`.
 *
 * @example
 * await failingAs("read the schedule group 'g'", clients, () => listDeployedSchedules(s, 'g'));
 * // unreachable: CliError "cannot read the schedule group 'g': cannot reach … (ECONNREFUSED)"
 */
export async function failingAs<T>(
  doing: string,
  context: { readonly endpoint?: string },
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isCliError(error)) throw error;
    const endpoint = context.endpoint === undefined ? {} : { endpoint: context.endpoint };
    throw new CliError(`cannot ${doing}: ${describeError(error, endpoint)}`, { cause: error });
  }
}
