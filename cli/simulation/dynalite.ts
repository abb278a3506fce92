import { createRequire } from 'node:module';
import * as dynamodb from '@aws-sdk/client-dynamodb';
import { memoizeExpressionParsers } from './dynalite-parse-memo.ts';

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
  /**
   * Add to a client's middleware stack ({@link IN_PROCESS_MIDDLEWARE} says where): answers
   * every command from dynalite directly, without serialising it (see {@link startEmbeddedDynamo}).
   */
  readonly middleware: SdkMiddleware;
  stop(): Promise<void>;
}

/** An `initialize` middleware in the shape a DynamoDB client's `middlewareStack.add` takes. */
export type SdkMiddleware = (
  next: unknown,
  context: { readonly commandName?: string },
) => (args: { readonly input: object }) => Promise<{ output: never; response: undefined }>;

/**
 * Where {@link EmbeddedDynamo.middleware} goes: last of the `initialize` step, so that the
 * middleware a client adds there itself (throttling, counting) still sees every command.
 */
export const IN_PROCESS_MIDDLEWARE = {
  step: 'initialize',
  priority: 'low',
  name: 'zonecronInProcessDynamo',
} as const;

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

/** dynalite's own modules: its store, its request validations and its actions. */
interface DynaliteParts {
  readonly db: { create(options: object): unknown };
  readonly validations: {
    checkTypes(data: unknown, types: unknown): Record<string, unknown>;
    checkValidations(data: unknown, types: unknown, custom: unknown, store: unknown): void;
  };
  readonly actions: ReadonlyMap<string, DynaliteAction>;
  readonly actionValidations: ReadonlyMap<
    string,
    { readonly types: unknown; readonly custom: unknown }
  >;
}

type DynaliteAction = (
  store: unknown,
  data: Record<string, unknown>,
  done: (error: DynaliteFailure | null, answer?: object) => void,
) => void;

/** How dynalite fails a request: an HTTP status and DynamoDB's JSON error body. */
interface DynaliteFailure extends Error {
  readonly statusCode?: number;
  readonly body?: { readonly __type: string; readonly message?: string };
}

/** The operations dynalite serves (its `validOperations`). */
const OPERATIONS = [
  'BatchGetItem',
  'BatchWriteItem',
  'CreateTable',
  'DeleteItem',
  'DeleteTable',
  'DescribeTable',
  'DescribeTimeToLive',
  'GetItem',
  'ListTables',
  'PutItem',
  'Query',
  'Scan',
  'TagResource',
  'UntagResource',
  'ListTagsOfResource',
  'UpdateItem',
  'UpdateTable',
] as const;

const lowerFirst = (name: string) => name.charAt(0).toLowerCase() + name.slice(1);

let parts: DynaliteParts | undefined;

/** dynalite's modules, loaded once per process, its expression parsers memoised. */
function dynaliteParts(): DynaliteParts {
  if (parts) return parts;
  const load = createRequire(import.meta.url);
  memoizeExpressionParsers(load);
  parts = {
    db: load('dynalite/db'),
    validations: load('dynalite/validations'),
    actions: new Map(OPERATIONS.map((op) => [op, load(`dynalite/actions/${lowerFirst(op)}`)])),
    actionValidations: new Map(
      OPERATIONS.map((op) => [op, load(`dynalite/validations/${lowerFirst(op)}`)]),
    ),
  };
  return parts;
}

/** An operation dynalite refused: its HTTP status and DynamoDB's JSON error body. */
export class DynaliteRefusal extends Error {
  readonly statusCode: number;
  readonly body: { readonly __type: string; readonly message?: string; readonly Item?: unknown };
  constructor(statusCode: number, body: DynaliteRefusal['body']) {
    super(body.message ?? body.__type);
    this.name = 'DynaliteRefusal';
    this.statusCode = statusCode;
    this.body = body;
  }

  /** The error's name as DynamoDB gives it (`__type` after its `#`). */
  get errorName(): string {
    return this.body.__type.split('#').pop() ?? this.body.__type;
  }
}

/**
 * A JSON copy, as the request and the answer cross the wire. A binary value (a Uint8Array)
 * becomes an object of its bytes, which dynalite's type check refuses: the ledger has none.
 */
function jsonCopy<T>(value: T): T {
  const text = JSON.stringify(value);
  return text === undefined ? value : (JSON.parse(text) as T);
}

/** One operation on dynalite's store: what its HTTP listener does once it parsed the body. */
type Call = (operation: string, input: object) => Promise<object>;

/**
 * Runs requests on one dynalite store the way its HTTP listener does after reading the JSON
 * body: the request's types and validations (expressions parsed and checked), then the action.
 * A refusal rejects with {@link DynaliteRefusal}.
 */
function callOf(store: unknown): Call {
  const { validations, actions, actionValidations } = dynaliteParts();
  return (operation, input) =>
    new Promise((resolve, reject) => {
      const action = actions.get(operation as (typeof OPERATIONS)[number]);
      const checks = actionValidations.get(operation as (typeof OPERATIONS)[number]);
      if (!action || !checks) {
        reject(
          new DynaliteRefusal(400, {
            __type: 'com.amazon.coral.service#UnknownOperationException',
          }),
        );
        return;
      }
      try {
        const data = validations.checkTypes(jsonCopy(input), checks.types);
        validations.checkValidations(data, checks.types, checks.custom, store);
        action(store, data, (error, answer) => {
          if (error) reject(refusalOf(error));
          else resolve(jsonCopy(answer ?? {}));
        });
      } catch (error) {
        reject(refusalOf(error as DynaliteFailure));
      }
    });
}

function refusalOf(error: DynaliteFailure): Error {
  return error.statusCode && error.body ? new DynaliteRefusal(error.statusCode, error.body) : error;
}

/** Adds the refusing item to a failed conditional write that asked for it (see startEmbeddedDynamo). */
function withOldItem(call: Call): Call {
  return async (operation, input) => {
    try {
      return await call(operation, input);
    } catch (error) {
      if (
        !(error instanceof DynaliteRefusal) ||
        error.errorName !== 'ConditionalCheckFailedException'
      )
        throw error;
      const request = input as {
        TableName?: string;
        Key?: unknown;
        ReturnValuesOnConditionCheckFailure?: string;
      };
      if (!WRITES_WITH_OLD_ITEM.has(operation)) throw error;
      if (request.ReturnValuesOnConditionCheckFailure !== 'ALL_OLD' || !request.Key) throw error;
      const read = (await call('GetItem', {
        TableName: request.TableName,
        Key: request.Key,
        ConsistentRead: true,
      })) as { Item?: unknown };
      if (!read.Item) throw error;
      throw new DynaliteRefusal(error.statusCode, { ...error.body, Item: read.Item });
    }
  };
}

const JSON_CONTENT_TYPE = 'application/x-amz-json-1.0';

/** The SDK's request handler: each serialised request to dynalite, its answer back. */
function inProcessHandler(call: Call, stopped: () => boolean): InProcessRequestHandler {
  const answer = (statusCode: number, body: object) => {
    const text = JSON.stringify(body);
    return {
      response: {
        statusCode,
        headers: {
          'content-type': JSON_CONTENT_TYPE,
          'content-length': String(Buffer.byteLength(text)),
        },
        body: Buffer.from(text, 'utf8'),
      },
    };
  };
  return {
    async handle(request) {
      if (stopped()) throw new Error('the in-process DynamoDB was stopped');
      let target = '';
      for (const [name, value] of Object.entries(request.headers)) {
        if (name.toLowerCase() === 'x-amz-target') target = value;
      }
      const [api, operation = ''] = target.split('.');
      let input: object;
      try {
        input = JSON.parse(bodyText(request.body) || 'null') as object;
      } catch {
        input = null as unknown as object;
      }
      if (!input || typeof input !== 'object') {
        return answer(400, { __type: 'com.amazon.coral.service#SerializationException' });
      }
      if (api !== 'DynamoDB_20120810') {
        return answer(400, { __type: 'com.amazon.coral.service#UnknownOperationException' });
      }
      try {
        return answer(200, await call(operation, input));
      } catch (error) {
        if (error instanceof DynaliteRefusal) return answer(error.statusCode, error.body);
        throw error;
      }
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
}

/** The `$metadata` the SDK gives every answer of one attempt. */
const metadataOf = (httpStatusCode: number) => ({
  httpStatusCode,
  attempts: 1,
  totalRetryDelay: 0,
});

/**
 * A refusal as the SDK's deserialiser throws it: the modelled exception of that name (a
 * `ConditionalCheckFailedException` with its `Item`), or the client's service exception.
 */
function sdkErrorOf(refusal: DynaliteRefusal): Error {
  const { errorName: name, statusCode } = refusal;
  const { __type: _type, message, ...fields } = refusal.body;
  const options = {
    name,
    $fault: statusCode >= 500 ? ('server' as const) : ('client' as const),
    $metadata: metadataOf(statusCode),
    message: message ?? name,
    ...fields,
  };
  const modelled = (dynamodb as Record<string, unknown>)[name];
  if (
    typeof modelled === 'function' &&
    modelled.prototype instanceof dynamodb.DynamoDBServiceException
  ) {
    const Exception = modelled as new (opts: typeof options) => Error;
    return new Exception(options);
  }
  return new dynamodb.DynamoDBServiceException(options);
}

/**
 * The middleware that answers each command of a client in-process: the command's input goes
 * to dynalite as its JSON body would, and dynalite's answer comes back as the command's output.
 */
function commandMiddleware(call: Call, stopped: () => boolean): SdkMiddleware {
  return (_next, context) => async (args) => {
    if (stopped()) throw new Error('the in-process DynamoDB was stopped');
    const operation = String(context.commandName ?? '').replace(/Command$/, '');
    try {
      const answer = await call(operation, args.input as object);
      return { output: { ...answer, $metadata: metadataOf(200) } as never, response: undefined };
    } catch (error) {
      throw error instanceof DynaliteRefusal ? sdkErrorOf(error) : error;
    }
  };
}

/**
 * Starts dynalite inside this process and connects the SDK to it directly: pure Node, no
 * Java, no port, nothing left behind.
 *
 * dynalite is a DynamoDB server: its `http.Server`'s request listener parses the JSON API
 * request, validates it, evaluates the expressions and answers with the JSON DynamoDB would.
 * The simulation keeps its validations, its expressions and its store, and drops the HTTP
 * around them: the request goes to dynalite's own validations and action as the listener
 * hands them over once it parsed the body. A client reaches it two ways: its
 * `requestHandler` (the SDK serialises the request, the answer is deserialised as DynamoDB's),
 * or, faster, its `middleware`, which takes each command's input as the JSON body it would
 * have been and gives dynalite's answer back as the command's output (a refusal as the SDK's
 * exception of that name), skipping the SDK's serialising, endpoint, retry and parsing steps
 * (a fifth of a simulation's CPU). Binary attribute values have no JSON form on that path and
 * are refused by dynalite's type check; the ledger has none. dynalite's expression parses are memoised
 * (dynalite-parse-memo.ts).
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
 * client.middlewareStack.add(db.middleware, IN_PROCESS_MIDDLEWARE); // optional: faster
 * await db.stop();
 */
export function startEmbeddedDynamo(): EmbeddedDynamo {
  let stopped = false;
  const store = dynaliteParts().db.create({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const call = withOldItem(callOf(store));
  return {
    endpoint: 'http://dynalite.in-process',
    requestHandler: inProcessHandler(call, () => stopped),
    signer: placeholderSigner,
    middleware: commandMiddleware(call, () => stopped),
    async stop() {
      // The store is in memory and owned by this closure: dropping it frees it.
      stopped = true;
    },
  };
}
