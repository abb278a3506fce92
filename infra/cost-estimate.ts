/**
 * What the stack costs per month for a jobs file, from AWS's published unit prices.
 *
 *   npx tsx infra/cost-estimate.ts [jobs.yaml] [--scale N]
 *
 * Counts come from the same code the stack uses: each enabled job's UTC covering expression
 * (ticks), the engine (real runs), the alarm list of `OnCallAlarms`. Prices are us-east-1 list
 * prices; durations and item sizes are stated assumptions (`ASSUMPTIONS`), printed with the
 * result. Free tiers are shown separately, never netted silently.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { occurrencesBetween } from '../functions/schedule/index.ts';
import type { JobDefinition } from '../functions/shared/job.ts';
import { scheduleSpecOf } from '../functions/shared/job.ts';
import { type JobsConfig, loadJobsFile } from './config/load-jobs.ts';
import { JOB_ALARMS, MACHINERY_ALARM_COUNT } from './constructs/on-call-alarms.ts';
import { coveringSchedule } from './covering/covering-cron.ts';

/** us-east-1 list prices (USD), as published on the services' pricing pages. */
export const PRICES = {
  schedulerPerMillionInvocations: 1.0,
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  dynamoOnDemandPerMillionWriteUnits: 0.625,
  dynamoOnDemandPerMillionReadUnits: 0.125,
  sqsPerMillionRequests: 0.4,
  cloudWatchAlarmPerMonth: 0.1,
  /** Per metric-month, tiered: first 10,000, next 240,000, next 750,000, above 1,000,000. */
  cloudWatchCustomMetricTiers: [
    { upTo: 10_000, usd: 0.3 },
    { upTo: 250_000, usd: 0.1 },
    { upTo: 1_000_000, usd: 0.05 },
    { upTo: Number.POSITIVE_INFINITY, usd: 0.02 },
  ],
  cloudWatchDashboardPerMonth: 3.0,
  logsIngestionPerGb: 0.5,
  logsStoragePerGbMonth: 0.03,
  kmsKeyPerMonth: 1.0,
} as const;

/** Monthly free tiers (always-free ones only), shown next to the gross figure. */
export const FREE_TIER = {
  schedulerInvocations: 14_000_000,
  lambdaRequests: 1_000_000,
  lambdaGbSeconds: 400_000,
  cloudWatchAlarms: 10,
  cloudWatchCustomMetrics: 10,
  cloudWatchDashboards: 3,
  logsIngestionGb: 5,
} as const;

/** What the prices are multiplied with besides the counts; change them here, not in prose. */
export const ASSUMPTIONS = {
  /** Billed milliseconds of one dispatcher invocation for a tick (claim, deliver, record). */
  dispatcherTickMs: 120,
  /** Billed milliseconds of one sweep with the example's handful of jobs. */
  dispatcherSweepMs: 60,
  dispatcherMemoryGb: 0.5,
  recorderMs: 40,
  recorderMemoryGb: 0.25,
  /** Item writes per real run: claim, dispatched (+ completed for lambda/stepfunctions). */
  writesPerRun: 2,
  writesPerCompletion: 1,
  /** Each item write is replicated to the `byJob` index: one more write unit. */
  indexWriteFactor: 2,
  /** Reads per real run (the claim's conditional write needs none; the sweep's batch read). */
  readUnitsPerRun: 1,
  /** Log bytes per invocation: start/end lines, EMF metrics, Lambda's REPORT line. */
  logBytesPerInvocation: 1_200,
  /** Per-job custom metrics emitted every month: Dispatched and DispatchLagSeconds, plus
   *  RunSucceeded and RunDurationSeconds for lambda/stepfunctions jobs. Failure counters
   *  are only billed in months they are emitted, so a healthy month has none. */
  metricsPerJob: 2,
  metricsPerCompletingJob: 2,
  /** Days in an average month. */
  daysPerMonth: 365.25 / 12,
} as const;

/** One line of the estimate. */
export interface CostLine {
  readonly item: string;
  readonly quantity: string;
  readonly usd: number;
}

/** The estimate for one config. */
export interface CostEstimate {
  readonly jobs: number;
  readonly ticksPerMonth: number;
  readonly runsPerMonth: number;
  readonly sweepsPerMonth: number;
  readonly alarms: number;
  readonly lines: readonly CostLine[];
  readonly totalUsd: number;
  /** The total if the account's always-free tiers are still unused. */
  readonly totalAfterFreeTierUsd: number;
}

const YEAR_MS = 365 * 86_400_000;

/** Custom metrics are priced in tiers. */
function customMetricsUsd(metrics: number): number {
  let usd = 0;
  let below = 0;
  for (const tier of PRICES.cloudWatchCustomMetricTiers) {
    const inTier = Math.max(0, Math.min(metrics, tier.upTo) - below);
    usd += inTier * tier.usd;
    below = tier.upTo;
  }
  return usd;
}

function perMonthFromYear(count: number): number {
  return (count * ASSUMPTIONS.daysPerMonth) / 365;
}

function completes(job: JobDefinition): boolean {
  return job.target.type === 'lambda' || job.target.type === 'stepfunctions';
}

/**
 * Ticks and runs of one job per average month, counted over one year from `from`.
 *
 * @example
 * jobVolumes(berlinNightly, new Date('2026-01-01T00:00:00Z'))
 * //=> { ticksPerMonth: 60.9, runsPerMonth: 30.4 }   (two UTC hours cover 02:30 Berlin)
 */
export function jobVolumes(
  job: JobDefinition,
  from: Date,
): { ticksPerMonth: number; runsPerMonth: number } {
  const to = new Date(from.getTime() + YEAR_MS);
  const covering = coveringSchedule(job, from);
  const ticks = occurrencesBetween({ cron: covering.cron, timezone: 'UTC' }, from, to).length;
  const runs = occurrencesBetween(scheduleSpecOf(job), from, to).length;
  return { ticksPerMonth: perMonthFromYear(ticks), runsPerMonth: perMonthFromYear(runs) };
}

/** Estimates a month of the stack for `config`; `scale` replicates its enabled jobs N times. */
export function estimateMonthlyCost(config: JobsConfig, from: Date, scale = 1): CostEstimate {
  const enabled = config.jobs.filter((job) => job.enabled);
  let ticks = 0;
  let runs = 0;
  let completingRuns = 0;
  let jobAlarms = 0;
  for (const job of enabled) {
    const v = jobVolumes(job, from);
    ticks += v.ticksPerMonth * scale;
    runs += v.runsPerMonth * scale;
    if (completes(job)) completingRuns += v.runsPerMonth * scale;
    jobAlarms += JOB_ALARMS.filter((spec) => spec.appliesTo(job)).length * scale;
  }
  const jobs = enabled.length * scale;
  const completingJobs = enabled.filter(completes).length * scale;
  const sweeps = 60 * 24 * ASSUMPTIONS.daysPerMonth;
  const alarms = MACHINERY_ALARM_COUNT + jobAlarms;
  const metrics =
    jobs * ASSUMPTIONS.metricsPerJob + completingJobs * ASSUMPTIONS.metricsPerCompletingJob;

  const invocations = ticks + sweeps + completingRuns;
  const gbSeconds =
    (ticks * ASSUMPTIONS.dispatcherTickMs * ASSUMPTIONS.dispatcherMemoryGb +
      sweeps * ASSUMPTIONS.dispatcherSweepMs * ASSUMPTIONS.dispatcherMemoryGb +
      completingRuns * ASSUMPTIONS.recorderMs * ASSUMPTIONS.recorderMemoryGb) /
    1000;
  const writeUnits =
    (runs * ASSUMPTIONS.writesPerRun + completingRuns * ASSUMPTIONS.writesPerCompletion) *
    ASSUMPTIONS.indexWriteFactor;
  const readUnits = runs * ASSUMPTIONS.readUnitsPerRun;
  const logGb = (invocations * ASSUMPTIONS.logBytesPerInvocation) / 1e9;

  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const lines: CostLine[] = [
    {
      item: 'EventBridge Scheduler invocations',
      quantity: `${fmt(ticks)} ticks + ${fmt(sweeps)} sweeps`,
      usd: ((ticks + sweeps) / 1e6) * PRICES.schedulerPerMillionInvocations,
    },
    {
      item: 'Lambda requests (dispatcher + recorder)',
      quantity: fmt(invocations),
      usd: (invocations / 1e6) * PRICES.lambdaPerMillionRequests,
    },
    {
      item: 'Lambda duration, arm64',
      quantity: `${fmt(gbSeconds)} GB-s`,
      usd: gbSeconds * PRICES.lambdaArmPerGbSecond,
    },
    {
      item: 'DynamoDB on-demand writes (incl. index)',
      quantity: `${fmt(writeUnits)} WRU`,
      usd: (writeUnits / 1e6) * PRICES.dynamoOnDemandPerMillionWriteUnits,
    },
    {
      item: 'DynamoDB on-demand reads',
      quantity: `${fmt(readUnits)} RRU`,
      usd: (readUnits / 1e6) * PRICES.dynamoOnDemandPerMillionReadUnits,
    },
    { item: 'SQS dead-letter queue (idle)', quantity: '0 requests', usd: 0 },
    {
      item: 'CloudWatch alarms',
      quantity: `${fmt(alarms)} alarms`,
      usd: alarms * PRICES.cloudWatchAlarmPerMonth,
    },
    {
      item: 'CloudWatch custom metrics',
      quantity: `${fmt(metrics)} metrics`,
      usd: customMetricsUsd(metrics),
    },
    { item: 'CloudWatch dashboard', quantity: '1', usd: PRICES.cloudWatchDashboardPerMonth },
    {
      item: 'CloudWatch Logs ingestion + 1 month storage',
      quantity: `${logGb.toFixed(3)} GB`,
      usd: logGb * (PRICES.logsIngestionPerGb + PRICES.logsStoragePerGbMonth),
    },
    { item: 'KMS key (alarm topic)', quantity: '1 key', usd: PRICES.kmsKeyPerMonth },
  ];
  const totalUsd = lines.reduce((sum, line) => sum + line.usd, 0);
  const free =
    (Math.min(ticks + sweeps, FREE_TIER.schedulerInvocations) / 1e6) *
      PRICES.schedulerPerMillionInvocations +
    (Math.min(invocations, FREE_TIER.lambdaRequests) / 1e6) * PRICES.lambdaPerMillionRequests +
    Math.min(gbSeconds, FREE_TIER.lambdaGbSeconds) * PRICES.lambdaArmPerGbSecond +
    Math.min(alarms, FREE_TIER.cloudWatchAlarms) * PRICES.cloudWatchAlarmPerMonth +
    customMetricsUsd(Math.min(metrics, FREE_TIER.cloudWatchCustomMetrics)) +
    PRICES.cloudWatchDashboardPerMonth +
    Math.min(logGb, FREE_TIER.logsIngestionGb) * PRICES.logsIngestionPerGb;
  return {
    jobs,
    ticksPerMonth: ticks,
    runsPerMonth: runs,
    sweepsPerMonth: sweeps,
    alarms,
    lines,
    totalUsd,
    totalAfterFreeTierUsd: Math.max(0, totalUsd - free),
  };
}

/** Renders an estimate as a plain-text table. */
export function renderEstimate(file: string, estimate: CostEstimate): string {
  const rows = estimate.lines.map(
    (line) =>
      `  ${line.item.padEnd(44)} ${line.quantity.padEnd(30)} $${line.usd.toFixed(2).padStart(9)}`,
  );
  return [
    `zonecron monthly cost for ${file}: ${estimate.jobs} enabled jobs, ${Math.round(estimate.runsPerMonth).toLocaleString('en-US')} runs/month`,
    ...rows,
    `  ${'total (list prices)'.padEnd(75)} $${estimate.totalUsd.toFixed(2).padStart(9)}`,
    `  ${'total with the always-free tiers unused'.padEnd(75)} $${estimate.totalAfterFreeTierUsd.toFixed(2).padStart(9)}`,
  ].join('\n');
}

function main(): void {
  const args = process.argv.slice(2);
  const scaleAt = args.indexOf('--scale');
  const scale = scaleAt >= 0 ? Number(args[scaleAt + 1]) : 1;
  const file = args.find((arg, i) => !arg.startsWith('--') && i !== scaleAt + 1) ?? 'jobs.yaml';
  if (!Number.isInteger(scale) || scale < 1) {
    throw new Error(`invalid --scale '${args[scaleAt + 1]}' (allowed: a whole number >= 1)`);
  }
  const config = loadJobsFile(resolve(file));
  // A fixed year, so the printed figures are reproducible.
  const estimate = estimateMonthlyCost(config, new Date('2026-01-01T00:00:00.000Z'), scale);
  process.stdout.write(`${renderEstimate(scale === 1 ? file : `${file} ×${scale}`, estimate)}\n`);
  process.stdout.write(
    `\nassumptions: ${JSON.stringify(ASSUMPTIONS)}\nprices (us-east-1, USD): ${JSON.stringify(PRICES)}\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
