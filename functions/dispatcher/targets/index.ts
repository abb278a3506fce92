import type { RunEnvelope } from '#jobs/envelope.ts';
import type { JobTarget, TargetType } from '#jobs/job.ts';
import type { DeliveryContext } from './delivery-context.ts';
import type { EventBridgeLike } from './eventbridge.ts';
import type { LambdaLike } from './lambda.ts';
import type { SnsLike } from './sns.ts';
import type { QueueUrlResolver, SqsLike } from './sqs.ts';
import type { SfnLike } from './stepfunctions.ts';

export { isTargetDeliveryError, TargetDeliveryError } from './errors.ts';
export { executionNameFor } from './execution-name.ts';
export type { QueueUrlResolver } from './sqs.ts';

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
 * Each target type's module (and with it its SDK package's commands) is imported on the first
 * delivery to that type: a separate chunk in the Lambda bundle, so a dispatcher whose jobs
 * only target SQS never loads the other four (`infra/packaging/bundling.ts`).
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
  const cache = new Map<TargetType, Promise<SingleTargetDelivery>>();
  const load: Record<TargetType, () => Promise<SingleTargetDelivery>> = {
    lambda: async () => (await import('./lambda.ts')).createLambdaDelivery(clients.lambda),
    sqs: async () =>
      (await import('./sqs.ts')).createSqsDelivery(clients.sqs, options.resolveQueueUrl),
    sns: async () => (await import('./sns.ts')).createSnsDelivery(clients.sns),
    eventbridge: async () =>
      (await import('./eventbridge.ts')).createEventBridgeDelivery(clients.eventbridge),
    stepfunctions: async () =>
      (await import('./stepfunctions.ts')).createStepFunctionsDelivery(clients.sfn),
  };
  return {
    async deliver(target, envelope, context = { generation: 0 }) {
      let single = cache.get(target.type);
      if (!single) {
        single = load[target.type]();
        cache.set(target.type, single);
      }
      return (await single)(target.arn, envelope, context);
    },
  };
}
