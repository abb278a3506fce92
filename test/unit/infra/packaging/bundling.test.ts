import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFunction, FUNCTION_HANDLER_FILE } from '../../../../infra/packaging/bundling.ts';

const outDir = mkdtempSync(join(tmpdir(), 'zonecron-bundling-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('bundleFunction', () => {
  it("keeps the error classes' names in a minified bundle, as logs and the ledger show them", async () => {
    bundleFunction({ entry: 'functions/dispatcher/errors.ts', outDir });
    const bundled = (await import(pathToFileURL(join(outDir, FUNCTION_HANDLER_FILE)).href)) as {
      UnknownJobError: new (jobId: string, known: readonly string[]) => Error;
    };
    const error = new bundled.UnknownJobError('nightly', ['daily']);
    expect(error.name).toBe('UnknownJobError');
    expect(error.constructor.name).toBe('UnknownJobError');
  });
});
