import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Sender } from '#shared/aws-clients.ts';
import type { RunEnvelope } from './envelope.ts';
import type { JobTarget } from './job.ts';

/** A run that will not be retried automatically (architecture §6), as the DLQ message body. */
export interface DeadLetterMessage {
  readonly version: 1;
  readonly reason: 'delivery-failed' | 'execution-failed';
  readonly key: string;
  readonly jobId: string;
  readonly envelope: RunEnvelope;
  readonly target: JobTarget;
  readonly lastError: string;
  readonly attempts: number;
  /** UTC ISO instant. */
  readonly failedAt: string;
}

/** Where dead-lettered runs go. */
export interface DeadLetters {
  send(message: DeadLetterMessage): Promise<void>;
}

/**
 * The SQS dead-letter queue: one message per dead-lettered run, body = JSON.
 *
 * Message attributes carry the job id and key so `zonecron dlq list` can show them without
 * parsing bodies; consumers dedupe on `key`.
 *
 * @example
 * const dlq = createSqsDeadLetters(createAwsClients().sqs, process.env.DLQ_URL);
 */
export function createSqsDeadLetters(sqs: Sender<SQSClient>, queueUrl: string): DeadLetters {
  return {
    async send(message) {
      // Imported here: a Lambda loads the SQS client only when it dead-letters a run.
      const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(message),
          MessageAttributes: {
            zonecronJobId: { DataType: 'String', StringValue: message.jobId },
            zonecronKey: { DataType: 'String', StringValue: message.key },
            zonecronReason: { DataType: 'String', StringValue: message.reason },
          },
        }),
      );
    },
  };
}
