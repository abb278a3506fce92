import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../../infra/packaging/package-root.ts';

describe('packageRoot', () => {
  it('finds the nearest folder with a package.json above a bundle two folders deep', () => {
    const root = mkdtempSync(join(tmpdir(), 'zonecron-root-'));
    writeFileSync(join(root, 'package.json'), '{}');
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    const bundle = pathToFileURL(join(root, 'dist', 'cli', 'zonecron.mjs')).href;
    expect(packageRoot(bundle)).toBe(root);
  });

  it('finds the repository root from a source file', () => {
    expect(packageRoot(pathToFileURL(join(process.cwd(), 'infra', 'app', 'main.ts')).href)).toBe(
      process.cwd(),
    );
  });
});
