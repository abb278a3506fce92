/**
 * The version on every log line of a bundled Lambda: a probe that logs through `createLogger`,
 * bundled with the Lambdas' own bundling (`bundleFunction`) and run in a child process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleFunction } from '../../../infra/packaging/bundling.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LOGGER = join(ROOT, 'functions/shared/logger.ts');
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

function logLine(entryText: string, bundle: boolean): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'zonecron-logger-'));
  const entry = join(dir, 'probe.ts');
  writeFileSync(entry, entryText);
  let file = entry;
  if (bundle) {
    bundleFunction({ entry, outDir: join(dir, 'out') });
    file = join(dir, 'out/index.mjs');
  }
  const stdout = execFileSync(process.execPath, [...(bundle ? [] : ['--import', 'tsx']), file], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

const PROBE = `import { createLogger } from ${JSON.stringify(LOGGER)};
createLogger('zonecron-probe').info('probe', { jobId: 'daily' });
`;

describe('createLogger', () => {
  it("puts the package's version on every line of a function bundled for Lambda", () => {
    const line = logLine(PROBE, true);
    expect(line).toMatchObject({ message: 'probe', jobId: 'daily', zonecronVersion: VERSION });
  }, 60_000);

  it('leaves the version out when run from the sources, where no bundling put it in', () => {
    const line = logLine(PROBE, false);
    expect(line).toMatchObject({ message: 'probe', jobId: 'daily' });
    expect(line).not.toHaveProperty('zonecronVersion');
  }, 60_000);
});
