import type { Command } from 'commander';
import {
  addConnectionOptions,
  type ConnectionOptions,
  createCliClients,
  dlqUrl,
  tableName,
} from '../aws/connection.ts';
import type { QueuedDeadLetter } from '../aws/dead-letter-queue.ts';
import { CliError, describeError, usageError } from '../errors.ts';
import { coloursFor } from '../format/colour.ts';
import { plainTable, wrap } from '../format/table.ts';

interface ListOptions extends ConnectionOptions {
  json?: boolean;
}

interface RedriveOptions extends ConnectionOptions {
  key?: string;
  all?: boolean;
  json?: boolean;
}

/** `zonecron dlq list` and `zonecron dlq redrive`. */
export function registerDlq(program: Command): void {
  const dlq = program
    .command('dlq')
    .description('inspect and redrive runs in the dead-letter queue')
    .addHelpText(
      'after',
      `
Example:
  $ zonecron dlq list --dlq-url "$DLQ_URL"
  $ zonecron dlq redrive --all --table zonecron-ledger --dlq-url "$DLQ_URL"`,
    );

  const list = dlq
    .command('list')
    .description('show dead-lettered runs and why they failed (nothing is removed)')
    .option('--json', 'print one JSON document');
  addConnectionOptions(list, { dlq: true })
    .addHelpText(
      'after',
      `
Example:
  $ zonecron dlq list --dlq-url https://sqs.eu-west-1.amazonaws.com/…/my-dlq
  shows key, job, scheduled time, reason, attempts and the last error of each
  message; the messages stay in the queue.`,
    )
    .action(runList);

  const redrive = dlq
    .command('redrive')
    .description('deliver dead-lettered runs again under their original keys')
    .option('--key <key>', 'the run key (or a unique prefix of at least 7 characters)')
    .option('--all', 'every run in the queue')
    .option('--json', 'print one JSON document');
  addConnectionOptions(redrive, { table: true, dlq: true, config: true })
    .addHelpText(
      'after',
      `
Example:
  $ zonecron dlq redrive --key 3f2a9c1 --table zonecron-ledger --dlq-url …
  delivers the run through the dispatcher under its original key (a run that was
  delivered meanwhile is refused) and deletes the message only after success.`,
    )
    .action(runRedrive);
}

function scheduledAt(message: QueuedDeadLetter): string {
  return message.body?.envelope.scheduledAt ?? '';
}

async function runList(options: ListOptions): Promise<void> {
  const url = dlqUrl(options);
  const { readDeadLetters } = await import('../aws/dead-letter-queue.ts');
  const clients = await createCliClients(options);
  let messages: QueuedDeadLetter[];
  try {
    messages = await readDeadLetters(clients.sqs, url, { release: true });
  } catch (error) {
    throw new CliError(`cannot read the dead-letter queue: ${describeError(error, clients)}`, {
      cause: error,
    });
  } finally {
    clients.destroy();
  }
  if (options.json) {
    const doc = {
      queueUrl: url,
      messages: messages.map((m) =>
        m.body
          ? {
              messageId: m.messageId,
              key: m.body.key,
              jobId: m.body.jobId,
              scheduledAt: m.body.envelope.scheduledAt,
              nominal: m.body.envelope.nominal,
              reason: m.body.reason,
              attempts: m.body.attempts,
              lastError: m.body.lastError,
              failedAt: m.body.failedAt,
              target: m.body.target,
            }
          : { messageId: m.messageId, unreadable: m.rawBody.slice(0, 500) },
      ),
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const c = coloursFor(process.stdout);
  const out: string[] = [
    `${messages.length} dead-lettered run${messages.length === 1 ? '' : 's'} in ${url}`,
  ];
  const readable = messages.filter((m) => m.body);
  if (readable.length > 0) {
    out.push('');
    const table = plainTable(
      ['key', 'job', 'scheduled (UTC)', 'reason', 'tries'],
      readable.map((m) => [
        m.body?.key.slice(0, 7) ?? '',
        m.body?.jobId ?? '',
        `${scheduledAt(m).slice(0, 10)} ${scheduledAt(m).slice(11, 16)}`,
        m.body?.reason ?? '',
        String(m.body?.attempts ?? ''),
      ]),
    ).split('\n');
    out.push(c.dim(table[0] ?? ''));
    readable.forEach((m, i) => {
      out.push(table[i + 1] ?? '');
      out.push(c.dim(wrap(`last error: ${m.body?.lastError ?? ''}`, '        ')));
    });
  }
  const unreadable = messages.length - readable.length;
  if (unreadable > 0) {
    out.push(c.yellow(`${unreadable} message(s) are not zonecron dead letters (see --json)`));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

interface RedriveReport {
  key: string;
  jobId: string;
  scheduledAt: string;
  result: 'redriven' | 'refused' | 'failed';
  detail: string;
}

async function runRedrive(options: RedriveOptions): Promise<void> {
  if (!options.key === !options.all) throw usageError('pass exactly one of --key <key> or --all');
  if (options.key !== undefined && !/^[0-9a-f]{7,64}$/.test(options.key)) {
    throw usageError(`'${options.key}' is not a run key (7 to 64 lowercase hex characters)`);
  }
  const url = dlqUrl(options);
  const table = tableName(options);
  const { loadJobsFile } = await import('../../infra/config/load-jobs.ts');
  const config = loadJobsFile(options.config ?? 'jobs.yaml');
  const { readDeadLetters, releaseDeadLetters, deleteDeadLetter } = await import(
    '../aws/dead-letter-queue.ts'
  );
  const { createOperatorDispatcher } = await import('../aws/operator-dispatcher.ts');
  const { manualRunKey } = await import('../../functions/dispatcher/dispatch.ts');
  const { describeOutcome } = await import('../format/outcome.ts');
  const clients = await createCliClients(options);
  const reports: RedriveReport[] = [];
  try {
    let messages: QueuedDeadLetter[];
    try {
      messages = await readDeadLetters(clients.sqs, url, { release: false });
    } catch (error) {
      throw new CliError(`cannot read the dead-letter queue: ${describeError(error, clients)}`, {
        cause: error,
      });
    }
    const selected = messages.filter(
      (m) => m.body && (options.all || (options.key && m.body.key.startsWith(options.key))),
    );
    const keys = new Set(selected.map((m) => m.body?.key));
    const untouched = messages.filter((m) => !selected.includes(m));
    try {
      if (options.key && keys.size === 0) {
        throw new CliError(`no dead-lettered run with key ${options.key} in ${url}`);
      }
      if (options.key && keys.size > 1) {
        throw usageError(`key prefix ${options.key} matches ${keys.size} runs; give more of it`);
      }
      const { dispatcher } = createOperatorDispatcher({
        stackName: process.env.ZONECRON_STACK ?? 'Zonecron',
        clients,
        jobs: config.jobs,
        tableName: table,
        dlqUrl: url,
      });
      for (const message of selected) {
        const body = message.body;
        if (!body) continue;
        const at = new Date(body.envelope.scheduledAt);
        const manual = body.key === manualRunKey(body.jobId, at);
        const report: RedriveReport = {
          key: body.key,
          jobId: body.jobId,
          scheduledAt: body.envelope.scheduledAt,
          result: 'failed',
          detail: '',
        };
        reports.push(report);
        try {
          const outcome = await dispatcher.redrive({ jobId: body.jobId, at, manual });
          report.detail = describeOutcome(outcome);
          if (outcome.key !== body.key) {
            report.detail = `the dispatcher computed key ${outcome.key}, not the message's ${body.key}; message kept`;
          } else if (outcome.outcome === 'dispatched') {
            await deleteDeadLetter(clients.sqs, url, message);
            report.result = 'redriven';
          }
        } catch (error) {
          const name = (error as { name?: unknown }).name;
          report.result = name === 'RedriveRefusedError' ? 'refused' : 'failed';
          report.detail = describeError(error, clients);
        }
      }
    } finally {
      const kept = selected.filter(
        (m) => !reports.some((r) => r.key === m.body?.key && r.result === 'redriven'),
      );
      await releaseDeadLetters(clients.sqs, url, [...untouched, ...kept]);
    }
  } finally {
    clients.destroy();
  }

  if (options.json) {
    process.stdout.write(`${JSON.stringify({ queueUrl: url, runs: reports }, null, 2)}\n`);
  } else {
    const c = coloursFor(process.stdout);
    const out = reports.map((r) =>
      wrap(
        `${r.result === 'redriven' ? c.green('✓') : c.red('✗')} ${r.key.slice(0, 7)} ${r.jobId}: ${r.detail}`,
        '',
      ),
    );
    const done = reports.filter((r) => r.result === 'redriven').length;
    out.push(`${done} of ${reports.length} run${reports.length === 1 ? '' : 's'} redriven`);
    process.stdout.write(`${out.join('\n')}\n`);
  }
  if (reports.some((r) => r.result !== 'redriven')) process.exitCode = 1;
}
