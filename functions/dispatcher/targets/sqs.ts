import {
  GetQueueUrlCommand,
  SendMessageCommand,
  type SendMessageCommandInput,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { RunEnvelope } from '#jobs/envelope.ts';
import { TargetDeliveryError } from './errors.ts';
import { envelopeAttributes, fifoFields } from './message-fields.ts';

/** The part of the SQS client delivery uses. */
export type SqsLike = Pick<SQSClient, 'send'>;

/** Turns a queue ARN into the URL SendMessage wants. */
export type QueueUrlResolver = (arn: string) => Promise<string> | string;

function parseQueueArn(arn: string): {
  partition: string;
  region: string;
  account: string;
  name: string;
} {
  const parts = arn.split(':');
  const [prefix, partition = 'aws', service, region, account, name] = parts;
  if (prefix !== 'arn' || service !== 'sqs' || !region || !account || !name || parts.length !== 6) {
    throw new TargetDeliveryError(
      'sqs',
      arn,
      'InvalidArn',
      'expected arn:aws:sqs:<region>:<account>:<name>',
    );
  }
  return { partition, region, account, name };
}

/**
 * The queue URL of a queue ARN, without a call.
 *
 * The DNS suffix follows the ARN's partition: `amazonaws.com.cn` in China, `amazonaws.com`
 * elsewhere (the commercial and GovCloud partitions).
 *
 * @example
 * queueUrlFromArn('arn:aws:sqs:eu-west-1:123456789012:jobs.fifo')
 * //=> 'https://sqs.eu-west-1.amazonaws.com/123456789012/jobs.fifo'
 * queueUrlFromArn('arn:aws-cn:sqs:cn-north-1:123456789012:jobs')
 * //=> 'https://sqs.cn-north-1.amazonaws.com.cn/123456789012/jobs'
 */
export function queueUrlFromArn(arn: string): string {
  const { partition, region, account, name } = parseQueueArn(arn);
  const suffix = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${suffix}/${account}/${name}`;
}

/**
 * A resolver that asks SQS (`GetQueueUrl` by name and owner account), cached per ARN.
 *
 * For emulators such as fauxqs whose URLs are not AWS's, and for partitions with other DNS
 * suffixes.
 */
export function queueUrlViaGetQueueUrl(sqs: SqsLike): QueueUrlResolver {
  const cache = new Map<string, Promise<string>>();
  return (arn) => {
    let url = cache.get(arn);
    if (!url) {
      const { account, name } = parseQueueArn(arn);
      url = sqs
        .send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }))
        .then((out) => out.QueueUrl ?? queueUrlFromArn(arn));
      url.catch(() => cache.delete(arn));
      cache.set(arn, url);
    }
    return url;
  };
}

/**
 * Delivers a run as one SQS message whose body is the envelope.
 *
 * FIFO queues (`.fifo`) get `MessageGroupId = jobId` (a job's runs stay in order) and
 * `MessageDeduplicationId = key`, so SQS itself drops a re-send within its 5-minute window.
 */
export function createSqsDelivery(
  sqs: SqsLike,
  resolveQueueUrl: QueueUrlResolver = queueUrlFromArn,
) {
  return async (arn: string, envelope: RunEnvelope): Promise<{ deliveryId: string }> => {
    const queueUrl = await resolveQueueUrl(arn);
    const input: SendMessageCommandInput = {
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(envelope),
      MessageAttributes: envelopeAttributes(envelope),
      ...fifoFields(arn, envelope),
    };
    const out = await sqs.send(new SendMessageCommand(input));
    return { deliveryId: out.MessageId ?? '' };
  };
}
