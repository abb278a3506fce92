import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder at or above a module that holds a `package.json`: the repository root,
 * whether the module runs from its source file (`infra/constructs/…`, `cli/…`) or from the
 * CLI bundle (`dist/cli/zonecron.mjs`), where `import.meta.url` names the bundle.
 *
 * @example
 * packageRoot(import.meta.url) //=> '/work/zonecron'
 */
export function packageRoot(moduleUrl: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json at or above ${start}`);
  }
}
