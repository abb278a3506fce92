/**
 * The sandbox's targets: all five types answered on this machine, so no call leaves it.
 *
 * SQS and SNS go to fauxqs (the emulator the sandbox runs), through the real delivery code.
 * Lambda, Step Functions and EventBridge are clients answered here: the function or state
 * machine "runs" at once and succeeds, unless the sandbox was told a job's target fails or
 * hangs; what it reports (a Lambda destination record, a Step Functions status-change event)
 * waits in `completions` until the sandbox hands it to the recorder, as the stack's
 * destinations and rule would. EventBridge is a local bus that keeps what was put on it.
 */

import type { RunEnvelope } from '#jobs/envelope.ts';
import type { EventBridgeLike } from '../../functions/dispatcher/targets/eventbridge.ts';
import {
  createTargetDelivery,
  type TargetDelivery,
} from '../../functions/dispatcher/targets/index.ts';
import type { LambdaLike } from '../../functions/dispatcher/targets/lambda.ts';
import type { SnsLike } from '../../functions/dispatcher/targets/sns.ts';
import type { SqsLike } from '../../functions/dispatcher/targets/sqs.ts';
import { queueUrlViaGetQueueUrl } from '../../functions/dispatcher/targets/sqs.ts';
import type { SfnLike } from '../../functions/dispatcher/targets/stepfunctions.ts';
import { executionSucceededEvent, lambdaSuccessEvent } from '../simulation/completions.ts';
import { executionFailedEvent, lambdaFailureEvent } from './failure-events.ts';

/**
 * What a job's target does in the sandbox: `succeed` (the default), `fail` (the Lambda function
 * throws on every attempt, the execution fails; SQS, SNS and EventBridge refuse the delivery),
 * or `hang` (the function or execution never reports back: the run goes stuck).
 */
export type TargetBehaviour = 'succeed' | 'fail' | 'hang';

/** What the local targets are built from. */
export interface LocalTargetsOptions {
  readonly clock: () => Date;
  /** fauxqs's SQS, with queues named as the targets' ARNs name them. */
  readonly sqs: SqsLike;
  /** fauxqs's SNS; a target topic ARN is published to under the topic of its name. */
  readonly sns: SnsLike;
  /** fauxqs's ARN of the topic of each target topic ARN. */
  readonly topicArns: ReadonlyMap<string, string>;
  readonly behaviourOf: (jobId: string) => TargetBehaviour;
}

/** One event on the local EventBridge bus. */
export interface BusEvent {
  readonly eventBusName: string;
  readonly source: string;
  readonly detailType: string;
  readonly detail: RunEnvelope;
  readonly eventId: string;
}

/** A local client: answers a command from its `input`, as the SDK client would. */
export interface LocalClient {
  send(command: { readonly input: unknown }): Promise<unknown>;
}

/** The sandbox's targets, with what they keep for the sandbox to hand on. */
export interface LocalTargets {
  readonly delivery: TargetDelivery;
  /** The clients answered here, for the endpoint the other shell's commands reach them on. */
  readonly clients: {
    readonly lambda: LocalClient;
    readonly sfn: LocalClient;
    readonly eventbridge: LocalClient;
  };
  /** What was put on the local bus, oldest first. */
  readonly busEvents: readonly BusEvent[];
  /** Takes the completion events (Lambda results, execution status changes) waiting. */
  takeCompletions(): object[];
}

/** A delivery the local target refuses, as an AWS API would. */
export class LocalTargetRefusedError extends Error {
  override readonly name = 'LocalTargetRefusedError';
  constructor(readonly jobId: string) {
    super(
      `sandbox target of '${jobId}' refuses deliveries (zonecron sandbox fail ${jobId}; zonecron sandbox heal ${jobId} undoes it)`,
    );
  }
}

/** Typed access to what a delivery module put in its command. */
function inputOf<T>(command: unknown): T {
  return (command as { input: T }).input;
}

/**
 * The targets of a sandbox.
 *
 * @example
 * const targets = createLocalTargets({ clock, sqs, sns, topicArns, behaviourOf: () => 'succeed' });
 * await targets.delivery.deliver({ type: 'lambda', arn }, envelope);
 * targets.takeCompletions()[0] //=> { source: 'lambda', 'detail-type': '… - Success', … }
 */
export function createLocalTargets(options: LocalTargetsOptions): LocalTargets {
  const completions: object[] = [];
  const busEvents: BusEvent[] = [];
  let sequence = 0;
  const nextId = (prefix: string) => `${prefix}-${(++sequence).toString(16).padStart(8, '0')}`;
  const refuseIfFailing = (jobId: string) => {
    if (options.behaviourOf(jobId) === 'fail') throw new LocalTargetRefusedError(jobId);
  };
  const lambda = {
    async send(command: unknown) {
      const input = inputOf<{ FunctionName: string; Payload: Uint8Array }>(command);
      const envelope = JSON.parse(new TextDecoder().decode(input.Payload)) as RunEnvelope;
      const requestId = nextId('sandbox-request');
      const behaviour = options.behaviourOf(envelope.jobId);
      const at = options.clock();
      if (behaviour === 'succeed') {
        completions.push(lambdaSuccessEvent(input.FunctionName, requestId, envelope, at));
      } else if (behaviour === 'fail') {
        completions.push(lambdaFailureEvent(input.FunctionName, requestId, envelope, at));
      }
      return { StatusCode: 202, $metadata: { requestId } };
    },
  } as unknown as LambdaLike;
  const sfn = {
    async send(command: unknown) {
      const input = inputOf<{ stateMachineArn: string; name: string; input: string }>(command);
      const envelope = JSON.parse(input.input) as RunEnvelope;
      const executionArn = `${input.stateMachineArn.replace(':stateMachine:', ':execution:')}:${input.name}`;
      const behaviour = options.behaviourOf(envelope.jobId);
      const at = options.clock();
      const { stateMachineArn } = input;
      if (behaviour === 'succeed') {
        completions.push(executionSucceededEvent(stateMachineArn, executionArn, envelope, at, at));
      } else if (behaviour === 'fail') {
        completions.push(executionFailedEvent(stateMachineArn, executionArn, envelope, at, at));
      }
      return { executionArn, startDate: at };
    },
  } as unknown as SfnLike;
  const eventbridge = {
    async send(command: unknown) {
      const [entry] = inputOf<{
        Entries: { EventBusName: string; Source: string; DetailType: string; Detail: string }[];
      }>(command).Entries;
      if (!entry) throw new Error('PutEvents without an entry');
      const detail = JSON.parse(entry.Detail) as RunEnvelope;
      refuseIfFailing(detail.jobId);
      const eventId = nextId('sandbox-event');
      busEvents.push({
        eventBusName: entry.EventBusName,
        source: entry.Source,
        detailType: entry.DetailType,
        detail,
        eventId,
      });
      return { Entries: [{ EventId: eventId }], FailedEntryCount: 0 };
    },
  } as unknown as EventBridgeLike;
  const sqs = refusingFailing(options.sqs, 'MessageBody', refuseIfFailing);
  const sns = topicMapped(
    refusingFailing(options.sns, 'Message', refuseIfFailing),
    options.topicArns,
  );
  const delivery = createTargetDelivery(
    { lambda, sfn, eventbridge, sqs, sns },
    { resolveQueueUrl: queueUrlViaGetQueueUrl(options.sqs) },
  );
  return {
    delivery,
    clients: { lambda, sfn, eventbridge } as unknown as LocalTargets['clients'],
    busEvents,
    takeCompletions: () => completions.splice(0),
  };
}

/** A client whose sends of an envelope (in `field`) of a failing job are refused. */
function refusingFailing<C extends { send: unknown }>(
  client: C,
  field: string,
  refuseIfFailing: (jobId: string) => void,
): C {
  const send = client.send as (command: unknown) => Promise<unknown>;
  return {
    send: async (command: unknown) => {
      const body = inputOf<Record<string, unknown>>(command)[field];
      if (typeof body === 'string') refuseIfFailing((JSON.parse(body) as RunEnvelope).jobId);
      return send.call(client, command);
    },
  } as unknown as C;
}

/** SNS whose publishes to a target topic ARN go to fauxqs's topic of the same name. */
function topicMapped(sns: SnsLike, topicArns: ReadonlyMap<string, string>): SnsLike {
  return {
    send: async (command: unknown) => {
      const input = inputOf<{ TopicArn?: string }>(command);
      const local = input.TopicArn ? topicArns.get(input.TopicArn) : undefined;
      if (local) input.TopicArn = local;
      return (sns.send as (command: unknown) => Promise<unknown>)(command);
    },
  } as unknown as SnsLike;
}
