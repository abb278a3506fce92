/**
 * The error family of what a Lambda is given by its deployment: its environment and its jobs
 * bundle.
 *
 * A `DeploymentError` says the stack handed a function something the code cannot run with (a
 * variable unset, a bundle it does not understand); redeploying, not retrying, is the fix. The
 * guard relies on a `Symbol.for` brand, as the engine's does, so that it also recognises errors
 * made by another loaded copy of this module (bundled in a Lambda, from source in the CLI).
 */

const DEPLOYMENT_ERROR_BRAND = Symbol.for('zonecron.shared.DeploymentError');

/**
 * The base class of the errors of a function's deployment: `MissingEnvironmentError`,
 * `InvalidEnvironmentError` (shared/env.ts) and `InvalidJobsBundleError` (jobs/jobs-bundle.ts).
 *
 * @example
 * try { requiredEnv('LEDGER_TABLE_NAME', {}) } catch (e) { e instanceof DeploymentError }
 * //=> true
 */
export class DeploymentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    Object.defineProperty(this, DEPLOYMENT_ERROR_BRAND, { value: true });
  }
}

/**
 * Tells whether `value` is a `DeploymentError`, from any loaded copy of this module.
 *
 * @example
 * isDeploymentError(new MissingEnvironmentError('LEDGER_TABLE_NAME')) //=> true
 * isDeploymentError(new Error('x'))                                   //=> false
 */
export function isDeploymentError(value: unknown): value is DeploymentError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[DEPLOYMENT_ERROR_BRAND] === true
  );
}
