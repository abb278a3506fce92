/**
 * The sandbox's Lambda, Step Functions and EventBridge endpoint: what the operating commands of
 * the other shell (`run`, `backfill`, `dlq redrive`) reach instead of AWS, through the
 * `AWS_ENDPOINT_URL_LAMBDA`, `_SFN` and `_EVENTBRIDGE` the sandbox exports. Each request is
 * answered by the sandbox's own local targets, so a run delivered from there completes, fails
 * or hangs as one the sandbox's dispatcher delivered.
 *
 * The three calls delivery makes are answered here (Lambda `Invoke`, `StartExecution`,
 * `PutEvents`), then whatever the `routes` given answer (the stack's own calls,
 * `stack-endpoint.ts`); anything else is refused with `UnknownOperationException`.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalTargets } from './local-targets.ts';
import type { EndpointRoute } from './stack-endpoint.ts';
import { answerBehaviours, BEHAVIOURS_PATH, type TargetBehaviours } from './target-behaviours.ts';

/** What the endpoint answers besides the local clients. */
export interface EndpointExtras {
  /** The targets' behaviours, read and set by `zonecron sandbox fail|hang|heal`. @default none */
  readonly behaviours?: TargetBehaviours;
  /** The stack's APIs (CloudFormation, Scheduler, Lambda GetFunction). @default none */
  readonly routes?: EndpointRoute;
}

/** A running endpoint, until `close()`. */
export interface TargetEndpoint {
  readonly url: string;
  close(): Promise<void>;
}

const LAMBDA_INVOKE = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sendJson(response: ServerResponse, status: number, type: string, body: unknown) {
  response.writeHead(status, { 'content-type': type });
  response.end(JSON.stringify(body));
}

/**
 * Answers one request with the local clients; an error as the JSON protocols spell one. Paths
 * under `BEHAVIOURS_PATH` read and set the targets' behaviours (`zonecron sandbox fail …`);
 * what the clients do not answer goes to the stack's routes.
 */
async function answer(
  targets: LocalTargets,
  extras: EndpointExtras,
  request: IncomingMessage,
  response: ServerResponse,
) {
  const body = await bodyOf(request);
  const path = new URL(request.url ?? '/', 'http://sandbox').pathname;
  const { behaviours, routes } = extras;
  if (behaviours && path.startsWith(BEHAVIOURS_PATH)) {
    const out = answerBehaviours(behaviours, request.method ?? 'GET', path, body.toString());
    return sendJson(response, out.status, 'application/json', out.body);
  }
  const invoke = LAMBDA_INVOKE.exec(path);
  const operation = request.headers['x-amz-target'];
  try {
    if (invoke?.[1]) {
      const input = { FunctionName: decodeURIComponent(invoke[1]), Payload: new Uint8Array(body) };
      const out = (await targets.clients.lambda.send({ input })) as {
        $metadata: { requestId: string };
      };
      response.writeHead(202, { 'x-amzn-requestid': out.$metadata.requestId });
      response.end();
    } else if (operation === 'AWSStepFunctions.StartExecution') {
      const out = (await targets.clients.sfn.send({ input: JSON.parse(body.toString()) })) as {
        executionArn: string;
        startDate: Date;
      };
      const startDate = out.startDate.getTime() / 1000;
      sendJson(response, 200, 'application/x-amz-json-1.0', { ...out, startDate });
    } else if (operation === 'AWSEvents.PutEvents') {
      const out = await targets.clients.eventbridge.send({ input: JSON.parse(body.toString()) });
      sendJson(response, 200, 'application/x-amz-json-1.1', out);
    } else if (!(await routes?.(request, body, response))) {
      const message = `the sandbox does not answer ${String(operation ?? path)}`;
      sendJson(response, 400, 'application/json', { __type: 'UnknownOperationException', message });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    sendJson(response, 500, 'application/json', { __type: 'ServiceException', message });
  }
}

/**
 * Starts the endpoint on a free loopback port; with `behaviours`, it also answers the second
 * shell's `zonecron sandbox fail|hang|heal`, and with `routes` the stack's APIs.
 *
 * @example
 * const endpoint = await startTargetEndpoint(stack.targets, '127.0.0.1', { behaviours, routes });
 * endpoint.url //=> 'http://127.0.0.1:39021'
 */
export async function startTargetEndpoint(
  targets: LocalTargets,
  host: string,
  extras: EndpointExtras = {},
): Promise<TargetEndpoint> {
  const server: Server = createServer((request, response) => {
    void answer(targets, extras, request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
