// The source folders form layers, and imports only go down them (docs/architecture.md, "Where
// the parts live"): the text helpers know nothing of schedules, the engine nothing of jobs, the
// plumbing (functions/shared) nothing of jobs either, the jobs nothing of zone drift, the
// ledger nothing of either Lambda, the Lambdas nothing of the stack, the stack nothing of the
// CLI. The two Lambdas sit side by side and do not import each other.
//
// Zone-data drift is one room at two layers: its record, fingerprints and comparison sit below
// the ledger, whose notifications tell of a drift finding; its runtime check sits above the
// ledger, whose notices it claims and confirms, and below the dispatcher that runs it. Everything
// outside the engine imports the engine only through functions/schedule/index.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Folder (or file) → layer; a file may import its own folder and any lower layer. The first
 * entry that holds a path is its layer, so a file listed on its own sits above its folder.
 */
const LAYERS: readonly (readonly [string, number])[] = [
  ['functions/text', 0],
  ['functions/schedule', 1],
  ['functions/shared', 2],
  // Business calendars: built from jobs.yaml's calendars and the holiday data, below the jobs
  // that carry them. (date-holidays-data.ts, the whole data set, is for synth and the CLI; the
  // Lambdas read their bundle's table: test/infra/calendars.test.ts.)
  ['functions/calendar', 2.5],
  ['functions/jobs', 3],
  ['functions/zone-drift/zone-drift-check.ts', 6],
  ['functions/zone-drift', 4],
  ['functions/ledger', 5],
  ['functions/dispatcher', 7],
  ['functions/recorder', 7],
  // The CDK app's rooms: what jobs.yaml says, UTC covering expressions, target permissions and
  // Lambda packaging at the bottom; constructs on them; AWS limit checks and stacks on the
  // constructs; the app entry that assembles everything on top. Under them all, the base of
  // the app's errors, which each of those rooms throws.
  ['infra/errors', 7.9],
  ['infra/config', 8],
  ['infra/targets', 8],
  ['infra/packaging', 8],
  ['infra/covering', 8.1],
  ['infra/constructs', 8.2],
  ['infra/limits', 8.3],
  ['infra/stacks', 8.3],
  ['infra/app', 8.4],
  ['cli', 9],
];

function layerOf(path: string) {
  return LAYERS.find(([folder]) => path === folder || path.startsWith(`${folder}/`));
}

function sourceFiles(folder: string): string[] {
  if (folder.endsWith('.ts')) return [folder];
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

/** The repository's own subpath imports (package.json `imports`), each → its folder. */
const SUBPATH_IMPORTS: Readonly<Record<string, string>> = {
  '#shared/': 'functions/shared/',
  '#jobs/': 'functions/jobs/',
  '#zone-drift/': 'functions/zone-drift/',
  '#text/': 'functions/text/',
  '#ledger/': 'functions/ledger/',
};

/** A relative path or one of {@link SUBPATH_IMPORTS} in quotes after `from` or `import(`. */
const IMPORT_SPECIFIER =
  /(?:from|import)\s*\(?\s*'((?:\.{1,2}|#shared|#jobs|#zone-drift|#text|#ledger)\/[^']+)'/g;

/** Every import of the repository's own files (static or dynamic), as a repository path. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(IMPORT_SPECIFIER)];
  return specifiers.map((m) => {
    const specifier = m[1] as string;
    const prefix = Object.keys(SUBPATH_IMPORTS).find((p) => specifier.startsWith(p));
    if (prefix !== undefined) {
      return `${SUBPATH_IMPORTS[prefix]}${specifier.slice(prefix.length)}`;
    }
    return relative(ROOT, resolve(ROOT, dirname(file), specifier));
  });
}

/** The imports of `file` that go up a layer, sideways to another folder, or out of the layers. */
function wrongWay(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const [folder, layer] = layerOf(file) as readonly [string, number];
  return importsOf(file, text)
    .filter((target) => {
      const to = layerOf(target);
      return !to || to[1] > layer || (to[1] === layer && to[0] !== folder);
    })
    .map((target) => `${file} → ${target}`);
}

/** The imports of `file` that reach into the engine past its surface, functions/schedule/index.ts. */
function pastTheEngineSurface(
  file: string,
  text = readFileSync(join(ROOT, file), 'utf8'),
): string[] {
  if (file.startsWith('functions/schedule/')) return [];
  return importsOf(file, text)
    .filter((target) => target.startsWith('functions/schedule/'))
    .filter((target) => target !== 'functions/schedule/index.ts')
    .map((target) => `${file} → ${target}`);
}

describe('import layers: text ← engine ← shared ← jobs ← zone drift ← ledger ← zone-drift check ← dispatcher, recorder ← infra (its rooms) ← cli', () => {
  it.each(LAYERS.map(([folder]) => folder))(
    '%s imports only its own folder and lower layers',
    (folder) => {
      const files = sourceFiles(folder);
      expect(files.length).toBeGreaterThan(0);
      expect(files.flatMap((file) => wrongWay(file))).toEqual([]);
    },
  );

  it('finds static and dynamic imports that go up, sideways between the Lambdas, or outside', () => {
    const text = [
      "import { createDispatcher } from '../dispatcher/dispatch.ts';",
      "import type { AppLogger } from './logger.ts';",
      "import { withRetries } from '#shared/retry.ts';",
      "const { runCli } = await import('../../cli/main.ts');",
      "import { generateJobsYaml } from '../../scripts/generate-jobs.ts';",
    ].join('\n');
    expect(wrongWay('functions/shared/example.ts', text)).toEqual([
      'functions/shared/example.ts → functions/dispatcher/dispatch.ts',
      'functions/shared/example.ts → cli/main.ts',
      'functions/shared/example.ts → scripts/generate-jobs.ts',
    ]);
    expect(wrongWay('functions/recorder/example.ts', text)).toHaveLength(3);
  });

  it('resolves #shared/ (package.json imports) to functions/shared/: the engine may not use it', () => {
    expect(
      wrongWay('functions/schedule/example.ts', "import { x } from '#shared/retry.ts';"),
    ).toEqual(['functions/schedule/example.ts → functions/shared/retry.ts']);
  });

  it('resolves #jobs/, #zone-drift/ and #text/ to their rooms: each may use only those below it', () => {
    const text = [
      "import { closestName } from '#text/message-text.ts';",
      "import { withRetries } from '#shared/retry.ts';",
      "import type { JobDefinition } from '#jobs/job.ts';",
      "import { findZoneDrift } from '#zone-drift/zone-drift.ts';",
    ].join('\n');
    expect(wrongWay('functions/shared/example.ts', text)).toEqual([
      'functions/shared/example.ts → functions/jobs/job.ts',
      'functions/shared/example.ts → functions/zone-drift/zone-drift.ts',
    ]);
    expect(wrongWay('functions/jobs/example.ts', text)).toEqual([
      'functions/jobs/example.ts → functions/zone-drift/zone-drift.ts',
    ]);
    expect(wrongWay('functions/zone-drift/example.ts', text)).toEqual([]);
    expect(wrongWay('functions/text/example.ts', text)).toHaveLength(3);
  });

  it('keeps zone drift on both sides of the ledger: its findings below, its runtime check above', () => {
    const text = [
      "import { findZoneDrift } from './zone-drift.ts';",
      "import { createZoneDriftLedger } from '#ledger/index.ts';",
    ].join('\n');
    expect(wrongWay('functions/zone-drift/zone-drift-check.ts', text)).toEqual([]);
    expect(wrongWay('functions/zone-drift/example.ts', text)).toEqual([
      'functions/zone-drift/example.ts → functions/ledger/index.ts',
    ]);
    expect(
      wrongWay(
        'functions/ledger/example.ts',
        "import { x } from '#zone-drift/zone-drift-check.ts';",
      ),
    ).toEqual(['functions/ledger/example.ts → functions/zone-drift/zone-drift-check.ts']);
    expect(
      wrongWay(
        'functions/dispatcher/example.ts',
        "import { x } from '#zone-drift/zone-drift-check.ts';",
      ),
    ).toEqual([]);
  });

  it('resolves #ledger/ to functions/ledger/: the Lambdas may use it, shared and the engine not', () => {
    const text = [
      "import { createDynamoLedger } from '#ledger/index.ts';",
      "const { decodeRun } = await import('#ledger/index.ts');",
      "import { withRetries } from '#shared/retry.ts';",
    ].join('\n');
    expect(wrongWay('functions/dispatcher/example.ts', text)).toEqual([]);
    expect(wrongWay('functions/recorder/example.ts', text)).toEqual([]);
    expect(wrongWay('functions/shared/example.ts', text)).toEqual([
      'functions/shared/example.ts → functions/ledger/index.ts',
      'functions/shared/example.ts → functions/ledger/index.ts',
    ]);
    expect(
      wrongWay('functions/schedule/example.ts', "import { av } from '#ledger/ledger-item.ts';"),
    ).toEqual(['functions/schedule/example.ts → functions/ledger/ledger-item.ts']);
  });

  it('keeps the ledger below the Lambdas: it may import shared and the engine, not the dispatcher', () => {
    const text = [
      "import { av } from './ledger-item.ts';",
      "import { withRetries } from '#shared/retry.ts';",
      "import type { ZoneRules } from '../schedule/index.ts';",
      "import { createDispatcher } from '../dispatcher/dispatch.ts';",
      "import type { RecordOutcome } from '../recorder/record.ts';",
      "const { startSandbox } = await import('../../cli/sandbox/start-sandbox.ts');",
    ].join('\n');
    expect(wrongWay('functions/ledger/example.ts', text)).toEqual([
      'functions/ledger/example.ts → functions/dispatcher/dispatch.ts',
      'functions/ledger/example.ts → functions/recorder/record.ts',
      'functions/ledger/example.ts → cli/sandbox/start-sandbox.ts',
    ]);
  });

  it.each(LAYERS.map(([folder]) => folder).filter((folder) => folder !== 'functions/schedule'))(
    'the engine only through functions/schedule/index.ts: %s',
    (folder) => {
      expect(sourceFiles(folder).flatMap((file) => pastTheEngineSurface(file))).toEqual([]);
    },
  );

  it('finds an import of the engine past index.ts, from anywhere outside functions/schedule', () => {
    const text = [
      "import { parseCron } from '../schedule/index.ts';",
      "import type { ParsedCron } from '../schedule/cron-types.ts';",
      "const { civilFromDays } = await import('../schedule/civil-calendar.ts');",
    ].join('\n');
    expect(pastTheEngineSurface('functions/ledger/example.ts', text)).toEqual([
      'functions/ledger/example.ts → functions/schedule/cron-types.ts',
      'functions/ledger/example.ts → functions/schedule/civil-calendar.ts',
    ]);
    expect(
      pastTheEngineSurface(
        'infra/config/example.ts',
        "import { x } from '../../functions/schedule/engine.ts';",
      ),
    ).toEqual(['infra/config/example.ts → functions/schedule/engine.ts']);
    expect(
      pastTheEngineSurface('functions/schedule/example.ts', "import { x } from './engine.ts';"),
    ).toEqual([]);
  });
});

describe('infra rooms: config, targets, packaging ← covering ← constructs ← limits, stacks ← app', () => {
  it('keeps every file of infra/ in a room of its own, none loose at the top', () => {
    const loose = sourceFiles('infra').filter((file) => file.split('/').length < 3);
    expect(sourceFiles('infra').length).toBeGreaterThan(0);
    expect(loose).toEqual([]);
  });

  it('refuses an import from a construct up to a stack, and sideways from a stack to a limit check', () => {
    expect(
      wrongWay('infra/constructs/example.ts', "import { x } from '../stacks/zonecron-stack.ts';"),
    ).toEqual(['infra/constructs/example.ts → infra/stacks/zonecron-stack.ts']);
    expect(
      wrongWay('infra/stacks/example.ts', "import { x } from '../limits/aws-limits.ts';"),
    ).toEqual(['infra/stacks/example.ts → infra/limits/aws-limits.ts']);
    expect(
      wrongWay('infra/app/example.ts', "import { x } from '../stacks/zonecron-stack.ts';"),
    ).toEqual([]);
  });
});

describe('cli rooms: what formats and what is pure never reaches for AWS', () => {
  it.each(['cli/format', 'cli/deployed'])('%s imports nothing from cli/aws', (folder) => {
    const files = sourceFiles(folder);
    expect(files.length).toBeGreaterThan(0);
    const toAws = files.flatMap((file) =>
      importsOf(file, readFileSync(join(ROOT, file), 'utf8'))
        .filter((target) => target.startsWith('cli/aws/'))
        .map((target) => `${file} → ${target}`),
    );
    expect(toAws).toEqual([]);
  });
});
