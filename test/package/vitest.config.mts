import { defineConfig } from 'vitest/config';

/**
 * `npm run test:package`: the packed package, installed and used as a team would
 * (test/package/installed-package.package.ts). Its files end in `.package.ts`, so the suite's
 * own config (`test/**\/*.test.ts`) leaves them to this one: packing, two offline installs and
 * two synths take minutes.
 */
export default defineConfig({
  test: {
    include: ['test/package/**/*.package.ts'],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: 1,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
