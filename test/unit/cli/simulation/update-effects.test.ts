import { describe, expect, it } from 'vitest';
import { av, UpdateExpression } from '#ledger/index.ts';
import { type IndexEffect, indexEffect } from '../../../../cli/simulation/update-effects.ts';

const OPEN = { hash: 'openShard', sort: 'checkAtEpochMs' };

describe('indexEffect on the open-run index', () => {
  it.each<[string, UpdateExpression, IndexEffect]>([
    [
      "a claim (the ledger's shape) places the run in its shard at its lease's end",
      new UpdateExpression()
        .setToPrevious('previousStatus', 'status', av.s('new'))
        .set('status', av.s('claimed'))
        .setIfAbsent('origin', av.s('tick'))
        .set('openShard', av.s('open#3'))
        .set('checkAtEpochMs', av.n(1_800_000))
        .add('attempts', av.n(1))
        .remove('skipReason'),
      { kind: 'placed', sort: 1_800_000, hash: { S: 'open#3' } },
    ],
    [
      'a new check time alone keeps the run in whatever shard it is',
      new UpdateExpression()
        .set('status', av.s('dispatched'))
        .set('checkAtEpochMs', av.n(42))
        .remove('leaseUntilEpochMs'),
      { kind: 'placed', sort: 42 },
    ],
    [
      'a finished run leaves the index',
      new UpdateExpression()
        .set('status', av.s('dispatched'))
        .remove('openShard', 'checkAtEpochMs'),
      { kind: 'left' },
    ],
    [
      'removing one key attribute is enough to leave',
      new UpdateExpression().set('openShard', av.s('open#1')).remove('checkAtEpochMs'),
      { kind: 'left' },
    ],
    [
      'a watermark or cursor write does not touch the index',
      new UpdateExpression().set('watermarkAt', av.s('2027-03-28T01:30:00.000Z')),
      { kind: 'untouched' },
    ],
    [
      'a computed check time is unknown',
      new UpdateExpression().setIfAbsent('checkAtEpochMs', av.n(7)),
      { kind: 'unknown' },
    ],
    [
      'a new shard with the check time left as it was is unknown',
      new UpdateExpression().set('openShard', av.s('open#2')),
      { kind: 'unknown' },
    ],
    [
      'ADD to the check time is unknown',
      new UpdateExpression().add('checkAtEpochMs', av.n(60_000)),
      { kind: 'unknown' },
    ],
  ])('%s', (_, expression, effect) => {
    expect(indexEffect(expression.build(), OPEN)).toEqual(effect);
  });

  it('reads attribute names written without placeholders, and keywords in any case', () => {
    const request = {
      update: 'set openShard = :s, checkAtEpochMs = :c remove lease',
      values: { ':s': av.s('open#0'), ':c': av.n(5) },
    };
    expect(indexEffect(request, OPEN)).toEqual({ kind: 'placed', sort: 5, hash: { S: 'open#0' } });
  });

  it('splits a clause at its own commas, not at the commas inside a function call', () => {
    const request = {
      update: 'SET #l = list_append(#l, :l), #c = :c',
      names: { '#l': 'log', '#c': 'checkAtEpochMs' },
      values: { ':l': { L: [] }, ':c': av.n(9) },
    };
    expect(indexEffect(request, OPEN)).toEqual({ kind: 'placed', sort: 9 });
  });

  it('takes a placeholder that spells a keyword for a name, not for a clause', () => {
    const request = {
      update: 'SET #remove = :r',
      names: { '#remove': 'checkAtEpochMs' },
      values: { ':r': av.n(3) },
    };
    expect(indexEffect(request, OPEN)).toEqual({ kind: 'placed', sort: 3 });
  });

  it('calls a write into a nested path of a key attribute unknown', () => {
    const request = {
      update: 'SET #c.#x = :v',
      names: { '#c': 'checkAtEpochMs', '#x': 'x' },
      values: { ':v': av.n(1) },
    };
    expect(indexEffect(request, OPEN)).toEqual({ kind: 'unknown' });
  });
});
