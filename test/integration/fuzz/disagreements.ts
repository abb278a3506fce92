// The disagreements the fuzzer found between the system and the model of docs/semantics.md §6,
// each kept as a fixture (test/fixtures/fuzz/): the shrunk scenario, and what was wrong and how
// §6, the system or the model was put right. Their replays are split over a few test files
// (fate-fixtures-*.test.ts) so that the suite's workers share them; this module reads them,
// deals them into parts of about equal cost, and holds the one test they all run.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkScenario, reproduction } from '../../fuzz/fuzzer.ts';
import type { FuzzScenario } from '../../fuzz/scenario.ts';

/** A scenario on which the fuzzer found the system and the model disagreeing, once. */
interface Disagreement {
  /** What the disagreement was, and how it was resolved. */
  readonly summary: string;
  readonly scenario: FuzzScenario;
}

const FIXTURES = new URL('../../fixtures/fuzz/', import.meta.url);

/** Every kept disagreement, by name (the fixture's file name without `.json`), sorted. */
const disagreements = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => {
    const fixture = JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Disagreement;
    return [name.replace('.json', ''), fixture] as const;
  });

/**
 * Job-hours of fixed cost per replay (the tables, the model), beside its jobs × hours.
 *
 * A replay's CPU time is about proportional to its jobs × hours (its runs and minutes of
 * sweeps), at roughly 80 job-hours a second on the shared 2-core machine, plus a second or so.
 */
const FIXED_JOB_HOURS = 100;

/** What a replay of `scenario` is expected to cost, in job-hours. */
function costJobHours(scenario: FuzzScenario): number {
  return scenario.jobs.length * scenario.hours + FIXED_JOB_HOURS;
}

/**
 * The disagreements of part `part` (from 1) of `parts`, dealt by expected cost.
 *
 * Costliest first, each to the part with the least cost so far (ties to the lower part), so
 * the parts take about as long as each other whatever fixtures are added; the deal depends on
 * the fixtures alone.
 *
 * @example
 * disagreementsOfPart(1, 2).length + disagreementsOfPart(2, 2).length //=> every fixture
 */
export function disagreementsOfPart(part: number, parts: number) {
  const totals = new Array<number>(parts).fill(0);
  const dealt = new Map<string, number>();
  const byCost = [...disagreements].sort(
    ([a, x], [b, y]) => costJobHours(y.scenario) - costJobHours(x.scenario) || a.localeCompare(b),
  );
  for (const [name, fixture] of byCost) {
    const least = totals.indexOf(Math.min(...totals));
    totals[least] = (totals[least] ?? 0) + costJobHours(fixture.scenario);
    dealt.set(name, least + 1);
  }
  return disagreements.filter(([name]) => dealt.get(name) === part);
}

/**
 * Replays the disagreements of part `part` of `parts`, each as one test that asserts the
 * system and the model now agree on it.
 *
 * @example
 * // fate-fixtures-1.test.ts
 * describeDisagreements(1, 3);
 */
export function describeDisagreements(part: number, parts: number): void {
  describe('the disagreements between the system and §6 the fuzzer found, resolved', () => {
    it.each(disagreementsOfPart(part, parts))(
      '%s: every run ends in the fate the model gives it, with the notifications it owes',
      async (_, fixture) => {
        const result = await checkScenario(fixture.scenario);
        expect(result.violations.length > 0 ? reproduction(result) : undefined).toBeUndefined();
      },
    );
  });
}
