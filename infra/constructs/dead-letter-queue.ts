import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeNag } from './nag.ts';

/** Properties of {@link DeadLetterQueue}. */
export interface DeadLetterQueueProps {
  /**
   * How long a dead letter stays before SQS deletes it.
   *
   * 14 days, the SQS maximum: long enough to survive a holiday weekend and a slow triage.
   *
   * @default Duration.days(14)
   */
  readonly retentionPeriod?: Duration;
  /**
   * What happens to the queue when the stack is deleted or the queue is replaced.
   *
   * Its messages are runs that did not happen, each waiting for a human; deleting the stack
   * must not delete them. A new stack gets a new queue (the name is generated), so a kept
   * queue never blocks a redeploy; `zonecron dlq` works on any queue URL.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The one dead-letter queue every failed run ends up in.
 *
 * Five producers write to it: the dispatcher (runs whose delivery attempts ran out, with the
 * run envelope), EventBridge Scheduler (ticks it could not hand to the dispatcher), the
 * recorder (failed asynchronous Lambda targets, with the run envelope), Lambda itself
 * (dispatcher or recorder invocations that failed all asynchronous retries, as destination
 * records) and EventBridge (status-change events it could not hand to the recorder).
 * `zonecron dlq` lists and redrives it.
 *
 * Encrypted with SQS-managed keys (SSE-SQS): every producer above can write to it without a
 * KMS grant, and the CLI can read it with plain SQS permissions. SSL is enforced by the queue
 * policy.
 */
export class DeadLetterQueue extends Construct {
  /** The SQS queue. */
  readonly queue: sqs.Queue;

  constructor(scope: Construct, id: string, props: DeadLetterQueueProps = {}) {
    super(scope, id);
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: props.retentionPeriod ?? Duration.days(14),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    acknowledgeNag(
      this.queue,
      'AwsSolutions-SQS3',
      'This queue is itself the dead-letter queue (of EventBridge Scheduler, Lambda destinations and the dispatcher); nothing consumes it automatically, so it needs no DLQ of its own.',
    );
  }

  /** The queue's ARN. */
  get queueArn(): string {
    return this.queue.queueArn;
  }

  /** The queue's URL, as the functions receive it in `DLQ_URL`. */
  get queueUrl(): string {
    return this.queue.queueUrl;
  }

  /** Lets a principal send dead letters. */
  grantSendMessages(grantee: iam.IGrantable): iam.Grant {
    return this.queue.grantSendMessages(grantee);
  }

  /**
   * Dead letters waiting, the maximum over one minute.
   *
   * Anything above zero is a run (or a tick) that did not happen and needs a human.
   */
  metricMessagesVisible(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(1),
      statistic: 'Maximum',
      ...props,
    });
  }
}
