import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { TargetDeliveryError } from './errors.ts';

/** The part of the Lambda client delivery uses. */
export type LambdaLike = Pick<LambdaClient, 'send'>;

/**
 * Delivers a run by invoking a function asynchronously (`InvocationType: 'Event'`).
 *
 * Lambda queues the event and answers 202; the function's own result reaches the recorder
 * through the Lambda destinations the stack wires. `deliveryId` is the invoke's request id,
 * which is also the `requestId` in the function's logs.
 */
export function createLambdaDelivery(lambda: LambdaLike) {
  return async (arn: string, envelope: RunEnvelope): Promise<{ deliveryId: string }> => {
    const out = await lambda.send(
      new InvokeCommand({
        FunctionName: arn,
        InvocationType: 'Event',
        Payload: new TextEncoder().encode(JSON.stringify(envelope)),
      }),
    );
    if (out.StatusCode !== undefined && out.StatusCode !== 202) {
      throw new TargetDeliveryError('lambda', arn, `Status${out.StatusCode}`, 'expected 202');
    }
    return { deliveryId: out.$metadata.requestId ?? '' };
  };
}
