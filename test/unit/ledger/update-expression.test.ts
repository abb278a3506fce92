import { describe, expect, it } from 'vitest';
import { av, UpdateExpression } from '#ledger/index.ts';

describe('UpdateExpression', () => {
  it('builds the expression with what it does to each attribute, in its order', () => {
    const built = new UpdateExpression()
      .set('status', av.s('claimed'))
      .setIfAbsent('origin', av.s('tick'))
      .setToPrevious('previousStatus', 'status', av.s('new'))
      .setFrom('lastPauseFrom', 'pausedAt')
      .remove('skipReason')
      .add('attempts', av.n(1))
      .delete('outbox', av.ss(['notify:missed']))
      .build();
    expect(built.update).toBe(
      'SET #status = :status, #origin = if_not_exists(#origin, :origin), ' +
        '#previousStatus = if_not_exists(#status, :previousStatus), #lastPauseFrom = #pausedAt ' +
        'REMOVE #skipReason ADD #attempts :attempts DELETE #outbox :del_outbox',
    );
    expect(built.actions).toEqual([
      { kind: 'set', attribute: 'status', value: { S: 'claimed' } },
      { kind: 'set-computed', attribute: 'origin' },
      { kind: 'set-computed', attribute: 'previousStatus' },
      { kind: 'set-computed', attribute: 'lastPauseFrom' },
      { kind: 'remove', attribute: 'skipReason' },
      { kind: 'add', attribute: 'attempts' },
      { kind: 'delete', attribute: 'outbox' },
    ]);
  });

  it('keeps the last of two sets of one attribute, its value and its action', () => {
    const built = new UpdateExpression()
      .set('checkAtEpochMs', av.n(1))
      .setFrom('checkAtEpochMs', 'leaseUntilEpochMs')
      .set('checkAtEpochMs', av.n(2))
      .build();
    expect(built.update).toBe('SET #checkAtEpochMs = :checkAtEpochMs');
    expect(built.values).toEqual({ ':checkAtEpochMs': { N: '2' } });
    expect(built.actions).toEqual([
      { kind: 'set', attribute: 'checkAtEpochMs', value: { N: '2' } },
    ]);
  });
});
