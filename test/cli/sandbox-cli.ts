import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEnvelope } from '#jobs/envelope.ts';
import type { JobDefinition } from '#jobs/job.ts';
import { createAwsClients } from '#shared/aws-clients.ts';
import { type Sandbox, startSandbox } from '../../cli/sandbox/start-sandbox.ts';
import type { Occurrence } from '../../functions/schedule/index.ts';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { queueBodies } from '../support/fauxqs.ts';
import { type CliResult, runCli } from './run-cli.ts';

/** The operator name the CLI records when it runs against the sandbox: `$USER@host`. */
export const TEST_USER = 'tester';

/** A sandbox in this process, a jobs file beside it, and `zonecron` pointed at both. */
export interface SandboxCli {
  readonly sandbox: Sandbox;
  /** The jobs of the file, as the loader reads them. */
  readonly jobs: readonly JobDefinition[];
  /** The jobs file, as `--config` takes it. */
  readonly config: string;
  /** Runs `zonecron …` with the sandbox's environment (its `export` lines). */
  cli(args: readonly string[]): Promise<CliResult>;
  /** The envelopes waiting in a target queue of the sandbox, oldest first. */
  delivered(queue: string): RunEnvelope[];
  stop(): Promise<void>;
}

/**
 * Starts the sandbox of `zonecron sandbox` in this process (one per test file) with a queue for
 * the SQS target of every job of `jobsYaml` but those `withoutQueues` names, writes `jobsYaml` to a temporary jobs file, and runs
 * the real command against it as a user would after pasting the sandbox's export lines.
 *
 * @example
 * const env = await startSandboxCli(yaml);
 * await env.cli(['pause', 'nightly', '--config', env.config]);
 */
export async function startSandboxCli(
  jobsYaml: string,
  options: { readonly withoutQueues?: readonly string[] } = {},
): Promise<SandboxCli> {
  const { jobs } = parseJobsConfig(jobsYaml, 'jobs.yaml');
  const queued = jobs.filter((j) => !options.withoutQueues?.includes(j.id));
  const sandbox = await startSandbox({ jobs: queued });
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-sandbox-cli-'));
  const config = join(dir, 'jobs.yaml');
  writeFileSync(config, jobsYaml);
  return {
    sandbox,
    jobs,
    config,
    cli: (args) => runCli(args, { env: { ...sandbox.env, USER: TEST_USER } }),
    delivered: (queue) => queueBodies<RunEnvelope>(sandbox.queues, queue) ?? [],
    async stop() {
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** SDK clients pointed at the sandbox, for a dispatcher the test drives in this process. */
export function sandboxClients(sandbox: Sandbox) {
  const credentials = {
    accessKeyId: sandbox.env.AWS_ACCESS_KEY_ID ?? '',
    secretAccessKey: sandbox.env.AWS_SECRET_ACCESS_KEY ?? '',
  };
  return createAwsClients((service) => ({
    region: sandbox.env.AWS_REGION ?? 'us-east-1',
    credentials,
    ...(service === 'dynamodb' ? { endpoint: sandbox.dynamodbEndpoint } : {}),
    ...(service === 'sqs' ? { endpoint: sandbox.sqsEndpoint } : {}),
  }));
}

/** The minute that starts at or before `at`. */
export function minuteOf(at: Date | string): Date {
  const ms = new Date(at).getTime();
  return new Date(ms - (ms % 60_000));
}

/** An occurrence of a UTC job at `at` (no DST in UTC). */
export function utcOccurrence(at: Date): Occurrence {
  return { at, nominal: at.toISOString().slice(0, 16), dst: 'none' };
}
