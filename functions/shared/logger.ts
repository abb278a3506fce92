import { Logger } from '@aws-lambda-powertools/logger';

/** Fields of one structured log line. */
export type LogFields = Record<string, unknown>;

/**
 * The logging surface the Lambda cores use: one JSON line per call.
 *
 * Backed by Powertools' `Logger` in Lambda; tests pass a {@link RecordingLogger} and assert on the
 * decisions it captured.
 */
export interface AppLogger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * The zonecron version a Lambda was bundled from, or undefined when run from its sources.
 *
 * Not read from the environment at run time: the Lambda bundling (`infra/packaging/
 * bundling.ts`) replaces `process.env.ZONECRON_VERSION` with the package's version, a literal
 * in the bundle, so the code of a deployed function says which zonecron made it.
 */
export const BUNDLED_ZONECRON_VERSION: string | undefined = process.env.ZONECRON_VERSION;

/**
 * A Powertools logger for one of zonecron's Lambdas.
 *
 * Level from `POWERTOOLS_LOG_LEVEL` / `LOG_LEVEL` (default INFO); output is one JSON object per
 * line, which CloudWatch Logs Insights queries field by field. Every line carries
 * `zonecronVersion` (persistent key) when the function was bundled, so logs before and after
 * an upgrade are told apart.
 *
 * @example
 * const logger = createLogger('zonecron-dispatcher');
 * logger.info('dispatched', { jobId: 'daily', key: '9f…' });
 */
export function createLogger(
  serviceName: string,
  version: string | undefined = BUNDLED_ZONECRON_VERSION,
): AppLogger {
  const logger = new Logger({
    serviceName,
    ...(version === undefined ? {} : { persistentKeys: { zonecronVersion: version } }),
  });
  return {
    info: (message, fields = {}) => logger.info(message, fields),
    warn: (message, fields = {}) => logger.warn(message, fields),
    error: (message, fields = {}) => logger.error(message, fields),
  };
}

/** One captured log line. */
export interface LogEntry {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields: LogFields;
}

/** An {@link AppLogger} that keeps every line in memory, for tests and the CLI simulation. */
export class RecordingLogger implements AppLogger {
  readonly entries: LogEntry[] = [];
  info(message: string, fields: LogFields = {}): void {
    this.entries.push({ level: 'info', message, fields });
  }
  warn(message: string, fields: LogFields = {}): void {
    this.entries.push({ level: 'warn', message, fields });
  }
  error(message: string, fields: LogFields = {}): void {
    this.entries.push({ level: 'error', message, fields });
  }
  /** The lines with this message. */
  withMessage(message: string): LogEntry[] {
    return this.entries.filter((e) => e.message === message);
  }
}
