import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';

/** Options shared by every client: a local endpoint and credentials for emulators, retries. */
export interface ClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: { accessKeyId: string; secretAccessKey: string };
  /** SDK attempts per call, including the first. @default 3 (the SDK's standard mode) */
  readonly maxAttempts?: number;
}

/**
 * The AWS SDK clients zonecron's Lambdas use, each built on first use.
 *
 * Lazy, because a dispatcher whose jobs only target SQS should not pay the cold-start cost of
 * constructing five more clients. One instance per Lambda container, built at module scope.
 */
export interface AwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly lambda: LambdaClient;
  readonly sns: SNSClient;
  readonly eventbridge: EventBridgeClient;
  readonly sfn: SFNClient;
}

/**
 * Builds lazily-constructed SDK clients.
 *
 * @example
 * const clients = createAwsClients();                       // in Lambda: region from the env
 * const local = createAwsClients({ endpoint: 'http://127.0.0.1:4566', region: 'us-east-1',
 *   credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
 */
export function createAwsClients(options: ClientOptions = {}): AwsClients {
  const config = {
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
  };
  const cache = new Map<string, unknown>();
  function lazy<T>(name: string, build: () => T): T {
    let client = cache.get(name) as T | undefined;
    if (!client) {
      client = build();
      cache.set(name, client);
    }
    return client;
  }
  return {
    get dynamodb() {
      return lazy('dynamodb', () => new DynamoDBClient(config));
    },
    get sqs() {
      return lazy('sqs', () => new SQSClient(config));
    },
    get lambda() {
      return lazy('lambda', () => new LambdaClient(config));
    },
    get sns() {
      return lazy('sns', () => new SNSClient(config));
    },
    get eventbridge() {
      return lazy('eventbridge', () => new EventBridgeClient(config));
    },
    get sfn() {
      return lazy('sfn', () => new SFNClient(config));
    },
  };
}
