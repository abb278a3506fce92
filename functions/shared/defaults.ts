/**
 * Defaults shared by the loader, the stack and the functions, each stated once.
 *
 * The stack passes the effective values to the functions in their environment; these are
 * what a function uses when a variable is absent (tests, the CLI's local dispatcher).
 */

/** Days the ledger keeps a run item after its last write (`retention.days` in jobs.yaml). */
export const DEFAULT_RETENTION_DAYS = 35;

/**
 * How long a claim is held before another dispatcher may take the run over, in seconds.
 *
 * The stack sets `LEASE_SECONDS` to the dispatcher's timeout plus a margin instead; this is
 * the value for a dispatcher built without it.
 */
export const DEFAULT_LEASE_SECONDS = 300;

/** The dispatcher Lambda's timeout unless the stack is told otherwise, in seconds. */
export const DEFAULT_DISPATCHER_TIMEOUT_SECONDS = 60;

/**
 * How much longer than the dispatcher's timeout a claim's lease lasts, in seconds: the stack
 * sets `LEASE_SECONDS` to timeout + margin.
 */
export const LEASE_MARGIN_SECONDS = 30;

/** The stack's name unless told otherwise (`-c stackName=…`, `--stack`, `ZONECRON_STACK`). */
export const DEFAULT_STACK_NAME = 'Zonecron';
