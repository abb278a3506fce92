/**
 * The sandbox as a stack for `--stack`: the calls `list`, `describe` and every operating
 * command make to find a deployed stack, answered on the sandbox's loopback endpoint in the
 * wire protocols of the SDK's clients (the export lines point `AWS_ENDPOINT_URL_CLOUDFORMATION`,
 * `_SCHEDULER` and `_LAMBDA` at it):
 *
 * - CloudFormation `DescribeStacks` (query protocol, XML): the stack `Zonecron` and the outputs
 *   the CLI reads (`LedgerTableName`, `DeadLetterQueueUrl`, `ScheduleGroupName`,
 *   `DispatcherFunctionName`). No `AlarmTopicArn`: the sandbox raises no alarms.
 * - EventBridge Scheduler `ListSchedules`, `GetSchedule`, `CreateSchedule`, `UpdateSchedule`,
 *   `DeleteSchedule` (REST JSON) on the group the local scheduler fires (`sandbox-schedules.ts`), so schedule
 *   drift can be made by hand and is seen as on a stack.
 * - Lambda `GetFunction` of the dispatcher, whose `Code.Location` is a URL of this endpoint
 *   serving a zip with the `jobs.json` synth writes for the sandbox's jobs, with byte ranges as
 *   S3 serves a pre-signed URL.
 */

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JobDefinition } from '#jobs/job.ts';
import { JOBS_BUNDLE_FILE } from '#jobs/jobs-bundle.ts';
import { DEFAULT_STACK_NAME } from '#shared/defaults.ts';
import {
  type SandboxSchedule,
  SandboxScheduleError,
  type SandboxSchedules,
} from './sandbox-schedules.ts';
import { SANDBOX } from './start-sandbox.ts';

/** A handler of some of the endpoint's requests: true when it answered this one. */
export type EndpointRoute = (
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
) => Promise<boolean>;

/** The account of every ARN in the sandbox (as fauxqs's queue URLs have it). */
const ACCOUNT = '000000000000';

/** The names the sandbox's stack gives its parts, as `cdk deploy` would give a stack's. */
export const SANDBOX_STACK = {
  stackName: DEFAULT_STACK_NAME,
  stackId: `arn:aws:cloudformation:${SANDBOX.region}:${ACCOUNT}:stack/${DEFAULT_STACK_NAME}/5a9db0c2-0000-4000-8000-00000000c0de`,
  dispatcherFunction: 'zonecron-dispatcher',
} as const;

/** What the stack describes and serves. */
export interface StackEndpointOptions {
  readonly tableName: string;
  readonly dlqUrl: string;
  readonly schedules: SandboxSchedules;
  /** The jobs of the served `jobs.json`, every one, enabled or not. */
  readonly jobs: readonly JobDefinition[];
  /** When the served `jobs.json` was synthesized. */
  readonly synthTime: Date;
  /** The dispatcher's `RETENTION_DAYS`. */
  readonly retentionDays: number;
}

const PACKAGE_PATH = '/sandbox/dispatcher-package.zip';
const GET_FUNCTION = /^\/2015-03-31\/functions\/([^/]+)$/;
const SCHEDULE = /^\/schedules\/([^/]+)$/;

/**
 * The routes of the sandbox's stack, for `startTargetEndpoint`.
 *
 * @example
 * const endpoint = await startTargetEndpoint(targets, '127.0.0.1', { routes: stackRoutes(options) });
 * // zonecron describe report --stack Zonecron, with AWS_ENDPOINT_URL_… at endpoint.url
 */
export function stackRoutes(options: StackEndpointOptions): EndpointRoute {
  let packageBytes: Promise<Buffer> | undefined;
  return async (request, body, response) => {
    const url = new URL(request.url ?? '/', 'http://sandbox');
    const form = String(request.headers['content-type'] ?? '').startsWith(
      'application/x-www-form-urlencoded',
    );
    if (request.method === 'POST' && url.pathname === '/' && form) {
      describeStacks(options, new URLSearchParams(body.toString()), response);
    } else if (url.pathname === '/schedules' || SCHEDULE.test(url.pathname)) {
      answerScheduler(options.schedules, request.method ?? 'GET', url, body, response);
    } else if (request.method === 'GET' && GET_FUNCTION.test(url.pathname)) {
      getFunction(options, request, url, response);
    } else if (request.method === 'GET' && url.pathname === PACKAGE_PATH) {
      packageBytes ??= dispatcherPackage(options);
      serveRange(await packageBytes, request.headers.range, response);
    } else {
      return false;
    }
    return true;
  };
}

function xmlText(value: string): string {
  return value.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );
}

function sendXml(response: ServerResponse, status: number, xml: string) {
  response.writeHead(status, { 'content-type': 'text/xml' });
  response.end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
}

const CLOUDFORMATION_XMLNS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

/** `DescribeStacks` of the sandbox's stack (by name, by ARN, or every stack), or an XML error. */
function describeStacks(
  options: StackEndpointOptions,
  params: URLSearchParams,
  response: ServerResponse,
) {
  const action = params.get('Action');
  const asked = params.get('StackName');
  const fail = (code: string, message: string) =>
    sendXml(
      response,
      400,
      `<ErrorResponse xmlns="${CLOUDFORMATION_XMLNS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xmlText(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
    );
  if (action !== 'DescribeStacks') {
    return fail('InvalidAction', `the sandbox answers only DescribeStacks, not ${action}`);
  }
  if (asked && asked !== SANDBOX_STACK.stackName && asked !== SANDBOX_STACK.stackId) {
    return fail('ValidationError', `Stack with id ${asked} does not exist`);
  }
  const outputs = {
    LedgerTableName: options.tableName,
    DeadLetterQueueUrl: options.dlqUrl,
    ScheduleGroupName: options.schedules.groupName,
    DispatcherFunctionName: SANDBOX_STACK.dispatcherFunction,
  };
  const members = Object.entries(outputs)
    .map(
      ([key, value]) =>
        `<member><OutputKey>${key}</OutputKey><OutputValue>${xmlText(value)}</OutputValue></member>`,
    )
    .join('');
  sendXml(
    response,
    200,
    `<DescribeStacksResponse xmlns="${CLOUDFORMATION_XMLNS}"><DescribeStacksResult><Stacks><member>` +
      `<StackName>${SANDBOX_STACK.stackName}</StackName><StackId>${SANDBOX_STACK.stackId}</StackId>` +
      `<StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>${options.synthTime.toISOString()}</CreationTime>` +
      `<Description>zonecron sandbox (in memory)</Description><Outputs>${members}</Outputs>` +
      `</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></DescribeStacksResponse>`,
  );
}

function sendJson(response: ServerResponse, status: number, body: unknown, errorType?: string) {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, type: string, message: string) {
  sendJson(response, status, { __type: type, Message: message, message }, type);
}

const epochSeconds = (at: Date) => at.getTime() / 1000;

function scheduleArn(group: string, name: string): string {
  return `arn:aws:scheduler:${SANDBOX.region}:${ACCOUNT}:schedule/${group}/${name}`;
}

const DISPATCHER_ARN = `arn:aws:lambda:${SANDBOX.region}:${ACCOUNT}:function:${SANDBOX_STACK.dispatcherFunction}`;

/** Most schedules `ListSchedules` answers a page, and its default (Scheduler API reference). */
const LIST_PAGE_MAX = 100;

/** The Scheduler calls on the sandbox's group; a group other than its own has no schedules. */
function answerScheduler(
  schedules: SandboxSchedules,
  method: string,
  url: URL,
  body: Buffer,
  response: ServerResponse,
) {
  const group = schedules.groupName;
  try {
    if (url.pathname === '/schedules' && method === 'GET') {
      return sendJson(response, 200, listSchedules(schedules, url.searchParams));
    }
    const name = decodeURIComponent(SCHEDULE.exec(url.pathname)?.[1] ?? '');
    const withBody = method === 'PUT' || method === 'POST';
    const input = withBody ? (JSON.parse(body.toString() || '{}') as UpdateBody) : {};
    const asked = (withBody ? input.GroupName : url.searchParams.get('groupName')) ?? 'default';
    if (asked !== group) {
      return sendError(
        response,
        404,
        'ResourceNotFoundException',
        `Schedule group ${asked} does not exist.`,
      );
    }
    if (method === 'GET') return sendJson(response, 200, scheduleBody(group, schedules.get(name)));
    if (method === 'DELETE') {
      schedules.delete(name);
      return sendJson(response, 200, {});
    }
    if (withBody) {
      const change = updateOf(input);
      const changed =
        method === 'PUT' ? schedules.update(name, change) : schedules.create(name, change);
      return sendJson(response, 200, { ScheduleArn: scheduleArn(group, changed.name) });
    }
    sendError(
      response,
      400,
      'ValidationException',
      `the sandbox's Scheduler does not answer ${method} ${url.pathname}`,
    );
  } catch (error) {
    if (!(error instanceof SandboxScheduleError)) throw error;
    sendError(response, ERROR_STATUS[error.kind], error.kind, error.message);
  }
}

const ERROR_STATUS: Record<SandboxScheduleError['kind'], number> = {
  ResourceNotFoundException: 404,
  ConflictException: 409,
  ValidationException: 400,
};

/** The body of `CreateSchedule` and `UpdateSchedule`, as far as the sandbox reads it. */
interface UpdateBody {
  readonly GroupName?: string;
  readonly ScheduleExpression?: string;
  readonly ScheduleExpressionTimezone?: string;
  readonly State?: string;
  readonly Target?: { readonly Input?: string };
}

function updateOf(input: UpdateBody) {
  if (input.ScheduleExpression === undefined) {
    throw new SandboxScheduleError('ValidationException', 'a schedule needs a ScheduleExpression');
  }
  return {
    expression: input.ScheduleExpression,
    ...(input.State !== undefined ? { state: input.State } : {}),
    ...(input.ScheduleExpressionTimezone !== undefined
      ? { timezone: input.ScheduleExpressionTimezone }
      : {}),
    ...(input.Target?.Input !== undefined ? { input: input.Target.Input } : {}),
  };
}

/** One page of `ListSchedules`, filtered by group, name prefix and state; `NextToken` an offset. */
function listSchedules(schedules: SandboxSchedules, query: URLSearchParams) {
  const group = schedules.groupName;
  const asked = query.get('ScheduleGroup');
  const prefix = query.get('NamePrefix') ?? '';
  const state = query.get('State');
  const matching = (asked === null || asked === group ? schedules.list() : []).filter(
    (s) => s.name.startsWith(prefix) && (state === null || s.state === state),
  );
  const from = Number(query.get('NextToken') ?? 0) || 0;
  const size = Math.min(
    Number(query.get('MaxResults') ?? LIST_PAGE_MAX) || LIST_PAGE_MAX,
    LIST_PAGE_MAX,
  );
  const page = matching.slice(from, from + size);
  return {
    Schedules: page.map((s) => ({
      Arn: scheduleArn(group, s.name),
      Name: s.name,
      GroupName: group,
      State: s.state,
      CreationDate: epochSeconds(s.createdAt),
      LastModificationDate: epochSeconds(s.lastModifiedAt),
      Target: { Arn: DISPATCHER_ARN },
    })),
    ...(from + size < matching.length ? { NextToken: String(from + size) } : {}),
  };
}

/** `GetSchedule`'s answer: the schedule as the stack deploys it, targeting the dispatcher. */
function scheduleBody(group: string, s: SandboxSchedule) {
  return {
    Arn: scheduleArn(group, s.name),
    Name: s.name,
    GroupName: group,
    State: s.state,
    ScheduleExpression: s.expression,
    ScheduleExpressionTimezone: s.timezone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'NONE',
    CreationDate: epochSeconds(s.createdAt),
    LastModificationDate: epochSeconds(s.lastModifiedAt),
    Target: {
      Arn: DISPATCHER_ARN,
      RoleArn: `arn:aws:iam::${ACCOUNT}:role/zonecron-scheduler`,
      Input: s.input,
    },
  };
}

/** `GetFunction` of the dispatcher (by name or ARN): its retention, and where its package is. */
function getFunction(
  options: StackEndpointOptions,
  request: IncomingMessage,
  url: URL,
  response: ServerResponse,
) {
  const asked = decodeURIComponent(GET_FUNCTION.exec(url.pathname)?.[1] ?? '');
  const name = asked.startsWith('arn:') ? (asked.split(':')[6] ?? '') : asked;
  if (name !== SANDBOX_STACK.dispatcherFunction) {
    const message = `Function not found: arn:aws:lambda:${SANDBOX.region}:${ACCOUNT}:function:${name}`;
    return sendError(response, 404, 'ResourceNotFoundException', message);
  }
  sendJson(response, 200, {
    Configuration: {
      FunctionName: SANDBOX_STACK.dispatcherFunction,
      FunctionArn: DISPATCHER_ARN,
      Environment: { Variables: { RETENTION_DAYS: String(options.retentionDays) } },
    },
    Code: {
      RepositoryType: 'S3',
      Location: `http://${request.headers.host ?? `${SANDBOX.host}`}${PACKAGE_PATH}`,
    },
  });
}

/** The dispatcher's package: a zip with the `jobs.json` synth writes for the sandbox's jobs. */
async function dispatcherPackage(options: StackEndpointOptions): Promise<Buffer> {
  const { createJobsBundle } = await import('../../infra/packaging/jobs-bundle-file.ts');
  const { serializeJobsBundle } = await import('#jobs/jobs-bundle.ts');
  const { zipArchive } = await import('./zip-archive.ts');
  const bundle = createJobsBundle(options.jobs, { synthTime: options.synthTime });
  return zipArchive({ [JOBS_BUNDLE_FILE]: serializeJobsBundle(bundle) });
}

/**
 * `bytes` as S3 serves an object: `Range: bytes=a-b`, `bytes=a-` and `bytes=-n` answer 206
 * with `Content-Range`, a range past the end 416, no range 200.
 */
function serveRange(bytes: Buffer, range: string | undefined, response: ServerResponse) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(range ?? '');
  if (!match || (match[1] === '' && match[2] === '')) {
    response.writeHead(200, { 'content-type': 'application/zip', 'content-length': bytes.length });
    response.end(bytes);
    return;
  }
  const total = bytes.length;
  const start = match[1] === '' ? Math.max(0, total - Number(match[2])) : Number(match[1]);
  const end =
    match[1] === '' || match[2] === '' ? total - 1 : Math.min(Number(match[2]), total - 1);
  if (start >= total || start > end) {
    response.writeHead(416, { 'content-range': `bytes */${total}` });
    response.end();
    return;
  }
  response.writeHead(206, {
    'content-type': 'application/zip',
    'content-length': end - start + 1,
    'content-range': `bytes ${start}-${end}/${total}`,
  });
  response.end(bytes.subarray(start, end + 1));
}
