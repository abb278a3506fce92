import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder at or above a module that holds a `package.json`: the repository root,
 * whether the module runs from its source file (`infra/constructs/…`, `cli/…`) or from the
 * CLI bundle (`dist/cli/zonecron.mjs`), where `import.meta.url` names the bundle.
 *
 * @example
 * packageRoot(import.meta.url) //=> '/home/me/team-repo/node_modules/zonecron'
 */
export function packageRoot(moduleUrl: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json at or above ${start}`);
  }
}

/**
 * The version of the zonecron package a module belongs to (its package.json's `version`).
 *
 * What synth records in the jobs bundle (`zonecronVersion`) and compiles into the Lambdas'
 * logs: in a team's repository it is the installed package's, which a version bump changes.
 *
 * @example
 * zonecronVersion(import.meta.url) //=> '0.1.0'
 */
export function zonecronVersion(moduleUrl: string): string {
  const file = join(packageRoot(moduleUrl), 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
