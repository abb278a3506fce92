/**
 * `npm run cost`: the monthly cost of a jobs file, or the table of docs/deploy.md ("What it
 * costs") for generated jobs; the estimate itself is `infra/app/cost-estimate.ts`.
 *
 *   npm run cost                   the example jobs.yaml
 *   npm run cost -- path/to/jobs.yaml
 *   npm run cost -- --table        10 / 100 / 1,000 / 10,000 generated jobs, hourly and daily
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ASSUMPTIONS, estimateConfig, PRICES, renderEstimate } from '../infra/app/cost-estimate.ts';
import { loadJobsFile, parseJobsConfig } from '../infra/config/load-jobs.ts';
import { generateJobsYaml, type JobMix } from './generate-jobs.ts';

/** The docs table: generated jobs, seed 1, an hourly and a daily mix at four sizes. */
function renderTable(): string {
  const rows = [
    'jobs    mix     alarms  ticks/month   total/month  CloudWatch  CloudWatch, worst month',
  ];
  for (const count of [10, 100, 1_000, 10_000]) {
    for (const mix of ['hourly', 'daily'] as JobMix[]) {
      const config = parseJobsConfig(
        generateJobsYaml({ count, seed: 1, mix }),
        `${mix}-${count}.yaml`,
      );
      const estimate = estimateConfig(config);
      rows.push(
        [
          String(count).padEnd(7),
          mix.padEnd(7),
          String(estimate.alarms).padStart(6),
          Math.round(estimate.ticksPerMonth).toLocaleString('en-US').padStart(12),
          `$${estimate.totalUsd.toFixed(2)}`.padStart(13),
          `$${estimate.cloudWatchUsd.toFixed(2)}`.padStart(11),
          `$${estimate.cloudWatchWorstUsd.toFixed(2)}`.padStart(12),
        ].join(' '),
      );
    }
  }
  return rows.join('\n');
}

function main(): void {
  const { values, positionals } = parseArgs({
    options: { table: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.table) {
    process.stdout.write(`${renderTable()}\n`);
    return;
  }
  const file = positionals[0] ?? 'jobs.yaml';
  const estimate = estimateConfig(loadJobsFile(resolve(file)));
  process.stdout.write(`${renderEstimate(`zonecron monthly cost for ${file}`, estimate)}\n`);
  process.stdout.write(
    `\nassumptions: ${JSON.stringify(ASSUMPTIONS)}\nprices (us-east-1, USD): ${JSON.stringify(PRICES)}\n`,
  );
}

main();
