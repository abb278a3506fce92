/** How {@link withRetries} retries. */
export interface RetryOptions {
  /** Tries in all, the first included. @default 6 */
  readonly attempts?: number;
  /** Wait before the first retry; it doubles each time. @default 100 */
  readonly baseDelayMs?: number;
  /** Waits between tries; injected so tests and the simulation need no real time. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * True for an error worth retrying: throttling, a server fault, a dropped connection.
 *
 * A client fault (a bad request, a missing table, a failed condition) fails the same way
 * every time, so it is not retried.
 */
export function isTransient(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $fault?: string; $retryable?: unknown };
  const name = e?.name ?? '';
  if (/Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|TooManyRequests/.test(name)) {
    return true;
  }
  if (e?.$retryable) return true;
  if (e?.$fault === 'server') return true;
  return /ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|TimeoutError|socket hang up/.test(
    `${name} ${e?.code ?? ''} ${(error as Error)?.message ?? ''}`,
  );
}

/**
 * Runs `fn`, retrying transient failures with exponential backoff (100 ms, 200 ms, … by
 * default: about 3 s over six tries), on top of the SDK's own retries.
 *
 * Used for the ledger writes that follow a delivery: once a target has accepted a run, losing
 * the write that records it would make the run look undelivered and deliver it again.
 *
 * @example
 * await withRetries(() => ledger.markDispatched(key, 1, delivery)) //=> true
 */
export async function withRetries<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 6;
  const sleep = options.sleep ?? realSleep;
  let delay = options.baseDelayMs ?? 100;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= attempts || !isTransient(error)) throw error;
      await sleep(delay);
      delay *= 2;
    }
  }
}
