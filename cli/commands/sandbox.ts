import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { JobDefinition } from '#jobs/job.ts';
import { usageError } from '../errors.ts';
import { nextStopSignal, SIGNAL_EXIT_CODES } from '../interrupt.ts';
import { integerAtLeast } from '../options.ts';
import type { TargetBehaviour } from '../sandbox/local-targets.ts';
import type { SandboxStack } from '../sandbox/sandbox-stack.ts';
import type { Sandbox } from '../sandbox/start-sandbox.ts';
import { registerSandboxTargets } from './sandbox-targets.ts';

interface SandboxCommandOptions {
  config?: string;
  dynamodbPort?: number;
  sqsPort?: number;
  json?: boolean;
  fail?: string[];
  hang?: string[];
}

/** A TCP port a server can listen on; anything else is a usage error naming the flag. */
const TCP_PORT = integerAtLeast(1, 65_535);

const EXAMPLE = `
Example:
  $ zonecron sandbox --fail nightly-report
  prints export lines; paste them into another shell, then try every command
  that operates a stack (run, backfill, pause, resume, history, dlq, list,
  describe) there. Meanwhile the sandbox runs the dispatcher and recorder on
  the wall clock: the jobs' schedules fire, the sweep runs every minute, and
  notifications and dead letters are printed here as they happen. Every
  target is emulated on this machine (nightly-report's fails).
  In the other shell, 'zonecron sandbox fail|hang|heal <job>' changes what a
  job's target does while the sandbox runs.
  Ctrl-C stops the sandbox; everything in it was in memory and is gone.`;

/** `zonecron sandbox`: a local ledger and dead-letter queue to operate without AWS. */
export function registerSandbox(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description(
      'run a local stack (ledger, dispatcher, recorder, schedules, targets) to try the operating commands',
    )
    .option(
      '--config <file>',
      'the jobs whose schedules and targets the sandbox runs (default: jobs.yaml if present)',
    )
    .option('--dynamodb-port <n>', 'port of the ledger (default: a free one)', TCP_PORT)
    .option('--sqs-port <n>', 'port of the queues (default: a free one)', TCP_PORT)
    .option('--json', 'print the endpoints and the environment as one JSON document')
    .option(
      '--fail <job>',
      "make the job's target fail: a Lambda function or execution fails, other targets refuse the delivery (repeatable)",
      collect,
    )
    .option(
      '--hang <job>',
      "make the job's Lambda function or execution never finish, so its runs go stuck (repeatable)",
      collect,
    )
    .addHelpText('after', EXAMPLE)
    .allowExcessArguments(true)
    .action(runSandbox);
  registerSandboxTargets(sandbox);
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** What each job's target does when the sandbox starts, from `--fail` and `--hang`. */
function initialBehaviours(
  options: SandboxCommandOptions,
  jobs: readonly JobDefinition[],
): Record<string, TargetBehaviour> {
  const failing = new Set(options.fail ?? []);
  const hanging = new Set(options.hang ?? []);
  const known = new Set(jobs.map((job) => job.id));
  for (const [flag, ids] of [
    ['--fail', failing],
    ['--hang', hanging],
  ] as const) {
    const unknown = [...ids].find((id) => !known.has(id));
    if (unknown !== undefined) {
      throw usageError(
        `${flag} names no job of the jobs file: '${unknown}' (jobs: ${[...known].join(', ') || 'none'})`,
      );
    }
  }
  return Object.fromEntries([
    ...[...hanging].map((id) => [id, 'hang'] as const),
    ...[...failing].map((id) => [id, 'fail'] as const),
  ]);
}

async function jobsFor(options: SandboxCommandOptions) {
  const file = options.config ?? (existsSync('jobs.yaml') ? 'jobs.yaml' : undefined);
  if (file === undefined) return { file: undefined, jobs: [], retentionDays: undefined };
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const { jobs, retentionDays } = loadJobsFile(file);
  return { file, jobs, retentionDays };
}

/** Shell lines that set what the other commands read: only comments and `export`s. */
function exportLines(sandbox: Sandbox, stack: SandboxStack, file: string | undefined): string[] {
  const targets = [...sandbox.targetQueues.keys()];
  return [
    '# zonecron sandbox, in memory until Ctrl-C here:',
    `#   ledger table ${sandbox.tableName} (dynalite) on ${sandbox.dynamodbEndpoint}`,
    `#   dead-letter queue ${sandbox.queueName} (fauxqs) on ${sandbox.sqsEndpoint}`,
    ...(targets.length > 0
      ? [`#   queues for the SQS targets of ${file}: ${targets.join(', ')}`]
      : []),
    '#   dispatcher and recorder on the wall clock: the schedules fire, the sweep runs every',
    '#   minute, and every target (SQS, SNS, Lambda, Step Functions, EventBridge) is local',
    `#   stack ${stack.stackName}: CloudFormation outputs, schedule group and deployed jobs for`,
    `#   --stack ${stack.stackName} (no alarms)`,
    '# In another shell, run these lines, then any command that operates a stack',
    '# (run, backfill, pause, resume, history, dlq, list, describe), without --stack;',
    "# 'zonecron sandbox fail|hang|heal <job>' there changes what a job's target does.",
    'unset ZONECRON_STACK',
    ...Object.entries({ ...sandbox.env, ...stack.env }).map(
      ([name, value]) => `export ${name}=${value}`,
    ),
  ];
}

function toJson(sandbox: Sandbox, stack: SandboxStack) {
  return {
    dynamodbEndpoint: sandbox.dynamodbEndpoint,
    sqsEndpoint: sandbox.sqsEndpoint,
    tableName: sandbox.tableName,
    dlqUrl: sandbox.dlqUrl,
    targetQueues: Object.fromEntries(sandbox.targetQueues),
    stackName: stack.stackName,
    env: { ...sandbox.env, ...stack.env },
  };
}

/** The sandbox's dispatcher and recorder on the wall clock; the sandbox stops if they cannot start. */
async function startStack(
  sandbox: Sandbox,
  { jobs, retentionDays }: Awaited<ReturnType<typeof jobsFor>>,
  initial: Record<string, TargetBehaviour>,
): Promise<SandboxStack> {
  const { startSandboxStack } = await import('../sandbox/sandbox-stack.ts');
  const { wallClockTimers } = await import('../sandbox/local-scheduler.ts');
  const { createTargetBehaviours } = await import('../sandbox/target-behaviours.ts');
  const behaviours = createTargetBehaviours(
    jobs.map((job) => job.id),
    initial,
  );
  try {
    return await startSandboxStack({
      sandbox,
      jobs,
      ...(retentionDays !== undefined ? { retentionDays } : {}),
      timers: wallClockTimers,
      behaviours,
      print: (line) => process.stderr.write(`zonecron sandbox: ${line}\n`),
    });
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
}

/** `zonecron sandbox fial …`: a usage error naming the sandbox's commands, not excess arguments. */
async function refuseUnknownCommand(command: Command): Promise<void> {
  const [typed] = command.args;
  if (typed === undefined) return;
  const { closestName } = await import('#text/message-text.ts');
  const names = command.commands.map((c) => c.name());
  const closest = closestName(typed, names, { maxDistance: 2 });
  throw usageError(
    `unknown sandbox command '${typed}'${closest ? `; did you mean '${closest}'?` : ''} (commands: ${names.join(', ')})`,
  );
}

async function runSandbox(options: SandboxCommandOptions, command: Command): Promise<void> {
  await refuseUnknownCommand(command);
  const loaded = await jobsFor(options);
  const { file, jobs } = loaded;
  const initial = initialBehaviours(options, jobs);
  const { startSandbox } = await import('../sandbox/start-sandbox.ts');
  const stopped = nextStopSignal();
  const sandbox = await startSandbox({
    jobs,
    ...(options.dynamodbPort !== undefined ? { dynamodbPort: options.dynamodbPort } : {}),
    ...(options.sqsPort !== undefined ? { sqsPort: options.sqsPort } : {}),
  });
  const stack = await startStack(sandbox, loaded, initial);
  if (options.json) process.stdout.write(`${JSON.stringify(toJson(sandbox, stack))}\n`);
  else process.stdout.write(`${exportLines(sandbox, stack, file).join('\n')}\n`);
  process.stderr.write('zonecron sandbox: ready; Ctrl-C stops it\n');
  const signal = await stopped;
  await stack.stop();
  await sandbox.stop();
  process.stderr.write('zonecron sandbox: stopped; its ledger and queues are gone\n');
  process.exitCode = SIGNAL_EXIT_CODES[signal];
}
