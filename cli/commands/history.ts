import type { Command } from 'commander';
import type { RunItem } from '../../functions/shared/ledger-item.ts';
import {
  addConnectionOptions,
  type ConnectionOptions,
  createCliClients,
  tableName,
} from '../aws/connection.ts';
import { CliError, describeError } from '../errors.ts';
import { coloursFor } from '../format/colour.ts';
import { shortDuration } from '../format/durations.ts';
import { plainTable } from '../format/table.ts';
import { integerAtLeast, parseSince } from '../options.ts';

interface HistoryOptions extends ConnectionOptions {
  since: string;
  limit: number;
  json?: boolean;
}

const EXAMPLE = `
Example:
  $ zonecron history berlin-nightly-report --since 7d --table zonecron-ledger
  lists the job's runs of the last 7 days, newest first: when, the local slot
  they stand for, a note (gap, overlap, manual), status, delivery attempts (#),
  dispatch lag and the key's first 7 characters.`;

/** `zonecron history`: a job's runs from the ledger's `byJob` index. */
export function registerHistory(program: Command): void {
  const command = program
    .command('history')
    .description("show a job's runs from the ledger: status, attempts, lag")
    .argument('<jobId>', 'job id')
    .option('--since <when>', 'a duration back (24h, 7d, PT30M) or an ISO instant', '24h')
    .option('--limit <n>', 'show at most n runs, newest first', integerAtLeast(1), 50)
    .option('--json', 'print one JSON document');
  addConnectionOptions(command, { table: true }).addHelpText('after', EXAMPLE).action(runHistory);
}

function lagMs(run: RunItem): number | undefined {
  if (!run.dispatchedAt) return undefined;
  return Date.parse(run.dispatchedAt) - Date.parse(run.at);
}

async function runHistory(jobId: string, options: HistoryOptions): Promise<void> {
  const since = parseSince(options.since, new Date());
  const table = tableName(options);
  const { QueryCommand } = await import('@aws-sdk/client-dynamodb');
  const { decodeRun } = await import('../../functions/shared/ledger-item.ts');
  const { LEDGER_BY_JOB_INDEX, LEDGER_BY_JOB_PARTITION_KEY, LEDGER_BY_JOB_SORT_KEY } = await import(
    '../../functions/shared/ledger-table.ts'
  );
  const clients = await createCliClients(options);
  const runs: RunItem[] = [];
  try {
    let startKey: Record<string, import('@aws-sdk/client-dynamodb').AttributeValue> | undefined;
    do {
      const out = await clients.dynamodb.send(
        new QueryCommand({
          TableName: table,
          IndexName: LEDGER_BY_JOB_INDEX,
          KeyConditionExpression: '#job = :job AND #at >= :since',
          ExpressionAttributeNames: {
            '#job': LEDGER_BY_JOB_PARTITION_KEY,
            '#at': LEDGER_BY_JOB_SORT_KEY,
          },
          ExpressionAttributeValues: {
            ':job': { S: jobId },
            ':since': { S: since.toISOString() },
          },
          ScanIndexForward: false,
          Limit: options.limit - runs.length,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of out.Items ?? []) runs.push(decodeRun(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey && runs.length < options.limit);
  } catch (error) {
    throw new CliError(
      `cannot read the ledger table '${table}': ${describeError(error, clients)}`,
      {
        cause: error,
      },
    );
  } finally {
    clients.destroy();
  }

  if (options.json) {
    const doc = {
      jobId,
      since: since.toISOString(),
      runs: runs.map((run) => ({ ...run, lagMs: lagMs(run) ?? null })),
    };
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const c = coloursFor(process.stdout);
  const statusColour = (status: string) =>
    status === 'failed'
      ? c.red(status)
      : status === 'succeeded' || status === 'dispatched'
        ? c.green(status)
        : c.yellow(status);
  const out: string[] = [
    `${c.bold(jobId)}: ${runs.length} run${runs.length === 1 ? '' : 's'} since ${since.toISOString()}` +
      (runs.length === options.limit
        ? ` (newest ${options.limit}; see --limit)`
        : ' (newest first)'),
  ];
  if (runs.length > 0) {
    out.push('');
    out.push(
      plainTable(
        ['at (UTC)', 'nominal', 'note', 'status', '#', 'lag', 'key'],
        runs.map((run) => {
          const lag = lagMs(run);
          return [
            `${run.at.slice(0, 10)} ${run.at.slice(11, 16)}`,
            run.nominal,
            run.manual ? 'manual' : (run.skipReason ?? (run.dst === 'none' ? '' : run.dst)),
            statusColour(run.status),
            String(run.attempts),
            lag === undefined ? '' : shortDuration(lag),
            run.key.slice(0, 7),
          ];
        }),
      ),
    );
    const errors = runs.filter((r) => r.lastError);
    for (const run of errors.slice(0, 5)) {
      out.push(c.dim(`  ${run.key.slice(0, 7)}: ${run.lastError}`.slice(0, 80)));
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
