// The real dispatcher, recorder and ledger (on dynalite, with a simulated clock and a faults
// plan) held against the model of docs/semantics.md §6 (test/reference/fate-model.ts), on a
// fixed set of seeded scenarios: every run's fate and every notification as the model says.
// `npm run fuzz` draws new ones for as long as it is given. Each disagreement it found is kept
// as a fixture (test/fixtures/fuzz/), replayed by fate-fixtures-*.test.ts (disagreements.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkScenario, reproduction } from '../../fuzz/fuzzer.ts';
import { type FuzzScenario, scenarioArbitrary } from '../../fuzz/scenario.ts';

/** Small scenarios: at most four jobs over at most eight hours, chaos included. */
const SUITE = scenarioArbitrary({ maxJobs: 4, maxHours: 8, chaos: true });

/** Seeds whose scenarios the system passes, among them outages, late and duplicated ticks,
 * failing and slow targets, pauses, forbid jobs, crashes and throttling, deploys (of schedules,
 * policies and targets; jobs removed and listed again), backfills, manual runs, redrives and
 * forged completions, and deadlines (seeds 4 and 12 owe a deadline-missed notification). */
const SEEDS = [2, 4, 5, 7, 8, 9, 12, 13, 14, 16, 17, 19, 20, 21, 22, 24, 27, 30, 31, 35, 40];

describe('the real system against the model of §6, on seeded scenarios', () => {
  it.each(SEEDS)(
    'seed %i: every run ends in the fate the model gives it, with the notifications it owes',
    async (seed) => {
      const [scenario] = fc.sample(SUITE, { seed, numRuns: 1 });
      const result = await checkScenario(scenario as FuzzScenario);
      expect(result.violations.length > 0 ? reproduction(result) : undefined).toBeUndefined();
      // The scenario did run: the system handled its ticks and sweeps.
      expect(result.operations.invocations).toBeGreaterThan(0);
    },
  );
});
