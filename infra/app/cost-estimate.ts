/**
 * What an installation costs per month, counted from what the synthesized app contains.
 *
 *   npm run cost [-- jobs.yaml]   one jobs file (scripts/cost-estimate.ts)
 *   npm run cost -- --table        10 / 100 / 1,000 / 10,000 generated jobs, an hourly mix
 *                                  and a daily mix
 *
 * The app is synthesized as `zonecron validate` does (`offline-synth.ts`), and the estimate
 * counts its templates: alarms, dashboards, Contributor Insights rules, event rules, KMS keys,
 * schedules, stacks. Ticks and runs come from each job's covering computation (the same
 * numbers behind its ticks per run). Custom metrics follow the metric contract
 * (`functions/shared/metrics.ts`): which metrics every healthy month publishes, and the worst
 * month in which every metric is published. Prices are us-east-1 list prices from the
 * services' pricing pages, cited next to each; durations and sizes are stated assumptions
 * (`ASSUMPTIONS`), printed with the result.
 */
import { tracksCompletion } from '#jobs/job.ts';
import type { GlobalMetricName, RunMetricName } from '#shared/metrics.ts';
import type { JobsConfig } from '../config/load-jobs.ts';
import type { TemplateSummary } from '../limits/check-assembly.ts';
import { synthesizeOffline } from './offline-synth.ts';
import type { ZonecronInstallation } from './zonecron-app.ts';

/** us-east-1 list prices (USD). */
export const PRICES = {
  /** EventBridge pricing: Scheduler, $1.00 per million invocations (14 million free a month). */
  schedulerPerMillionInvocations: 1.0,
  /** EventBridge pricing: custom events, $1.00 per million (Lambda's destination records). */
  eventBridgeCustomEventsPerMillion: 1.0,
  /** AWS Lambda pricing: arm64 duration, per GB-second. */
  lambdaArmPerGbSecond: 0.0000133334,
  /** AWS Lambda pricing: requests, per million. */
  lambdaPerMillionRequests: 0.2,
  /** Amazon DynamoDB pricing, on-demand: write and read request units, per million. */
  dynamoOnDemandPerMillionWriteUnits: 0.625,
  dynamoOnDemandPerMillionReadUnits: 0.125,
  /** Amazon CloudWatch pricing: a standard-resolution metric alarm, per month. */
  cloudWatchAlarmPerMonth: 0.1,
  /** Amazon CloudWatch pricing: custom metrics per metric-month, tiered. */
  cloudWatchCustomMetricTiers: [
    { upTo: 10_000, usd: 0.3 },
    { upTo: 250_000, usd: 0.1 },
    { upTo: 1_000_000, usd: 0.05 },
    { upTo: Number.POSITIVE_INFINITY, usd: 0.02 },
  ],
  /** Amazon CloudWatch pricing: a dashboard, per month. */
  cloudWatchDashboardPerMonth: 3.0,
  /**
   * Amazon CloudWatch pricing: Contributor Insights for CloudWatch Logs, per rule-month. (It
   * also charges $0.02 per million matched log lines; the rule matches failure decisions
   * only, none in a healthy month.)
   */
  contributorInsightsRulePerMonth: 0.5,
  /** Amazon CloudWatch pricing: Logs ingestion (standard) per GB, storage per GB-month. */
  logsIngestionPerGb: 0.5,
  logsStoragePerGbMonth: 0.03,
  /** AWS Key Management Service pricing: a customer managed key, per month. */
  kmsKeyPerMonth: 1.0,
} as const;

/** What the prices are multiplied with besides the counts; change them here, not in prose. */
export const ASSUMPTIONS = {
  /** Billed milliseconds of one dispatcher invocation for a tick (claim, deliver, record). */
  dispatcherTickMs: 120,
  /** Billed milliseconds of one sweep (four queries of the open-runs index). */
  dispatcherSweepMs: 100,
  dispatcherMemoryGb: 0.5,
  recorderMs: 40,
  recorderMemoryGb: 0.25,
  /**
   * Writes per on-time run (`npm run bench:dispatch`, section 1): the job's watermark, then the
   * run item's claim and dispatched; one more run item write when a lambda/stepfunctions run
   * ends.
   */
  jobStateWritesPerRun: 1,
  runItemWritesPerRun: 2,
  writesPerCompletion: 1,
  /** Each run item write also writes the `byJob` and (while open) `byOpen` indexes. */
  indexWriteFactor: 3,
  /** The sweep queries each of the 4 `byOpen` shards once a minute: at most a read unit each. */
  sweepReadUnits: 4,
  /** The recorder reads the run before it records its end: one consistent read (≤ 4 KB). */
  readUnitsPerCompletion: 1,
  /** Log bytes per invocation (start/end, EMF, REPORT) and per run (its decision line). */
  logBytesPerInvocation: 1_200,
  logBytesPerRun: 600,
  /** Days in an average month. */
  daysPerMonth: 365.25 / 12,
} as const;

/**
 * The metrics of the contract (`functions/shared/metrics.ts`), split by when they are
 * published: every month a stack runs jobs, or only in a minute something goes wrong or out
 * of the ordinary. `RunSucceeded` and `RunDurationSeconds` only exist for lambda and
 * stepfunctions targets.
 */
const ALWAYS_RUN_METRICS: readonly RunMetricName[] = ['Dispatched', 'DispatchLagSeconds'];
const COMPLETION_METRICS: readonly RunMetricName[] = ['RunSucceeded', 'RunDurationSeconds'];
const OCCASIONAL_RUN_METRICS: readonly RunMetricName[] = [
  'DuplicatesSuppressed',
  'DeliveryFailures',
  'DeadLettered',
  'CaughtUp',
  'CatchupDropped',
  'SkippedOverlap',
  'SkippedPaused',
  'MissedRuns',
  'LateRuns',
  'StuckRuns',
  'DeadlineMissedRuns',
  'Redelivered',
  'RunFailed',
];
const STACK_ONLY_METRICS: readonly GlobalMetricName[] = [
  'MalformedEvents',
  'ForgedCompletions',
  'UnknownJobEvents',
  'DisabledJobEvents',
  'RejectedTicks',
  'NotificationsSent',
  'NotificationFailures',
  'ZoneDataDrift',
];

/** One line of the estimate. */
export interface CostLine {
  readonly item: string;
  readonly quantity: string;
  readonly usd: number;
  /** Whether the line is CloudWatch (alarms, metrics, dashboards, Contributor Insights). */
  readonly cloudWatch: boolean;
}

/** The estimate for one installation. */
export interface CostEstimate {
  readonly jobs: number;
  readonly stacks: number;
  readonly schedules: number;
  readonly alarms: number;
  readonly ticksPerMonth: number;
  readonly runsPerMonth: number;
  readonly lines: readonly CostLine[];
  readonly totalUsd: number;
  /** Alarms, metrics, dashboards and Contributor Insights, in a healthy month. */
  readonly cloudWatchUsd: number;
  /** The same in a month in which every metric of the contract is published. */
  readonly cloudWatchWorstUsd: number;
}

const MONTH_MS = ASSUMPTIONS.daysPerMonth * 86_400_000;

/** Custom metrics are priced in tiers. */
export function customMetricsUsd(metrics: number): number {
  let usd = 0;
  let below = 0;
  for (const tier of PRICES.cloudWatchCustomMetricTiers) {
    usd += Math.max(0, Math.min(metrics, tier.upTo) - below) * tier.usd;
    below = tier.upTo;
  }
  return usd;
}

/** The count of one resource type over the installation's templates. */
function countOf(templates: readonly TemplateSummary[], type: string): number {
  return templates.reduce((sum, template) => sum + (template.types[type] ?? 0), 0);
}

/** Custom metrics of a healthy month and of the worst month. */
function metricCounts(installation: ZonecronInstallation): { healthy: number; worst: number } {
  const enabled = installation.config.jobs.filter((job) => job.enabled);
  const completes = (type: string) => type === 'lambda' || type === 'stepfunctions';
  const anyCompleting = enabled.some((job) => completes(job.target.type));
  const dedicated = enabled.filter((job) => job.alarm.dedicated);
  const perCopy = (completing: boolean) =>
    ALWAYS_RUN_METRICS.length + (completing ? COMPLETION_METRICS.length : 0);
  const healthy =
    (enabled.length > 0 ? perCopy(anyCompleting) : 0) +
    dedicated.reduce((sum, job) => sum + perCopy(completes(job.target.type)), 0);
  const allRun =
    ALWAYS_RUN_METRICS.length + COMPLETION_METRICS.length + OCCASIONAL_RUN_METRICS.length;
  const worst = allRun + STACK_ONLY_METRICS.length + dedicated.length * allRun;
  return { healthy, worst };
}

/** What one installation does in a month, from its coverings. */
interface MonthlyVolume {
  readonly ticks: number;
  readonly runs: number;
  /** Runs whose completion the recorder records (`lambda`, `stepfunctions`). */
  readonly completingRuns: number;
  readonly lambdaRuns: number;
  readonly sweeps: number;
}

function monthlyVolume(installation: ZonecronInstallation): MonthlyVolume {
  const perMonth = (count: number, countedMs: number) => (count * MONTH_MS) / countedMs;
  let ticks = 0;
  let runs = 0;
  let completingRuns = 0;
  let lambdaRuns = 0;
  for (const { job, details } of installation.coverings) {
    ticks += perMonth(details.ticks, details.countedMs);
    const jobRuns = perMonth(details.runs, details.countedMs);
    runs += jobRuns;
    if (tracksCompletion(job)) completingRuns += jobRuns;
    if (job.target.type === 'lambda') lambdaRuns += jobRuns;
  }
  return { ticks, runs, completingRuns, lambdaRuns, sweeps: 60 * 24 * ASSUMPTIONS.daysPerMonth };
}

/** What the installation's templates contain that costs money by the month. */
function resourceCounts(templates: readonly TemplateSummary[]) {
  return {
    alarms: countOf(templates, 'AWS::CloudWatch::Alarm'),
    dashboards: countOf(templates, 'AWS::CloudWatch::Dashboard'),
    insightRules: countOf(templates, 'AWS::CloudWatch::InsightRule'),
    keys: countOf(templates, 'AWS::KMS::Key'),
    schedules: countOf(templates, 'AWS::Scheduler::Schedule'),
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function line(item: string, quantity: string, usd: number, cloudWatch = false): CostLine {
  return { item, quantity, usd, cloudWatch };
}

/** Scheduler, Lambda, DynamoDB, EventBridge and Logs: what grows with the runs. */
function usageLines(volume: MonthlyVolume): CostLine[] {
  const { ticks, runs, completingRuns, lambdaRuns, sweeps } = volume;
  const invocations = ticks + sweeps + completingRuns;
  const gbSeconds =
    (ticks * ASSUMPTIONS.dispatcherTickMs * ASSUMPTIONS.dispatcherMemoryGb +
      sweeps * ASSUMPTIONS.dispatcherSweepMs * ASSUMPTIONS.dispatcherMemoryGb +
      completingRuns * ASSUMPTIONS.recorderMs * ASSUMPTIONS.recorderMemoryGb) /
    1000;
  const writeUnits =
    runs * ASSUMPTIONS.jobStateWritesPerRun +
    (runs * ASSUMPTIONS.runItemWritesPerRun + completingRuns * ASSUMPTIONS.writesPerCompletion) *
      ASSUMPTIONS.indexWriteFactor;
  const readUnits =
    sweeps * ASSUMPTIONS.sweepReadUnits + completingRuns * ASSUMPTIONS.readUnitsPerCompletion;
  const logGb =
    (invocations * ASSUMPTIONS.logBytesPerInvocation + runs * ASSUMPTIONS.logBytesPerRun) / 1e9;
  return [
    line(
      'EventBridge Scheduler invocations',
      `${fmt(ticks)} ticks + ${fmt(sweeps)} sweeps`,
      ((ticks + sweeps) / 1e6) * PRICES.schedulerPerMillionInvocations,
    ),
    line(
      'Lambda requests (dispatcher + recorder)',
      fmt(invocations),
      (invocations / 1e6) * PRICES.lambdaPerMillionRequests,
    ),
    line(
      'Lambda duration, arm64',
      `${fmt(gbSeconds)} GB-s`,
      gbSeconds * PRICES.lambdaArmPerGbSecond,
    ),
    line(
      'DynamoDB on-demand writes (incl. indexes)',
      `${fmt(writeUnits)} WRU`,
      (writeUnits / 1e6) * PRICES.dynamoOnDemandPerMillionWriteUnits,
    ),
    line(
      'DynamoDB on-demand reads (sweep, recorder)',
      `${fmt(readUnits)} RRU`,
      (readUnits / 1e6) * PRICES.dynamoOnDemandPerMillionReadUnits,
    ),
    line(
      'EventBridge: lambda destination records',
      `${fmt(lambdaRuns)} events`,
      (lambdaRuns / 1e6) * PRICES.eventBridgeCustomEventsPerMillion,
    ),
    line(
      'CloudWatch Logs ingestion + 1 month storage',
      `${logGb.toFixed(3)} GB`,
      logGb * (PRICES.logsIngestionPerGb + PRICES.logsStoragePerGbMonth),
    ),
  ];
}

/** CloudWatch (alarms, metrics, dashboards, Contributor Insights) and KMS: fixed by the month. */
function fixedLines(counts: ReturnType<typeof resourceCounts>, healthyMetrics: number): CostLine[] {
  const { alarms, dashboards, insightRules, keys } = counts;
  return [
    line('CloudWatch alarms', `${alarms} alarms`, alarms * PRICES.cloudWatchAlarmPerMonth, true),
    line(
      'CloudWatch custom metrics (healthy month)',
      `${healthyMetrics} metrics`,
      customMetricsUsd(healthyMetrics),
      true,
    ),
    line(
      'CloudWatch dashboards',
      String(dashboards),
      dashboards * PRICES.cloudWatchDashboardPerMonth,
      true,
    ),
    line(
      'CloudWatch Contributor Insights rules',
      String(insightRules),
      insightRules * PRICES.contributorInsightsRulePerMonth,
      true,
    ),
    line('KMS keys', String(keys), keys * PRICES.kmsKeyPerMonth),
  ];
}

/** Estimates a month of one synthesized installation. */
export function estimateMonthlyCost(
  installation: ZonecronInstallation,
  templates: readonly TemplateSummary[],
): CostEstimate {
  const mine = templates.filter(
    (t) =>
      t.stack === installation.stackName || t.stack.startsWith(`${installation.stackName}-jobs-`),
  );
  const volume = monthlyVolume(installation);
  const counts = resourceCounts(mine);
  const metrics = metricCounts(installation);
  const lines = [...usageLines(volume), ...fixedLines(counts, metrics.healthy)];
  const sum = (items: readonly CostLine[]) => items.reduce((total, item) => total + item.usd, 0);
  const cloudWatchUsd = sum(lines.filter((item) => item.cloudWatch));
  return {
    jobs: installation.coverings.length,
    stacks: mine.length,
    schedules: counts.schedules,
    alarms: counts.alarms,
    ticksPerMonth: volume.ticks,
    runsPerMonth: volume.runs,
    lines,
    totalUsd: sum(lines),
    cloudWatchUsd,
    cloudWatchWorstUsd:
      cloudWatchUsd - customMetricsUsd(metrics.healthy) + customMetricsUsd(metrics.worst),
  };
}

/** A fixed synth instant, so the printed figures are reproducible. */
const ESTIMATE_FROM = new Date('2026-01-01T00:00:00.000Z');

/** Synthesizes a config and estimates it. */
export function estimateConfig(config: JobsConfig, stackName = 'Zonecron'): CostEstimate {
  const synth = synthesizeOffline(config, { stackName, synthTime: ESTIMATE_FROM });
  const [installation] = synth.installations;
  if (installation === undefined) throw new Error('internal: no installation was built');
  return estimateMonthlyCost(installation, synth.check.templates);
}

/** Renders an estimate as a plain-text table. */
export function renderEstimate(title: string, estimate: CostEstimate): string {
  const money = (usd: number) => `$${usd.toFixed(2).padStart(9)}`;
  return [
    `${title}: ${estimate.jobs} enabled jobs, ${Math.round(estimate.runsPerMonth).toLocaleString('en-US')} runs/month, ${estimate.stacks} stacks, ${estimate.schedules} schedules`,
    ...estimate.lines.map(
      (line) => `  ${line.item.padEnd(44)} ${line.quantity.padEnd(30)} ${money(line.usd)}`,
    ),
    `  ${'total (list prices, no free tier)'.padEnd(75)} ${money(estimate.totalUsd)}`,
    `  ${'of which CloudWatch (alarms, metrics, dashboards, insights)'.padEnd(75)} ${money(estimate.cloudWatchUsd)}`,
    `  ${'CloudWatch in a month that publishes every metric'.padEnd(75)} ${money(estimate.cloudWatchWorstUsd)}`,
  ].join('\n');
}
