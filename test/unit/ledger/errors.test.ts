import { describe, expect, it, vi } from 'vitest';
import { isLedgerError, LedgerError } from '#ledger/errors.ts';
import { LedgerItemError } from '#ledger/ledger-item.ts';
import { LedgerThrottledError } from '#ledger/ledger-store.ts';
import { LedgerConflictError } from '#ledger/run-ledger.ts';
import { MissingEnvironmentError } from '#shared/env.ts';

describe('isLedgerError', () => {
  it.each([
    ['LedgerThrottledError', new LedgerThrottledError(3)],
    ['LedgerConflictError', new LedgerConflictError('9f0c')],
    ['LedgerItemError', new LedgerItemError('9f0c', 'status', 'is missing')],
  ])('is true for a %s, which keeps its name', (name, error) => {
    expect(isLedgerError(error)).toBe(true);
    expect(error).toBeInstanceOf(LedgerError);
    expect(error.name).toBe(name);
  });

  it.each([
    ['an Error', new Error('x')],
    ["another family's error", new MissingEnvironmentError('LEDGER_TABLE_NAME')],
    ["a plain object named 'LedgerError'", { name: 'LedgerError', message: 'x' }],
    ['null', null],
    ["the string 'LedgerError'", 'LedgerError'],
  ])('is false for %s', (_, value) => {
    expect(isLedgerError(value)).toBe(false);
  });

  it('recognises errors from a second loaded copy of the ledger', async () => {
    const first = new LedgerThrottledError(3);
    vi.resetModules();
    const copy = (await import(
      '#ledger/ledger-store.ts'
    )) as typeof import('#ledger/ledger-store.ts');
    const copyErrors = (await import('#ledger/errors.ts')) as typeof import('#ledger/errors.ts');
    const second = new copy.LedgerThrottledError(3);
    expect(second).not.toBeInstanceOf(LedgerError);
    expect(isLedgerError(second)).toBe(true);
    expect(copyErrors.isLedgerError(first)).toBe(true);
  });
});
