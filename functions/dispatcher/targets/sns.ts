import { PublishCommand, type PublishCommandInput, type SNSClient } from '@aws-sdk/client-sns';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { envelopeAttributes, fifoFields } from './message-fields.ts';

/** The part of the SNS client delivery uses. */
export type SnsLike = Pick<SNSClient, 'send'>;

/**
 * Delivers a run by publishing the envelope to a topic.
 *
 * FIFO topics (`.fifo`) get `MessageGroupId = jobId` and `MessageDeduplicationId = key`.
 */
export function createSnsDelivery(sns: SnsLike) {
  return async (arn: string, envelope: RunEnvelope): Promise<{ deliveryId: string }> => {
    const input: PublishCommandInput = {
      TopicArn: arn,
      Message: JSON.stringify(envelope),
      MessageAttributes: envelopeAttributes(envelope),
      ...fifoFields(arn, envelope),
    };
    const out = await sns.send(new PublishCommand(input));
    return { deliveryId: out.MessageId ?? '' };
  };
}
