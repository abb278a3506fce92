import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long test file takes on the shared 2-core machine (from `npm test`'s output, at
 * load average about 5; the fuzzer's fixture parts from `npx vitest run FILE` each, at load
 * average 3 to 5; dst-nights, validate and scale scaled by what they took after and before
 * their last speed-up, `npx vitest run FILE` each at load average 5 to 7); every other file
 * takes a few seconds at most. Update it when a file becomes long: a long file left unlisted
 * may start last and run alone at the end (doc-excerpts did: 19 s from the 311th second of a
 * 330 s run).
 */
export const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  'test/integration/fuzz/fate-fixtures-1.test.ts': 44,
  'test/cli/simulate.test.ts': 43,
  'test/integration/fuzz/fate-fixtures-3.test.ts': 43,
  'test/infra/scale.test.ts': 35,
  'test/integration/lifecycle/dst-nights.test.ts': 34,
  'test/integration/fuzz/fate-fixtures-2.test.ts': 33,
  'test/cli/validate.test.ts': 27,
  'test/unit/schedule/zone-scan.test.ts': 21,
  'test/cli/doc-excerpts.test.ts': 19,
  'test/infra/cdk-cli.test.ts': 18,
  'test/integration/ledger/ledger.test.ts': 13,
  'test/infra/stability.test.ts': 12,
  'test/cli/history.test.ts': 11,
  'test/unit/infra/covering/covering-reference.test.ts': 9,
  'test/reference/calendar-reference.test.ts': 8,
  'test/unit/schedule/never-runs.test.ts': 8,
  'test/infra/zonecron-function.test.ts': 8,
  'test/infra/two-installations.test.ts': 8,
  'test/infra/jobs-yaml.test.ts': 8,
  'test/integration/dispatcher/gaps.test.ts': 7,
  'test/integration/cli/simulation/query-memo.test.ts': 7,
  'test/unit/schedule/properties.test.ts': 6,
  'test/cli/errors-and-help.test.ts': 6,
  'test/cli/startup.test.ts': 6,
  'test/integration/dispatcher/catch-up.test.ts': 6,
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
