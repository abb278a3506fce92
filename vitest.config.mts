import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One worker per core, not vitest's default of one less: much of the suite waits on
    // DynamoDB Local and on the CLI's child processes (on 2 cores: 235 s → 159 s).
    maxWorkers: availableParallelism(),
    // The pinned AWS SDK warns under Node 20 that later releases need Node 22; it works here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
