/**
 * The error family of the ledger: what reading or writing the DynamoDB table found wrong.
 *
 * A `LedgerError` is about the table, not the job: throttled reads, a claim refused by an item
 * that cannot be read back, an item that does not have the shape its key promises. The guard
 * relies on a `Symbol.for` brand, as the engine's does, so that it also recognises errors made
 * by another loaded copy of the ledger (bundled in a Lambda, from source in the CLI).
 */

const LEDGER_ERROR_BRAND = Symbol.for('zonecron.ledger.LedgerError');

/**
 * The base class of the ledger's errors: `LedgerThrottledError` (ledger-store.ts),
 * `LedgerConflictError` (run-ledger.ts) and `LedgerItemError` (ledger-item.ts).
 *
 * @example
 * try { decodeRun(item) } catch (e) { e instanceof LedgerError }
 * //=> true for an item without its status
 */
export class LedgerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    Object.defineProperty(this, LEDGER_ERROR_BRAND, { value: true });
  }
}

/**
 * Tells whether `value` is a `LedgerError`, from any loaded copy of the ledger.
 *
 * @example
 * isLedgerError(new LedgerThrottledError(3)) //=> true
 * isLedgerError(new Error('x'))              //=> false
 */
export function isLedgerError(value: unknown): value is LedgerError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[LEDGER_ERROR_BRAND] === true
  );
}
