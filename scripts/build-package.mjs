#!/usr/bin/env node
// Builds what the package's `exports` name (package.json), for a team's repository that
// installs zonecron from npm: npm runs it as `prepack`, before `npm pack` and `npm publish`.
//
// - dist/lib/index.mjs (`zonecron`: cli/api.ts) and dist/lib/cdk.mjs (`zonecron/cdk`:
//   infra/app/add-zonecron.ts), plain JavaScript bundled by esbuild with the dependencies left
//   in node_modules (the options of the CLI's bundle, esbuild-options.mjs): Node 20 cannot
//   load TypeScript, and a team's app may run on plain Node.
// - dist/types/**/*.d.ts, the declarations tsc emits for both entries and what they reach,
//   with every import made one Node resolves in a consumer's tsconfig: `./x.ts` → `./x.js`,
//   and the repository's own subpath imports (`#jobs/…`) → relative paths.
//
// The Lambda handlers are not built here: addZonecron bundles them from functions/ at the
// team's synth, as this repository's app does (infra/packaging/bundling.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { NODE_BUNDLE_OPTIONS } from './esbuild-options.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const TYPES_DIR = join(root, 'dist/types');
const LIB_DIR = join(root, 'dist/lib');

const startedMs = performance.now();
rmSync(LIB_DIR, { recursive: true, force: true });
rmSync(TYPES_DIR, { recursive: true, force: true });

await esbuild.build({
  ...NODE_BUNDLE_OPTIONS,
  entryPoints: { index: 'cli/api.ts', cdk: 'infra/app/add-zonecron.ts' },
  outdir: LIB_DIR,
});

const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'scripts/tsconfig.package.json'],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) {
  process.stderr.write('build-package: tsc could not emit the declarations\n');
  process.exit(1);
}

const subpathImports = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).imports;

/** The specifier a `.d.ts` in `dir` should use for `specifier`, as Node resolves it. */
function portable(dir, specifier) {
  const prefix = Object.keys(subpathImports).find((key) =>
    specifier.startsWith(key.replace('*', '')),
  );
  let target = specifier;
  if (prefix !== undefined) {
    const folder = subpathImports[prefix].replace('*', '');
    const file = join(TYPES_DIR, folder, specifier.slice(prefix.length - 1));
    target = relative(dir, file).split(sep).join('/');
    if (!target.startsWith('.')) target = `./${target}`;
  }
  return target.replace(/\.ts$/, '.js');
}

let files = 0;
for (const name of readdirSync(TYPES_DIR, { recursive: true, encoding: 'utf8' })) {
  if (!name.endsWith('.d.ts')) continue;
  const file = join(TYPES_DIR, name);
  const text = readFileSync(file, 'utf8');
  const fixed = text.replace(
    /((?:from|import)\s*\(?\s*)(['"])((?:\.{1,2}\/|#)[^'"]+)\2/g,
    (_, head, quote, specifier) => `${head}${quote}${portable(dirname(file), specifier)}${quote}`,
  );
  writeFileSync(file, fixed);
  files += 1;
}
const ms = Math.round(performance.now() - startedMs);
process.stdout.write(
  `build-package: dist/lib and ${files} declarations in dist/types in ${ms} ms\n`,
);
