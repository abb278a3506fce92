#!/usr/bin/env node
// Entry of the `zonecron` command. It runs the bundle dist/cli/zonecron.mjs (made by
// scripts/build-cli.mjs at `npm install`) when that bundle matches the sources, and otherwise
// the TypeScript sources through tsx, as a checkout without a build always did.
//
// Why a check at every start rather than a rebuild in `npm start`/`npm test`: a developer who
// edits cli/ and runs `npx zonecron …` goes through no npm script, and an old bundle must not
// answer for new sources. The check reads one small JSON file and stats each bundled source
// (about 70): about a millisecond. A stale or missing build costs the tsx start-up instead.
//
// ZONECRON_FROM_SOURCE=1 always runs the sources; ZONECRON_FROM_SOURCE=0 runs the bundle or
// fails (the CLI tests use it, so they cannot pass through the fallback unnoticed).
// ZONECRON_DEBUG=1 says on stderr which of the two runs, and why.
import { fileURLToPath } from 'node:url';
import { freshBuild } from './build-manifest.mjs';

// The AWS SDK warns on every start under Node 20 that its releases after January 2027 need
// Node 22. It says nothing about this run and would precede every command's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const root = fileURLToPath(new URL('../', import.meta.url));
const mode = process.env.ZONECRON_FROM_SOURCE;
const debug = Boolean(process.env.ZONECRON_DEBUG);
const build = mode === '1' ? { stale: 'ZONECRON_FROM_SOURCE=1' } : freshBuild(root);

function cannotStart(message) {
  process.stderr.write(`zonecron: error: cannot start: ${message}\n`);
  process.exitCode = 1;
}

async function start() {
  if ('entry' in build) {
    if (debug) {
      process.stderr.write(`zonecron: running the build ${build.entry}\n`);
      process.setSourceMapsEnabled(true);
    }
    await import(build.entry);
    return;
  }
  if (mode === '0') {
    cannotStart(`ZONECRON_FROM_SOURCE=0 but ${build.stale} (run npm run build:cli)`);
    return;
  }
  if (debug) process.stderr.write(`zonecron: running the sources through tsx: ${build.stale}\n`);
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}

try {
  await start();
} catch (error) {
  // Only a CLI that cannot even load lands here (main.ts reports everything else itself).
  cannotStart(error instanceof Error ? error.message.split('\n')[0] : String(error));
}
