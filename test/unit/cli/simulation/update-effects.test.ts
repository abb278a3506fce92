import { describe, expect, it } from 'vitest';
import { av, type ConditionalUpdate, UpdateExpression } from '#ledger/index.ts';
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
      'a check time copied from another attribute is unknown',
      new UpdateExpression().setFrom('checkAtEpochMs', 'leaseUntilEpochMs'),
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

  it('calls an update without actions unknown: its expression, written by hand, is not read', () => {
    const request = {
      key: 'run-1',
      update: 'SET #c = :c',
      names: { '#c': 'checkAtEpochMs' },
      values: { ':c': av.n(9) },
    } satisfies ConditionalUpdate;
    expect(indexEffect(request, OPEN)).toEqual({ kind: 'unknown' });
  });
});
