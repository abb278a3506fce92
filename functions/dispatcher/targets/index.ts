import type { RunEnvelope } from '../../shared/envelope.ts';
import type { JobTarget, TargetType } from '../../shared/job.ts';
import { createEventBridgeDelivery, type EventBridgeLike } from './eventbridge.ts';
import { createLambdaDelivery, type LambdaLike } from './lambda.ts';
import { createSnsDelivery, type SnsLike } from './sns.ts';
import { createSqsDelivery, type QueueUrlResolver, type SqsLike } from './sqs.ts';
import { createStepFunctionsDelivery, type SfnLike } from './stepfunctions.ts';

export { isTargetDeliveryError, TargetDeliveryError } from './errors.ts';
export { type QueueUrlResolver, queueUrlFromArn, queueUrlViaGetQueueUrl } from './sqs.ts';
export { executionNameFor } from './stepfunctions.ts';

/**
 * The delivery boundary (architecture §6): hand one run envelope to one target.
 *
 * The CLI simulation swaps only this. `deliveryId` is the target's own id for what it
 * accepted (request id, message id, event id, execution ARN), stored in the ledger so an
 * operator can follow the run into the target's logs. A failure throws.
 */
export interface TargetDelivery {
  deliver(
    target: JobTarget,
    envelope: RunEnvelope,
    context?: DeliveryContext,
  ): Promise<{ deliveryId: string }>;
}

/** What a target may need to know about a delivery besides its envelope. */
export interface DeliveryContext {
  /** The run's round: 0, then one more for each operator redrive. */
  readonly generation: number;
}

/** Delivery to one kind of target. */
export type SingleTargetDelivery = (
  arn: string,
  envelope: RunEnvelope,
  context: DeliveryContext,
) => Promise<{ deliveryId: string }>;

/** SDK clients (or anything with their `send`), each needed only if a job targets it. */
export interface TargetClients {
  readonly lambda: LambdaLike;
  readonly sqs: SqsLike;
  readonly sns: SnsLike;
  readonly eventbridge: EventBridgeLike;
  readonly sfn: SfnLike;
}

/** Options of {@link createTargetDelivery}. */
export interface TargetDeliveryOptions {
  /**
   * How an SQS target's ARN becomes a queue URL.
   * @default queueUrlFromArn (no call: `https://sqs.<region>.amazonaws.com/<account>/<name>`)
   */
  readonly resolveQueueUrl?: QueueUrlResolver;
}

/**
 * Builds the real delivery from SDK clients.
 *
 * Clients are read lazily (`clients.sns` is touched only when a job targets SNS), so a lazy
 * client bag keeps cold starts small.
 *
 * @example
 * const targets = createTargetDelivery(createAwsClients());
 * await targets.deliver({ type: 'sqs', arn: 'arn:aws:sqs:eu-west-1:123456789012:jobs' }, envelope);
 * //=> { deliveryId: '5fea7756-0ea4-451a-a703-a558b933e274' }
 */
export function createTargetDelivery(
  clients: TargetClients,
  options: TargetDeliveryOptions = {},
): TargetDelivery {
  const cache = new Map<TargetType, SingleTargetDelivery>();
  const build: Record<TargetType, () => SingleTargetDelivery> = {
    lambda: () => createLambdaDelivery(clients.lambda),
    sqs: () => createSqsDelivery(clients.sqs, options.resolveQueueUrl),
    sns: () => createSnsDelivery(clients.sns),
    eventbridge: () => createEventBridgeDelivery(clients.eventbridge),
    stepfunctions: () => createStepFunctionsDelivery(clients.sfn),
  };
  return {
    deliver(target, envelope, context = { generation: 0 }) {
      let single = cache.get(target.type);
      if (!single) {
        single = build[target.type]();
        cache.set(target.type, single);
      }
      return single(target.arn, envelope, context);
    },
  };
}
