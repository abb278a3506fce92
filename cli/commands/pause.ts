import type { Command } from 'commander';
import type { JobDefinition } from '#jobs/job.ts';
import { formatLocal, formatUtc } from '#text/zone-time.ts';
import { addConnectionOptions, type ConnectionOptions, connect } from '../aws/connection.ts';
import type { OperatedJobs } from '../aws/operated-job.ts';
import { wrap } from '../format/table.ts';
import { type InstantInput, whenArgument } from '../instant.ts';

interface PauseOptions extends ConnectionOptions {
  reason?: string;
  /** Read in `--tz` or the job's zone once the job is known ({@link untilOf}); `false` from `--no-until`. */
  until?: InstantInput | false;
  tz?: string;
  json?: boolean;
}

interface ResumeOptions extends ConnectionOptions {
  catchUp?: boolean;
  json?: boolean;
}

const PAUSE_EXAMPLE = `
Example:
  $ zonecron pause berlin-nightly-report --reason "db migration" --until 6h
  from the next tick on (within a minute), the job's runs are recorded skipped
  (paused), with no notification; it resumes by itself after 6 hours, or with
  zonecron resume. Who, when and why show in zonecron history.
  $ zonecron pause berlin-nightly-report --reason "migration runs late"
  on a paused job, changes only what is named: the end above is kept
  (--until changes it, --no-until removes it); a bare pause of a paused job
  changes nothing and only shows the pause.`;

const RESUME_EXAMPLE = `
Example:
  $ zonecron resume berlin-nightly-report
  the job runs again from its next run on; the paused period is not replayed.
  $ zonecron resume berlin-nightly-report --catch-up
  also delivers the paused runs the job's catch-up policy picks (all, latest or
  none, within its catch-up window), each under its own key.`;

/** `zonecron pause` and `zonecron resume`: a job's state in the ledger, without a deploy. */
export function registerPause(program: Command): void {
  const pause = program
    .command('pause')
    .description("pause a job now, without a deploy: its runs are skipped until it's resumed")
    .argument('<jobId>', 'job id from the jobs file')
    .option(
      '--reason <text>',
      'why, for whoever looks next (history, list, describe); a re-pause keeps it',
    )
    .option(
      '--until <when>',
      "resume by itself then: a duration from now (2h, 1d), or an instant; a date or local time is in the job's zone",
      whenArgument,
    )
    .option('--no-until', 'no end: only zonecron resume ends it (a re-pause keeps its end)')
    .option('--tz <zone>', "read a date or local --until in this zone (default: the job's)")
    .option('--json', 'print the pause as one JSON document');
  addConnectionOptions(pause, { table: true, config: true })
    .addHelpText('after', PAUSE_EXAMPLE)
    .action(runPause);

  const resume = program
    .command('resume')
    .description('resume a paused job; the paused period is not replayed')
    .argument('<jobId>', 'job id from the jobs file')
    .option('--catch-up', "deliver the paused runs the job's catch-up policy picks")
    .option('--json', 'print the result as one JSON document');
  addConnectionOptions(resume, { table: true, dlq: true, config: true })
    .addHelpText('after', RESUME_EXAMPLE)
    .action(runResume);
}

/** What a pause or resume needs: the connection, the job, the ledger, who is asking. */
async function prepare(jobId: string, options: ConnectionOptions) {
  const connection = await connect(options);
  const { loadOperatedJob } = await import('../aws/operated-job.ts');
  const { config, job } = await loadOperatedJob(
    connection,
    options.config ?? 'jobs.yaml',
    jobId,
  ).catch((error: unknown) => {
    connection.destroy();
    throw error;
  });
  const { openLedger, onLedgerTable } = await import('../aws/ledger-access.ts');
  const { callerIdentity } = await import('../aws/caller-identity.ts');
  const access = openLedger(connection);
  const by = await callerIdentity(connection);
  const deps = {
    ledger: access.ledger,
    log: access.log,
    clock: () => new Date(),
    retentionDays: config.retentionDays,
  };
  return { config, job, connection, access, by, deps, onLedgerTable };
}

async function runPause(jobId: string, options: PauseOptions): Promise<void> {
  const { config, job, connection, access, by, deps, onLedgerTable } = await prepare(
    jobId,
    options,
  );
  try {
    const until = await untilOf(options, job);
    const { applyPause } = await import('../aws/job-control.ts');
    const request = {
      job,
      by,
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
      ...(until !== undefined ? { until } : {}),
    };
    const result = await onLedgerTable(access.tableName, connection.clients, 'update', () =>
      applyPause(deps, request),
    );
    if (options.json) {
      const doc = {
        ...result.state,
        change: result.change,
        detail: result.detail,
        file: config.file,
      };
      process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
      return;
    }
    process.stdout.write(`${describePause(job, result)}\n`);
  } finally {
    connection.destroy();
  }
}

/**
 * `--until` as an instant: a duration counts from now; a date (`2026-12-02`, `tomorrow`) is
 * the start of that day and a local time that time, in `--tz` or the job's zone, so
 * `--until 2026-12-02` for a New York job ends at midnight in New York. `null` for
 * `--no-until` (the end removed); `undefined` when neither was given (the end kept).
 */
async function untilOf(
  options: PauseOptions,
  job: JobDefinition,
): Promise<Date | null | undefined> {
  if (options.until === undefined) return undefined;
  if (options.until === false) return null;
  const { resolveInstant } = await import('../instant.ts');
  const { checkZone } = await import('../schedule-input.ts');
  const zone = options.tz === undefined ? job.timezone : await checkZone(options.tz);
  return resolveInstant(options.until, { zone, now: new Date(), direction: 1 });
}

function describePause(
  job: JobDefinition,
  { state, change, detail }: import('../aws/job-control.ts').PauseChange,
): string {
  const until = state.until ? ` until ${state.until}` : '';
  const head = change === 'none' ? `${job.id} is already paused` : `paused ${job.id}`;
  const lines = [
    wrap(`${head} since ${state.pausedAt}${until}`, ''),
    wrap(`by ${state.pausedBy}: ${state.reason}`, '  '),
  ];
  if (change === 'none') {
    lines.push(
      wrap(
        'nothing changed: --reason or --until changes the pause (--no-until removes its end),' +
          ` zonecron resume ${job.id} ends it`,
        '  ',
      ),
    );
    return lines.join('\n');
  }
  if (change === 'updated') lines.push(wrap(detail, '  '));
  lines.push(
    wrap(
      'its runs are recorded skipped (paused) from the next tick on, without a notification;' +
        (state.until
          ? ` it resumes by itself at ${state.until}, or with zonecron resume ${job.id}`
          : ` zonecron resume ${job.id} ends the pause`),
      '  ',
    ),
  );
  return lines.join('\n');
}

async function runResume(jobId: string, options: ResumeOptions): Promise<void> {
  const { job, connection, access, by, deps, config, onLedgerTable } = await prepare(
    jobId,
    options,
  );
  try {
    const { resumeJob } = await import('../aws/job-control.ts');
    const detail = options.catchUp
      ? `--catch-up (catchup.policy ${job.catchup.policy})`
      : undefined;
    const result = await onLedgerTable(access.tableName, connection.clients, 'update', () =>
      resumeJob(deps, { job, by, ...(detail ? { detail } : {}) }),
    );
    const caughtUp =
      result.resumed && options.catchUp && result.pause.pausedAt
        ? await catchUpPause(job, config, connection, access, {
            from: new Date(result.pause.pausedAt),
            to: new Date(result.at),
          })
        : undefined;
    const { nextOccurrences } = await import('../../functions/schedule/index.ts');
    const { scheduleSpecOf } = await import('#jobs/job.ts');
    const next = nextOccurrences(scheduleSpecOf(job), new Date(result.at), 1)[0];
    if (options.json) {
      const doc = {
        jobId,
        ...result,
        next: next?.at.toISOString() ?? null,
        caughtUp: caughtUp ?? null,
      };
      process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    } else {
      process.stdout.write(`${describeResume(job, result, next?.at, caughtUp)}\n`);
    }
    if (caughtUp?.stopped) process.exitCode = 1;
  } finally {
    connection.destroy();
  }
}

type CatchUpReport = import('../aws/backfill.ts').BackfillReport;

/** `--catch-up`: the paused runs the job's catch-up policy picks, through the backfill route. */
async function catchUpPause(
  job: JobDefinition,
  config: OperatedJobs,
  connection: import('../aws/connection.ts').OperateConnection,
  access: import('../aws/ledger-access.ts').LedgerAccess,
  pause: { from: Date; to: Date },
): Promise<CatchUpReport> {
  const { catchUpResumedPause } = await import('../aws/backfill.ts');
  const { dispatcherFor } = await import('../aws/operator-dispatcher.ts');
  const { dispatcher } = dispatcherFor(connection, config);
  return catchUpResumedPause(access.ledger, dispatcher, job, pause);
}

function describeResume(
  job: JobDefinition,
  result: import('../aws/job-control.ts').ResumeResult,
  next: Date | undefined,
  caughtUp: CatchUpReport | undefined,
): string {
  if (!result.resumed) return `${job.id} is not paused; nothing to resume`;
  const pause = result.pause;
  const lines = [
    wrap(
      `resumed ${job.id} (paused since ${pause.pausedAt} by ${pause.pausedBy}: ${pause.reason})`,
      '',
    ),
  ];
  if (!caughtUp) {
    lines.push(wrap('the paused period is not replayed: its runs stay skipped (paused)', '  '));
  } else {
    const delivered = caughtUp.outcomes.filter((o) => o.outcome === 'dispatched').length;
    lines.push(
      wrap(
        `caught up under catchup.policy ${job.catchup.policy}: ${delivered} of the paused` +
          ` runs delivered${caughtUp.stopped ? `; stopped: ${caughtUp.stopped.detail}` : ''}`,
        '  ',
      ),
    );
  }
  if (next)
    lines.push(wrap(`next run ${formatLocal(next, job.timezone)} (${formatUtc(next)})`, '  '));
  return lines.join('\n');
}
