import { SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';

/** Dummy credentials fauxqs accepts. */
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** An in-process fauxqs (SQS/SNS emulator) on a random loopback port. */
export interface LocalSqs {
  readonly server: FauxqsServer;
  /** e.g. `http://127.0.0.1:41234` */
  readonly endpoint: string;
  /** A client pointed at this fauxqs. */
  readonly sqs: SQSClient;
  /** Creates a queue; FIFO when the name ends in `.fifo`. */
  createQueue(name: string): { queueUrl: string; queueArn: string };
  /** The bodies of the messages waiting in a queue, parsed as JSON, oldest first. */
  messages<T = unknown>(name: string): T[];
  stop(): Promise<void>;
}

/**
 * Starts fauxqs in-process on 127.0.0.1 with a random port.
 *
 * Queue URLs are fauxqs's (`http://sqs.us-east-1.127.0.0.1:<port>/000000000000/<name>`), so
 * code that derives URLs from ARNs needs `queueUrlViaGetQueueUrl` against it.
 *
 * @example
 * const local = await startLocalSqs();
 * const { queueUrl } = local.createQueue('dlq');
 * // ... send ...
 * local.messages('dlq') //=> [{ version: 1, reason: 'delivery-failed', ... }]
 * await local.stop();
 */
export async function startLocalSqs(): Promise<LocalSqs> {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  const endpoint = `http://127.0.0.1:${server.port}`;
  const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  return {
    server,
    endpoint,
    sqs,
    createQueue(name) {
      const attributes: Record<string, string> = name.endsWith('.fifo')
        ? { FifoQueue: 'true' }
        : {};
      const { queueUrl, queueArn } = server.createQueue(name, { attributes });
      return { queueUrl, queueArn };
    },
    messages<T>(name: string): T[] {
      const bodies = queueBodies<T>(server, name);
      if (!bodies) throw new Error(`fauxqs has no queue '${name}'`);
      return bodies;
    },
    async stop() {
      sqs.destroy();
      await server.stop();
    },
  };
}

/**
 * The bodies of every message of a fauxqs queue (ready, delayed and in flight), parsed as
 * JSON, oldest first; undefined when there is no such queue.
 *
 * @example
 * queueBodies<RunEnvelope>(server, 'target')?.map((e) => e.key) //=> ['9f86…']
 */
export function queueBodies<T>(server: FauxqsServer, name: string): T[] | undefined {
  const queue = server.inspectQueue(name);
  if (!queue) return undefined;
  const all = [
    ...queue.messages.ready,
    ...queue.messages.delayed,
    ...queue.messages.inflight.map((i) => i.message),
  ];
  return all.map((m) => JSON.parse(m.body) as T);
}
