import type { RunEnvelope } from '#jobs/envelope.ts';
import { lambdaTargetRef, stateMachineArnOf } from '#jobs/target-arn.ts';
import type { SimulatedDelivery } from './faulty-parts.ts';

/**
 * How Lambda reports that an asynchronous invocation of a `lambda` target succeeded: the
 * invocation record of that very invoke (its request id, the qualified function it ran, the
 * envelope as `requestPayload`) in the EventBridge event that carries it (`source: lambda`,
 * the record in `detail`; the recorder also takes the bare record a destination hands over).
 *
 * @example
 * lambdaSuccessEvent('arn:aws:lambda:eu-west-1:1:function:report', 'req-1', envelope, at)
 *   .detail.requestContext.functionArn
 * //=> 'arn:aws:lambda:eu-west-1:1:function:report:$LATEST'
 */
export function lambdaSuccessEvent(
  targetArn: string,
  requestId: string,
  envelope: RunEnvelope,
  finishedAt: Date,
) {
  const { functionArn, qualifier } = lambdaTargetRef(targetArn);
  return {
    version: '0',
    source: 'lambda',
    'detail-type': 'Lambda Function Invocation Result - Success',
    time: finishedAt.toISOString(),
    detail: {
      version: '1.0',
      timestamp: finishedAt.toISOString(),
      requestContext: {
        requestId,
        functionArn: `${functionArn}:${qualifier}`,
        condition: 'Success',
        approximateInvokeCount: 1,
      },
      requestPayload: envelope,
      responseContext: { statusCode: 200, executedVersion: '$LATEST' },
      responsePayload: null,
    },
  };
}

/**
 * The `Step Functions Execution Status Change` event of an execution that succeeded, as
 * EventBridge delivers it to the stack's rule: the execution ARN, its state machine, the
 * envelope as its input.
 *
 * @example
 * executionSucceededEvent(machineArn, executionArn, envelope, started, stopped).detail.status
 * //=> 'SUCCEEDED'
 */
export function executionSucceededEvent(
  targetArn: string,
  executionArn: string,
  envelope: RunEnvelope,
  startedAt: Date,
  finishedAt: Date,
) {
  return {
    version: '0',
    source: 'aws.states',
    'detail-type': 'Step Functions Execution Status Change',
    time: finishedAt.toISOString(),
    detail: {
      executionArn,
      stateMachineArn: stateMachineArnOf(targetArn),
      name: executionArn.split(':').at(-1) ?? '',
      status: 'SUCCEEDED',
      startDate: startedAt.getTime(),
      stopDate: finishedAt.getTime(),
      input: JSON.stringify(envelope),
      error: null,
      cause: null,
    },
  };
}

/**
 * The event the recorder receives when a delivered run finished, or undefined for a target
 * that reports nothing (SQS, SNS, EventBridge).
 *
 * @example
 * completionEvent(lambdaDelivery, new Date('2027-03-28T01:30:01Z'))?.source //=> 'lambda'
 */
export function completionEvent(delivery: SimulatedDelivery, finishedAt: Date): object | undefined {
  const { target, envelope, deliveryId, deliveredAt } = delivery;
  switch (target.type) {
    case 'lambda':
      return lambdaSuccessEvent(target.arn, deliveryId, envelope, finishedAt);
    case 'stepfunctions':
      return executionSucceededEvent(target.arn, deliveryId, envelope, deliveredAt, finishedAt);
    default:
      return undefined;
  }
}
