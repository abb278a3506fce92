/**
 * Benchmark: how long the cron parser takes on arbitrary text, worst cases included.
 *
 * Generates inputs with the same arbitraries the parser's property test uses (random strings,
 * binary, token soup, long repetitive inputs), parses each one (best of three tries, so a GC
 * pause does not count as a slow parse) and prints the distribution of per-call times and the
 * slowest inputs. It asserts nothing. Run with `npm run bench:parse`.
 */
import fc from 'fast-check';
import { parseCron } from '../functions/schedule/index.ts';
import { anyCronText, optionalJobId } from '../test/support/cron-text.ts';

const SAMPLES = 20_000;
const SEED = 42;

function parseMs(text: string, jobId: string | undefined): number {
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3; attempt++) {
    const start = performance.now();
    try {
      parseCron(text, jobId);
    } catch {
      // Errors are what most of these inputs produce; only the time is measured here.
    }
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const inputs = fc.sample(fc.tuple(anyCronText, optionalJobId), { numRuns: SAMPLES, seed: SEED });
for (const [text, jobId] of inputs.slice(0, 500)) parseMs(text, jobId); // warm-up
const timed = inputs.map(([text, jobId]) => ({ text, ms: parseMs(text, jobId) }));
const sorted = timed.map((t) => t.ms).sort((a, b) => a - b);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const fmt = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

console.log(`parseCron on ${SAMPLES.toLocaleString('en-US')} arbitrary inputs (seed ${SEED})`);
console.log(
  `  p50 ${fmt(at(0.5))}  p99 ${fmt(at(0.99))}  p99.9 ${fmt(at(0.999))}  max ${fmt(at(1))}`,
);
console.log('  slowest inputs:');
for (const { text, ms } of [...timed].sort((a, b) => b.ms - a.ms).slice(0, 5)) {
  console.log(`    ${fmt(ms).padStart(10)}  ${JSON.stringify(text.slice(0, 60))}`);
}
