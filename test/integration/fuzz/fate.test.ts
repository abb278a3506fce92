// The real dispatcher, recorder and ledger (on dynalite, with a simulated clock and a faults
// plan) held against the model of docs/semantics.md §6 (test/reference/fate-model.ts), on a
// fixed set of seeded scenarios: every run's fate and every notification as the model says.
// `npm run fuzz` draws new ones for as long as it is given. The disagreements found so far
// are kept as fixtures (test/fixtures/fuzz/), each pinned exactly: what the system does against
// the model, and what is left of it once the model reads §6 as the system is known to (the
// fixture's deviations); nothing is left of a known reading, a bug stays.
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkScenario, reproduction } from '../../fuzz/fuzzer.ts';
import { type FuzzScenario, scenarioArbitrary } from '../../fuzz/scenario.ts';
import type { Deviation } from '../../reference/fate-model.ts';

/** Small scenarios: at most four jobs over at most eight hours, chaos included. */
const SUITE = scenarioArbitrary({ maxJobs: 4, maxHours: 8, chaos: true });

/** Seeds whose scenarios the system passes, among them outages, late and duplicated ticks,
 * failing and slow targets, pauses, forbid jobs, crashes and throttling. */
const SEEDS = [4, 5, 8, 9, 12, 14, 15, 16, 18, 19, 20, 21, 22, 24, 27, 30, 35, 39, 40];

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

interface Disagreement {
  readonly deviations: readonly Deviation[];
  readonly summary: string;
  readonly violations: readonly string[];
  /** The violations left with the deviations taken. */
  readonly remaining: readonly string[];
  readonly scenario: FuzzScenario;
}

const FIXTURES = new URL('../../fixtures/fuzz/', import.meta.url);
const disagreements = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => {
    const fixture = JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Disagreement;
    return [name.replace('.json', ''), fixture] as const;
  });

describe('the disagreements between the system and §6 found so far', () => {
  it.each(disagreements)(
    '%s: the system still disagrees with the model exactly so, also once its known readings are taken',
    async (_, fixture) => {
      expect((await checkScenario(fixture.scenario)).violations).toEqual(fixture.violations);
      if (fixture.deviations.length === 0) return;
      const known = await checkScenario(fixture.scenario, fixture.deviations);
      expect(known.violations).toEqual(fixture.remaining);
    },
  );
});
