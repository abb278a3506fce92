// leaveOpenIndex's choice between its two writes, against a store that answers each request
// from a script (the writes themselves run on DynamoDB Local and dynalite in the ledger
// contract, test/integration/ledger/ledger.test.ts).
import { describe, expect, it } from 'vitest';
import {
  av,
  type ConditionalUpdate,
  type LedgerStore,
  UpdateExpression,
  type UpdateResult,
} from '#ledger/index.ts';
import { leaveOpenIndex } from '#ledger/outbox.ts';

const OWED = { outbox: av.ss(['notify:missed']) };

/** A store whose updates answer in turn from `answers`, recording what was asked. */
function scriptedStore(answers: UpdateResult[]) {
  const asked: ConditionalUpdate[] = [];
  const store = {
    async update(request: ConditionalUpdate) {
      asked.push(request);
      const answer = answers.shift();
      if (!answer) throw new Error('no answer left');
      return answer;
    },
  } as unknown as LedgerStore;
  return { store, asked };
}

const move = {
  key: 'k',
  build: () => new UpdateExpression().set('status', av.s('skipped')),
  condition: (u: UpdateExpression) =>
    `${u.name('status')} = ${u.value('claimed', av.s('claimed'))}`,
};

const dropsIndexKeys = (request: ConditionalUpdate) => request.update.includes('REMOVE');

describe('leaveOpenIndex', () => {
  it('makes one write that drops the index keys when nothing is owed', async () => {
    const { store, asked } = scriptedStore([{ applied: true, item: undefined }]);
    expect((await leaveOpenIndex(store, move)).applied).toBe(true);
    expect(asked.map(dropsIndexKeys)).toEqual([true]);
    expect(asked[0]?.condition).toMatch(/attribute_not_exists\(#outbox\)$/);
  });

  it('writes again keeping the index keys when the refusal shows an owed effect', async () => {
    const { store, asked } = scriptedStore([
      { applied: false, current: OWED },
      { applied: true, item: undefined },
    ]);
    expect((await leaveOpenIndex(store, move)).applied).toBe(true);
    expect(asked.map(dropsIndexKeys)).toEqual([true, false]);
    expect(asked[1]?.condition).toMatch(/attribute_exists\(#outbox\)$/);
  });

  it('gives up after one write when the move itself is refused (another claim holds the run)', async () => {
    const { store, asked } = scriptedStore([{ applied: false, current: {} }]);
    expect((await leaveOpenIndex(store, move)).applied).toBe(false);
    expect(asked).toHaveLength(1);
  });

  it('drops the index keys after all when the effect was confirmed between its two writes', async () => {
    const { store, asked } = scriptedStore([
      { applied: false, current: OWED },
      { applied: false, current: {} },
      { applied: true, item: undefined },
    ]);
    expect((await leaveOpenIndex(store, move)).applied).toBe(true);
    expect(asked.map(dropsIndexKeys)).toEqual([true, false, true]);
  });
});
