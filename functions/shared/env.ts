import { DeploymentError } from './errors.ts';

/** A required environment variable of a Lambda is missing or empty. */
export class MissingEnvironmentError extends DeploymentError {
  readonly variable: string;
  constructor(variable: string) {
    super(`environment variable '${variable}' is not set`);
    this.variable = variable;
  }
}

/** An environment variable holds something other than what it must. */
export class InvalidEnvironmentError extends DeploymentError {
  readonly variable: string;
  readonly value: string;
  constructor(variable: string, value: string, allowed: string) {
    super(`environment variable '${variable}' is '${value}' (allowed: ${allowed})`);
    this.variable = variable;
    this.value = value;
  }
}

/**
 * Reads a required environment variable; the stack sets every one a function needs.
 *
 * Read once, at module scope, so a misconfigured function fails at its first cold start
 * with the variable's name instead of later with an undefined table name.
 *
 * @example
 * requiredEnv('LEDGER_TABLE_NAME') //=> 'Zonecron-LedgerTable…'
 */
export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new MissingEnvironmentError(name);
  return value;
}

/**
 * Reads an optional positive number from the environment; `fallback` when it is not set.
 *
 * A set but malformed value is an error, not a silent fallback.
 *
 * @example
 * positiveNumberEnv('RETENTION_DAYS', 35) //=> 35 when unset, 7 when RETENTION_DAYS=7
 */
export function positiveNumberEnv(
  name: string,
  fallback: number,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new InvalidEnvironmentError(name, text, 'a positive number');
  }
  return value;
}
