import { type Command, Option } from 'commander';
import { addConnectionOptions, type ConnectionOptions, connect } from '../aws/connection.ts';
import type { OverlapChoice } from '../aws/run-guards.ts';
import { CliError, describeError, isCliError } from '../errors.ts';
import { wrap } from '../format/table.ts';
import { type InstantInput, instantArgument } from '../instant.ts';

interface RunOptions extends ConnectionOptions {
  /** Read in the job's zone when it is a date or a local time. */
  at?: InstantInput;
  json?: boolean;
  force?: boolean;
  overlap?: OverlapChoice;
  reason?: string;
}

const EXAMPLE = `
Example:
  $ zonecron run berlin-nightly-report --table zonecron-ledger
  delivers one run now, through the dispatcher, under the manual key of this
  minute (periodBucket('manual:<jobId>', at)): a second run of the same minute
  is refused, and a manual run never collides with a scheduled one. A paused
  job is refused (--force delivers anyway), and so is a forbid job with a run
  still running (--overlap allow delivers beside it). Recorded for history.`;

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
    .addOption(overlapChoiceOption())
    .option('--force', 'deliver even while the job is paused or a run is still running')
    .option('--reason <text>', 'why, for whoever looks next (history)')
    .option('--json', 'print the outcome as one JSON document');
  addConnectionOptions(command, { table: true, dlq: true, config: true })
    .addHelpText('after', EXAMPLE)
    .action(runJob);
}

/**
 * `--overlap skip|allow` of `run` and `backfill`: what happens when a run of the job is still
 * running (default: the job's `concurrency`, forbid → skip, allow → allow).
 */
export function overlapChoiceOption(): Option {
  return new Option(
    '--overlap <choice>',
    'when a run of the job is still running: skip refuses, allow delivers beside it' +
      ' (default: skip under concurrency forbid, else allow)',
  ).choices(['skip', 'allow']);
}

async function runJob(jobId: string, options: RunOptions): Promise<void> {
  const { dispatcherFor } = await import('../aws/operator-dispatcher.ts');
  const { describeOutcome } = await import('../format/outcome.ts');
  const connection = await connect(options);
  const { clients } = connection;
  try {
    const { loadOperatedJob } = await import('../aws/operated-job.ts');
    const { config, job } = await loadOperatedJob(connection, options.config ?? 'jobs.yaml', jobId);
    const { resolveInstant } = await import('../instant.ts');
    const at = options.at && resolveInstant(options.at, { zone: job.timezone, now: new Date() });
    const { openLedger, onLedgerTable } = await import('../aws/ledger-access.ts');
    const { readGuardState, checkGuards } = await import('../aws/run-guards.ts');
    const access = openLedger(connection);
    const guard = await onLedgerTable(access.tableName, clients, 'read', () =>
      readGuardState({ ...access, client: clients.dynamodb }, job, new Date()),
    );
    const choices = {
      force: options.force ?? false,
      ...(options.overlap ? { overlap: options.overlap } : {}),
    };
    const overridden = checkGuards(job, guard, choices, 'run');
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
    const { recordOperatorAction } = await import('../aws/operator-log.ts');
    await onLedgerTable(access.tableName, clients, 'update', async () =>
      recordOperatorAction(access.log, connection, {
        jobId,
        action: 'ran',
        runKey: outcome.key,
        detail: [describeOutcome(outcome), overridden].filter(Boolean).join('; '),
        ...(options.reason ? { reason: options.reason } : {}),
        retentionDays: config.retentionDays,
      }),
    );
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
