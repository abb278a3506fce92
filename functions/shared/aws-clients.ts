import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';

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

/** The part of an SDK client zonecron uses: `send`. */
export type Sender<Client extends { send: unknown }> = Pick<Client, 'send'>;

/**
 * The AWS SDK clients zonecron's Lambdas and CLI use.
 *
 * Every function call needs DynamoDB, so its client is built on first use from a static
 * import. The other services' SDK packages are imported only when a first request goes to
 * them (`import()`, a separate chunk in the Lambda bundle, `infra/packaging/bundling.ts`): a dispatcher
 * whose jobs only target SQS never loads the Lambda, SNS, EventBridge or Step Functions
 * clients, which keeps its cold start small (`npm run bench:dispatch`, section 5).
 */
export interface AwsClients {
  readonly dynamodb: DynamoDBClient;
  readonly sqs: Sender<SQSClient>;
  readonly lambda: Sender<LambdaClient>;
  readonly sns: Sender<SNSClient>;
  readonly eventbridge: Sender<EventBridgeClient>;
  readonly sfn: Sender<SFNClient>;
  /** Closes the clients built so far. */
  destroy(): void;
}

type ClientConfig = ReturnType<typeof configFor>;

function configFor(options: ClientOptions) {
  return {
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
  };
}

/** How each lazily loaded client is built: its package, imported on first use. */
const LOADERS = {
  sqs: async (config: ClientConfig) => new (await import('@aws-sdk/client-sqs')).SQSClient(config),
  lambda: async (config: ClientConfig) =>
    new (await import('@aws-sdk/client-lambda')).LambdaClient(config),
  sns: async (config: ClientConfig) => new (await import('@aws-sdk/client-sns')).SNSClient(config),
  eventbridge: async (config: ClientConfig) =>
    new (await import('@aws-sdk/client-eventbridge')).EventBridgeClient(config),
  stepfunctions: async (config: ClientConfig) =>
    new (await import('@aws-sdk/client-sfn')).SFNClient(config),
} as const;

type Closable = { destroy(): void };

/**
 * Builds the SDK clients, each on first use.
 *
 * `options` applies to every client, or is a function of the service for per-service
 * endpoints (the CLI's `--endpoint-url dynamodb=…`).
 *
 * @example
 * const clients = createAwsClients();                       // in Lambda: region from the env
 * const local = createAwsClients({ endpoint: 'http://127.0.0.1:4566', region: 'us-east-1',
 *   credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
 * await local.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{}' }));
 */
export function createAwsClients(
  options: ClientOptions | ((service: AwsService) => ClientOptions) = {},
): AwsClients {
  const config = (service: AwsService) =>
    configFor(typeof options === 'function' ? options(service) : options);
  const built = new Map<AwsService, Promise<Closable> | Closable>();
  let dynamodb: DynamoDBClient | undefined;
  function lazy<Client extends Closable & { send: unknown }>(
    service: Exclude<AwsService, 'dynamodb'>,
  ): Sender<Client> {
    const client = () => {
      let pending = built.get(service) as Promise<Client> | undefined;
      if (!pending) {
        pending = LOADERS[service](config(service)) as unknown as Promise<Client>;
        built.set(service, pending);
      }
      return pending;
    };
    const send = async (...args: unknown[]) =>
      ((await client()).send as (...a: unknown[]) => Promise<unknown>)(...args);
    return { send } as Sender<Client>;
  }
  return {
    get dynamodb() {
      dynamodb ??= new DynamoDBClient(config('dynamodb'));
      built.set('dynamodb', dynamodb);
      return dynamodb;
    },
    sqs: lazy<SQSClient>('sqs'),
    lambda: lazy<LambdaClient>('lambda'),
    sns: lazy<SNSClient>('sns'),
    eventbridge: lazy<EventBridgeClient>('eventbridge'),
    sfn: lazy<SFNClient>('stepfunctions'),
    destroy() {
      for (const client of built.values()) {
        void Promise.resolve(client).then((c) => c.destroy());
      }
    },
  };
}
