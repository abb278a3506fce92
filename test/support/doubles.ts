import type { DeadLetterMessage, DeadLetters } from '#jobs/dead-letters.ts';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { JobTarget } from '#jobs/job.ts';
import type { TargetDelivery } from '../../functions/dispatcher/targets/index.ts';

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
  readonly deliveryId: string;
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
    const deliveryId = `delivery-${this.received.length + 1}`;
    this.received.push({ target, envelope, deliveryId });
    return { deliveryId };
  }
  /** The delivery that carried one attempt of one run. */
  deliveryOf(key: string, attempt?: number): Received | undefined {
    return this.received.find(
      (r) => r.envelope.key === key && (attempt === undefined || r.envelope.attempt === attempt),
    );
  }
  /** Scheduled instants received, in order. */
  instants(jobId?: string): string[] {
    return this.received
      .filter((r) => !jobId || r.envelope.jobId === jobId)
      .map((r) => r.envelope.scheduledAt);
  }
}

/** A DLQ that keeps its messages, and fails on demand. */
export class RecordingDeadLetters implements DeadLetters {
  readonly messages: DeadLetterMessage[] = [];
  failWith: Error | undefined;
  async send(message: DeadLetterMessage): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.messages.push(message);
  }
}
