import type { RunEnvelope } from '#jobs/envelope.ts';
import { executionSucceededEvent, lambdaSuccessEvent } from '../simulation/completions.ts';

/** The error a sandbox target that was told to fail (`--fail`, `zonecron sandbox fail`) reports. */
export const SANDBOX_FAILURE = {
  errorType: 'SandboxFailure',
  errorMessage: 'failing on purpose (zonecron sandbox fail; zonecron sandbox heal undoes it)',
} as const;

/** Lambda's own retries of a failed asynchronous invocation (the stack's default). */
export const LAMBDA_ASYNC_RETRIES = 2;

/**
 * How Lambda reports an asynchronous invocation that failed on its first try and on each of
 * its own retries: the failure destination's record (`RetriesExhausted`, an `Unhandled`
 * function error, the error as the response payload), in the EventBridge event that carries it.
 *
 * @example
 * lambdaFailureEvent(arn, 'req-1', envelope, at).detail.requestContext.condition
 * //=> 'RetriesExhausted'
 */
export function lambdaFailureEvent(
  targetArn: string,
  requestId: string,
  envelope: RunEnvelope,
  finishedAt: Date,
) {
  const success = lambdaSuccessEvent(targetArn, requestId, envelope, finishedAt);
  return {
    ...success,
    'detail-type': 'Lambda Function Invocation Result - Failure',
    detail: {
      ...success.detail,
      requestContext: {
        ...success.detail.requestContext,
        condition: 'RetriesExhausted',
        approximateInvokeCount: 1 + LAMBDA_ASYNC_RETRIES,
      },
      responseContext: {
        statusCode: 200,
        executedVersion: '$LATEST',
        functionError: 'Unhandled',
      },
      responsePayload: SANDBOX_FAILURE,
    },
  };
}

/**
 * The `Step Functions Execution Status Change` event of an execution that failed.
 *
 * @example
 * executionFailedEvent(machineArn, executionArn, envelope, started, stopped).detail.status
 * //=> 'FAILED'
 */
export function executionFailedEvent(
  targetArn: string,
  executionArn: string,
  envelope: RunEnvelope,
  startedAt: Date,
  finishedAt: Date,
) {
  const success = executionSucceededEvent(targetArn, executionArn, envelope, startedAt, finishedAt);
  return {
    ...success,
    detail: {
      ...success.detail,
      status: 'FAILED',
      error: SANDBOX_FAILURE.errorType,
      cause: SANDBOX_FAILURE.errorMessage,
    },
  };
}
