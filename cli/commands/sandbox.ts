import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { nextStopSignal, SIGNAL_EXIT_CODES } from '../interrupt.ts';
import { integerAtLeast } from '../options.ts';
import type { Sandbox } from '../sandbox/start-sandbox.ts';

interface SandboxCommandOptions {
  config?: string;
  dynamodbPort?: number;
  sqsPort?: number;
  json?: boolean;
}

/** A TCP port a server can listen on; anything else is a usage error naming the flag. */
const TCP_PORT = integerAtLeast(1, 65_535);

const EXAMPLE = `
Example:
  $ zonecron sandbox
  prints export lines; paste them into another shell, then try every command
  that operates a stack (run, backfill, pause, resume, history, dlq, list,
  describe) there.
  Ctrl-C stops the sandbox; everything in it was in memory and is gone.`;

/** `zonecron sandbox`: a local ledger and dead-letter queue to operate without AWS. */
export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('start a local ledger and dead-letter queue to try the operating commands')
    .option(
      '--config <file>',
      'create a queue for every SQS target of this jobs file (default: jobs.yaml if present)',
    )
    .option('--dynamodb-port <n>', 'port of the ledger (default: a free one)', TCP_PORT)
    .option('--sqs-port <n>', 'port of the queues (default: a free one)', TCP_PORT)
    .option('--json', 'print the endpoints and the environment as one JSON document')
    .addHelpText('after', EXAMPLE)
    .action(runSandbox);
}

async function jobsFor(options: SandboxCommandOptions) {
  const file = options.config ?? (existsSync('jobs.yaml') ? 'jobs.yaml' : undefined);
  if (file === undefined) return { file: undefined, jobs: [] };
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  return { file, jobs: loadJobsFile(file).jobs };
}

/** Shell lines that set what the other commands read: only comments and `export`s. */
function exportLines(sandbox: Sandbox, file: string | undefined): string[] {
  const targets = [...sandbox.targetQueues.keys()];
  return [
    '# zonecron sandbox, in memory until Ctrl-C here:',
    `#   ledger table ${sandbox.tableName} (dynalite) on ${sandbox.dynamodbEndpoint}`,
    `#   dead-letter queue ${sandbox.queueName} (fauxqs) on ${sandbox.sqsEndpoint}`,
    ...(targets.length > 0
      ? [`#   queues for the SQS targets of ${file}: ${targets.join(', ')}`]
      : []),
    '# In another shell, run these lines, then any command that operates a stack',
    '# (run, backfill, pause, resume, history, dlq, list, describe).',
    'unset ZONECRON_STACK',
    ...Object.entries(sandbox.env).map(([name, value]) => `export ${name}=${value}`),
  ];
}

function toJson(sandbox: Sandbox) {
  return {
    dynamodbEndpoint: sandbox.dynamodbEndpoint,
    sqsEndpoint: sandbox.sqsEndpoint,
    tableName: sandbox.tableName,
    dlqUrl: sandbox.dlqUrl,
    targetQueues: Object.fromEntries(sandbox.targetQueues),
    env: sandbox.env,
  };
}

async function runSandbox(options: SandboxCommandOptions): Promise<void> {
  const { file, jobs } = await jobsFor(options);
  const { startSandbox } = await import('../sandbox/start-sandbox.ts');
  const stopped = nextStopSignal();
  const sandbox = await startSandbox({
    jobs,
    ...(options.dynamodbPort !== undefined ? { dynamodbPort: options.dynamodbPort } : {}),
    ...(options.sqsPort !== undefined ? { sqsPort: options.sqsPort } : {}),
  });
  if (options.json) process.stdout.write(`${JSON.stringify(toJson(sandbox))}\n`);
  else process.stdout.write(`${exportLines(sandbox, file).join('\n')}\n`);
  process.stderr.write('zonecron sandbox: ready; Ctrl-C stops it\n');
  const signal = await stopped;
  await sandbox.stop();
  process.stderr.write('zonecron sandbox: stopped; its ledger and queues are gone\n');
  process.exitCode = SIGNAL_EXIT_CODES[signal];
}
