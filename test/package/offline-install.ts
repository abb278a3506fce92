/**
 * Installs a packed zonecron into a team's repository without the network, from npm's cache,
 * as CI has it after `npm ci` of this repository.
 *
 * Why a lock file: `npm ci` fills the cache with the tarballs the lock names, not with the
 * registry's package documents, and `npm install --offline <tarball>` needs those to resolve
 * zonecron's dependencies (it fails with ENOTCACHED). A team installs from its own lock file
 * too; this one is made from this repository's: the entries of every package the team's
 * repository reaches (zonecron's dependencies, its peers, the scaffold's own), each at the
 * version, path, URL and integrity this repository installs, and zonecron itself from the
 * tarball. `npm ci --offline` then takes every package from the cache and checks each
 * integrity, as it would against the registry.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** One entry of a package-lock.json `packages` map. */
interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly [key: string]: unknown;
}

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly [key: string]: unknown;
}

/** Where Node finds `name` from the package at `from` (a lock path, '' for the root). */
function resolveIn(
  packages: Record<string, LockEntry>,
  from: string,
  name: string,
): string | undefined {
  for (let dir = from; ; ) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === '') return undefined;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at === -1 ? '' : dir.slice(0, at);
  }
}

/** The lock paths reachable from `roots` (package names) through every kind of dependency. */
function reachable(packages: Record<string, LockEntry>, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue: [string, string][] = roots.map((name) => ['', name]);
  while (queue.length > 0) {
    const [from, name] = queue.shift() as [string, string];
    const path = resolveIn(packages, from, name);
    if (path === undefined || seen.has(path)) continue;
    seen.add(path);
    const entry = packages[path] as LockEntry;
    for (const deps of [entry.dependencies, entry.optionalDependencies, entry.peerDependencies]) {
      for (const dep of Object.keys(deps ?? {})) queue.push([path, dep]);
    }
  }
  return seen;
}

/**
 * Copies `tarball` into `dir`, points the team's package.json at it, writes the lock file and
 * installs it offline (`npm ci`, or `npm install` to complete a node_modules already there).
 * Returns the lock's package count.
 */
export function installOffline(options: {
  readonly dir: string;
  readonly tarball: string;
  /** This repository's root: its package-lock.json and its package.json. */
  readonly repoRoot: string;
  /** @default 'ci' */
  readonly command?: 'ci' | 'install';
}): number {
  const { dir, tarball, repoRoot } = options;
  const file = basename(tarball);
  copyFileSync(tarball, join(dir, file));
  const team = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  const dependencies = { ...team.dependencies, zonecron: `file:${file}` };
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ ...team, dependencies }, null, 2)}\n`,
  );

  const zonecron = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as PackageJson;
  const repoLock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const roots = [
    ...Object.keys(zonecron.dependencies ?? {}),
    ...Object.keys(zonecron.peerDependencies ?? {}),
    ...Object.keys(team.dependencies ?? {}).filter((name) => name !== 'zonecron'),
    ...Object.keys(team.devDependencies ?? {}),
  ];
  const packages: Record<string, LockEntry> = {
    '': { name: team.name, dependencies, devDependencies: team.devDependencies ?? {} },
    'node_modules/zonecron': {
      version: zonecron.version,
      resolved: `file:${file}`,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      dependencies: zonecron.dependencies ?? {},
      peerDependencies: zonecron.peerDependencies ?? {},
      bin: { zonecron: 'bin/zonecron.mjs' },
    },
  };
  for (const path of [...reachable(repoLock.packages, roots)].sort()) {
    const { dev: _dev, ...entry } = repoLock.packages[path] as LockEntry;
    packages[path] = entry;
  }
  const lock = { name: team.name, lockfileVersion: 3, requires: true, packages };
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  execFileSync(
    'npm',
    [options.command ?? 'ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    },
  );
  return Object.keys(packages).length - 1;
}
