import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import type { RunItem } from '#ledger/index.ts';
import { runHistoryLines } from '../../../../cli/format/run-history.ts';

const plain = pc.createColors(false);

/** A run of 06:00 UTC as the ledger decodes it, overridden where given. */
function run(overrides: Partial<RunItem>): RunItem {
  return {
    key: 'abcdef0123456789',
    jobId: 'report',
    at: '2026-10-25T06:00:00.000Z',
    nominal: '2026-10-25T07:00',
    dst: 'none',
    status: 'dispatched',
    attempts: 1,
    roundAttempts: 1,
    generation: 0,
    manual: false,
    dispatchedAt: '2026-10-25T06:00:02.000Z',
    signals: [],
    outbox: [],
    ...overrides,
  };
}

describe('runHistoryLines: the note column', () => {
  it.each([
    ['a run that missed its deadline', run({ signals: ['deadline-missed'] }), 'deadline missed'],
    [
      'a backfilled run that missed its deadline',
      run({ origin: 'backfill', signals: ['deadline-missed'] }),
      'backfill, deadline missed',
    ],
    ['a run on time', run({}), ''],
  ])('notes %s', (_name, item, note) => {
    const [, row] = (runHistoryLines([item], plain)[0] ?? '').split('\n');
    const [at, nominal, ...rest] = (row ?? '').split(/ {2,}/);
    expect([at, nominal]).toEqual(['2026-10-25 06:00', '2026-10-25T07:00']);
    const columns = ['dispatched', '1', '2.0s', 'abcdef0'];
    expect(rest).toEqual(note ? [note, ...columns] : columns);
  });
});
