/**
 * `npm run bench:dispatch` — the dispatcher's costs, printed; a benchmark, not a test.
 *
 * 1. DynamoDB requests per run, counted at the client against DynamoDB Local: an on-time run
 *    (queue target, lambda target, `concurrency: forbid`), a covering tick that is no run, a
 *    warm sweep with nothing due.
 * 2. Latency and throughput of the real core against DynamoDB Local.
 * 3. CPU per run of the dispatcher's own logic with the ledger faked (every call answers at
 *    once), no-op target, a logger that still serialises its lines. Target: < 0.5 ms.
 * 4. The top of the hour: 5,000 ticks due in the same minute through the core against DynamoDB
 *    Local, at a given number of dispatchers in flight (Lambda concurrency): runs/s and lag
 *    percentiles; then the sweep right after it over 10,000 jobs.
 * 5. Bundle size and module load over a bare `node -e ''` (the cold-start proxy) with 20 and
 *    with 10,000 jobs in jobs.json, SDK external vs bundled.
 * 7. Cold start with a calendar job: the shipped handler's load with a jobs.json that holds one
 *    (and its holiday table) against one without; the first closed-day question of a fresh
 *    Lambda (bench/calendar-cold-start.ts, bundled the same way) against a job without a
 *    calendar; and, for the record, what loading date-holidays' parser would cost instead.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JobDefinition } from '#jobs/job.ts';
import { JOBS_BUNDLE_FILE, openJobsBundle } from '#jobs/jobs-bundle.ts';
import {
  createDynamoLedger,
  createLedgerStore,
  decodeRun,
  type Ledger,
  RecordingNotifier,
  type RunItem,
} from '#ledger/index.ts';
import type { AppLogger } from '#shared/logger.ts';
import type { AppMetrics } from '#shared/metrics.ts';
import { createDispatcher, type Dispatcher } from '../functions/dispatcher/dispatch.ts';
import type { TargetDelivery } from '../functions/dispatcher/targets/index.ts';
import {
  type BundleOptions,
  bundleFunction,
  FUNCTION_HANDLER_FILE,
} from '../infra/packaging/bundling.ts';
import { createJobsBundle, writeJobsBundle } from '../infra/packaging/jobs-bundle-file.ts';
import { instrument } from '../test/support/ddb-faults.ts';
import { startDynamoDbLocal } from '../test/support/dynamodb-local.ts';
import { makeJob } from '../test/support/jobs.ts';
import { createLedgerTable, localDynamoClient } from '../test/support/ledger.ts';
import { dispatcherEnv } from './handler-env.ts';

const HOUR_MS = 3_600_000;
const T0 = Date.parse('2024-01-01T00:00:00Z');

function job(id: string, overrides: Partial<Parameters<typeof makeJob>[0]> = {}): JobDefinition {
  return makeJob({
    schedule: '0 * * * *',
    timezone: 'UTC',
    target: { type: 'sqs', arn: 'arn:aws:sqs:eu-west-1:123456789012:runs' },
    payload: { bench: true },
    ...overrides,
    id,
  });
}

/** Serialises every line like the Powertools logger would, then drops it. */
const serialisingLogger = (): AppLogger => {
  const write = (message: string, fields?: Record<string, unknown>) => {
    JSON.stringify({ level: 'INFO', message, timestamp: new Date().toISOString(), ...fields });
  };
  return { info: write, warn: write, error: write };
};

const noMetrics: AppMetrics = { job() {}, global() {}, flush() {} };
const noTarget: TargetDelivery = { deliver: async () => ({ deliveryId: 'bench' }) };
const noDlq = { send: async () => {} };

function dispatcherFor(ledger: Ledger, jobs: readonly JobDefinition[], clock: () => Date) {
  return createDispatcher({
    clock,
    jobs,
    ledger,
    targets: noTarget,
    deadLetters: noDlq,
    notifier: new RecordingNotifier(),
    logger: serialisingLogger(),
    metrics: noMetrics,
    stackName: 'Bench',
    options: { sleep: async () => {} },
  });
}

const tickOf = (jobId: string, atMs: number) => ({
  jobId,
  scheduledTime: new Date(atMs).toISOString(),
  executionId: 'bench',
  attempt: '1',
});

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

type Local = Awaited<ReturnType<typeof startDynamoDbLocal>>;

async function localLedger(ddb: Local, prefix: string) {
  const client = localDynamoClient(ddb.endpoint, 3);
  const counts = instrument(client);
  const tableName = await createLedgerTable(client, prefix);
  return { client, counts, ledger: createDynamoLedger(createLedgerStore({ client, tableName })) };
}

async function benchRequests(ddb: Local) {
  const { client, counts, ledger } = await localLedger(ddb, 'requests');
  const queue = job('queue');
  const lambda = job('lambda', {
    target: { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:f' },
  });
  const forbid = job('forbid', {
    concurrency: 'forbid',
    target: { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:g' },
  });
  const daily = job('covered', { schedule: '30 2 * * *', timezone: 'Europe/Berlin' });
  let nowMs = T0 + 2_000;
  const dispatcher = dispatcherFor(ledger, [queue, lambda, forbid, daily], () => new Date(nowMs));
  for (const j of [queue, lambda, forbid]) await ledger.createJobState(j.id, new Date(T0));
  await ledger.createJobState(daily.id, new Date('2023-12-31T01:30:00Z'));
  /** Requests one event costs, handled two seconds after its scheduled time. */
  const measure = async (event: { scheduledTime: string; sweep?: boolean }) => {
    nowMs = Date.parse(event.scheduledTime) + ('sweep' in event ? 20_000 : 2_000);
    counts.resetCounts();
    await dispatcher.handle(event);
    return counts.total();
  };
  const rows = {
    'on-time run, queue target': await measure(tickOf(queue.id, T0 + HOUR_MS)),
    'on-time run, lambda target': await measure(tickOf(lambda.id, T0 + HOUR_MS)),
    'on-time run, concurrency forbid': await measure(tickOf(forbid.id, T0 + HOUR_MS)),
    // '30 2 * * *' in Berlin is covered by '30 0,1 * * *': in winter 00:30Z is no run.
    'covering tick that is no run': await measure(
      tickOf(daily.id, Date.parse('2024-01-01T00:30:00Z')),
    ),
    'duplicate tick of an on-time run': await measure(tickOf(queue.id, T0 + HOUR_MS)),
  };
  nowMs = T0 + HOUR_MS + 20_000;
  await dispatcher.handle({ sweep: true, scheduledTime: new Date(T0 + HOUR_MS).toISOString() });
  nowMs += 60_000;
  const sweep = await measure({
    sweep: true,
    scheduledTime: new Date(T0 + HOUR_MS + 60_000).toISOString(),
  });
  client.destroy();
  return { ...rows, 'warm sweep, nothing due': sweep };
}

async function benchLatency(ddb: Local) {
  const { client, ledger } = await localLedger(ddb, 'latency');
  const jobs = Array.from({ length: 50 }, (_, i) => job(`bench-${i}`));
  let tickMs = T0;
  const dispatcher = dispatcherFor(ledger, jobs, () => new Date(tickMs + 2_000));
  for (const j of jobs) await dispatcher.handle(tickOf(j.id, T0)); // first ticks, JIT
  const latencies: number[] = [];
  for (let i = 0; i < 600; i++) {
    const hour = 1 + Math.floor(i / jobs.length);
    tickMs = T0 + hour * HOUR_MS;
    const started = performance.now();
    await dispatcher.handle(tickOf(jobs[i % jobs.length]?.id ?? '', tickMs));
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  client.destroy();
  return { runs: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * A ledger that answers every call at once, as if every run were new and on time: the cost
 * left is the dispatcher's own (engine, envelope, logging).
 */
function instantLedger(): Ledger {
  const item = (key: string): RunItem =>
    decodeRun({
      pk: { S: key },
      jobId: { S: 'x' },
      at: { S: '2024-01-01T00:00:00.000Z' },
      status: { S: 'claimed' },
      attempts: { N: '1' },
      roundAttempts: { N: '1' },
    });
  const yes = async () => true;
  return {
    claim: async (request) => ({ claimed: true, item: item(request.key) }),
    markDispatched: yes,
    settleCompletedFirst: async () => ({ completed: undefined, lateRaised: false }),
    releaseFailed: yes,
    failDelivery: yes,
    markSkipped: yes,
    recordSkipped: async () => ({ recorded: true }),
    markStuck: yes,
    markDeadlineMissed: yes,
    takeOutbox: async () => undefined,
    confirmOutbox: async () => {},
    closeOpen: yes,
    resetForRedrive: async () => ({ reset: false, item: undefined }),
    getRun: async () => undefined,
    getRuns: async () => new Map(),
    findDue: async () => [],
    recordSkipRange: async () => {},
    findSkipRange: async () => undefined,
    getJobState: async () => undefined,
    getJobStates: async () => new Map(),
    swapWatermark: async () => ({ swapped: true }),
    createJobState: yes,
    adoptSchedule: yes,
    readRoster: async () => new Set(),
    enrol: async () => {},
    retire: yes,
    deployInstant: async (_bundleId: string, at: Date) => at,
    advanceWatermark: yes,
    endGap: yes,
    acquireCatchup: async () => undefined,
    finishCatchup: async () => {},
    acquireSlot: async () => ({ acquired: true }),
    releaseSlot: yes,
    countOverlapSkip: async () => ({ skips: 1, since: '2024-01-01T00:00:00.000Z', raises: false }),
    pause: async (jobId) => ({ jobId }),
    resume: yes,
    getSweepCursor: async () => undefined,
    advanceSweepCursor: async () => {},
  };
}

async function benchCpu() {
  const jobs = Array.from({ length: 100 }, (_, i) => job(`cpu-${i}`));
  let tickMs = T0;
  const dispatcher = dispatcherFor(instantLedger(), jobs, () => new Date(tickMs + 2_000));
  const drive = async (offsetHours: number, count: number) => {
    for (let i = 0; i < count; i++) {
      tickMs = T0 + (offsetHours + Math.floor(i / jobs.length)) * HOUR_MS;
      await dispatcher.handle(tickOf(jobs[i % jobs.length]?.id ?? '', tickMs));
    }
  };
  await drive(0, 2_000); // warm-up (JIT, engine caches)
  const runs = 20_000;
  const cpu = process.cpuUsage();
  await drive(1_000, runs);
  const used = process.cpuUsage(cpu);
  return { runs, cpuMsPerRun: (used.user + used.system) / 1000 / runs };
}

/** Runs `count` handler calls with at most `inFlight` at a time; resolves with each one's end. */
async function flood(dispatcher: Dispatcher, events: readonly object[], inFlight: number) {
  const ends: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < events.length) {
        const event = events[next++];
        await dispatcher.handle(event);
        ends.push(performance.now());
      }
    }),
  );
  return ends;
}

async function benchBurst(ddb: Local, inFlight: number) {
  const { client, counts, ledger } = await localLedger(ddb, `burst-${inFlight}`);
  const hourly = Array.from({ length: 5_000 }, (_, i) => job(`hourly-${i}`));
  const idle = Array.from({ length: 5_000 }, (_, i) =>
    job(`daily-${i}`, { schedule: '30 4 * * *', timezone: 'Europe/Berlin' }),
  );
  const top = T0 + 10 * HOUR_MS;
  // The dispatcher's clock: the burst starts two seconds after the top of the hour.
  let clockBase = { at: top + 2_000, perf: performance.now() };
  const dispatcher = dispatcherFor(ledger, [...hourly, ...idle], () => {
    return new Date(clockBase.at + (performance.now() - clockBase.perf));
  });
  for (const j of hourly) await ledger.createJobState(j.id, new Date(top - HOUR_MS));
  counts.resetCounts();
  const events = hourly.map((j) => tickOf(j.id, top));
  const begin = performance.now();
  clockBase = { at: top + 2_000, perf: begin };
  const ends = await flood(dispatcher, events, inFlight);
  const seconds = (performance.now() - begin) / 1000;
  const lags = ends.map((end) => end - begin).sort((a, b) => a - b);
  const requests = counts.total();
  const sweepStart = performance.now();
  clockBase = { at: top + 6 * 60_000 + 20_000, perf: sweepStart };
  const sweep = (await dispatcher.handle({
    sweep: true,
    scheduledTime: new Date(top + 6 * 60_000).toISOString(),
  })) as { keysRead: number };
  const sweepMs = performance.now() - sweepStart;
  client.destroy();
  return {
    inFlight,
    runsPerSecond: hourly.length / seconds,
    p50: percentile(lags, 50),
    p90: percentile(lags, 90),
    p99: percentile(lags, 99),
    requestsPerRun: requests / hourly.length,
    sweepMs,
    keysRead: sweep.keysRead,
  };
}

/** The median of `rounds` samples, each taken by `sample`. */
function medianOf(rounds: number, sample: () => number): number {
  const samples = Array.from({ length: rounds }, sample);
  return percentile(
    samples.sort((a, b) => a - b),
    50,
  );
}

function medianMs(args: string[], env: NodeJS.ProcessEnv, rounds: number): number {
  return medianOf(rounds, () => {
    const started = performance.now();
    const res = spawnSync(process.execPath, args, { env, stdio: 'pipe' });
    if (res.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${res.stderr}`);
    return performance.now() - started;
  });
}

/**
 * Bundles `entry` into a fresh `dir` the way the stack bundles a Lambda, with a jobs.json of
 * `jobs` beside it; returns the jobs file's path.
 */
function bundleWithJobs(
  dir: string,
  entry: string,
  jobs: readonly JobDefinition[],
  variant?: BundleOptions['variant'],
): string {
  rmSync(dir, { recursive: true, force: true });
  bundleFunction({ entry, outDir: dir, ...(variant === undefined ? {} : { variant }) });
  return writeJobsBundle(dir, createJobsBundle(jobs, { synthTime: new Date() }));
}

/** The bundle variants section 5 compares: what ships, and the alternatives it beat. */
const BUNDLE_VARIANTS = [
  { name: 'shipped', variant: {} },
  { name: 'one file', variant: { splitting: false } },
  { name: 'SDK external', variant: { splitting: false, external: ['@aws-sdk/*'] } },
] as const;

/** Bytes of a bundle's entry and of every chunk it imports statically (what loads at start). */
function loadedAtStartBytes(
  dir: string,
  file: string = FUNCTION_HANDLER_FILE,
  seen = new Set<string>(),
): number {
  if (seen.has(file)) return 0;
  seen.add(file);
  const text = readFileSync(join(dir, file), 'utf8');
  const imports = [
    ...text.matchAll(/from"\.\/(chunk-[\w-]+\.mjs)"|import"\.\/(chunk-[\w-]+\.mjs)"/g),
  ];
  return imports.reduce(
    (sum, m) => sum + loadedAtStartBytes(dir, (m[1] ?? m[2]) as string, seen),
    Buffer.byteLength(text),
  );
}

/** The first tick's job lookup in a fresh catalog, and the whole catalog the first sweep reads. */
function catalogCostsMs(dir: string, lastJobId: string) {
  const url = pathToFileURL(join(dir, JOBS_BUNDLE_FILE));
  const lookups: number[] = [];
  const wholes: number[] = [];
  for (let i = 0; i < 9; i++) {
    let started = performance.now();
    openJobsBundle(url).catalog.get(lastJobId);
    lookups.push(performance.now() - started);
    started = performance.now();
    openJobsBundle(url).catalog.all();
    wholes.push(performance.now() - started);
  }
  const median = (xs: number[]) =>
    percentile(
      xs.sort((a, b) => a - b),
      50,
    );
  return { lookupMs: median(lookups), wholeMs: median(wholes) };
}

async function benchBundles() {
  const outDir = join(process.cwd(), 'node_modules', '.cache', 'zonecron-bench');
  mkdirSync(outDir, { recursive: true });
  const env = dispatcherEnv();
  const rounds = 15;
  const bare = medianMs(['-e', ''], env, rounds);
  const results = [];
  for (const jobCount of [20, 10_000]) {
    const jobs = Array.from({ length: jobCount }, (_, i) =>
      job(`job-${i}`, {
        target: { type: 'sqs', arn: `arn:aws:sqs:eu-west-1:123456789012:q-${i}` },
      }),
    );
    for (const { name, variant } of BUNDLE_VARIANTS) {
      const dir = join(outDir, `${name.replace(' ', '-')}-${jobCount}`);
      const jobsFile = bundleWithJobs(dir, 'functions/dispatcher/handler.ts', jobs, variant);
      const outfile = join(dir, FUNCTION_HANDLER_FILE);
      const load = medianMs(
        ['--input-type=module', '-e', `await import(${JSON.stringify(outfile)})`],
        env,
        rounds,
      );
      results.push({
        name,
        jobCount,
        bytes: loadedAtStartBytes(dir),
        jobsBytes: statSync(jobsFile).size,
        loadMs: load - bare,
        ...catalogCostsMs(dir, `job-${jobCount - 1}`),
      });
    }
  }
  return { bare, results };
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** A Berlin business calendar with its public holidays, as the loader resolves one. */
const BERLIN_BUSINESS = {
  definition: {
    name: 'berlin-business',
    timezone: 'Europe/Berlin',
    holidays: 'DE-BE',
    holidayTypes: ['public' as const],
    weekendDays: [0, 6],
    closedDays: [{ date: '2026-12-24', reason: 'Christmas Eve' }],
    closedRanges: [{ from: '2026-12-28T00:00', to: '2027-01-04T00:00', reason: 'year-end freeze' }],
  },
  onClosed: 'following' as const,
};

/**
 * CPU milliseconds a fresh node spends importing `file` (median of `rounds`), measured inside
 * the child: unlike wall time, it holds on a machine busy with other work.
 */
function importCpuMs(file: string, env: NodeJS.ProcessEnv, rounds: number): number {
  const script = `const s = process.cpuUsage(); await import(${JSON.stringify(file)}); const u = process.cpuUsage(s); console.log((u.user + u.system) / 1000);`;
  return medianOf(rounds, () => {
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env,
      stdio: 'pipe',
    });
    if (res.status !== 0) throw new Error(`importing ${file} failed: ${res.stderr}`);
    return Number(res.stdout.toString().trim());
  });
}

/** Section 7: cold start with and without a calendar job (CPU milliseconds of the import). */
async function benchCalendarColdStart() {
  const { useFullHolidayData } = await import('../infra/config/holiday-data.ts');
  useFullHolidayData();
  const outDir = join(process.cwd(), 'node_modules', '.cache', 'zonecron-bench', 'calendar');
  const env = dispatcherEnv();
  const rounds = 21;
  const plain = Array.from({ length: 20 }, (_, i) => job(`job-${i}`));
  const withCalendar = [...plain, job('payroll', { calendar: BERLIN_BUSINESS })];
  const loadOf = (dir: string, file: string, jobId?: string) =>
    importCpuMs(
      join(dir, file),
      jobId === undefined ? env : { ...env, ZONECRON_BENCH_JOB: jobId },
      rounds,
    );
  const handlerLoad = (jobs: JobDefinition[], name: string) => {
    const dir = join(outDir, name);
    bundleWithJobs(dir, 'functions/dispatcher/handler.ts', jobs);
    return loadOf(dir, FUNCTION_HANDLER_FILE);
  };
  const questionDir = join(outDir, 'question');
  bundleWithJobs(questionDir, 'bench/calendar-cold-start.ts', withCalendar);
  const parserDir = join(outDir, 'parser');
  rmSync(parserDir, { recursive: true, force: true });
  bundleFunction({ entry: 'node_modules/date-holidays-parser/src/index.js', outDir: parserDir });
  return {
    handlerPlain: handlerLoad(plain, 'plain'),
    handlerCalendar: handlerLoad(withCalendar, 'with-calendar'),
    questionPlain: loadOf(questionDir, FUNCTION_HANDLER_FILE, 'job-0'),
    questionCalendar: loadOf(questionDir, FUNCTION_HANDLER_FILE, 'payroll'),
    parser: loadOf(parserDir, FUNCTION_HANDLER_FILE),
  };
}

/**
 * A minutely job whose watermark is ten years old (the dispatcher unreachable for a decade):
 * the requests, heap growth and time its next tick costs. The retention bounds the walk and the
 * policy the writes, so this is what a one-day gap costs too.
 */
async function benchDecadeGap(ddb: Local) {
  const { client, counts, ledger } = await localLedger(ddb, 'decade');
  const minutely = job('decade', { schedule: '* * * * *', timezone: 'UTC' });
  const upToMs = T0 + 10 * 365 * 86_400_000;
  let nowMs = T0;
  const dispatcher = dispatcherFor(ledger, [minutely], () => new Date(nowMs));
  await ledger.createJobState(minutely.id, new Date(T0));
  nowMs = upToMs + 2_000;
  counts.resetCounts();
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const result = await dispatcher.handle(tickOf(minutely.id, upToMs));
  const ms = performance.now() - started;
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
  client.destroy();
  const delivered = 'outcomes' in result ? result.outcomes.length : 0;
  return { requests: counts.total(), heapMb, ms, delivered };
}

console.log('zonecron dispatcher benchmark');
console.log(`node ${process.version}, ${process.platform}/${process.arch}\n`);

/** `-- --calendar` runs section 7 alone. */
const CALENDAR_ONLY = process.argv.includes('--calendar');

if (!CALENDAR_ONLY) {
  const ddb = await startDynamoDbLocal();
  try {
    const requests = await benchRequests(ddb);
    console.log('1) DynamoDB requests, counted at the client (DynamoDB Local)');
    for (const [what, n] of Object.entries(requests)) console.log(`   ${what.padEnd(34)} ${n}`);
    console.log('');

    const latency = await benchLatency(ddb);
    console.log('2) real core against DynamoDB Local, one run at a time');
    console.log(
      `   ${latency.runs} runs: p50 ${fmt(latency.p50)} ms, p99 ${fmt(latency.p99)} ms\n`,
    );

    const cpu = await benchCpu();
    console.log('3) dispatcher logic, ledger faked (instant answers, no-op target)');
    console.log(`   ${cpu.runs} runs: CPU ${fmt(cpu.cpuMsPerRun, 3)} ms/run (target < 0.5 ms)\n`);

    console.log(
      '4) top of the hour: 5,000 hourly jobs due in one minute (of 10,000), DynamoDB Local',
    );
    for (const inFlight of [10, 50]) {
      const b = await benchBurst(ddb, inFlight);
      console.log(
        `   ${String(b.inFlight).padStart(3)} in flight: ${fmt(b.runsPerSecond, 0)} runs/s, lag p50 ${fmt(b.p50 / 1000, 1)} s, p90 ${fmt(b.p90 / 1000, 1)} s, p99 ${fmt(b.p99 / 1000, 1)} s, ${fmt(b.requestsPerRun, 2)} requests/run; sweep after: ${fmt(b.sweepMs, 0)} ms, ${b.keysRead} keys read`,
      );
    }
    console.log('');

    const decade = await benchDecadeGap(ddb);
    console.log(
      '6) a ten-year gap of a minutely job (catchup: all, 24h window, maxRuns 100), its next tick',
    );
    console.log(
      `   ${decade.delivered} runs delivered, ${decade.requests} requests, heap ${fmt(decade.heapMb, 1)} MB more, ${fmt(decade.ms, 0)} ms (DynamoDB Local)\n`,
    );
  } finally {
    await ddb.stop();
  }

  const bundles = await benchBundles();
  console.log(
    `5) cold start: module load over bare node (${fmt(bundles.bare, 0)} ms), code loaded at start, and the jobs file`,
  );
  for (const r of bundles.results) {
    console.log(
      `   ${r.name.padEnd(13)} ${String(r.jobCount).padStart(6)} jobs  ${fmt(r.bytes / 1024, 1).padStart(7)} KiB at start, jobs.json ${fmt(r.jobsBytes / 1024, 0).padStart(5)} KiB   load +${fmt(r.loadMs, 0)} ms; first tick's job lookup ${fmt(r.lookupMs, 1)} ms, whole catalog ${fmt(r.wholeMs, 1)} ms`,
    );
  }
  console.log(
    '   shipped: code splitting, SDK bundled (infra/packaging/bundling.ts); target: load <= 100 ms with 10,000 jobs',
  );
}

const calendar = await benchCalendarColdStart();
console.log(
  '\n7) cold start with a calendar job (DE-BE holidays), CPU ms of the import in a fresh node',
);
console.log(
  `   handler load, 20 jobs: ${fmt(calendar.handlerPlain, 0)} ms; with a calendar job and its holiday table: ${fmt(calendar.handlerCalendar, 0)} ms`,
);
console.log(
  `   first closed-day question, bundled like the handler: ${fmt(calendar.questionCalendar, 1)} ms against ${fmt(calendar.questionPlain, 1)} ms for a job without a calendar (+${fmt(calendar.questionCalendar - calendar.questionPlain, 1)} ms)`,
);
console.log(
  `   not shipped: loading date-holidays-parser in the Lambda instead of the table would add ${fmt(calendar.parser, 0)} ms; target: a calendar job within 20 ms of a plain one`,
);
