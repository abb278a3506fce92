/**
 * Benchmark: how long `cdk synth` takes, and how much memory it needs, for 100, 1,000 and
 * 10,000 generated jobs (`scripts/generate-jobs.ts`, seed 1, every cron form and target type,
 * 40 zones). Each size runs in a fresh process (`bench/synth-run.ts`), so the memory figure is
 * that synth's own peak (maxRSS) and no cache carries over. Bundling with esbuild, cdk-nag and
 * the AWS-limit checks are included; the CDK CLI's own start-up is not.
 *
 * It prints figures and asserts nothing: it is not a test. Run with `npm run bench:synth`
 * (`-- 100 1000` for other sizes).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateJobsYaml } from '../scripts/generate-jobs.ts';

const sizes = process.argv.slice(2).map(Number);
const counts = sizes.length > 0 ? sizes : [100, 1_000, 10_000];
const dir = mkdtempSync(join(tmpdir(), 'zonecron-bench-jobs-'));
console.log(
  `synth benchmark: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
);
console.log('jobs     enabled stacks  wall time  peak memory (maxRSS)');
try {
  for (const count of counts) {
    const file = join(dir, `jobs-${count}.yaml`);
    writeFileSync(file, generateJobsYaml({ count, seed: 1 }));
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'bench/synth-run.ts', file], {
      encoding: 'utf8',
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0) {
      throw new Error(`synth of ${count} jobs failed (exit ${result.status}):\n${result.stderr}`);
    }
    const enabled = /(\d+) enabled job/.exec(result.stderr)?.[1] ?? '?';
    const line = result.stdout.trim().split('\n').at(-1) ?? '{}';
    const { ms, maxRssMb, stacks } = JSON.parse(line) as {
      ms: number;
      maxRssMb: number;
      stacks: number;
    };
    console.log(
      `${String(count).padEnd(8)} ${enabled.padStart(7)} ${String(stacks).padStart(6)}  ${(ms / 1000).toFixed(1).padStart(7)} s  ${String(maxRssMb).padStart(6)} MB`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
