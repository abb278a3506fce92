import type { TargetDelivery } from '../../functions/dispatcher/targets/index.ts';
import type { DeadLetterMessage, DeadLetters } from '../../functions/shared/dead-letters.ts';
import type { RunEnvelope } from '../../functions/shared/envelope.ts';
import type { JobTarget } from '../../functions/shared/job.ts';

/** One envelope a recorder accepted, with the simulated time it arrived. */
export interface RecordedDelivery {
  readonly target: JobTarget;
  readonly envelope: RunEnvelope;
  readonly deliveredAt: Date;
  readonly deliveryId: string;
}

/**
 * The simulation's targets: accepts every envelope and keeps it, in delivery order.
 *
 * It replaces only the delivery boundary (`TargetDelivery`, architecture §6); everything in
 * front of it — events, claims, the ledger, catch-up — is the real dispatcher.
 */
export class RecordingTargets implements TargetDelivery {
  readonly deliveries: RecordedDelivery[] = [];
  readonly #clock: () => Date;

  constructor(clock: () => Date) {
    this.#clock = clock;
  }

  async deliver(target: JobTarget, envelope: RunEnvelope): Promise<{ deliveryId: string }> {
    const deliveryId = `sim-${this.deliveries.length + 1}`;
    this.deliveries.push({ target, envelope, deliveredAt: this.#clock(), deliveryId });
    return { deliveryId };
  }
}

/** The simulation's dead-letter queue: keeps what would have been sent to SQS. */
export class RecordingDeadLetters implements DeadLetters {
  readonly messages: DeadLetterMessage[] = [];

  async send(message: DeadLetterMessage): Promise<void> {
    this.messages.push(message);
  }
}
