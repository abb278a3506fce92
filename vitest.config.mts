import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first.ts';

/** Test files that must run in a fresh worker of their own, and why. */
const ISOLATED = [
  'test/unit/cli/aws/connection.test.ts', // aws-sdk-client-mock patches the SDK's clients
  'test/integration/dispatcher/dispatch.test.ts', // vi.spyOn
  'test/unit/shared/metrics.test.ts', // spies on process.stdout
  'test/unit/dispatcher/targets/targets.test.ts', // vi.fn, vi.spyOn
  // The handlers build their clients at module scope from process.env, which these set.
  'test/integration/dispatcher/handler.test.ts',
  'test/integration/recorder/handler.test.ts',
];

/**
 * Folders whose test files share their worker with other files (`isolate: false`): a file's
 * imports (the engine, luxon, zod, the AWS SDK, aws-cdk-lib, the dispatcher, dynalite) load
 * once per worker instead of once per file, which is most of what the unit files cost (test/unit
 * but zone-scan: 157 s of file time isolated, 53 s shared), and aws-cdk-lib's template
 * validation builds its WebAssembly rule engine (7 s) once per process, not once per synthing
 * file. The integration and CLI files shared too: 39 s of CPU isolated, 32 s shared for the
 * integration files alone. None of them mocks, spies, stubs a global or sets process.env (but
 * the files in `ISOLATED`), and each makes its own tables, queues and servers. The fuzzer's
 * suite (test/integration/fuzz) keeps a worker of its own.
 */
const SHARED_FOLDERS = [
  'test/unit',
  'test/infra',
  'test/cli',
  'test/integration/cli',
  'test/integration/dispatcher',
  'test/integration/ledger',
  'test/integration/lifecycle',
  'test/integration/recorder',
  'test/reference',
];
const SHARED_WORKER = SHARED_FOLDERS.flatMap((folder) =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' }).map((file) => `${folder}/${file}`),
).filter((file) => file.endsWith('.test.ts') && !ISOLATED.includes(file));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One worker per core, not vitest's default of one less: much of the suite waits on
    // DynamoDB Local and on the CLI's child processes (on 2 cores: 235 s → 159 s).
    maxWorkers: availableParallelism(),
    // aws-cdk-lib's template validation, a 9 MB WebAssembly engine, stays baseline-compiled
    // where a synth runs it (below): V8's optimizing tier costs more than a worker gains from it
    // (the test/infra files, when each synth ran it: 87 s of CPU with that tier, 80 s without).
    // WebAssembly computes the same in either tier.
    execArgv: ['--liftoff-only'],
    // The pinned AWS SDK warns under Node 20 that later releases need Node 22; it works here.
    // aws-cdk-lib's built-in CloudFormation validation (a WebAssembly engine, some 3 s of CPU
    // per synth) only warns by default, and no test reads its warnings: the synths of the
    // suite skip it, but the worked example's (test/infra/jobs-yaml.test.ts), which registers
    // it with its default rules as errors, `cdk synth` (test/infra/cdk-cli.test.ts) and one
    // `zonecron validate` (test/cli/validate.test.ts), which run it as a deploy would.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', CDK_VALIDATION: 'false' },
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: SHARED_WORKER,
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'shared-worker',
          include: SHARED_WORKER,
          isolate: false,
          // The same DynamoDB Local as the other project's (the setup shares it).
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
