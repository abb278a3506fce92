#!/usr/bin/env node
// The whole test suite: lint, build the CLI, then vitest once under TZ=UTC over every test,
// and once more under TZ=America/New_York over the suites whose results could depend on the
// process's zone (the engine, its reference and the CLI's formatting); the type-check runs
// beside them all and is printed at the end. Prints one closing line, `N passed, N failed`,
// summed over both runs from vitest's JSON reporter.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The folders run a second time under a zone with DST; everything else runs once. */
const ZONE_SENSITIVE = [
  'test/unit/schedule',
  'test/unit/shared',
  'test/unit/ledger',
  'test/reference',
  'test/unit/cli/format',
];
/**
 * The CLI's end-to-end tests (test/cli) run under TZ=UTC only: nothing in cli/ or functions/
 * reads the process's zone (test/unit/process-zone.test.ts keeps it so), and the CLI's
 * formatting runs in-process under both zones in test/unit/cli/format. Files in the folders
 * above whose results cannot depend on the process's zone either, left out of the second run:
 * - test/unit/schedule/zone-scan.test.ts: compares the engine with Intl in every zone, both
 *   read with an explicit zone (Date.UTC, formatToParts with timeZone); what it covers is the
 *   zone data, not the process's zone, which the other engine suites cover under both zones.
 * - test/unit/shared/metrics.test.ts: the metrics' records carry names and counts, no time.
 * - test/unit/shared/logger.test.ts: checks which fields a log line has, in a child process.
 */
const ZONE_FREE = [
  'test/unit/schedule/zone-scan.test.ts',
  'test/unit/shared/metrics.test.ts',
  'test/unit/shared/logger.test.ts',
];

/** The test files of `folders`, without `left`, as vitest filters. */
function testFiles(folders, left) {
  return folders
    .flatMap((folder) =>
      readdirSync(folder, { recursive: true, encoding: 'utf8' }).map((f) => join(folder, f)),
    )
    .filter((file) => file.endsWith('.test.ts') && !left.includes(file))
    .sort();
}

const RUNS = [
  { zone: 'UTC', paths: [] },
  {
    zone: 'America/New_York',
    paths: testFiles(ZONE_SENSITIVE, ZONE_FREE),
    label: ZONE_SENSITIVE,
    // None of the zone-sensitive suites reads a ledger: no DynamoDB Local to start.
    env: { ZONECRON_TEST_DYNAMODB_LOCAL: '0' },
  },
];
const outDir = '.vitest-results';
const extraArgs = process.argv.slice(2);

// The AWS SDK warns in every process under Node 20 that its releases after January 2027 need
// Node 22; the pinned SDK works on Node 20, and the warning would bury the test output.
const quiet = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

function run(cmd, args, env = quiet) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', env });
  return res.status ?? 1;
}

/**
 * Starts a step in the background, its output kept until it is printed: the type-check runs on
 * one core and needs nothing the other steps make, so it runs beside them (on 2 cores it
 * would otherwise leave one idle for its 20 to 30 s).
 */
function start(cmd, args, env = quiet) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ status: 1, output: `${error.message}\n` }));
    child.on('close', (code) => resolve({ status: code ?? 1, output: Buffer.concat(output) }));
  });
}

const started = Date.now();
let failedSteps = 0;
const typeCheck = start('npx', ['tsc', '--noEmit']);
console.log('» biome check');
failedSteps += run('npx', ['biome', 'check', '.']) === 0 ? 0 : 1;
// The CLI tests run the bundle and refuse a stale one (ZONECRON_FROM_SOURCE=0): build it from
// the sources as they are now.
console.log('» build the CLI');
failedSteps += run(process.execPath, ['scripts/build-cli.mjs']) === 0 ? 0 : 1;

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
let passed = 0;
let failed = 0;
let skipped = 0;
for (const { zone, paths, label = paths, env = {} } of RUNS) {
  const file = join(outDir, `${zone.replace('/', '_')}.json`);
  console.log(
    `» vitest run (TZ=${zone}${label.length ? `: ${label.join(', ')}, but ${ZONE_FREE.join(', ')}` : ''})`,
  );
  const status = run(
    'npx',
    [
      'vitest',
      'run',
      ...paths,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${file}`,
      ...extraArgs,
    ],
    { ...quiet, ...env, TZ: zone },
  );
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    if (status !== 0 && report.numFailedTests === 0) failedSteps += 1;
  } catch {
    failedSteps += 1;
    console.error(`no vitest report for TZ=${zone} (exit ${status})`);
  }
}
console.log('» tsc --noEmit (run beside the steps above)');
const typed = await typeCheck;
process.stdout.write(typed.output);
failedSteps += typed.status === 0 ? 0 : 1;
if (failedSteps > 0) console.error(`${failedSteps} step(s) failed besides the test counts`);
console.log(`took ${Math.round((Date.now() - started) / 1000)} s`);
console.log(
  `${passed} passed, ${failed + failedSteps} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failed + failedSteps > 0 ? 1 : 0);
