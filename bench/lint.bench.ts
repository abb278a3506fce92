/**
 * Benchmark: how long CI's CloudFormation lint (`scripts/cfn-lint.ts`) takes for a 2,000-job
 * app (`scripts/generate-jobs.ts`, seed 1, 20 jobs with `alarm.dedicated`, as
 * test/infra/scale.test.ts): `cdk synth` offline, then cfn-lint over every template, each timed,
 * and whether cfn-lint found anything.
 *
 * It prints figures and asserts nothing: it is not a test. Run with `npm run bench:lint`
 * (`-- 100 10000` for other sizes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cfnLintVersion, lintAssembly, synthesize } from '../scripts/cfn-lint.ts';
import { generateJobsYaml } from '../scripts/generate-jobs.ts';

const sizes = process.argv.slice(2).map(Number);
const counts = sizes.length > 0 ? sizes : [2_000];
const version = cfnLintVersion();
if (version === undefined) {
  console.log('lint benchmark: cfn-lint is not installed (pip install cfn-lint); nothing to time');
  process.exit(0);
}
console.log(
  `lint benchmark: ${version}, Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
);
console.log('jobs     templates      synth       lint  result');
const dir = mkdtempSync(join(tmpdir(), 'zonecron-bench-lint-'));
try {
  for (const count of counts) {
    const file = join(dir, `jobs-${count}.yaml`);
    writeFileSync(file, generateJobsYaml({ count, seed: 1, dedicated: Math.min(20, count) }));
    const outdir = join(dir, `cdk.out-${count}`);
    const synthMs = synthesize(outdir, ['-c', `jobs=${file}`]);
    const lint = lintAssembly(outdir);
    const result = lint.status === 0 ? 'no error or warning' : `findings (exit ${lint.status})`;
    console.log(
      `${String(count).padEnd(8)} ${String(lint.templates).padStart(9)}  ${(synthMs / 1000).toFixed(1).padStart(7)} s  ${(lint.ms / 1000).toFixed(1).padStart(7)} s  ${result}`,
    );
    if (lint.status !== 0) process.stdout.write(lint.output);
    rmSync(outdir, { recursive: true, force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
