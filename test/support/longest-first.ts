import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long test file takes on an idle 2-core machine (from `npm test`'s
 * `.vitest-results/*.json`); every other file takes a few seconds at most. Update it when a
 * file becomes long: a long file left unlisted may start last and run alone at the end.
 */
export const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  'test/integration/lifecycle/dst-nights.test.ts': 82,
  'test/cli/simulate.test.ts': 62,
  'test/cli/validate.test.ts': 45,
  'test/integration/fuzz/fate.test.ts': 31,
  'test/unit/schedule/zone-scan.test.ts': 31,
  'test/infra/cdk-cli.test.ts': 28,
  'test/unit/covering/covering-reference.test.ts': 18,
  'test/integration/dispatcher/gaps.test.ts': 14,
  'test/infra/zonecron-function.test.ts': 13,
  'test/integration/dispatcher/scenarios.test.ts': 13,
  'test/unit/cli/simulation/query-memo.test.ts': 13,
  'test/unit/cli/simulation/run-simulation.test.ts': 12,
  'test/integration/dispatcher/findings.test.ts': 12,
  'test/unit/schedule/properties.test.ts': 10,
};

/** Bytes of source that stand for one expected second, for files not in the table. */
const BYTES_PER_SECOND = 20_000;

/** The seconds a test file is expected to take: from the table, else from its size. */
export function expectedSeconds(root: string, file: string): number {
  const listed = EXPECTED_SECONDS[relative(root, file)];
  if (listed !== undefined) return listed;
  return statSync(file).size / BYTES_PER_SECOND;
}

/**
 * Starts the longest test files first, so that the workers finish together instead of one
 * running a long file alone at the end. Vitest's own order comes from its results cache,
 * which lives in node_modules (shared by every worktree, rewritten by every partial run, and
 * putting last run's failures first); this order depends on the repository alone.
 *
 * @example
 * // vitest.config.mts
 * test: { sequence: { sequencer: LongestFirstSequencer } }
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = new Map(files.map((f) => [f, expectedSeconds(root, f.moduleId)]));
    return [...files].sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
  }
}
