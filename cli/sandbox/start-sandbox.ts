import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { JobDefinition } from '#jobs/job.ts';

/** Region, credentials and names of every sandbox: fixed, so the export lines are stable. */
export const SANDBOX = {
  region: 'us-east-1',
  accessKeyId: 'sandbox',
  secretAccessKey: 'sandbox',
  tableName: 'zonecron-ledger',
  queueName: 'zonecron-dlq',
  host: '127.0.0.1',
} as const;

/** What `startSandbox` is asked for. */
export interface SandboxOptions {
  /** DynamoDB's port; 0 (the default) picks a free one. */
  readonly dynamodbPort?: number;
  /** The SQS queue's port; 0 (the default) picks a free one. */
  readonly sqsPort?: number;
  /** Jobs whose SQS targets get a queue, so runs to them are delivered in the sandbox. */
  readonly jobs?: readonly JobDefinition[];
}

/** A running sandbox: the ledger and the queues on loopback ports, until `stop()`. */
export interface Sandbox {
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly tableName: string;
  /** The dead-letter queue's name. */
  readonly queueName: string;
  readonly dlqUrl: string;
  /** Target queues created for the jobs' SQS targets, by queue name. */
  readonly targetQueues: ReadonlyMap<string, string>;
  /** Topics created for the jobs' SNS targets: fauxqs's topic ARN by the target's ARN. */
  readonly targetTopics: ReadonlyMap<string, string>;
  /** The environment every other `zonecron` command reads, as `export` would set it. */
  readonly env: Readonly<Record<string, string>>;
  /** The queues, for tests that look inside them. */
  readonly queues: import('fauxqs').FauxqsServer;
  stop(): Promise<void>;
}

/** Starts dynalite (the simulation's in-memory DynamoDB) as an HTTP server on loopback. */
async function startLedgerServer(port: number): Promise<Server> {
  const dynalite = createRequire(import.meta.url)('dynalite') as (options: object) => Server;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, SANDBOX.host, () => resolve());
  });
  return server;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Creates the ledger table from the one definition the tests and the stack share, and waits
 * until it is ACTIVE: dynalite answers CreateTable at once but turns the table ACTIVE a moment
 * later, and until then refuses requests to it (ResourceNotFoundException).
 */
async function createLedgerTable(endpoint: string): Promise<void> {
  const { CreateTableCommand, DescribeTableCommand, DynamoDBClient } = await import(
    '@aws-sdk/client-dynamodb'
  );
  const { ledgerTableDefinition } = await import('#ledger/index.ts');
  const client = new DynamoDBClient({
    endpoint,
    region: SANDBOX.region,
    credentials: { accessKeyId: SANDBOX.accessKeyId, secretAccessKey: SANDBOX.secretAccessKey },
  });
  try {
    await client.send(new CreateTableCommand(ledgerTableDefinition(SANDBOX.tableName)));
    const describe = new DescribeTableCommand({ TableName: SANDBOX.tableName });
    while ((await client.send(describe)).Table?.TableStatus !== 'ACTIVE') {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    client.destroy();
  }
}

/** The resource name of an SQS or SNS target ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
function resourceNameOf(arn: string): string | undefined {
  return arn.split(':')[5];
}

/** A queue for every SQS target of `jobs`: its URL by queue name. */
function createTargetQueues(queues: import('fauxqs').FauxqsServer, jobs: readonly JobDefinition[]) {
  const targetQueues = new Map<string, string>();
  for (const job of jobs) {
    const name = job.target.type === 'sqs' ? resourceNameOf(job.target.arn) : undefined;
    if (!name || targetQueues.has(name)) continue;
    const attributes: Record<string, string> = name.endsWith('.fifo') ? { FifoQueue: 'true' } : {};
    targetQueues.set(name, queues.createQueue(name, { attributes }).queueUrl);
  }
  return targetQueues;
}

/** A topic for every SNS target of `jobs`: fauxqs's topic ARN by the target's ARN. */
function createTargetTopics(queues: import('fauxqs').FauxqsServer, jobs: readonly JobDefinition[]) {
  const targetTopics = new Map<string, string>();
  for (const { target } of jobs) {
    const name = target.type === 'sns' ? resourceNameOf(target.arn) : undefined;
    if (!name || targetTopics.has(target.arn)) continue;
    const attributes: Record<string, string> = name.endsWith('.fifo') ? { FifoTopic: 'true' } : {};
    targetTopics.set(target.arn, queues.createTopic(name, { attributes }).topicArn);
  }
  return targetTopics;
}

function sandboxEnv(dynamodbEndpoint: string, sqsEndpoint: string, dlqUrl: string) {
  return {
    AWS_ACCESS_KEY_ID: SANDBOX.accessKeyId,
    AWS_SECRET_ACCESS_KEY: SANDBOX.secretAccessKey,
    AWS_REGION: SANDBOX.region,
    AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint,
    AWS_ENDPOINT_URL_SQS: sqsEndpoint,
    AWS_ENDPOINT_URL_SNS: sqsEndpoint,
    ZONECRON_TABLE: SANDBOX.tableName,
    ZONECRON_DLQ_URL: dlqUrl,
  };
}

/**
 * Starts a local stand-in for a deployed stack's ledger and dead-letter queue: dynalite (the
 * in-memory DynamoDB the simulation uses) and fauxqs (the SQS emulator the tests use), each on
 * a loopback port, with the ledger table (`ledgerTableDefinition`) and the DLQ created, and a
 * queue for every SQS target of `jobs`. Everything lives in this process's memory and is gone
 * after `stop()`.
 *
 * @example
 * const sandbox = await startSandbox({ jobs: config.jobs });
 * sandbox.env.ZONECRON_TABLE //=> 'zonecron-ledger'
 * await sandbox.stop();
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { startFauxqs } = await import('fauxqs');
  const ledger = await startLedgerServer(options.dynamodbPort ?? 0);
  const dynamodbEndpoint = `http://${SANDBOX.host}:${(ledger.address() as AddressInfo).port}`;
  let queues: import('fauxqs').FauxqsServer;
  try {
    await createLedgerTable(dynamodbEndpoint);
    queues = await startFauxqs({
      port: options.sqsPort ?? 0,
      host: SANDBOX.host,
      logger: false,
      defaultRegion: SANDBOX.region,
    });
  } catch (error) {
    await closeServer(ledger);
    throw error;
  }
  const sqsEndpoint = `http://${SANDBOX.host}:${queues.port}`;
  const dlqUrl = queues.createQueue(SANDBOX.queueName).queueUrl;
  return {
    dynamodbEndpoint,
    sqsEndpoint,
    tableName: SANDBOX.tableName,
    queueName: SANDBOX.queueName,
    dlqUrl,
    targetQueues: createTargetQueues(queues, options.jobs ?? []),
    targetTopics: createTargetTopics(queues, options.jobs ?? []),
    env: sandboxEnv(dynamodbEndpoint, sqsEndpoint, dlqUrl),
    queues,
    async stop() {
      await queues.stop();
      await closeServer(ledger);
    },
  };
}
