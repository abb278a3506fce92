import type { Command } from 'commander';
import {
  addConnectionOptions,
  type ConnectionOptions,
  connect,
  type OperateConnection,
} from '../aws/connection.ts';
import type { RedriveReport } from '../aws/dead-letter-actions.ts';
import type { QueuedDeadLetter } from '../aws/dead-letter-queue.ts';
import { CliError, describeError, isCliError, usageError } from '../errors.ts';
import { type Colours, coloursFor } from '../format/colour.ts';
import { plainTable, wrap } from '../format/table.ts';

interface ListOptions extends ConnectionOptions {
  json?: boolean;
}

interface RedriveOptions extends ConnectionOptions {
  key?: string;
  all?: boolean;
  json?: boolean;
  reason?: string;
}

interface DiscardOptions extends ConnectionOptions {
  key: string;
  reason?: string;
  json?: boolean;
}

const KEY_OPTION = [
  '--key <key>',
  'the run key (or a unique prefix of at least 7 characters)',
] as const;

/** `zonecron dlq list`, `zonecron dlq redrive` and `zonecron dlq discard`. */
export function registerDlq(program: Command): void {
  const dlq = program
    .command('dlq')
    .description('inspect, redrive and discard runs in the dead-letter queue')
    .addHelpText(
      'after',
      `
Example:
  $ zonecron dlq list --stack Zonecron
  $ zonecron dlq redrive --all --stack Zonecron
  $ zonecron dlq discard --key 3f2a9c1 --reason "ran by hand" --stack Zonecron`,
    );
  registerList(dlq);
  registerRedrive(dlq);
  registerDiscard(dlq);
}

function registerList(dlq: Command): void {
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
}

function registerRedrive(dlq: Command): void {
  const redrive = dlq
    .command('redrive')
    .description('deliver dead-lettered runs again under their original keys')
    .option(...KEY_OPTION)
    .option('--all', 'every run in the queue')
    .option('--reason <text>', 'why, for the ledger (zonecron history shows it)')
    .option('--json', 'print one JSON document');
  addConnectionOptions(redrive, { table: true, dlq: true, config: true })
    .addHelpText(
      'after',
      `
Example:
  $ zonecron dlq redrive --key 3f2a9c1 --stack Zonecron
  makes one delivery attempt through the dispatcher under the run's original key
  and deletes the message once the run is delivered, or was delivered meanwhile;
  a failed attempt keeps the message (and adds none). Each run's redrive is
  recorded for zonecron history, with who, when, why and its result.`,
    )
    .action(runRedrive);
}

function registerDiscard(dlq: Command): void {
  const discard = dlq
    .command('discard')
    .description("remove a dead letter on purpose; the run's state stays as it is")
    .requiredOption(...KEY_OPTION)
    .option('--reason <text>', 'why, for the ledger (zonecron history shows it)')
    .option('--json', 'print one JSON document');
  addConnectionOptions(discard, { table: true, dlq: true })
    .addHelpText(
      'after',
      `
Example:
  $ zonecron dlq discard --key 3f2a9c1 --reason "ran by hand" --stack Zonecron
  deletes the run's message(s) from the queue and records who discarded it and
  why in the ledger; the run itself is not changed (history still shows it).`,
    )
    .action(runDiscard);
}

function scheduledAt(message: QueuedDeadLetter): string {
  return message.body?.envelope.scheduledAt ?? '';
}

/** Reads the queue's messages; `release: false` keeps them hidden for the caller to act on. */
async function readQueue(
  connection: OperateConnection,
  url: string,
  release: boolean,
): Promise<QueuedDeadLetter[]> {
  const { readDeadLetters } = await import('../aws/dead-letter-queue.ts');
  try {
    return await readDeadLetters(connection.clients.sqs, url, { release });
  } catch (error) {
    throw new CliError(
      `cannot read the dead-letter queue: ${describeError(error, connection.clients)}`,
      { cause: error },
    );
  }
}

async function runList(options: ListOptions): Promise<void> {
  const connection = await connect(options);
  let url: string;
  let messages: QueuedDeadLetter[];
  try {
    url = connection.dlqUrl();
    messages = await readQueue(connection, url, true);
  } finally {
    connection.destroy();
  }
  const text = options.json
    ? JSON.stringify(listJson(url, messages), null, 2)
    : listText(url, messages, coloursFor(process.stdout));
  process.stdout.write(`${text}\n`);
}

function listJson(queueUrl: string, messages: readonly QueuedDeadLetter[]) {
  return {
    queueUrl,
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
}

function listText(url: string, messages: readonly QueuedDeadLetter[], c: Colours): string {
  const out = [`${messages.length} dead-lettered run${messages.length === 1 ? '' : 's'} in ${url}`];
  const readable = messages.filter((m) => m.body);
  if (readable.length > 0) out.push('', ...deadLetterTable(readable, c));
  const unreadable = messages.length - readable.length;
  if (unreadable > 0) {
    out.push(c.yellow(`${unreadable} message(s) are not zonecron dead letters (see --json)`));
  }
  return out.join('\n');
}

/** The readable dead letters as a table, each with its last error under it. */
function deadLetterTable(readable: readonly QueuedDeadLetter[], c: Colours): string[] {
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
  const out = [c.dim(table[0] ?? '')];
  readable.forEach((m, i) => {
    out.push(table[i + 1] ?? '');
    out.push(c.dim(wrap(`last error: ${m.body?.lastError ?? ''}`, '        ')));
  });
  return out;
}

/** The messages a `--key` (a unique prefix) or `--all` selects, and the rest. */
function selectMessages(
  messages: readonly QueuedDeadLetter[],
  selector: { key?: string; all?: boolean },
  url: string,
) {
  const selected = messages.filter(
    (m) => m.body && (selector.all || (selector.key && m.body.key.startsWith(selector.key))),
  );
  const keys = new Set(selected.map((m) => m.body?.key ?? ''));
  if (selector.key && keys.size === 0) {
    throw new CliError(`no dead-lettered run with key ${selector.key} in ${url}`);
  }
  if (selector.key && keys.size > 1) {
    throw usageError(`key prefix ${selector.key} matches ${keys.size} runs; give more of it`);
  }
  return { selected, keys: [...keys], untouched: messages.filter((m) => !selected.includes(m)) };
}

function checkKey(key: string | undefined): void {
  if (key !== undefined && !/^[0-9a-f]{7,64}$/.test(key)) {
    throw usageError(`'${key}' is not a run key (7 to 64 lowercase hex characters)`);
  }
}

/** Deletes messages (all of one run's, after it was handled). */
async function deleteAll(
  connection: OperateConnection,
  url: string,
  messages: readonly QueuedDeadLetter[],
): Promise<void> {
  const { deleteDeadLetter } = await import('../aws/dead-letter-queue.ts');
  for (const message of messages) await deleteDeadLetter(connection.clients.sqs, url, message);
}

async function runRedrive(options: RedriveOptions): Promise<void> {
  if (!options.key === !options.all) throw usageError('pass exactly one of --key <key> or --all');
  checkKey(options.key);
  const { releaseDeadLetters } = await import('../aws/dead-letter-queue.ts');
  const { dispatcherFor } = await import('../aws/operator-dispatcher.ts');
  const { redriveOne } = await import('../aws/dead-letter-actions.ts');
  const connection = await connect(options);
  const reports: RedriveReport[] = [];
  let url = '';
  try {
    url = connection.dlqUrl();
    const { loadOperatedJobs, warnOfDifferences } = await import('../aws/operated-job.ts');
    const file = options.config ?? 'jobs.yaml';
    const loaded = await loadOperatedJobs(connection, file);
    const config = loaded.jobs;
    const messages = await readQueue(connection, url, false);
    const handled: QueuedDeadLetter[] = [];
    try {
      const { selected, keys } = selectMessages(messages, options, url);
      const jobIds = new Set(selected.map((m) => m.body?.jobId));
      for (const id of jobIds) if (id) await warnOfDifferences(loaded, file, id);
      const { dispatcher } = dispatcherFor(connection, config);
      for (const key of keys) {
        const ofKey = selected.filter((m) => m.body?.key === key);
        const remove = async () => {
          await deleteAll(connection, url, ofKey);
          handled.push(...ofKey);
        };
        reports.push(await redriveOne(dispatcher, ofKey, remove));
      }
      await recordRedrives(connection, config.retentionDays, reports, options.reason);
    } finally {
      await releaseDeadLetters(
        connection.clients.sqs,
        url,
        messages.filter((m) => !handled.includes(m)),
      );
    }
  } finally {
    connection.destroy();
  }
  printRedrive(url, reports, options.json ?? false);
  if (reports.some((r) => r.result === 'failed' || r.result === 'refused')) process.exitCode = 1;
}

/** Each redrive as an operator event of its job: who, when, why, and what became of the run. */
async function recordRedrives(
  connection: OperateConnection,
  retentionDays: number,
  reports: readonly RedriveReport[],
  reason: string | undefined,
): Promise<void> {
  const { openLedger, onLedgerTable } = await import('../aws/ledger-access.ts');
  const { recordOperatorAction } = await import('../aws/operator-log.ts');
  const access = openLedger(connection);
  for (const r of reports) {
    await onLedgerTable(access.tableName, connection.clients, 'update', () =>
      recordOperatorAction(access.log, connection, {
        jobId: r.jobId,
        action: 'redriven',
        runKey: r.key,
        detail: `${r.result}: ${r.detail}`,
        ...(reason ? { reason } : {}),
        retentionDays,
      }),
    );
  }
}

function printRedrive(url: string, reports: readonly RedriveReport[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ queueUrl: url, runs: reports }, null, 2)}\n`);
    return;
  }
  const c = coloursFor(process.stdout);
  const ok = (r: RedriveReport) => r.result === 'redriven' || r.result === 'already-delivered';
  const out = reports.map((r) =>
    wrap(`${ok(r) ? c.green('✓') : c.red('✗')} ${r.key.slice(0, 7)} ${r.jobId}: ${r.detail}`, ''),
  );
  const done = reports.filter((r) => r.result === 'redriven').length;
  const handled = reports.filter((r) => r.result === 'already-delivered').length;
  out.push(
    `${done} of ${reports.length} run${reports.length === 1 ? '' : 's'} redriven` +
      (handled > 0 ? `, ${handled} delivered before (messages deleted)` : ''),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

async function runDiscard(options: DiscardOptions): Promise<void> {
  checkKey(options.key);
  const { releaseDeadLetters } = await import('../aws/dead-letter-queue.ts');
  const { openLedger } = await import('../aws/ledger-access.ts');
  const { callerIdentity } = await import('../aws/caller-identity.ts');
  const { discardDeadLetter } = await import('../aws/dead-letter-actions.ts');
  const connection = await connect(options);
  try {
    const url = connection.dlqUrl();
    const access = openLedger(connection);
    const messages = await readQueue(connection, url, false);
    let discarded: QueuedDeadLetter[] = [];
    try {
      const { selected } = selectMessages(messages, options, url);
      const body = selected[0]?.body;
      if (!body) throw new CliError(`no dead-lettered run with key ${options.key} in ${url}`);
      const by = await callerIdentity(connection);
      const reason = options.reason ?? 'no reason given';
      const deps = { ledger: access.ledger, log: access.log, clock: () => new Date() };
      const run = await discardDeadLetter(deps, {
        body,
        by,
        reason,
        deleteMessages: async () => {
          await deleteAll(connection, url, selected);
          discarded = selected;
        },
      });
      printDiscard(options, {
        key: body.key,
        jobId: body.jobId,
        scheduledAt: body.envelope.scheduledAt,
        messages: selected.length,
        status: run.status,
        by,
        reason,
      });
    } finally {
      await releaseDeadLetters(
        connection.clients.sqs,
        url,
        messages.filter((m) => !discarded.includes(m)),
      );
    }
  } catch (error) {
    if (isCliError(error)) throw error;
    throw new CliError(`discard failed: ${describeError(error, connection.clients)}`, {
      cause: error,
    });
  } finally {
    connection.destroy();
  }
}

function printDiscard(
  options: DiscardOptions,
  d: {
    key: string;
    jobId: string;
    scheduledAt: string;
    messages: number;
    status: string | undefined;
    by: string;
    reason: string;
  },
): void {
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ discarded: d }, null, 2)}\n`);
    return;
  }
  const copies = d.messages === 1 ? '' : ` (${d.messages} messages)`;
  const lines = [
    wrap(
      `discarded the dead letter of run ${d.key.slice(0, 7)} of '${d.jobId}' at ${d.scheduledAt}${copies}`,
      '',
    ),
    wrap(`by ${d.by}: ${d.reason}`, '  '),
    wrap(
      `the run is unchanged in the ledger (${d.status ?? 'no item: expired'}); zonecron history ${d.jobId} shows the discard`,
      '  ',
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
