import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { RunEnvelope } from '../../shared/envelope.ts';

/** The part of the Step Functions client delivery uses. */
export type SfnLike = Pick<SFNClient, 'send'>;

/**
 * The execution name of a run: `<jobId, at most 15 chars>-<key>`, at most 80 characters.
 *
 * Derived from the key alone, so a second start of the same run is refused by Step Functions
 * itself (names are unique per state machine for 90 days). The job id prefix only helps a
 * human scanning the console; job ids are `[a-z0-9-_]`, all valid in names.
 *
 * @example
 * executionNameForKey('daily_report', '6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b')
 * //=> 'daily_report-6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b'
 */
export function executionNameForKey(jobId: string, key: string): string {
  const prefix = jobId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 15);
  return `${prefix}-${key}`.slice(0, 80);
}

function executionArn(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}

/**
 * Delivers a run by starting an execution named after the run's key; input = envelope.
 *
 * `ExecutionAlreadyExists` means an earlier attempt already started this run (a retry with a
 * different `attempt` in its input): that is a delivered run, not a failure. The recorder
 * follows the execution through its status-change events.
 */
export function createStepFunctionsDelivery(sfn: SfnLike) {
  return async (arn: string, envelope: RunEnvelope): Promise<{ deliveryId: string }> => {
    const name = executionNameForKey(envelope.jobId, envelope.key);
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
