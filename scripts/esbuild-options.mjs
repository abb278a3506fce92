// The esbuild options both bundles of the repository share: the `zonecron` command
// (build-cli.mjs, dist/cli/) and the package's library entries (build-package.mjs, dist/lib/).
//
// Both are ES modules for Node 20 with code splitting, their dependencies left in node_modules
// (`packages: 'external'`), so each `await import(…)` stays a chunk that loads only when used.
import { fileURLToPath } from 'node:url';

/** The options each build spreads before its own entry points, output folder and extras. */
export const NODE_BUNDLE_OPTIONS = {
  absWorkingDir: fileURLToPath(new URL('../', import.meta.url)),
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Error classes are told apart by name (`name = new.target.name`); bundling may rename a
  // class whose name another module also uses.
  keepNames: true,
  logLevel: 'warning',
};
