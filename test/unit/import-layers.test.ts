// The source folders form layers, and imports only go down them (docs/architecture.md, "Where
// the parts live"): the engine knows nothing of jobs, the shared contracts nothing of the
// ledger, the ledger nothing of either Lambda, the Lambdas nothing of the stack, the stack
// nothing of the CLI. The two Lambdas sit side by side and do not import each other.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Folder → layer; a file may import its own folder and any lower layer. */
const LAYERS: readonly (readonly [string, number])[] = [
  ['functions/schedule', 0],
  ['functions/shared', 1],
  ['functions/ledger', 2],
  ['functions/dispatcher', 3],
  ['functions/recorder', 3],
  ['infra', 4],
  ['cli', 5],
];

function layerOf(path: string) {
  return LAYERS.find(([folder]) => path.startsWith(`${folder}/`));
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

/** The repository's own subpath imports (package.json `imports`), each → its folder. */
const SUBPATH_IMPORTS: Readonly<Record<string, string>> = {
  '#shared/': 'functions/shared/',
  '#ledger/': 'functions/ledger/',
};

/** Every import of the repository's own files (static or dynamic), as a repository path. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/(?:from|import)\s*\(?\s*'((?:\.{1,2}|#shared|#ledger)\/[^']+)'/g),
  ];
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

describe('import layers: engine ← shared ← ledger ← dispatcher, recorder ← infra ← cli', () => {
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
      "import type { JobDefinition } from './job.ts';",
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
      wrongWay('functions/schedule/example.ts', "import { x } from '#shared/job.ts';"),
    ).toEqual(['functions/schedule/example.ts → functions/shared/job.ts']);
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
