import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DeadLetterMessage } from '#jobs/dead-letters.ts';

/** A dead-lettered run as read from the queue, with what is needed to delete it later. */
export interface QueuedDeadLetter {
  readonly messageId: string;
  readonly receiptHandle: string;
  /** The parsed body, or undefined when the body is not a zonecron dead-letter message. */
  readonly body: DeadLetterMessage | undefined;
  readonly rawBody: string;
}

/** How long `dlq list` hides the messages it reads; they are made visible again right away. */
const PEEK_VISIBILITY_SECONDS = 30;

function parseBody(raw: string): DeadLetterMessage | undefined {
  try {
    const body = JSON.parse(raw) as Partial<DeadLetterMessage>;
    if (
      body &&
      body.version === 1 &&
      typeof body.key === 'string' &&
      typeof body.jobId === 'string' &&
      body.envelope &&
      body.target
    ) {
      return body as DeadLetterMessage;
    }
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * Reads every message of the DLQ without consuming it.
 *
 * Each batch is received with a short visibility timeout, so one listing sees each message
 * once; when `release` is true they are made visible again at the end (visibility 0), so a
 * listing leaves the queue as it found it (except each message's receive count).
 */
export async function readDeadLetters(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  options: { release: boolean; max?: number },
): Promise<QueuedDeadLetter[]> {
  const seen = new Map<string, QueuedDeadLetter>();
  const max = options.max ?? 1000;
  while (seen.size < max) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: PEEK_VISIBILITY_SECONDS,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    const messages: Message[] = out.Messages ?? [];
    const fresh = messages.filter((m) => m.MessageId && !seen.has(m.MessageId));
    if (fresh.length === 0) break;
    for (const m of fresh) {
      const raw = m.Body ?? '';
      seen.set(m.MessageId ?? '', {
        messageId: m.MessageId ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        body: parseBody(raw),
        rawBody: raw,
      });
    }
  }
  const all = [...seen.values()];
  if (options.release) await releaseDeadLetters(sqs, queueUrl, all);
  return all;
}

/** Makes messages visible again at once. */
export async function releaseDeadLetters(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  messages: readonly QueuedDeadLetter[],
): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const batch = messages.slice(i, i + 10);
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((m, j) => ({
          Id: String(j),
          ReceiptHandle: m.receiptHandle,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}

/** Deletes one message (after its run was redelivered). */
export async function deleteDeadLetter(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  message: QueuedDeadLetter,
): Promise<void> {
  await sqs.send(
    new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.receiptHandle }),
  );
}
