import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One `Publish` a fake SNS endpoint received. */
export interface Published {
  readonly topicArn: string;
  readonly subject: string | undefined;
  readonly message: string;
}

/** A local SNS endpoint that accepts `Publish` and keeps what it got. */
export interface FakeSns {
  readonly endpoint: string;
  readonly published: Published[];
  stop(): Promise<void>;
}

/**
 * Starts an HTTP endpoint on 127.0.0.1 that speaks just enough of SNS's query protocol for
 * `Publish`, so a bundled Lambda's own SNS client (which a module mock cannot reach) sends real
 * requests. There is no SNS emulator among the project's dependencies.
 *
 * @example
 * const sns = await startFakeSns(); // AWS_ENDPOINT_URL_SNS = sns.endpoint
 */
export async function startFakeSns(): Promise<FakeSns> {
  const published: Published[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += String(chunk);
    });
    request.on('end', () => {
      const form = new URLSearchParams(body);
      if (form.get('Action') !== 'Publish') {
        response.statusCode = 400;
        response.end('<ErrorResponse><Error><Code>InvalidAction</Code></Error></ErrorResponse>');
        return;
      }
      published.push({
        topicArn: form.get('TopicArn') ?? '',
        subject: form.get('Subject') ?? undefined,
        message: form.get('Message') ?? '',
      });
      response.setHeader('content-type', 'text/xml');
      response.end(
        `<PublishResponse><PublishResult><MessageId>m-${published.length}</MessageId></PublishResult></PublishResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    published,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
