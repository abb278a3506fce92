/**
 * Benchmark: what zone-data drift detection costs, for 10,000 generated jobs
 * (`scripts/generate-jobs.ts --count 10000 --seed 1`: every cron form, 40 zones).
 *
 * 1. jobs.json: its size with and without the zone-data record (platform, a fingerprint per
 *    enabled job, the offsets of each zone), and what computing the record adds to synth.
 * 2. The dispatcher's module load over bare node with each jobs.json, bundled as the stack
 *    bundles it: what the record adds to a cold start (parsing only: nothing is computed).
 * 3. The check one container runs at its first sweep (`findZoneDrift`), each in a fresh
 *    process: with nothing drifted, cold and after the sweep's own first pass has built the
 *    zone tables; with Europe/Berlin's spring change moved a week in the record; and the worst
 *    case the run budget bounds: 2,000 every-minute Berlin jobs, the same change.
 *
 * It prints figures, it asserts nothing: it is not a test. Run with
 * `npx tsx bench/zone-drift.bench.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { type JobsBundle, unpackFingerprints } from '#jobs/jobs-bundle.ts';
import { findZoneDrift, recordSchedules } from '#zone-drift/zone-drift.ts';
import { zoneDataVersion } from '#zone-drift/zone-fingerprint.ts';
import { nextOccurrences, shiftedTransitionRules } from '../functions/schedule/index.ts';
import { parseJobsConfig } from '../infra/config/load-jobs.ts';
import { bundleFunction, FUNCTION_HANDLER_FILE } from '../infra/packaging/bundling.ts';
import { createJobsBundle, writeJobsBundle } from '../infra/packaging/jobs-bundle-file.ts';
import { generateJobsYaml } from '../scripts/generate-jobs.ts';
import { dispatcherEnv } from './handler-env.ts';

const SYNTH_TIME = new Date('2026-11-30T15:00:00Z');
const BERLIN_SPRING = new Date('2027-03-28T01:00:00Z');
const OUT_DIR = join(process.cwd(), 'node_modules', '.cache', 'zonecron-bench', 'zone-drift');

function generatedJobs(): JobDefinition[] {
  const yaml = generateJobsYaml({ count: 10_000, seed: 1 });
  return [...parseJobsConfig(yaml, 'jobs-10000.yaml').jobs];
}

/** Child mode: one measurement in a fresh process, printed as JSON. */
function child(scenario: string, bundleFile: string) {
  const bundle = JSON.parse(readFileSync(bundleFile, 'utf8')) as JobsBundle;
  const enabled = bundle.jobs.filter((job) => job.enabled);
  let sweepMs = 0;
  if (scenario === 'after-sweep') {
    // The sweep's own first pass: every enabled job's next run (zone tables for this year).
    const started = performance.now();
    for (const job of enabled) nextOccurrences(scheduleSpecOf(job), SYNTH_TIME, 1);
    sweepMs = performance.now() - started;
  }
  const started = performance.now();
  const record = { ...bundle, fingerprints: unpackFingerprints(bundle.jobs, bundle.fingerprints) };
  const findings = findZoneDrift(bundle.jobs, record);
  const checkMs = performance.now() - started;
  const capped = findings.filter((f) => !f.runsCompared).length;
  console.log(JSON.stringify({ sweepMs, checkMs, findings: findings.length, capped }));
}

function inFreshProcess(scenario: string, bundleFile: string) {
  const runs = Array.from({ length: 5 }, () => {
    const res = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'bench/zone-drift.bench.ts', '--child', scenario, bundleFile],
      { encoding: 'utf8' },
    );
    if (res.status !== 0) throw new Error(res.stderr);
    return JSON.parse(res.stdout) as {
      sweepMs: number;
      checkMs: number;
      findings: number;
      capped: number;
    };
  });
  return runs.sort((a, b) => a.checkMs - b.checkMs)[2] as (typeof runs)[0];
}

/** Median wall time of `node <args>` per variant, the variants taking turns round by round. */
function medianMsEach(
  variants: Record<string, string[]>,
  env: NodeJS.ProcessEnv,
  rounds = 15,
): Record<string, number> {
  const samples: Record<string, number[]> = {};
  for (let i = 0; i < rounds; i++) {
    for (const [name, args] of Object.entries(variants)) {
      const started = performance.now();
      const res = spawnSync(process.execPath, args, { env, stdio: 'pipe' });
      if (res.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${res.stderr}`);
      samples[name] = [...(samples[name] ?? []), performance.now() - started];
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([name, ms]) => [
      name,
      ms.sort((a, b) => a - b)[Math.floor(rounds / 2)] as number,
    ]),
  );
}

/** The bundled dispatcher's module load over bare node with each jobs.json, and its parse. */
async function moduleLoads(bundles: Record<string, JobsBundle>) {
  const env = dispatcherEnv();
  const variants: Record<string, string[]> = { bare: ['-e', ''] };
  const parseMs: Record<string, number> = {};
  for (const [name, bundle] of Object.entries(bundles)) {
    const dir = join(OUT_DIR, `handler-${name}`);
    const file = writeJobsBundle(dir, bundle);
    bundleFunction({ entry: 'functions/dispatcher/handler.ts', outDir: dir });
    const outfile = join(dir, FUNCTION_HANDLER_FILE);
    variants[name] = ['--input-type=module', '-e', `await import(${JSON.stringify(outfile)})`];
    const text = readFileSync(file, 'utf8');
    const parses = Array.from({ length: 21 }, () => {
      const started = performance.now();
      JSON.parse(text);
      return performance.now() - started;
    });
    parseMs[name] = parses.sort((a, b) => a - b)[10] as number;
  }
  const medians = medianMsEach(variants, env);
  const bare = medians.bare as number;
  const loads = Object.fromEntries(
    Object.keys(bundles).map((name) => [name, (medians[name] as number) - bare]),
  );
  return { bare, loads, parseMs };
}

async function main() {
  mkdirSync(OUT_DIR, { recursive: true });
  const jobs = generatedJobs();
  const enabled = jobs.filter((job) => job.enabled).length;
  console.log(`zone-drift benchmark: node ${process.version}, tz ${zoneDataVersion()}`);
  console.log(`10,000 generated jobs (${enabled} enabled), synth at ${SYNTH_TIME.toISOString()}\n`);
  const { withRecord, without } = recordSize(jobs, enabled);
  await printModuleLoads(without, withRecord);
  printFirstSweepChecks(checkFiles(jobs, withRecord));
}

/** 1) What the zone-data record adds to jobs.json, and what computing it costs at synth. */
function recordSize(jobs: readonly JobDefinition[], enabled: number) {
  const started = performance.now();
  const record = recordSchedules(jobs, SYNTH_TIME);
  const recordMs = performance.now() - started;
  const withRecord = createJobsBundle(jobs, { synthTime: SYNTH_TIME });
  const without = { ...withRecord, fingerprints: '', zones: {} };
  const bytes = (b: object) => Buffer.byteLength(JSON.stringify(b), 'utf8');
  const added = bytes(withRecord) - bytes(without);
  const zoneBytes = bytes(record.zones);
  console.log('1) jobs.json');
  console.log(`   without the record  ${bytes(without).toLocaleString('en-US')} bytes`);
  console.log(
    `   with it             ${bytes(withRecord).toLocaleString('en-US')} bytes: +${added.toLocaleString('en-US')} (+${((added / bytes(without)) * 100).toFixed(1)} %), ${(added / enabled).toFixed(1)} bytes per enabled job; zones ${zoneBytes.toLocaleString('en-US')} bytes for ${Object.keys(record.zones).length} zones`,
  );
  console.log(
    `   computing the record at synth (this process, first engine use): ${recordMs.toFixed(0)} ms\n`,
  );
  return { withRecord, without };
}

/** 2) The dispatcher's module load with each jobs.json. */
async function printModuleLoads(without: JobsBundle, withRecord: JobsBundle) {
  const { bare, loads, parseMs } = await moduleLoads({ without, with: withRecord });
  console.log(
    `2) dispatcher module load over bare node (${bare.toFixed(0)} ms), median of 15, taking turns`,
  );
  for (const [name, ms] of Object.entries(loads)) {
    console.log(
      `   jobs.json ${name.padEnd(8)} +${ms.toFixed(0)} ms (JSON.parse of it: ${(parseMs[name] ?? 0).toFixed(1)} ms)`,
    );
  }
  console.log('');
}

/** The three records the check runs on: as synth made it, Berlin moved, 2,000 minutely jobs. */
function checkFiles(jobs: readonly JobDefinition[], withRecord: JobsBundle) {
  const same = join(OUT_DIR, 'same.json');
  writeFileSync(same, JSON.stringify(withRecord));
  const drifted = join(OUT_DIR, 'berlin-moved.json');
  const moved = shiftedTransitionRules('Europe/Berlin', BERLIN_SPRING, 7 * 24 * 60);
  writeFileSync(
    drifted,
    JSON.stringify(createJobsBundle(jobs, { synthTime: SYNTH_TIME, zoneRules: moved })),
  );
  const minutely = join(OUT_DIR, 'berlin-minutely-moved.json');
  const everyMinute = Array.from({ length: 2000 }, (_, i) => ({
    ...(jobs[0] as JobDefinition),
    id: `minutely-${i}`,
    schedule: '* * * * *',
    timezone: 'Europe/Berlin',
    enabled: true,
  }));
  writeFileSync(
    minutely,
    JSON.stringify(createJobsBundle(everyMinute, { synthTime: SYNTH_TIME, zoneRules: moved })),
  );
  return { same, drifted, minutely };
}

/** 3) The check at a container's first sweep, each scenario in a fresh process. */
function printFirstSweepChecks(files: ReturnType<typeof checkFiles>) {
  console.log("3) the check at a container's first sweep, fresh process, median of 5");
  const rows: [string, string, string][] = [
    ['nothing drifted, cold', 'cold', files.same],
    ['nothing drifted, after the sweep', 'after-sweep', files.same],
    ['Europe/Berlin drifted, cold', 'cold', files.drifted],
    ['Europe/Berlin drifted, after the sweep', 'after-sweep', files.drifted],
    ['2,000 every-minute jobs, Berlin drifted', 'cold', files.minutely],
  ];
  for (const [label, scenario, file] of rows) {
    const r = inFreshProcess(scenario, file);
    const sweep =
      scenario === 'after-sweep' ? ` (the sweep's pass: ${r.sweepMs.toFixed(0)} ms)` : '';
    console.log(
      `   ${label.padEnd(40)} ${r.checkMs.toFixed(0).padStart(5)} ms, ${r.findings} jobs found${r.capped ? ` (${r.capped} past the run budget)` : ''}${sweep}`,
    );
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) child(process.argv[childAt + 1] ?? '', process.argv[childAt + 2] ?? '');
else await main();
