import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions, connect } from '../aws/connection.ts';
import { CliError, describeError, isCliError } from '../errors.ts';
import { wrap } from '../format/table.ts';
import { type InstantInput, instantArgument } from '../instant.ts';

interface RunOptions extends ConnectionOptions {
  /** Read in the job's zone when it is a date or a local time. */
  at?: InstantInput;
  json?: boolean;
}

const EXAMPLE = `
Example:
  $ zonecron run berlin-nightly-report --table zonecron-ledger
  delivers one run now, through the dispatcher, under the manual key of this
  minute (periodBucket('manual:<jobId>', at)): a second run of the same minute
  is refused, and a manual run never collides with a scheduled one.`;

/** `zonecron run`: a hand-triggered run through the dispatcher's claim and delivery path. */
export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description('run a job now, by hand, exactly once per minute given')
    .argument('<jobId>', 'job id from the jobs file')
    .option(
      '--at <instant>',
      "the run instant (default: now; cut to the minute); a local time in the job's zone",
      instantArgument,
    )
    .option('--json', 'print the outcome as one JSON document');
  addConnectionOptions(command, { table: true, dlq: true, config: true })
    .addHelpText('after', EXAMPLE)
    .action(runJob);
}

async function runJob(jobId: string, options: RunOptions): Promise<void> {
  const { loadJob } = await import('../deployed/jobs-file.ts');
  const { config, job } = await loadJob(options.config ?? 'jobs.yaml', jobId);
  const { resolveInstant } = await import('../instant.ts');
  const at = options.at && resolveInstant(options.at, { zone: job.timezone, now: new Date() });
  const { dispatcherFor } = await import('../aws/operator-dispatcher.ts');
  const { describeOutcome } = await import('../format/outcome.ts');
  const connection = await connect(options);
  const { clients } = connection;
  try {
    const { dispatcher } = dispatcherFor(connection, config);
    let outcome: Awaited<ReturnType<typeof dispatcher.runManually>>;
    try {
      outcome = await dispatcher.runManually({ jobId, ...(at ? { at } : {}) });
    } catch (error) {
      if (isCliError(error)) throw error;
      throw new CliError(`manual run of '${jobId}' failed: ${describeError(error, clients)}`, {
        cause: error,
      });
    }
    if (options.json) {
      process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    } else {
      process.stdout.write(`${wrap(describeOutcome(outcome), '')}\n`);
    }
    if (outcome.outcome !== 'dispatched') process.exitCode = 1;
  } finally {
    connection.destroy();
  }
}
