import type { TargetDelivery } from '../../functions/dispatcher/targets/index.ts';
import type { DeadLetterMessage, DeadLetters } from '../../functions/shared/dead-letters.ts';
import type { RunEnvelope } from '../../functions/shared/envelope.ts';
import type { JobTarget } from '../../functions/shared/job.ts';

/** A clock the test moves by hand. */
export class TestClock {
  #ms: number;
  constructor(iso: string) {
    this.#ms = Date.parse(iso);
  }
  readonly now = (): Date => new Date(this.#ms);
  set(iso: string): void {
    this.#ms = Date.parse(iso);
  }
  advance(ms: number): void {
    this.#ms += ms;
  }
}

/** One delivery a fake target received. */
export interface Received {
  readonly target: JobTarget;
  readonly envelope: RunEnvelope;
}

/**
 * A target that records what it received, and fails or stalls on demand.
 *
 * `failWith` makes every delivery throw; `beforeDeliver` runs first (e.g. to advance a clock).
 */
export class RecordingTargets implements TargetDelivery {
  readonly received: Received[] = [];
  attempts = 0;
  failWith: Error | undefined;
  beforeDeliver: ((envelope: RunEnvelope) => void | Promise<void>) | undefined;
  async deliver(target: JobTarget, envelope: RunEnvelope): Promise<{ deliveryId: string }> {
    this.attempts++;
    await this.beforeDeliver?.(envelope);
    if (this.failWith) throw this.failWith;
    this.received.push({ target, envelope });
    return { deliveryId: `delivery-${this.received.length}` };
  }
  /** Scheduled instants received, in order. */
  instants(jobId?: string): string[] {
    return this.received
      .filter((r) => !jobId || r.envelope.jobId === jobId)
      .map((r) => r.envelope.scheduledAt);
  }
}

/** A DLQ that keeps its messages. */
export class RecordingDeadLetters implements DeadLetters {
  readonly messages: DeadLetterMessage[] = [];
  async send(message: DeadLetterMessage): Promise<void> {
    this.messages.push(message);
  }
}
