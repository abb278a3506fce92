import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';

/** The services zonecron talks to. */
export type AwsService = 'dynamodb' | 'sqs' | 'lambda' | 'sns' | 'eventbridge' | 'stepfunctions';

/** Options shared by every client: a local endpoint and credentials for emulators, retries. */
export interface ClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: { accessKeyId: string; secretAccessKey: string };
  /** SDK attempts per call, including the first. @default 3 (the SDK's standard mode) */
  readonly maxAttempts?: number;
  /** Connection and request timeouts of the SDK's HTTP handler. @default the SDK's */
  readonly requestHandler?: { connectionTimeout: number; requestTimeout: number };
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
  /** Closes the clients built so far. */
  destroy(): void;
}

/**
 * Builds lazily-constructed SDK clients.
 *
 * `options` applies to every client, or is a function of the service for per-service
 * endpoints (the CLI's `--endpoint-url dynamodb=…`).
 *
 * @example
 * const clients = createAwsClients();                       // in Lambda: region from the env
 * const local = createAwsClients({ endpoint: 'http://127.0.0.1:4566', region: 'us-east-1',
 *   credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
 */
export function createAwsClients(
  options: ClientOptions | ((service: AwsService) => ClientOptions) = {},
): AwsClients {
  const config = (service: AwsService) => {
    const o = typeof options === 'function' ? options(service) : options;
    return {
      ...(o.region ? { region: o.region } : {}),
      ...(o.endpoint ? { endpoint: o.endpoint } : {}),
      ...(o.credentials ? { credentials: o.credentials } : {}),
      ...(o.maxAttempts ? { maxAttempts: o.maxAttempts } : {}),
      ...(o.requestHandler ? { requestHandler: o.requestHandler } : {}),
    };
  };
  const built = new Map<AwsService, { destroy(): void }>();
  function lazy<T extends { destroy(): void }>(service: AwsService, build: () => T): T {
    let client = built.get(service) as T | undefined;
    if (!client) {
      client = build();
      built.set(service, client);
    }
    return client;
  }
  return {
    get dynamodb() {
      return lazy('dynamodb', () => new DynamoDBClient(config('dynamodb')));
    },
    get sqs() {
      return lazy('sqs', () => new SQSClient(config('sqs')));
    },
    get lambda() {
      return lazy('lambda', () => new LambdaClient(config('lambda')));
    },
    get sns() {
      return lazy('sns', () => new SNSClient(config('sns')));
    },
    get eventbridge() {
      return lazy('eventbridge', () => new EventBridgeClient(config('eventbridge')));
    },
    get sfn() {
      return lazy('stepfunctions', () => new SFNClient(config('stepfunctions')));
    },
    destroy() {
      for (const client of built.values()) client.destroy();
    },
  };
}
