#!/usr/bin/env node
// Bundles the `zonecron` command (cli/main.ts and all it reaches in cli/, functions/, infra/)
// into dist/cli/zonecron.mjs, so a start loads plain JavaScript instead of compiling
// TypeScript through tsx. npm runs it as `prepare` after `npm install` and `npm ci`.
//
// Dependencies stay in node_modules and each `await import(…)` inside a command is a chunk that
// loads only when that command runs (the options shared with build-package.mjs:
// esbuild-options.mjs).
// Next to the bundle it writes a manifest that stamps every source with the size and mtime it
// had when esbuild read it; bin/zonecron.mjs runs the bundle only while those still match.
//
// In the bundle, `import.meta.url` is that of a file in dist/cli/, not of the source: a module
// that finds files relative to itself must handle both layouts, as cli/main.ts does for
// package.json. (Resolving packages from it, `createRequire(import.meta.url)`, works in both.)
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_DIR, BUILD_ENTRY, MANIFEST_FILE, stampSources } from '../bin/build-manifest.mjs';
import { NODE_BUNDLE_OPTIONS } from './esbuild-options.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const LOADERS = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.js': 'js',
  '.mjs': 'js',
  '.json': 'json',
};
/** Read by esbuild itself, not through a loader, yet they shape the output. */
const BUILD_INPUTS = [
  'scripts/build-cli.mjs',
  'scripts/esbuild-options.mjs',
  'bin/build-manifest.mjs',
  'tsconfig.json',
];

const toPosix = (file) => file.split(sep).join('/');

async function loadEsbuild() {
  try {
    return await import('esbuild');
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    // An install without dev dependencies: the command still works, from its sources.
    process.stderr.write('build-cli: esbuild is not installed; zonecron will run through tsx\n');
    return undefined;
  }
}

/**
 * Reads each source through one file handle: its stamp is that of the very bytes bundled, so
 * an edit saved while the build runs makes the manifest disagree with the file, not hide it.
 */
function stampingPlugin(stamps) {
  return {
    name: 'stamp-sources',
    setup(build) {
      build.onLoad({ filter: /.*/ }, async ({ path }) => {
        const loader = LOADERS[extname(path)];
        if (!loader || path.includes(`${sep}node_modules${sep}`)) return undefined;
        const file = await open(path);
        try {
          const { mtimeMs, size } = await file.stat();
          const contents = await file.readFile();
          stamps[toPosix(relative(root, path))] = { mtimeMs, size };
          return { contents, loader };
        } finally {
          await file.close();
        }
      });
    },
  };
}

const esbuild = await loadEsbuild();
if (esbuild) {
  const startedMs = performance.now();
  const outdir = join(root, BUILD_DIR);
  await rm(outdir, { recursive: true, force: true });
  const stamps = {};
  await esbuild.build({
    ...NODE_BUNDLE_OPTIONS,
    entryPoints: { [BUILD_ENTRY.replace(/\.mjs$/, '')]: 'cli/main.ts' },
    outdir,
    sourcemap: true,
    plugins: [stampingPlugin(stamps)],
  });
  const sources = { ...stamps, ...stampSources(root, BUILD_INPUTS) };
  const manifest = join(outdir, MANIFEST_FILE);
  await writeFile(`${manifest}.tmp`, `${JSON.stringify({ sources }, null, 2)}\n`);
  await rename(`${manifest}.tmp`, manifest);
  const ms = Math.round(performance.now() - startedMs);
  const count = Object.keys(sources).length;
  process.stdout.write(
    `build-cli: ${BUILD_DIR}/${BUILD_ENTRY} from ${count} sources in ${ms} ms\n`,
  );
}
