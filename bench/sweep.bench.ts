/**
 * Benchmark: the one-minute sweep with 10,000 jobs.
 *
 * The real dispatcher core (`createDispatcher`, the sweep in `functions/dispatcher/sweep.ts`)
 * and the real DynamoDB ledger, against DynamoDB Local (the jar in amplify-dynamodb-simulator,
 * on a random loopback port). Every DynamoDB call the sweep makes is counted by a middleware
 * on the client, which also asks BatchGetItem for `ReturnConsumedCapacity: TOTAL`.
 *
 * The ledger is in steady state: every run due before and during the measured minutes was
 * already handled by its tick (status `succeeded`), so the sweep finds nothing missing and
 * delivers nothing — the cost of the safety net on a normal minute.
 *
 * 1. 10,000 jobs with varied expressions and zones: most have nothing due in a given minute,
 *    some do. Time, keys read and BatchGetItem requests per sweep, over one hour of sweeps
 *    (09:00-09:59Z on a Monday in June, so hourly patterns and quarter-hour peaks all count).
 * 2. The same 300 "busy" jobs plus 1,000, then 10,000, jobs that have nothing due in the
 *    measured minutes: the DynamoDB reads must not change. The sweep's CPU is measured again
 *    with the store faked, because wall time against DynamoDB Local on a shared machine is
 *    noisier than the difference.
 * 3. Monthly cost at 10,000 jobs, from the figures of 1.
 *
 * It prints figures and asserts nothing: it is not a test. Run with `npm run bench:sweep`.
 */
import { performance } from 'node:perf_hooks';
import {
  BatchWriteItemCommand,
  type DynamoDBClient,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { JobDefinition } from '#jobs/job.ts';
import {
  createDynamoLedger,
  createLedgerStore,
  decodeRun,
  jobStateKey,
  type Ledger,
  RecordingNotifier,
} from '#ledger/index.ts';
import { RecordingLogger } from '#shared/logger.ts';
import { RecordingMetrics } from '#shared/metrics.ts';
import { createDispatcher } from '../functions/dispatcher/dispatch.ts';
import type { SweepResult } from '../functions/dispatcher/sweep.ts';
import type { TargetDelivery } from '../functions/dispatcher/targets/index.ts';
import { occurrencesBetween, periodBucket } from '../functions/schedule/index.ts';
import { startDynamoDbLocal } from '../test/support/dynamodb-local.ts';
import { makeJob } from '../test/support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../test/support/ledger.ts';

const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'UTC',
  'Australia/Adelaide',
  'Europe/London',
  'America/Los_Angeles',
  'America/Sao_Paulo',
];

/** Varied expressions; the share of each in the mixed set is its weight / total weight. */
const MIXED: readonly { cron: string; weight: number }[] = [
  { cron: '0 9 * * 1-5', weight: 15 },
  { cron: '30 2 * * *', weight: 15 },
  { cron: 'H H * * *', weight: 15 },
  { cron: '15 */6 * * *', weight: 10 },
  { cron: '0 0 1 * *', weight: 10 },
  { cron: '45 23 * * 0', weight: 8 },
  { cron: '0 12 * * MON#2', weight: 5 },
  { cron: '5 4 L * *', weight: 5 },
  { cron: 'H * * * *', weight: 12 },
  { cron: 'H/10 * * * *', weight: 3 },
  { cron: '*/15 * * * *', weight: 2 },
];

/** Never due in June: yearly, or leap day. */
const IDLE = ['0 0 1 1 *', '30 6 29 2 *', 'H H 1 JAN *', '0 12 25 12 *'];
/** Due often: the same busy core for both sizes of experiment 2. */
const BUSY = ['*/5 * * * *', 'H/10 * * * *', 'H * * * *'];

/** The first measured sweep; a Monday in June, no DST change anywhere near. */
const FIRST_SWEEP = new Date('2026-06-15T09:00:00.000Z');
/** One hour of sweeps: every hourly pattern and every quarter-hour peak once per job. */
const SWEEPS = 60;
const GRACE_SECONDS = 300;
const LOOKBACK_SECONDS = 120;
const MAX_RUNTIME_SECONDS = 3600;

function job(id: string, cron: string, index: number): JobDefinition {
  return makeJob({
    id,
    schedule: cron,
    timezone: ZONES[index % ZONES.length] as string,
    target:
      index % 2 === 0
        ? { type: 'lambda', arn: 'arn:aws:lambda:us-east-1:000000000000:function:job' }
        : { type: 'sqs', arn: 'arn:aws:sqs:us-east-1:000000000000:jobs' },
    maxRuntimeSeconds: MAX_RUNTIME_SECONDS,
    alarm: { graceSeconds: GRACE_SECONDS },
  });
}

function mixedJobs(count: number): JobDefinition[] {
  const total = MIXED.reduce((n, e) => n + e.weight, 0);
  const jobs: JobDefinition[] = [];
  for (const entry of MIXED) {
    const n = Math.round((count * entry.weight) / total);
    for (let i = 0; i < n && jobs.length < count; i++) {
      jobs.push(job(`mixed-${jobs.length}`, entry.cron, jobs.length));
    }
  }
  while (jobs.length < count) jobs.push(job(`mixed-${jobs.length}`, '30 2 * * *', jobs.length));
  return jobs;
}

function listOf(prefix: string, crons: readonly string[], count: number): JobDefinition[] {
  return Array.from({ length: count }, (_, i) =>
    job(`${prefix}-${i}`, crons[i % crons.length] as string, i),
  );
}

/** DynamoDB calls of the sweep, counted on the client. */
interface Counters {
  batchGetRequests: number;
  batchGetKeys: number;
  consumedReadUnits: number;
  capacityReported: boolean;
  otherCalls: Record<string, number>;
}

function counters(): Counters {
  return {
    batchGetRequests: 0,
    batchGetKeys: 0,
    consumedReadUnits: 0,
    capacityReported: false,
    otherCalls: {},
  };
}

function countCalls(client: DynamoDBClient, get: () => Counters) {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const c = get();
      const input = args.input as Record<string, unknown>;
      if (context.commandName === 'BatchGetItemCommand') {
        input.ReturnConsumedCapacity = 'TOTAL';
        c.batchGetRequests++;
        const items = input.RequestItems as Record<string, { Keys: unknown[] }>;
        for (const table of Object.values(items)) c.batchGetKeys += table.Keys.length;
      } else if (context.commandName !== 'BatchWriteItemCommand') {
        const name = context.commandName ?? 'unknown';
        c.otherCalls[name] = (c.otherCalls[name] ?? 0) + 1;
      }
      const out = await next(args);
      const consumed = (out.output as { ConsumedCapacity?: { CapacityUnits?: number }[] })
        .ConsumedCapacity;
      if (context.commandName === 'BatchGetItemCommand' && consumed) {
        for (const cc of consumed) {
          if (cc.CapacityUnits !== undefined) {
            c.capacityReported = true;
            c.consumedReadUnits += cc.CapacityUnits;
          }
        }
      }
      return out;
    },
    { step: 'initialize', name: 'sweepBenchCounter' },
  );
}

/** Writes every run of `jobs` from well before the first sweep's windows as handled. */
async function seedSteadyState(client: DynamoDBClient, tableName: string, jobs: JobDefinition[]) {
  const from = new Date(
    FIRST_SWEEP.getTime() - (MAX_RUNTIME_SECONDS + GRACE_SECONDS + LOOKBACK_SECONDS + 120) * 1000,
  );
  const to = new Date(FIRST_SWEEP.getTime() + SWEEPS * 60_000);
  const requests: WriteRequest[] = [];
  for (const j of jobs) {
    const spec = { cron: j.schedule, timezone: j.timezone, jobId: j.id };
    for (const o of occurrencesBetween(spec, from, to)) {
      const at = o.at.toISOString();
      requests.push({
        PutRequest: {
          Item: {
            pk: { S: periodBucket(j.id, o.at) },
            jobId: { S: j.id },
            at: { S: at },
            nominal: { S: o.nominal },
            dst: { S: o.dst },
            status: { S: 'succeeded' },
            attempts: { N: '1' },
            dispatchedAt: { S: new Date(o.at.getTime() + 2_000).toISOString() },
            deliveryId: { S: 'seed' },
            completedAt: { S: new Date(o.at.getTime() + 30_000).toISOString() },
          },
        },
      });
    }
    requests.push({
      PutRequest: {
        Item: {
          pk: { S: jobStateKey(j.id) },
          watermarkAt: { S: to.toISOString() },
          sinceAt: { S: from.toISOString() },
        },
      },
    });
  }
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < requests.length; i += 25) {
    writes.push(
      client.send(
        new BatchWriteItemCommand({ RequestItems: { [tableName]: requests.slice(i, i + 25) } }),
      ),
    );
    if (writes.length >= 16) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  return requests.length;
}

interface SweepFigures {
  readonly label: string;
  readonly jobs: number;
  readonly msPerSweep: number[];
  readonly keysRead: number[];
  readonly batchGetRequests: number[];
  readonly readUnits: number[];
  capacityReported: boolean;
  readonly otherCalls: Record<string, number>;
  delivered: number;
  missed: number;
}

async function measure(
  label: string,
  endpoint: string,
  jobs: JobDefinition[],
): Promise<SweepFigures> {
  const client = localDynamoClient(endpoint);
  const tableName = await createLedgerTable(client, 'sweep-bench');
  const seeded = await seedSteadyState(client, tableName, jobs);
  const bench = countedDispatcher(endpoint, tableName, jobs);
  // One warm-up sweep a minute earlier, as a warm container (its reads are not counted).
  await bench.sweepAt(new Date(FIRST_SWEEP.getTime() - 60_000));
  const figures = emptyFigures(label, jobs.length);
  bench.delivered = 0;
  for (let i = 0; i < SWEEPS; i++) {
    bench.calls = counters();
    const started = performance.now();
    const result = await bench.sweepAt(new Date(FIRST_SWEEP.getTime() + i * 60_000));
    addSweep(figures, performance.now() - started, result, bench.calls);
  }
  figures.delivered += bench.delivered;
  console.log(`  ${label}: ${jobs.length} jobs, ${seeded} ledger items seeded`);
  return figures;
}

/**
 * The real dispatcher on its own client, whose calls are counted into `calls`, with a target
 * that only counts deliveries; `sweepAt` sweeps 15 s into the given minute.
 */
function countedDispatcher(endpoint: string, tableName: string, jobs: JobDefinition[]) {
  const counted = localDynamoClient(endpoint);
  let nowMs = FIRST_SWEEP.getTime();
  const bench = {
    calls: counters(),
    delivered: 0,
    sweepAt: async (scheduledAt: Date) => {
      nowMs = scheduledAt.getTime() + 15_000;
      const event = { sweep: true, scheduledTime: scheduledAt.toISOString() };
      return (await dispatcher.handle(event)) as SweepResult;
    },
  };
  countCalls(counted, () => bench.calls);
  const targets: TargetDelivery = {
    async deliver() {
      bench.delivered++;
      return { deliveryId: 'bench' };
    },
  };
  const dispatcher = createDispatcher({
    clock: () => new Date(nowMs),
    jobs,
    ledger: createDynamoLedger(createLedgerStore({ client: counted, tableName })),
    targets,
    deadLetters: { async send() {} },
    notifier: new RecordingNotifier(),
    logger: new RecordingLogger(),
    metrics: new RecordingMetrics(),
    stackName: 'Bench',
  });
  return bench;
}

function emptyFigures(label: string, jobs: number): SweepFigures {
  return {
    label,
    jobs,
    msPerSweep: [],
    keysRead: [],
    batchGetRequests: [],
    readUnits: [],
    capacityReported: false,
    otherCalls: {},
    delivered: 0,
    missed: 0,
  };
}

/** One sweep's figures, checked against what the client saw. */
function addSweep(
  figures: SweepFigures,
  ms: number,
  result: SweepResult,
  calls: ReturnType<typeof counters>,
) {
  figures.msPerSweep.push(ms);
  figures.keysRead.push(result.keysRead);
  figures.batchGetRequests.push(calls.batchGetRequests);
  figures.readUnits.push(calls.consumedReadUnits);
  figures.capacityReported ||= calls.capacityReported;
  figures.missed += result.undecided.length;
  for (const [name, n] of Object.entries(calls.otherCalls)) {
    figures.otherCalls[name] = (figures.otherCalls[name] ?? 0) + n;
  }
  if (calls.batchGetKeys !== result.keysRead) {
    throw new Error(`sweep reported ${result.keysRead} keys, client saw ${calls.batchGetKeys}`);
  }
}

/**
 * The sweep's own CPU per sweep: the same dispatcher with a ledger that answers from memory
 * (every expected run exists and succeeded), so only the engine and the sweep's planning run.
 */
async function sweepCpu(jobs: JobDefinition[]): Promise<number[]> {
  const stored = (key: string) =>
    decodeRun({
      pk: { S: key },
      jobId: { S: 'x' },
      at: { S: FIRST_SWEEP.toISOString() },
      status: { S: 'succeeded' },
      attempts: { N: '1' },
    });
  const memoryLedger = {
    async getRuns(keys: readonly string[]) {
      return new Map(keys.map((k) => [k, stored(k)]));
    },
    async getSweepCursor() {
      return undefined;
    },
    async advanceSweepCursor() {},
    async findDue() {
      return [];
    },
  } as unknown as Ledger;
  let nowMs = FIRST_SWEEP.getTime();
  const dispatcher = createDispatcher({
    clock: () => new Date(nowMs),
    jobs,
    ledger: memoryLedger,
    targets: {
      async deliver() {
        throw new Error('the steady-state sweep delivers nothing');
      },
    },
    deadLetters: { async send() {} },
    notifier: new RecordingNotifier(),
    logger: new RecordingLogger(),
    metrics: new RecordingMetrics(),
    stackName: 'Bench',
  });
  const times: number[] = [];
  for (let i = -5; i < SWEEPS; i++) {
    const scheduledAt = new Date(FIRST_SWEEP.getTime() + i * 60_000);
    nowMs = scheduledAt.getTime() + 15_000;
    const started = performance.now();
    await dispatcher.handle({ sweep: true, scheduledTime: scheduledAt.toISOString() });
    if (i >= 0) times.push(performance.now() - started);
  }
  return times;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => sum(xs) / xs.length;
function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}
const fmt = (n: number, digits = 1) => n.toFixed(digits);

function report(f: SweepFigures) {
  console.log(
    [
      `${f.label} (${f.jobs} jobs, ${f.msPerSweep.length} sweeps)`,
      `  time per sweep      mean ${fmt(mean(f.msPerSweep))} ms, p50 ${fmt(percentile(f.msPerSweep, 50))} ms, p95 ${fmt(percentile(f.msPerSweep, 95))} ms, max ${fmt(Math.max(...f.msPerSweep))} ms`,
      `  keys read / sweep   mean ${fmt(mean(f.keysRead))}, p50 ${percentile(f.keysRead, 50)}, min ${Math.min(...f.keysRead)}, max ${Math.max(...f.keysRead)}`,
      `  BatchGetItem / sweep mean ${fmt(mean(f.batchGetRequests), 2)}, max ${Math.max(...f.batchGetRequests)}`,
      `  consumed RCU / sweep ${f.capacityReported ? `mean ${fmt(mean(f.readUnits), 2)} (DynamoDB Local's figure)` : 'not returned by DynamoDB Local'}`,
      `  other DynamoDB calls ${JSON.stringify(f.otherCalls)} (open-run queries, the cursor); runs delivered ${f.delivered}; undecided ${f.missed}`,
    ].join('\n'),
  );
}

async function main() {
  console.log('zonecron sweep benchmark — real dispatcher sweep against DynamoDB Local');
  console.log(`node ${process.version}, ${process.platform}/${process.arch}\n`);
  const ddb = await startDynamoDbLocal();
  try {
    console.log('seeding steady-state ledgers…');
    const mixed = await measure('1. mixed', ddb.endpoint, mixedJobs(10_000));
    await idleJobsExperiment(ddb.endpoint, mixed);
    monthlyCost(mixed);
  } finally {
    await ddb.stop();
  }
}

/** 2. Whether idle jobs cost reads: 300 busy jobs with 1,000, then 10,000 idle ones. */
async function idleJobsExperiment(endpoint: string, mixed: SweepFigures) {
  const withIdle = (idle: number) => [...listOf('busy', BUSY, 300), ...listOf('idle', IDLE, idle)];
  const small = await measure('2a. busy + 1,000 idle', endpoint, withIdle(1_000));
  const large = await measure('2b. busy + 10,000 idle', endpoint, withIdle(10_000));
  console.log('');
  report(mixed);
  report(small);
  report(large);
  console.log(
    `  reads with 1,000 vs 10,000 idle jobs: ${fmt(mean(small.keysRead))} vs ${fmt(mean(large.keysRead))} keys/sweep, ` +
      `${fmt(mean(small.batchGetRequests), 2)} vs ${fmt(mean(large.batchGetRequests), 2)} BatchGetItem/sweep`,
  );
  // Wall time against DynamoDB Local is noisy on a shared machine; the sweep's own CPU, with
  // the store faked, shows what 9,000 more idle jobs cost.
  const cpuSmall = await sweepCpu(withIdle(1_000));
  const cpuLarge = await sweepCpu(withIdle(10_000));
  const perIdleUs = ((Math.min(...cpuLarge) - Math.min(...cpuSmall)) / 9_000) * 1000;
  console.log(
    `  sweep CPU, store faked (min / p50 of ${SWEEPS}): busy + 1,000 idle ${fmt(Math.min(...cpuSmall), 2)} / ${fmt(percentile(cpuSmall, 50), 2)} ms; ` +
      `busy + 10,000 idle ${fmt(Math.min(...cpuLarge), 2)} / ${fmt(percentile(cpuLarge, 50), 2)} ms ` +
      `(${fmt(perIdleUs, 2)} µs per idle job)`,
  );
}

/** 3. Monthly cost of the sweep at 10,000 jobs, from the figures of experiment 1. */
function monthlyCost(mixed: SweepFigures) {
  const sweepsPerMonth = 60 * 24 * 30;
  const memoryGb = 0.5; // the dispatcher's 512 MB (infra/constructs/dispatcher-function.ts)
  const gbSecondUsd = 0.0000133334; // Lambda arm64, per GB-s
  const requestUsd = 0.2 / 1_000_000;
  const rruUsd = 0.125 / 1_000_000; // DynamoDB on-demand, per read request unit
  const rruPerKey = 0.5; // eventually consistent BatchGetItem, item <= 4 KB
  const meanSeconds = mean(mixed.msPerSweep) / 1000;
  const keysPerSweep = mean(mixed.keysRead);
  const scenarios: [string, number][] = [
    ['as measured here', meanSeconds],
    ['×4, a 512 MB Lambda has ~0.3 vCPU', meanSeconds * 4],
  ];
  // Each sweep also queries the open-run index: one query per partition, 0.5 RRU when empty.
  const queriesPerSweep = (mixed.otherCalls.QueryCommand ?? 0) / mixed.msPerSweep.length;
  const readUsd =
    sweepsPerMonth * (keysPerSweep * rruPerKey + queriesPerSweep * rruPerKey) * rruUsd;
  const requestsUsd = sweepsPerMonth * requestUsd;
  console.log(
    [
      '',
      `3. monthly cost of the sweep at 10,000 jobs (${sweepsPerMonth} sweeps / 30-day month)`,
      '   prices: AWS published on-demand prices, us-east-1 (Lambda arm64 $0.0000133334/GB-s and',
      '   $0.20 per 1M requests; DynamoDB on-demand $0.125 per 1M read request units, since the',
      '   November 2024 price change); free tiers ignored.',
      `   DynamoDB reads: ${fmt(keysPerSweep)} keys and ${fmt(queriesPerSweep, 1)} open-run queries per sweep × ${rruPerKey} RRU ` +
        `(eventually consistent, ≤ 4 KB) = $${fmt(readUsd, 4)}/month`,
      `   Lambda requests: $${fmt(requestsUsd, 4)}`,
      ...scenarios.map(([name, seconds]) => {
        const computeUsd = sweepsPerMonth * seconds * memoryGb * gbSecondUsd;
        return `   Lambda compute (${name}: ${fmt(seconds * 1000)} ms × 0.5 GB): $${fmt(computeUsd, 4)} → total $${fmt(computeUsd + requestsUsd + readUsd, 2)}/month`;
      }),
      '   Not included: the per-job ticks, their claims and deliveries (they cost the same with or',
      '   without the sweep), CloudWatch Logs/metrics, and the rare sweep that finds a missed run.',
    ].join('\n'),
  );
}

await main();
