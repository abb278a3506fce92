/**
 * Prints each job's UTC covering expression and its ticks per run, as the stack will deploy it.
 *
 * Usage: `npx tsx infra/covering/print-covering.ts [jobs.yaml] [--from 2026-01-01T00:00:00Z]`.
 * Without `--from` it starts now, like `cdk synth`; with it, the output is reproducible.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_JOBS_FILE, isConfigError, loadJobsFile } from '../config/load-jobs.ts';
import { COVERING_WINDOW_YEARS, coveringSchedule } from './covering-cron.ts';

const { values, positionals } = parseArgs({
  options: { from: { type: 'string' } },
  allowPositionals: true,
});
const file = positionals[0] ?? DEFAULT_JOBS_FILE;
const from = values.from === undefined ? new Date() : new Date(values.from);
if (Number.isNaN(from.getTime())) {
  console.error(`invalid --from '${values.from}' (expected an ISO 8601 instant)`);
  process.exit(2);
}

try {
  const { jobs } = loadJobsFile(file);
  console.log(
    `# ${file}: covering expressions for ${COVERING_WINDOW_YEARS} years from ${from.toISOString()}`,
  );
  const rows = jobs.map((job) => {
    const covering = coveringSchedule(job, from);
    return [
      job.id,
      `${job.schedule} ${job.timezone}`,
      covering.awsExpression,
      covering.ticksPerRun.toFixed(2),
      covering.covers,
    ];
  });
  const header = ['job', 'schedule', 'UTC schedule (EventBridge)', 'ticks/run', 'covers'];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  for (const row of [header, ...rows]) {
    console.log(
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  }
} catch (error) {
  if (!isConfigError(error)) throw error;
  console.error(error.message);
  process.exit(1);
}
