import type { Command } from 'commander';
import type { AwsClients, AwsService } from '../../functions/shared/aws-clients.ts';
import { CliError } from '../errors.ts';

/** How the operating commands reach a deployed stack (or local emulators). */
export interface ConnectionOptions {
  /** `--endpoint-url`, repeatable: `<url>` for every service, `<service>=<url>` for one. */
  endpointUrl?: string[];
  region?: string;
  table?: string;
  dlqUrl?: string;
  config?: string;
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
        ' services: dynamodb, sqs, sns, lambda, eventbridge, stepfunctions)',
      collect,
    )
    .option('--region <region>', 'AWS region (default: from the environment or profile)');
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

type Service = AwsService;

const SERVICE_NAMES: Record<string, Service> = {
  dynamodb: 'dynamodb',
  sqs: 'sqs',
  sns: 'sns',
  lambda: 'lambda',
  eventbridge: 'eventbridge',
  events: 'eventbridge',
  stepfunctions: 'stepfunctions',
  sfn: 'stepfunctions',
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

/** The ledger table name from `--table` or `ZONECRON_TABLE`. */
export function tableName(options: ConnectionOptions): string {
  const name = options.table ?? process.env.ZONECRON_TABLE;
  if (!name) {
    throw new CliError('no ledger table: pass --table <name> or set ZONECRON_TABLE', {
      exitCode: 2,
    });
  }
  return name;
}

/** The DLQ URL from `--dlq-url` or `ZONECRON_DLQ_URL`. */
export function dlqUrl(options: ConnectionOptions): string {
  const url = options.dlqUrl ?? process.env.ZONECRON_DLQ_URL;
  if (!url) {
    throw new CliError('no dead-letter queue: pass --dlq-url <url> or set ZONECRON_DLQ_URL', {
      exitCode: 2,
    });
  }
  return url;
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
 * `--endpoint-url` the SDK's own `AWS_ENDPOINT_URL[_<SERVICE>]` variables still apply.
 *
 * The SDK is imported on the first call, not when this module loads: every operating command
 * registers its options from here, and `zonecron --help` or `next` should not load six SDK
 * clients (about a quarter of a second).
 */
export async function createCliClients(options: ConnectionOptions): Promise<CliClients> {
  const { createAwsClients } = await import('../../functions/shared/aws-clients.ts');
  const endpoints = parseEndpoints(options.endpointUrl ?? []);
  const base = {
    ...(options.region ? { region: options.region } : {}),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
  };
  const given = [
    ...(endpoints.all ? [endpoints.all] : []),
    ...[...endpoints.byService].map(([service, url]) => `${service}=${url}`),
  ];
  const clients = createAwsClients((service) => {
    const endpoint = endpoints.byService.get(service) ?? endpoints.all;
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
