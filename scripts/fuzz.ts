// `npm run fuzz -- --minutes N [--seed S] [--shrink-minutes M]`: holds the real dispatcher,
// recorder and ledger (on dynalite, in this process) against the model of docs/semantics.md §6
// on seeded random scenarios until N minutes passed, shrinks every scenario where they disagree
// (for at most M minutes each), and prints each with the jobs.yaml and faults.yaml that
// reproduce it. Exits 1 when it found a violation. The seed of a session is printed first; the
// same seed draws the same scenarios. `npm run fuzz -- --replay FILE` checks one kept scenario
// (a fixture of test/fixtures/fuzz/) instead, and prints its violations.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

// The pinned AWS SDK warns under Node 20 that its later releases need Node 22; it works here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const { checkScenario, fuzz, reproduction } = await import('../test/fuzz/fuzzer.ts');

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string' },
    'shrink-minutes': { type: 'string', default: '3' },
    replay: { type: 'string' },
  },
});
if (values.replay !== undefined) {
  const { scenario } = JSON.parse(readFileSync(values.replay, 'utf8'));
  const result = await checkScenario(scenario);
  console.log(result.violations.length === 0 ? 'agrees with the model' : reproduction(result));
  process.exit(result.violations.length > 0 ? 1 : 0);
}
const minutes = Number(values.minutes);
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
const shrinkMinutes = Number(values['shrink-minutes']);
if (!(minutes > 0) || !Number.isInteger(seed) || !(shrinkMinutes > 0)) {
  console.error(
    'usage: npm run fuzz -- --minutes N [--seed S] [--shrink-minutes M] | --replay FILE',
  );
  process.exit(2);
}

console.log(`fuzzing for ${minutes} min from seed ${seed}`);
let drawn = 0;
const report = await fuzz({
  seed,
  budgetMs: minutes * 60_000,
  shrinkMs: shrinkMinutes * 60_000,
  onScenario(result, shrinking) {
    if (shrinking) return;
    drawn++;
    if (result.violations.length > 0) {
      console.log(`seed ${seed + drawn - 1}: ${result.violations.length} violation(s); shrinking…`);
    }
  },
});

const n = (x: number) => Math.round(x).toLocaleString('en-US');
const line = (what: string, t: typeof report.drawn) =>
  `${what}: ${n(t.scenarios)} scenarios, ${n(t.jobHours)} simulated job-hours, ${n(t.invocations)} dispatcher and recorder invocations, ${n(t.ledgerRequests)} ledger requests, ${t.cpuMinutes.toFixed(2)} CPU-min: ${n(t.cpuMinutes > 0 ? t.jobHours / t.cpuMinutes : 0)} simulated job-hours per CPU-minute`;
console.log(
  [
    line('drawn', report.drawn),
    line('shrinking', report.shrinking),
    `CPU of the whole session: ${report.cpuMinutes.toFixed(2)} min`,
    `violations: ${report.failures.length} scenario(s)`,
  ].join('\n'),
);
for (const { seed: failing, smallest } of report.failures) {
  console.log(`\n# seed ${failing}, shrunk:\n${reproduction(smallest)}`);
}
process.exit(report.failures.length > 0 ? 1 : 0);
