/**
 * `npm run bench:dispatch` — the dispatcher's costs, printed; a benchmark, not a test.
 *
 * 1. Runs/s and p50/p99 handler latency through the real core against DynamoDB Local
 *    (claim, delivery to a no-op target, watermark): sequential for latency, 8 in flight for
 *    throughput.
 * 2. CPU per run of the dispatcher's own logic with the store faked (in-memory ledger, no-op
 *    target, logger that still serialises its lines). Target: < 0.5 ms.
 * 3. A sweep of 10,000 jobs with the store faked: engine time and keys read per sweep.
 * 4. Minified esbuild bundle size and module-load time over a bare `node -e ''`, SDK external
 *    vs bundled — the cold-start proxy that chose `infra/bundling.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { createDispatcher, type DispatcherDeps } from '../functions/dispatcher/dispatch.ts';
import { createDynamoLedger, type Ledger } from '../functions/dispatcher/ledger.ts';
import type { TargetDelivery } from '../functions/dispatcher/targets/index.ts';
import type { JobDefinition } from '../functions/shared/job.ts';
import type { AppLogger } from '../functions/shared/logger.ts';
import type { AppMetrics } from '../functions/shared/metrics.ts';
import { FUNCTION_BUNDLING, FUNCTION_BUNDLING_SDK_EXTERNAL } from '../infra/bundling.ts';
import { createJobsBundle, writeJobsBundle } from '../infra/jobs-bundle-file.ts';
import { startDynamoDbLocal } from '../test/support/dynamodb-local.ts';
import { makeJob } from '../test/support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../test/support/ledger.ts';
import { createMemoryLedger } from '../test/support/memory-ledger.ts';

const HOUR_MS = 3_600_000;
const T0 = Date.parse('2024-01-01T00:00:00Z');

function job(id: string): JobDefinition {
  return makeJob({
    id,
    schedule: '0 * * * *',
    target: { type: 'sqs', arn: 'arn:aws:sqs:eu-west-1:123456789012:runs' },
    payload: { bench: true },
  });
}

/** Serialises every line like the Powertools logger would, then drops it. */
const serialisingLogger = (): AppLogger => {
  let bytes = 0;
  const write = (message: string, fields?: Record<string, unknown>) => {
    bytes += JSON.stringify({
      level: 'INFO',
      message,
      timestamp: new Date().toISOString(),
      ...fields,
    }).length;
  };
  return { info: write, warn: write, error: write, toString: () => String(bytes) } as AppLogger;
};

const noMetrics: AppMetrics = { job() {}, global() {}, flush() {} };
const noTarget: TargetDelivery = { deliver: async () => ({ deliveryId: 'bench' }) };
const noDlq = { send: async () => {} };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function dispatcherFor(ledger: Ledger, jobs: JobDefinition[], clock: () => Date) {
  const deps: DispatcherDeps = {
    clock,
    jobs,
    ledger,
    targets: noTarget,
    deadLetters: noDlq,
    logger: serialisingLogger(),
    metrics: noMetrics,
  };
  return createDispatcher(deps);
}

async function benchDynamo() {
  const ddb = await startDynamoDbLocal();
  try {
    const client = localDynamoClient(ddb.endpoint);
    const tableName = await createLedgerTable(client, 'bench');
    const ledger = createDynamoLedger({ client, tableName });
    const jobs = Array.from({ length: 50 }, (_, i) => job(`bench-${i}`));
    let tickMs = T0;
    const dispatcher = dispatcherFor(ledger, jobs, () => new Date(tickMs + 2_000));
    const tick = (j: JobDefinition, hour: number) => ({
      jobId: j.id,
      scheduledTime: new Date(T0 + hour * HOUR_MS).toISOString(),
      attempt: 1,
    });
    // warm-up: first ticks record the watermarks, the JVM JITs
    for (const j of jobs) await dispatcher.handle(tick(j, 0));

    const latencies: number[] = [];
    const sequentialRuns = 600;
    for (let i = 0; i < sequentialRuns; i++) {
      const hour = 1 + Math.floor(i / jobs.length);
      tickMs = T0 + hour * HOUR_MS;
      const started = performance.now();
      await dispatcher.handle(tick(jobs[i % jobs.length] as JobDefinition, hour));
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);

    const duplicates: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await dispatcher.handle(tick(jobs[i % jobs.length] as JobDefinition, 1));
      duplicates.push(performance.now() - started);
    }
    duplicates.sort((a, b) => a - b);

    const parallelRuns = 1000;
    const inFlight = 8;
    let next = 0;
    const firstHour = 100;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < parallelRuns) {
          const i = next++;
          const hour = firstHour + Math.floor(i / jobs.length);
          await dispatcher.handle(tick(jobs[i % jobs.length] as JobDefinition, hour));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    client.destroy();
    return {
      sequentialRuns,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      dupP50: percentile(duplicates, 50),
      dupP99: percentile(duplicates, 99),
      parallelRuns,
      inFlight,
      runsPerSecond: parallelRuns / seconds,
      sequentialRunsPerSecond: 1000 / (latencies.reduce((a, b) => a + b, 0) / latencies.length),
    };
  } finally {
    await ddb.stop();
  }
}

async function benchCpu() {
  const jobs = Array.from({ length: 100 }, (_, i) => job(`cpu-${i}`));
  const ledger = createMemoryLedger();
  let tickMs = T0;
  const dispatcher = dispatcherFor(ledger, jobs, () => new Date(tickMs + 2_000));
  const runs = 20_000;
  const drive = async (offsetHours: number, count: number) => {
    for (let i = 0; i < count; i++) {
      const hour = offsetHours + Math.floor(i / jobs.length);
      tickMs = T0 + hour * HOUR_MS;
      await dispatcher.handle({
        jobId: (jobs[i % jobs.length] as JobDefinition).id,
        scheduledTime: new Date(tickMs).toISOString(),
        attempt: 1,
      });
    }
  };
  await drive(0, 2_000); // warm-up (JIT, engine caches)
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await drive(1_000, runs);
  const used = process.cpuUsage(cpu);
  return {
    runs,
    cpuMsPerRun: (used.user + used.system) / 1000 / runs,
    wallMsPerRun: (performance.now() - wall) / runs,
  };
}

async function benchSweepCpu() {
  const schedules = ['30 2 * * *', '0 * * * *', '*/15 * * * *', '0 9 * * 1-5', 'H H * * *'];
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'UTC'];
  const jobs = Array.from({ length: 10_000 }, (_, i): JobDefinition => {
    const base = job(`sweep-${i}`);
    return {
      ...base,
      schedule: schedules[i % schedules.length] as string,
      timezone: zones[i % zones.length] as string,
      target:
        i % 3 === 0
          ? { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:f' }
          : base.target,
    };
  });
  const ledger = createMemoryLedger();
  let nowMs = Date.parse('2024-06-03T12:00:03Z');
  const dispatcher = dispatcherFor(ledger, jobs, () => new Date(nowMs));
  const sweeps: { at: string; ms: number; keysRead: number }[] = [];
  for (let minute = 0; minute < 6; minute++) {
    const at = new Date(Date.parse('2024-06-03T12:00:00Z') + minute * 60_000).toISOString();
    nowMs = Date.parse(at) + 3_000;
    const started = performance.now();
    const result = (await dispatcher.handle({ sweep: true, scheduledTime: at })) as {
      keysRead: number;
    };
    sweeps.push({ at, ms: performance.now() - started, keysRead: result.keysRead });
  }
  return sweeps;
}

function medianMs(args: string[], env: NodeJS.ProcessEnv, rounds: number): number {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const res = spawnSync(process.execPath, args, { env, stdio: 'pipe' });
    if (res.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${res.stderr}`);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return percentile(samples, 50);
}

async function benchBundles() {
  const outDir = join(process.cwd(), 'node_modules', '.cache', 'zonecron-bench');
  mkdirSync(outDir, { recursive: true });
  const env = {
    ...process.env,
    LEDGER_TABLE_NAME: 'ledger',
    DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dlq',
    AWS_REGION: 'eu-west-1',
  };
  const jobs = Array.from({ length: 20 }, (_, i) => job(`job-${i}`));
  const rounds = 15;
  const bare = medianMs(['-e', ''], env, rounds);
  const results = [];
  for (const [name, options] of [
    ['SDK external', FUNCTION_BUNDLING_SDK_EXTERNAL],
    ['SDK bundled', FUNCTION_BUNDLING],
  ] as const) {
    const dir = join(outDir, name.replace(' ', '-').toLowerCase());
    writeJobsBundle(dir, createJobsBundle(jobs, { synthTime: new Date() }));
    const outfile = join(dir, 'index.mjs');
    await build({
      entryPoints: ['functions/dispatcher/handler.ts'],
      bundle: true,
      platform: 'node',
      format: options.format,
      target: options.target,
      minify: options.minify,
      external: [...options.externalModules],
      banner: { js: options.banner },
      outfile,
      logLevel: 'silent',
    });
    const load = medianMs(
      ['--input-type=module', '-e', `await import(${JSON.stringify(outfile)})`],
      env,
      rounds,
    );
    results.push({ name, bytes: statSync(outfile).size, loadMs: load - bare });
  }
  return { bare, results };
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

console.log('zonecron dispatcher benchmark');
console.log(`node ${process.version}, ${process.platform}/${process.arch}\n`);

const cpu = await benchCpu();
console.log('1) dispatcher logic, store faked (in-memory ledger, no-op target)');
console.log(
  `   ${cpu.runs} runs: CPU ${fmt(cpu.cpuMsPerRun, 3)} ms/run, wall ${fmt(cpu.wallMsPerRun, 3)} ms/run (target < 0.5 ms)\n`,
);

const ddb = await benchDynamo();
console.log('2) real core against DynamoDB Local (claim + no-op delivery + watermark)');
console.log(
  `   sequential, ${ddb.sequentialRuns} runs: p50 ${fmt(ddb.p50)} ms, p99 ${fmt(ddb.p99)} ms (${fmt(ddb.sequentialRunsPerSecond, 0)} runs/s)`,
);
console.log(
  `   duplicate tick (suppressed), 200: p50 ${fmt(ddb.dupP50)} ms, p99 ${fmt(ddb.dupP99)} ms`,
);
console.log(
  `   ${ddb.inFlight} in flight, ${ddb.parallelRuns} runs: ${fmt(ddb.runsPerSecond, 0)} runs/s\n`,
);

const sweeps = await benchSweepCpu();
console.log(
  '3) sweep of 10,000 jobs, store faked (engine + keys; one warm container, minute by minute)',
);
for (const s of sweeps) {
  console.log(
    `   ${s.at}  ${fmt(s.ms, 0).padStart(5)} ms  ${String(s.keysRead).padStart(5)} keys read`,
  );
}
console.log('');

const bundles = await benchBundles();
console.log(
  `4) bundle (esbuild, minified, ESM) and module load over bare node (${fmt(bundles.bare, 0)} ms)`,
);
for (const r of bundles.results) {
  console.log(
    `   ${r.name.padEnd(13)} ${fmt(r.bytes / 1024, 1).padStart(7)} KiB   load +${fmt(r.loadMs, 0)} ms`,
  );
}
const [external, bundled] = bundles.results;
if (external && bundled) {
  const pick = external.loadMs <= bundled.loadMs ? external : bundled;
  console.log(
    `\nmeasured: ${pick.name} loads faster (${fmt(Math.abs(external.loadMs - bundled.loadMs), 0)} ms); shipped: ${FUNCTION_BUNDLING.externalModules.length === 0 ? 'SDK bundled' : 'SDK external'} (infra/bundling.ts)`,
  );
}
