import type { RunEnvelope } from '#jobs/envelope.ts';

/**
 * The message attributes every SQS message and SNS publication of a run carries.
 *
 * Consumers and subscription filter policies can route on the job and the run's key without
 * parsing the body.
 *
 * @example
 * envelopeAttributes({ jobId: 'nightly', key: 'ab12…' } as RunEnvelope)
 * //=> { zonecronJobId: { DataType: 'String', StringValue: 'nightly' },
 * //     zonecronKey: { DataType: 'String', StringValue: 'ab12…' } }
 */
export function envelopeAttributes(envelope: RunEnvelope) {
  return {
    zonecronJobId: { DataType: 'String', StringValue: envelope.jobId },
    zonecronKey: { DataType: 'String', StringValue: envelope.key },
  };
}

/**
 * The FIFO fields for a `.fifo` queue or topic, and none for a standard one.
 *
 * `MessageGroupId = jobId` keeps a job's runs in order; `MessageDeduplicationId = key` makes
 * SQS and SNS themselves drop a re-send of the same run within their 5-minute window.
 *
 * @example
 * fifoFields('arn:aws:sqs:eu-west-1:123456789012:jobs.fifo', envelope)
 * //=> { MessageGroupId: envelope.jobId, MessageDeduplicationId: envelope.key }
 * fifoFields('arn:aws:sns:eu-west-1:123456789012:alerts', envelope)
 * //=> {}
 */
export function fifoFields(
  arn: string,
  envelope: RunEnvelope,
): { MessageGroupId?: string; MessageDeduplicationId?: string } {
  return arn.endsWith('.fifo')
    ? { MessageGroupId: envelope.jobId, MessageDeduplicationId: envelope.key }
    : {};
}
