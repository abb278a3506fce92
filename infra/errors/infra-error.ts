/**
 * The error family of the CDK app: what stops `cdk synth` (and `zonecron validate`, which
 * synthesizes offline) from building a stack for `jobs.yaml`.
 *
 * Every refusal of the app's input is an `InfraError`: an invalid jobs file, a duration it
 * cannot read, grants too large, a stack name CloudFormation would refuse, a covering schedule
 * that cannot be computed, cdk-nag findings left unacknowledged. `NagAcknowledgementError`
 * (constructs/nag.ts) is not one: a malformed acknowledgement is a mistake in the stack's own
 * code, never in `jobs.yaml`, and `zonecron validate` must not blame the file for it.
 *
 * The guard relies on a `Symbol.for` brand, as the engine's does, so that it also recognises
 * errors made by another loaded copy of this module (the CLI and the CDK app may each load
 * their own).
 */

const INFRA_ERROR_BRAND = Symbol.for('zonecron.infra.InfraError');

/**
 * The base class of the CDK app's errors, in a room below the rooms that throw them:
 * `ConfigError` (config/config-error.ts), `DurationError` (config/duration.ts),
 * `TargetGrantsTooLargeError` (targets/target-grants.ts), `NagFindingsError`
 * (app/offline-synth.ts), `CoveringError` and `InvalidStackNameError` (app/zonecron-app.ts).
 *
 * @example
 * try { parseDurationSeconds('1 month') } catch (e) { e instanceof InfraError }
 * //=> true
 */
export class InfraError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    Object.defineProperty(this, INFRA_ERROR_BRAND, { value: true });
  }
}

/**
 * Tells whether `value` is an `InfraError`, from any loaded copy of this module.
 *
 * @example
 * isInfraError(new InvalidStackNameError('1x', 'allowed: a letter first')) //=> true
 * isInfraError(new Error('x'))                                             //=> false
 */
export function isInfraError(value: unknown): value is InfraError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[INFRA_ERROR_BRAND] === true
  );
}
