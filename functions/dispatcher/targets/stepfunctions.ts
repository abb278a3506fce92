import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { RunEnvelope } from '../../shared/envelope.ts';
import { executionNamePrefix } from '../../shared/stack-scope.ts';
import type { DeliveryContext } from './index.ts';

/** The part of the Step Functions client delivery uses. */
export type SfnLike = Pick<SFNClient, 'send'>;

/**
 * The execution name of a delivery: the stack's prefix, the run's key and its round
 * (`-g<generation>`), at most 80 characters (Step Functions' limit on a name).
 *
 * Every attempt of one round uses the same name, so a retry after an attempt whose start was
 * in fact accepted is refused by Step Functions itself (names are unique per state machine for
 * 90 days) instead of starting the run twice; a redrive starts a new round, hence a new name.
 * The prefix lets the stack's completion rule match its own executions only.
 *
 * @example
 * executionNameFor('zc4804dd9a-', '6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b', 0)
 * //=> 'zc4804dd9a-6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b-g0'
 */
export function executionNameFor(prefix: string, key: string, generation: number): string {
  return `${prefix}${key}-g${generation}`.slice(0, 80);
}

function executionArn(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}

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
