#!/usr/bin/env node
// The whole test suite: lint, type-check, then vitest once under TZ=UTC and once under
// TZ=America/New_York, so that nothing depends on the host's zone. Prints one closing line,
// `N passed, N failed`, summed over both runs from vitest's JSON reporter.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const zones = ['UTC', 'America/New_York'];
const outDir = '.vitest-results';
const extraArgs = process.argv.slice(2);

function run(cmd, args, env = process.env) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', env });
  return res.status ?? 1;
}

let failedSteps = 0;
console.log('» biome check');
failedSteps += run('npx', ['biome', 'check', '.']) === 0 ? 0 : 1;
console.log('» tsc --noEmit');
failedSteps += run('npx', ['tsc', '--noEmit']) === 0 ? 0 : 1;

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
let passed = 0;
let failed = 0;
let skipped = 0;
for (const zone of zones) {
  const file = join(outDir, `${zone.replace('/', '_')}.json`);
  console.log(`» vitest run (TZ=${zone})`);
  const status = run(
    'npx',
    [
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${file}`,
      ...extraArgs,
    ],
    { ...process.env, TZ: zone },
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
if (failedSteps > 0) console.error(`${failedSteps} step(s) failed besides the test counts`);
console.log(
  `${passed} passed, ${failed + failedSteps} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
process.exit(failed + failedSteps > 0 ? 1 : 0);
