import { Aws, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/** Properties of {@link OnCallTopic}. */
export interface OnCallTopicProps {
  /**
   * An existing topic to use (`alarms.topicArn`): the stack then creates no topic and no key,
   * and the topic's owners allow what docs/deploy.md ("An existing on-call topic") lists.
   *
   * @default - a topic of the stack's own, encrypted with a key of its own
   */
  readonly existingTopicArn?: string;
  /**
   * E-mail addresses subscribed to the topic (`alarms.email`), also to an existing one.
   *
   * @default - none; subscribe a pager or chat integration to the topic yourself
   */
  readonly emails?: readonly string[];
}

/**
 * The name of a stack's own on-call topic: fixed, so that the stacks of its shards can name it
 * (their dedicated alarms notify it) without importing a value the main stack may remove.
 *
 * @example
 * onCallTopicName('Zonecron') //=> 'Zonecron-oncall'
 */
export function onCallTopicName(stackName: string): string {
  return `${stackName}-oncall`;
}

/**
 * The ARN of the on-call topic, written so it resolves in any stack of the installation: the
 * existing topic's ARN, or the own topic's built from the deploying account and region.
 */
export function onCallTopicArn(stackName: string, existingTopicArn: string | undefined): string {
  return (
    existingTopicArn ??
    `arn:${Aws.PARTITION}:sns:${Aws.REGION}:${Aws.ACCOUNT_ID}:${onCallTopicName(stackName)}`
  );
}

/**
 * The on-call topic: where every alarm and the functions' per-run notifications go.
 *
 * The stack's own topic is encrypted with a customer-managed KMS key (rotated yearly) because
 * CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key: that key's
 * policy cannot be changed to let CloudWatch use it. The topic policy denies non-TLS
 * publishing and allows CloudWatch alarms of this account only; the dispatcher and recorder
 * publish through `grantPublish`, which also lets them use the key.
 */
export class OnCallTopic extends Construct {
  /** The topic (imported when it already existed). */
  readonly topic: sns.ITopic;
  /** The key of the stack's own topic; absent for an existing topic. */
  readonly key?: kms.Key;
  /** The subscriptions of `alarms.email`. */
  readonly subscriptions: readonly sns.Subscription[];

  constructor(scope: Construct, id: string, props: OnCallTopicProps = {}) {
    super(scope, id);
    if (props.existingTopicArn !== undefined) {
      this.topic = sns.Topic.fromTopicArn(this, 'Topic', props.existingTopicArn);
    } else {
      const { topic, key } = this.ownTopic();
      this.topic = topic;
      this.key = key;
    }
    this.subscriptions = (props.emails ?? []).map(
      (email, index) =>
        new sns.Subscription(this, `Email${index + 1}`, {
          topic: this.topic,
          protocol: sns.SubscriptionProtocol.EMAIL,
          endpoint: email,
        }),
    );
  }

  private ownTopic(): { topic: sns.Topic; key: kms.Key } {
    const key = new kms.Key(this, 'TopicKey', {
      description: 'zonecron on-call topic',
      enableKeyRotation: true,
    });
    // In a key policy, resource "*" means this key.
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    );
    const topic = new sns.Topic(this, 'Topic', {
      topicName: onCallTopicName(Stack.of(this).stackName),
      displayName: 'zonecron on-call',
      masterKey: key,
      enforceSSL: true,
    });
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`,
          },
        },
      }),
    );
    return { topic, key };
  }

  /** The topic's ARN (output `AlarmTopicArn`, `NOTIFY_TOPIC_ARN` of both functions). */
  get topicArn(): string {
    return this.topic.topicArn;
  }

  /**
   * Lets a principal publish: `sns:Publish` on the topic and, for the stack's own encrypted
   * topic, the two KMS actions a publisher to an encrypted topic needs on its key.
   */
  grantPublish(grantee: iam.IGrantable): iam.Grant {
    const grant = iam.Grant.addToPrincipal({
      grantee,
      actions: ['sns:Publish'],
      resourceArns: [this.topicArn],
    });
    this.key?.grant(grantee, 'kms:Decrypt', 'kms:GenerateDataKey');
    return grant;
  }
}
