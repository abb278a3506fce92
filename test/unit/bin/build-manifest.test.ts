import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BUILD_DIR,
  BUILD_ENTRY,
  freshBuild,
  MANIFEST_FILE,
  stampSources,
} from '../../../bin/build-manifest.mjs';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'zonecron-manifest-'));
  mkdirSync(join(root, 'cli'));
  writeFileSync(join(root, 'cli/main.ts'), 'export {};\n');
  writeFileSync(join(root, 'cli/errors.ts'), 'export class CliError extends Error {}\n');
  mkdirSync(join(root, BUILD_DIR), { recursive: true });
  writeFileSync(join(root, BUILD_DIR, BUILD_ENTRY), '// the bundle\n');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function writeManifest(
  content: unknown = { sources: stampSources(root, ['cli/main.ts', 'cli/errors.ts']) },
) {
  writeFileSync(join(root, BUILD_DIR, MANIFEST_FILE), JSON.stringify(content));
}

/** Sets a file's modification time, keeping its content. */
function touch(file: string, mtime: Date) {
  utimesSync(join(root, file), mtime, mtime);
}

describe('freshBuild', () => {
  it('gives the entry when every source has the size and mtime the manifest recorded', () => {
    writeManifest();
    expect(freshBuild(root)).toEqual({ entry: join(root, BUILD_DIR, BUILD_ENTRY) });
  });

  it('gives the entry of an installed package, which has the bundle without the CLI sources', () => {
    rmSync(join(root, 'cli'), { recursive: true });
    writeFileSync(
      join(root, BUILD_DIR, MANIFEST_FILE),
      JSON.stringify({ sources: { 'cli/main.ts': { mtimeMs: 1, size: 1 } } }),
    );
    expect(freshBuild(root)).toEqual({ entry: join(root, BUILD_DIR, BUILD_ENTRY) });
  });

  it('is stale without the CLI sources when the bundle is missing too', () => {
    rmSync(join(root, 'cli'), { recursive: true });
    rmSync(join(root, BUILD_DIR, BUILD_ENTRY));
    expect(freshBuild(root)).toEqual({ stale: 'no build in dist/cli' });
  });

  it('is stale without a manifest', () => {
    expect(freshBuild(root)).toEqual({ stale: 'no build in dist/cli' });
  });

  it('is stale when a source is newer than the build', () => {
    writeManifest();
    touch('cli/errors.ts', new Date(statSync(join(root, 'cli/errors.ts')).mtimeMs + 1000));
    expect(freshBuild(root)).toEqual({ stale: 'cli/errors.ts changed since the build' });
  });

  it('is stale when a source is older than the build, as after checking out an older commit', () => {
    writeManifest();
    touch('cli/main.ts', new Date('2020-01-01T00:00:00Z'));
    expect(freshBuild(root)).toEqual({ stale: 'cli/main.ts changed since the build' });
  });

  it('is stale when a source changed size but kept its mtime', () => {
    writeManifest();
    const { mtime } = statSync(join(root, 'cli/main.ts'));
    writeFileSync(join(root, 'cli/main.ts'), 'export const changed = true;\n');
    touch('cli/main.ts', mtime);
    expect(freshBuild(root)).toEqual({ stale: 'cli/main.ts changed since the build' });
  });

  it('is stale when a source is gone', () => {
    writeManifest();
    rmSync(join(root, 'cli/errors.ts'));
    expect(freshBuild(root)).toEqual({ stale: 'cli/errors.ts changed since the build' });
  });

  it('is stale when the entry file is missing', () => {
    writeManifest();
    rmSync(join(root, BUILD_DIR, BUILD_ENTRY));
    expect(freshBuild(root)).toEqual({ stale: `${join(root, BUILD_DIR, BUILD_ENTRY)} is missing` });
  });

  it('is stale when the manifest lists no sources', () => {
    writeManifest({ sources: {} });
    expect(freshBuild(root)).toEqual({ stale: 'dist/cli/build-manifest.json lists no sources' });
  });

  it('is stale when the manifest is not JSON', () => {
    writeFileSync(join(root, BUILD_DIR, MANIFEST_FILE), '{"sources": ');
    expect(freshBuild(root)).toMatchObject({
      stale: expect.stringMatching(/^unreadable dist\/cli\/build-manifest\.json: /),
    });
  });
});
