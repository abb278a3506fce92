import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { executionNamePrefix } from '#jobs/stack-scope.ts';
import type { DeliveryContext } from './delivery-context.ts';
import { executionArn, executionNameFor } from './execution-name.ts';

/** The part of the Step Functions client delivery uses. */
export type SfnLike = Pick<SFNClient, 'send'>;

/**
 * Delivers a run by starting an execution named by {@link executionNameFor}; input = envelope.
 *
 * `ExecutionAlreadyExists` means an earlier attempt of this round already started the run (a
 * retry with a different `attempt` in its input): that is a delivered run, not a failure. The
 * recorder follows the execution through its status-change events.
 */
export function createStepFunctionsDelivery(sfn: SfnLike) {
  return async (
    arn: string,
    envelope: RunEnvelope,
    context: DeliveryContext,
  ): Promise<{ deliveryId: string }> => {
    const name = executionNameFor(
      executionNamePrefix(envelope.stack),
      envelope.key,
      context.generation,
    );
    try {
      const out = await sfn.send(
        new StartExecutionCommand({ stateMachineArn: arn, name, input: JSON.stringify(envelope) }),
      );
      return { deliveryId: out.executionArn ?? executionArn(arn, name) };
    } catch (error) {
      if ((error as { name?: string }).name === 'ExecutionAlreadyExists') {
        return { deliveryId: executionArn(arn, name) };
      }
      throw error;
    }
  };
}
