/**
 * One measured synth, in a process of its own (`npm run bench:synth` starts one per size):
 * exactly what `cdk synth -c jobs=<file>` runs inside the app (`synthesizeApp`: load, covering
 * crons, constructs, esbuild bundling, cdk-nag, the AWS-limit checks), into a temporary folder.
 * Prints one JSON line: wall-clock milliseconds, peak resident memory, what was built.
 *
 *   npx tsx bench/synth-run.ts /tmp/jobs-1000.yaml
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { synthesizeApp } from '../infra/app/main.ts';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: synth-run.ts <jobs file>');
const outdir = mkdtempSync(join(tmpdir(), 'zonecron-bench-'));
const started = performance.now();
const directory = synthesizeApp(new App({ outdir, context: { jobs: file } }));
const ms = performance.now() - started;
const manifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8')) as {
  artifacts: Record<string, { type: string }>;
};
const stacks = Object.values(manifest.artifacts).filter(
  (artifact) => artifact.type === 'aws:cloudformation:stack',
).length;
rmSync(outdir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ ms: Math.round(ms), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), stacks })}\n`,
);
