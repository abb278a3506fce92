import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';

/** The parts of the SDK's HTTP request that a DynamoDB server reads. */
interface SdkHttpRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string | string[] | null>;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

/** What the SDK's deserializers read from a response (`@smithy` `HttpResponse`). */
interface SdkHttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
}

/** A request handler in the shape the AWS SDK's `requestHandler` option takes. */
export interface InProcessRequestHandler {
  handle(request: SdkHttpRequest): Promise<{ response: SdkHttpResponse }>;
  updateHttpClientConfig(key: never, value: never): void;
  httpHandlerConfigs(): Record<string, never>;
  destroy(): void;
}

/** A request signer in the shape the AWS SDK's `signer` option takes. */
export interface PlaceholderSigner {
  sign<R extends { headers: Record<string, string> }>(request: R): Promise<R>;
}

/** An in-process DynamoDB (dynalite, in memory) that the SDK reaches without a socket. */
export interface EmbeddedDynamo {
  /** A placeholder endpoint: the SDK builds its requests for it; nothing connects to it. */
  readonly endpoint: string;
  /** Pass as the client's `requestHandler`: hands every request to dynalite. */
  readonly requestHandler: InProcessRequestHandler;
  /** Pass as the client's `signer`: see {@link placeholderSigner}. */
  readonly signer: PlaceholderSigner;
  stop(): Promise<void>;
}

/**
 * Stamps a well-formed SigV4 `Authorization` header without computing a signature.
 *
 * dynalite requires the header and its `Credential`, `Signature` and `SignedHeaders` parts
 * (and `X-Amz-Date`), as DynamoDB does, but never verifies the signature; the simulation's
 * credentials are made up anyway. Real SigV4 signing (canonical request, two SHA-256 hashes,
 * an HMAC chain, and a signer object the SDK builds per request) was about a tenth of the
 * simulation's CPU time.
 */
export const placeholderSigner: PlaceholderSigner = {
  async sign(request) {
    request.headers['x-amz-date'] = '20000101T000000Z';
    request.headers.authorization =
      'AWS4-HMAC-SHA256 Credential=simulation/20000101/local/dynamodb/aws4_request, ' +
      'SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=unsigned';
    return request;
  },
};

type RequestListener = (request: EventEmitter, response: FakeServerResponse) => void;

/** The subset of `http.ServerResponse` dynalite's request listener uses. */
interface FakeServerResponse {
  statusCode: number;
  contentType?: string;
  setHeader(name: string, value: unknown): void;
  end(body?: string): void;
}

/** What dynalite answered: status, lower-cased headers, the JSON body. */
interface ListenerAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const WRITES_WITH_OLD_ITEM = new Set(['UpdateItem', 'PutItem', 'DeleteItem']);

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  // A view, not `Buffer.from(body)`: the SDK's JSON body is a Uint8Array subclass whose
  // `valueOf()` would be called (and warn) by the copying overload.
  if (body instanceof Uint8Array) {
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  }
  throw new TypeError('the in-process DynamoDB accepts string or byte request bodies only');
}

function pathWithQuery(request: SdkHttpRequest): string {
  const query = Object.entries(request.query ?? {}).flatMap(([k, v]) =>
    v === null ? [k] : (Array.isArray(v) ? v : [v]).map((x) => `${k}=${encodeURIComponent(x)}`),
  );
  return query.length > 0 ? `${request.path}?${query.join('&')}` : request.path;
}

/** Hands one request to dynalite's request listener; resolves with its answer. */
type Ask = (
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string,
) => Promise<ListenerAnswer>;

/** A dynalite server's request listener: the server itself never listens on a socket. */
function dynaliteListener(): RequestListener {
  const dynalite = createRequire(import.meta.url)('dynalite') as (options: object) => EventEmitter;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const installed = server.listeners('request')[0] as RequestListener | undefined;
  if (!installed) throw new Error('dynalite did not install a request listener');
  return installed;
}

/** Drives the listener with a fake request and response, as `http.Server` would. */
function askOf(listener: RequestListener): Ask {
  return (method, url, headers, body) =>
    new Promise((resolve, reject) => {
      const incoming = Object.assign(new EventEmitter(), { method, url, headers });
      const answerHeaders: Record<string, string> = {};
      const response: FakeServerResponse = {
        statusCode: 200,
        setHeader(name, value) {
          answerHeaders[name.toLowerCase()] = String(value);
        },
        end(text) {
          resolve({ statusCode: this.statusCode, headers: answerHeaders, body: text ?? '' });
        },
      };
      try {
        listener(incoming, response);
        if (body !== '') incoming.emit('data', Buffer.from(body, 'utf8'));
        incoming.emit('end');
      } catch (error) {
        reject(error);
      }
    });
}

/** Adds the refusing item to a failed conditional write that asked for it (see startEmbeddedDynamo). */
async function withOldItem(
  ask: Ask,
  headers: Record<string, string>,
  body: string,
  answer: ListenerAnswer,
): Promise<ListenerAnswer> {
  const operation = headers['x-amz-target']?.split('.')[1] ?? '';
  if (answer.statusCode !== 400 || !WRITES_WITH_OLD_ITEM.has(operation)) return answer;
  if (!answer.body.includes('#ConditionalCheckFailedException')) return answer;
  const request = JSON.parse(body) as {
    TableName?: string;
    Key?: unknown;
    ReturnValuesOnConditionCheckFailure?: string;
  };
  if (request.ReturnValuesOnConditionCheckFailure !== 'ALL_OLD' || !request.Key) return answer;
  const read = await ask(
    'POST',
    '/',
    { ...headers, 'x-amz-target': 'DynamoDB_20120810.GetItem' },
    JSON.stringify({ TableName: request.TableName, Key: request.Key, ConsistentRead: true }),
  );
  if (read.statusCode !== 200) return answer;
  const { Item } = JSON.parse(read.body) as { Item?: unknown };
  if (!Item) return answer;
  const text = JSON.stringify({ ...(JSON.parse(answer.body) as object), Item });
  const rewritten: Record<string, string> = { ...answer.headers };
  delete rewritten['x-amz-crc32']; // it was the checksum of the body without the item
  rewritten['content-length'] = String(Buffer.byteLength(text));
  return { statusCode: answer.statusCode, headers: rewritten, body: text };
}

/** The SDK's request handler: each serialised request to dynalite, its answer back. */
function inProcessHandler(ask: Ask, stopped: () => boolean): InProcessRequestHandler {
  return {
    async handle(request) {
      if (stopped()) throw new Error('the in-process DynamoDB was stopped');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        headers[name.toLowerCase()] = value;
      }
      const body = bodyText(request.body);
      const answer = await withOldItem(
        ask,
        headers,
        body,
        await ask(request.method, pathWithQuery(request), headers, body),
      );
      return {
        response: {
          statusCode: answer.statusCode,
          headers: answer.headers,
          body: Buffer.from(answer.body, 'utf8'),
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
}

/**
 * Starts dynalite inside this process and connects the SDK to it directly: pure Node, no
 * Java, no port, nothing left behind.
 *
 * dynalite is a DynamoDB server: its `http.Server`'s request listener parses the JSON API
 * request, validates it, evaluates the expressions and answers with the JSON DynamoDB would.
 * The simulation keeps all of that and drops only the socket: the handler gives the SDK's
 * serialised request (method, path, headers, body) to that listener and the listener's
 * answer (status, headers, body) back to the SDK's deserialisers. A TCP round trip on
 * loopback cost more CPU than dynalite's own work, on both ends.
 *
 * One DynamoDB behaviour dynalite lacks is added here: a conditional write that asks for
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD` gets the refusing item in its
 * `ConditionalCheckFailedException`, read by dynalite's own consistent GetItem right after
 * the refusal. That is what the ledger would otherwise fetch itself with a second SDK call.
 *
 * Tables become ACTIVE at once (`createTableMs: 0`).
 *
 * @example
 * const db = startEmbeddedDynamo();
 * const client = new DynamoDBClient({ endpoint: db.endpoint, requestHandler: db.requestHandler,
 *   signer: db.signer, region: 'local', credentials });
 * await db.stop();
 */
export function startEmbeddedDynamo(): EmbeddedDynamo {
  let stopped = false;
  return {
    endpoint: 'http://dynalite.in-process',
    requestHandler: inProcessHandler(askOf(dynaliteListener()), () => stopped),
    signer: placeholderSigner,
    async stop() {
      // The store is in memory and owned by this closure: dropping it frees it.
      stopped = true;
    },
  };
}
