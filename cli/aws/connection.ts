import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { Command } from 'commander';
import type { AwsClients, AwsService, Sender } from '#shared/aws-clients.ts';
import { DEFAULT_STACK_NAME } from '#shared/defaults.ts';
import { CliError, describeError, isCliError, usageError } from '../errors.ts';
import {
  type DeployedStack,
  describeStack,
  StackOutputMissingError,
  type StackOutputName,
} from './stack-outputs.ts';

/** How the operating commands reach a deployed stack (or local emulators). */
export interface ConnectionOptions {
  /** `--endpoint-url`, repeatable: `<url>` for every service, `<service>=<url>` for one. */
  endpointUrl?: string[];
  region?: string;
  table?: string;
  dlqUrl?: string;
  config?: string;
  /** `--stack`: the main stack whose outputs name the table, the queue and the region. */
  stack?: string;
}

/**
 * Adds the options every command that talks to AWS shares.
 *
 * Credentials come from the SDK's usual chain (environment, profile, SSO, instance role).
 */
export function addConnectionOptions(
  command: Command,
  needs: { table?: boolean; dlq?: boolean; config?: boolean },
) {
  command
    .option(
      '--endpoint-url <url>',
      'AWS endpoint for emulators; <service>=<url> for one service (repeatable;' +
        ' services: dynamodb, sqs, sns, lambda, eventbridge, stepfunctions, scheduler)',
      collect,
    )
    .option('--region <region>', 'AWS region (default: from the stack, the environment or profile)')
    .option(
      '--stack <name>',
      'the main stack (name or ARN): its outputs name the table, queue and region' +
        ' (default: $ZONECRON_STACK)',
    );
  if (needs.table) {
    command.option('--table <name>', 'ledger table (default: $ZONECRON_TABLE)');
  }
  if (needs.dlq) {
    command.option('--dlq-url <url>', 'dead-letter queue URL (default: $ZONECRON_DLQ_URL)');
  }
  if (needs.config) {
    command.option('--config <file>', 'jobs file with the job definitions', 'jobs.yaml');
  }
  return command;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The services an endpoint can be given for: the clients' and EventBridge Scheduler. */
type Service = AwsService | 'scheduler';

const SERVICE_NAMES: Record<string, Service> = {
  dynamodb: 'dynamodb',
  sqs: 'sqs',
  sns: 'sns',
  lambda: 'lambda',
  eventbridge: 'eventbridge',
  events: 'eventbridge',
  stepfunctions: 'stepfunctions',
  sfn: 'stepfunctions',
  scheduler: 'scheduler',
};

function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`'${url}' is not a URL (e.g. http://127.0.0.1:8000)`, { exitCode: 2 });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CliError(`'${url}' is not an http(s) URL`, { exitCode: 2 });
  }
  return url;
}

/** The suffix of each service's `AWS_ENDPOINT_URL_<SERVICE>` variable (the SDK's service ids). */
const ENDPOINT_VARIABLES: Record<Service, string> = {
  dynamodb: 'DYNAMODB',
  sqs: 'SQS',
  sns: 'SNS',
  lambda: 'LAMBDA',
  eventbridge: 'EVENTBRIDGE',
  stepfunctions: 'SFN',
  scheduler: 'SCHEDULER',
};

/** A service's endpoint from the environment, as the SDK itself would read it. */
function environmentEndpoint(
  service: Service,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return (
    env[`AWS_ENDPOINT_URL_${ENDPOINT_VARIABLES[service]}`] || env.AWS_ENDPOINT_URL || undefined
  );
}

/** Parses the `--endpoint-url` values into a default and per-service endpoints. */
export function parseEndpoints(values: readonly string[]): {
  all?: string;
  byService: Map<Service, string>;
} {
  let all: string | undefined;
  const byService = new Map<Service, string>();
  for (const value of values) {
    const match = /^([a-z]+)=(.+)$/i.exec(value);
    if (match && !/^https?$/i.test(match[1] ?? '')) {
      const service = SERVICE_NAMES[(match[1] ?? '').toLowerCase()];
      if (!service) {
        throw new CliError(
          `unknown service '${match[1]}' in --endpoint-url (allowed: ${Object.keys(SERVICE_NAMES).join(', ')})`,
          { exitCode: 2 },
        );
      }
      byService.set(service, checkUrl(match[2] ?? ''));
    } else {
      all = checkUrl(value);
    }
  }
  return { ...(all ? { all } : {}), byService };
}

/** What every CLI client shares: the region, two attempts, short timeouts. */
export function clientBase(region: string | undefined) {
  return {
    ...(region ? { region } : {}),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
  };
}

/** SDK clients for the CLI: short timeouts and two attempts, so a dead endpoint fails fast. */
export interface CliClients extends AwsClients {
  /** The endpoints given on the command line, for error messages. */
  readonly endpoint?: string;
  /** True when SQS goes to an emulator, whose queue URLs are not derived from ARNs. */
  readonly customSqsEndpoint: boolean;
}

/**
 * Builds the clients lazily from the connection options.
 *
 * A person waits at the terminal: connection attempts give up after 3 s and requests after
 * 10 s, with one retry, instead of the SDK's defaults (no connect timeout). Without
 * `--endpoint-url` the SDK's `AWS_ENDPOINT_URL[_<SERVICE>]` variables apply; they are passed
 * to the client as its `endpoint`, because the SQS client otherwise takes a queue URL's host
 * as the endpoint and warns on emulator URLs such as `http://sqs.us-east-1.127.0.0.1:…`.
 *
 * The SDK is imported on the first call, not when this module loads: every operating command
 * registers its options from here, and `zonecron --help` or `next` should not load six SDK
 * clients (about a quarter of a second).
 */
export async function createCliClients(options: ConnectionOptions): Promise<CliClients> {
  const { createAwsClients } = await import('#shared/aws-clients.ts');
  const endpoints = parseEndpoints(options.endpointUrl ?? []);
  const base = clientBase(options.region);
  const given = [
    ...(endpoints.all ? [endpoints.all] : []),
    ...[...endpoints.byService].map(([service, url]) => `${service}=${url}`),
  ];
  const clients = createAwsClients((service) => {
    const endpoint =
      endpoints.byService.get(service) ?? endpoints.all ?? environmentEndpoint(service);
    return endpoint ? { ...base, endpoint } : base;
  });
  // Object.assign, not a spread: a spread would read (and so build) every lazy client.
  return Object.assign(clients, {
    ...(given.length > 0 ? { endpoint: given.join(', ') } : {}),
    customSqsEndpoint:
      endpoints.byService.has('sqs') ||
      endpoints.all !== undefined ||
      Boolean(process.env.AWS_ENDPOINT_URL_SQS || process.env.AWS_ENDPOINT_URL),
  });
}

/** Where the operating commands' table, queue, region and stack name came from, resolved once. */
export interface OperateConnection {
  readonly clients: CliClients;
  /** The stack's name: in every envelope the CLI delivers and in Step Functions execution names. */
  readonly stackName: string;
  /** The stack as CloudFormation described it, when `--stack` or `ZONECRON_STACK` named one. */
  readonly stack: DeployedStack | undefined;
  /** The region every client uses (`--region`, else the stack's, else the SDK's chain). */
  readonly region: string | undefined;
  /** True when DynamoDB is reached through an endpoint override (the sandbox, an emulator). */
  readonly local: boolean;
  /** The ledger table, or a typed error that says how to name it. */
  tableName(): string;
  /** The dead-letter queue URL, or a typed error that says how to name it. */
  dlqUrl(): string;
  /** The dead-letter queue URL when one is known. */
  optionalDlqUrl(): string | undefined;
  /**
   * Any output of the stack (`ScheduleGroupName` for the deployed schedules, `AlarmTopicArn`,
   * …), or a typed error: the stack lacks it, or no stack was named (a usage error).
   */
  output(name: StackOutputName): string;
  /**
   * EventBridge Scheduler, built on first call (`list` and `describe` read the deployed
   * schedules), at `--endpoint-url scheduler=<url>`, `AWS_ENDPOINT_URL_SCHEDULER` or the
   * endpoint for every service when one is given.
   */
  scheduler(): Promise<Sender<SchedulerClient>>;
  /** Closes the clients. */
  destroy(): void;
}

/** One resource the commands need: its flag, environment variable and stack output. */
interface Resource {
  readonly flag: string;
  readonly env: string;
  readonly output: StackOutputName;
  readonly what: string;
}

const TABLE: Resource = {
  flag: '--table <name>',
  env: 'ZONECRON_TABLE',
  output: 'LedgerTableName',
  what: 'ledger table',
};
const DLQ: Resource = {
  flag: '--dlq-url <url>',
  env: 'ZONECRON_DLQ_URL',
  output: 'DeadLetterQueueUrl',
  what: 'dead-letter queue',
};

/**
 * The value of one resource, by precedence: the command line before the environment, and at
 * each level an explicit value before the stack's output.
 *
 * ```
 *   --table  >  --stack's LedgerTableName  >  $ZONECRON_TABLE  >  $ZONECRON_STACK's output
 * ```
 */
function pick(
  resource: Resource,
  explicit: string | undefined,
  stack: { readonly deployed: DeployedStack; readonly fromCommandLine: boolean } | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const output = stack?.deployed.outputs.get(resource.output);
  return explicit ?? (stack?.fromCommandLine ? output : undefined) ?? env[resource.env] ?? output;
}

function required(
  resource: Resource,
  value: string | undefined,
  stack: DeployedStack | undefined,
): string {
  if (value !== undefined && value !== '') return value;
  if (stack) {
    throw new StackOutputMissingError(
      stack.stackName,
      resource.output,
      [...stack.outputs.keys()],
      resource.env === 'ZONECRON_STACK' ? undefined : resource.flag,
    );
  }
  const ways = ['--stack <name> (or set ZONECRON_STACK)'];
  if (resource.env !== 'ZONECRON_STACK') ways.push(`${resource.flag} (or set ${resource.env})`);
  throw usageError(`no ${resource.what}: pass ${ways.join(', or ')}`);
}
/** True when DynamoDB requests go to an endpoint override rather than AWS. */
function isLocalDynamo(options: ConnectionOptions, env: NodeJS.ProcessEnv): boolean {
  const endpoints = parseEndpoints(options.endpointUrl ?? []);
  return (
    endpoints.byService.has('dynamodb') ||
    endpoints.all !== undefined ||
    Boolean(env.AWS_ENDPOINT_URL_DYNAMODB || env.AWS_ENDPOINT_URL)
  );
}

/**
 * True when the command line or the environment names a deployed stack or a ledger table
 * (`--stack`, `ZONECRON_STACK`, `--table`, `ZONECRON_TABLE`): the commands that also work from
 * the jobs file alone (`list`, `describe`) work offline otherwise.
 *
 * @example
 * namesDeployment({}, {}) //=> false
 * namesDeployment({ table: 'zonecron-ledger' }, {}) //=> true
 */
export function namesDeployment(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return Boolean(options.stack || options.table || env.ZONECRON_STACK || env.ZONECRON_TABLE);
}

/** The Scheduler client (lazily loaded) with the CLI's timeouts and the scheduler endpoint. */
async function schedulerClient(
  options: ConnectionOptions,
  region: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<SchedulerClient> {
  const { SchedulerClient } = await import('@aws-sdk/client-scheduler');
  const endpoints = parseEndpoints(options.endpointUrl ?? []);
  const endpoint =
    endpoints.byService.get('scheduler') ?? endpoints.all ?? environmentEndpoint('scheduler', env);
  return new SchedulerClient({ ...clientBase(region), ...(endpoint ? { endpoint } : {}) });
}

/** Looks the stack up with CloudFormation (lazily loaded), in `--region` or the SDK's region. */
async function lookUpStack(options: ConnectionOptions, stack: string): Promise<DeployedStack> {
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  const endpoint = parseEndpoints(options.endpointUrl ?? []).all;
  const client = new CloudFormationClient({
    ...clientBase(options.region),
    ...(endpoint ? { endpoint } : {}),
  });
  try {
    return await describeStack(client, stack, options.region);
  } catch (error) {
    if (isCliError(error)) throw error;
    throw new CliError(`cannot read stack '${stack}': ${describeError(error)}`, { cause: error });
  } finally {
    client.destroy();
  }
}

/**
 * Resolves where an operating command works, once, and builds its clients: the one function
 * every operating command (history, run, dlq, pause, resume, backfill, and list and
 * describe when a stack or a table is named) goes through.
 *
 * With `--stack NAME` (or `ZONECRON_STACK`), one `DescribeStacks` names the ledger table
 * (`LedgerTableName`), the dead-letter queue (`DeadLetterQueueUrl`), the region (the stack
 * ARN's) and the stack's own name, which the CLI puts into every envelope it delivers.
 * `--table` and `--dlq-url` still override the outputs. Without a stack the stack name is
 * `Zonecron`, the default of `cdk deploy`.
 *
 * @example
 * const connection = await connect({ stack: 'Zonecron' });
 * connection.tableName() //=> 'Zonecron-LedgerTable1A2B…'
 * connection.stackName   //=> 'Zonecron'
 * connection.destroy();
 */
export async function connect(
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OperateConnection> {
  const named = options.stack ?? env.ZONECRON_STACK;
  const deployed = named ? await lookUpStack(options, named) : undefined;
  const stack = deployed ? { deployed, fromCommandLine: options.stack !== undefined } : undefined;
  const region = options.region ?? deployed?.region;
  const clients = await createCliClients({ ...options, ...(region ? { region } : {}) });
  const table = pick(TABLE, options.table, stack, env);
  const dlq = pick(DLQ, options.dlqUrl, stack, env);
  let scheduler: Promise<SchedulerClient> | undefined;
  return {
    clients,
    stackName: deployed?.stackName ?? DEFAULT_STACK_NAME,
    stack: deployed,
    region,
    local: isLocalDynamo(options, env),
    tableName: () => required(TABLE, table, deployed),
    dlqUrl: () => required(DLQ, dlq, deployed),
    optionalDlqUrl: () => dlq,
    output: (name) =>
      required(
        {
          flag: '--stack <name>',
          env: 'ZONECRON_STACK',
          output: name,
          what: `stack output ${name}`,
        },
        deployed?.outputs.get(name),
        deployed,
      ),
    scheduler: () => {
      scheduler ??= schedulerClient(options, region, env);
      return scheduler;
    },
    destroy: () => {
      clients.destroy();
      void scheduler?.then((client) => client.destroy());
    },
  };
}
