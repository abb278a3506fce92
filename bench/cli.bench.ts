/**
 * Benchmark: how long `zonecron` takes to start, from the bundle and from the sources.
 *
 * Spawns `node bin/zonecron.mjs --help` and `… next '30 2 * * *' --tz Europe/Berlin` in turn,
 * once through the bundle in dist/cli (`ZONECRON_FROM_SOURCE=0`) and once through tsx
 * (`ZONECRON_FROM_SOURCE=1`), plus `node -e ''` as the floor no Node program goes below, and
 * from the bundle `next` of a schedule that never runs (the engine proves it, then says why).
 * Prints the median and p90 wall time of each and the ratio of tsx to bundle; asserts nothing.
 * Run with `npm run bench:cli` (it builds first), `-- --runs 50` for more runs.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/zonecron.mjs', import.meta.url));
const WARM_UP_RUNS = 3;
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 20;
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs takes a whole number >= 1');

interface Variant {
  readonly label: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly ms: number[];
}

const variant = (label: string, args: readonly string[], fromSource?: '0' | '1'): Variant => ({
  label,
  args,
  env: fromSource === undefined ? {} : { ZONECRON_FROM_SOURCE: fromSource },
  ms: [],
});

const NEXT = ['next', '30 2 * * *', '--tz', 'Europe/Berlin'];
/** A schedule that never runs: every run falls in Berlin's spring-forward gap, skipped. */
const NEVER = ['next', '30 2 * 3 0L', '--tz', 'Europe/Berlin', '--gap', 'skip', '-n', '2'];
const variants = [
  variant("node -e ''", ['-e', '']),
  variant('--help: bundle', [BIN, '--help'], '0'),
  variant('--help: tsx', [BIN, '--help'], '1'),
  variant('next: bundle', [BIN, ...NEXT], '0'),
  variant('next: tsx', [BIN, ...NEXT], '1'),
  variant('never: bundle', [BIN, ...NEVER], '0'),
];

function runOnce(v: Variant): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, v.args, {
    env: { ...process.env, ...v.env },
    encoding: 'utf8',
  });
  const ms = performance.now() - start;
  if (result.status !== 0) {
    throw new Error(`${v.label} exited with ${result.status}: ${result.stderr.trim()}`);
  }
  return ms;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const loadBefore = load();
// Round robin, so that a change in machine load touches every variant alike.
for (let round = 0; round < WARM_UP_RUNS + RUNS; round++) {
  for (const v of variants) {
    const ms = runOnce(v);
    if (round >= WARM_UP_RUNS) v.ms.push(ms);
  }
}

const median = (v: Variant) => quantile(v.ms, 0.5);
const cell = (ms: number) => `${Math.round(ms)} ms`.padStart(8);
console.log(
  `zonecron start-up: wall time per process, ${RUNS} runs each after ${WARM_UP_RUNS} warm-up runs`,
);
console.log(
  `Node ${process.version}, ${cpus().length} CPUs, load average ${loadBefore} before, ${load()} after`,
);
console.log(`next = next '30 2 * * *' --tz Europe/Berlin`);
console.log(`never = next '30 2 * 3 0L' --tz Europe/Berlin --gap skip -n 2 (it never runs)\n`);
console.log(`${''.padEnd(16)}${'median'.padStart(8)}${'p90'.padStart(8)}`);
for (const v of variants) {
  const bundle = v.label.endsWith(': tsx')
    ? variants.find((b) => b.label === v.label.replace(': tsx', ': bundle'))
    : undefined;
  const ratio = bundle ? `  ${(median(v) / median(bundle)).toFixed(1)}× the bundle` : '';
  console.log(`${v.label.padEnd(16)}${cell(median(v))}${cell(quantile(v.ms, 0.9))}${ratio}`);
}
