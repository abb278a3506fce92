// The record of what the bundled CLI was built from, and the check that it still matches.
//
// `scripts/build-cli.mjs` writes it; `bin/zonecron.mjs` reads it at every start to decide
// between the bundle and the TypeScript sources. Plain JavaScript, because it runs before
// anything can compile TypeScript.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The CLI's source entry; an installed package ships the bundle without it. */
const SOURCE_ENTRY = 'cli/main.ts';

/** Where the bundle goes, relative to the repository root. */
export const BUILD_DIR = 'dist/cli';
/** The bundle's entry file, inside `BUILD_DIR`. */
export const BUILD_ENTRY = 'zonecron.mjs';
/** The manifest, inside `BUILD_DIR`. */
export const MANIFEST_FILE = 'build-manifest.json';

/**
 * The size and modification time of each file, as the manifest records them.
 *
 * @param {string} root repository root
 * @param {readonly string[]} files paths relative to `root`, with forward slashes
 * @returns {Record<string, { mtimeMs: number; size: number }>}
 */
export function stampSources(root, files) {
  /** @type {Record<string, { mtimeMs: number; size: number }>} */
  const stamps = {};
  for (const file of files) {
    const { mtimeMs, size } = statSync(join(root, file));
    stamps[file] = { mtimeMs, size };
  }
  return stamps;
}

/**
 * The first source whose size or modification time differs from the manifest's, or that is
 * gone; `undefined` when every source is as it was built.
 *
 * @param {string} root
 * @param {Record<string, { mtimeMs: number; size: number }>} sources
 * @returns {string | undefined}
 */
function changedSource(root, sources) {
  for (const [file, built] of Object.entries(sources)) {
    const now = statSync(join(root, file), { throwIfNoEntry: false });
    if (!now || now.mtimeMs !== built.mtimeMs || now.size !== built.size) return file;
  }
  return undefined;
}

/**
 * The bundle's entry when the build exists and matches the sources, else why not.
 *
 * Equal, not merely newer: a checkout of an older commit or a file copied with its times
 * preserved also makes the bundle differ from the sources. A file added later can only take
 * effect through an import in a file the bundle has, whose stamp then changes.
 *
 * A package installed from npm has the bundle and not the CLI's sources (package.json
 * `files`): there is nothing for the bundle to be stale against, and npm gives every file of
 * a tarball the same modification time, so the stamps could not match anyway.
 *
 * @param {string} root repository root
 * @returns {{ entry: string } | { stale: string }}
 */
export function freshBuild(root) {
  const entry = join(root, BUILD_DIR, BUILD_ENTRY);
  const hasSources = statSync(join(root, SOURCE_ENTRY), { throwIfNoEntry: false }) !== undefined;
  if (!hasSources && statSync(entry, { throwIfNoEntry: false })) return { entry };
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(root, BUILD_DIR, MANIFEST_FILE), 'utf8'));
  } catch (error) {
    if (error?.code === 'ENOENT') return { stale: `no build in ${BUILD_DIR}` };
    return { stale: `unreadable ${BUILD_DIR}/${MANIFEST_FILE}: ${error?.message ?? error}` };
  }
  const sources = manifest?.sources;
  if (typeof sources !== 'object' || sources === null || Object.keys(sources).length === 0) {
    return { stale: `${BUILD_DIR}/${MANIFEST_FILE} lists no sources` };
  }
  const changed = changedSource(root, sources);
  if (changed) return { stale: `${changed} changed since the build` };
  if (!statSync(entry, { throwIfNoEntry: false })) return { stale: `${entry} is missing` };
  return { entry };
}
