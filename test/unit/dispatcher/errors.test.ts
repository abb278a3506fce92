import { describe, expect, it, vi } from 'vitest';
import { LedgerThrottledError, type RunItem } from '#ledger/index.ts';
import {
  DispatcherError,
  isDispatcherError,
  NotARunError,
  RedriveRefusedError,
  UnknownJobError,
} from '../../../functions/dispatcher/errors.ts';
import { MalformedEventError } from '../../../functions/dispatcher/events.ts';
import { SweepFailedError } from '../../../functions/dispatcher/sweep.ts';
import { TargetDeliveryError } from '../../../functions/dispatcher/targets/errors.ts';

const DELIVERED = {
  key: '9f0c',
  jobId: 'daily',
  at: '2026-03-29T01:30:00.000Z',
  status: 'delivered',
  outbox: [],
} as unknown as RunItem;

describe('isDispatcherError', () => {
  it.each([
    ['UnknownJobError', new UnknownJobError('nope', ['daily'])],
    ['NotARunError', new NotARunError('daily', new Date('2026-03-29T01:31:00Z'))],
    ['RedriveRefusedError', new RedriveRefusedError(DELIVERED)],
    ['MalformedEventError', new MalformedEventError({}, ['kind: required'])],
    ['TargetDeliveryError', new TargetDeliveryError('sqs', 'arn:aws:sqs:x', 'Failed', 'x')],
  ])('is true for a %s, which keeps its name', (name, error) => {
    expect(isDispatcherError(error)).toBe(true);
    expect(error).toBeInstanceOf(DispatcherError);
    expect(error.name).toBe(name);
  });

  it('is true for a SweepFailedError, which stays an AggregateError with its parts', () => {
    const part = new Error('part');
    const error = new SweepFailedError([part]);
    expect(isDispatcherError(error)).toBe(true);
    expect(error).toBeInstanceOf(AggregateError);
    expect(error.errors).toEqual([part]);
    expect(error.name).toBe('SweepFailedError');
  });

  it.each([
    ['an Error', new Error('x')],
    ['an AggregateError', new AggregateError([new Error('x')])],
    ["the ledger's error", new LedgerThrottledError(3)],
    ["a plain object named 'UnknownJobError'", { name: 'UnknownJobError', message: 'x' }],
    ['null', null],
  ])('is false for %s', (_, value) => {
    expect(isDispatcherError(value)).toBe(false);
  });

  it('recognises errors from a second loaded copy of the dispatcher', async () => {
    const first = new UnknownJobError('nope', ['daily']);
    vi.resetModules();
    const copy = (await import(
      '../../../functions/dispatcher/errors.ts'
    )) as typeof import('../../../functions/dispatcher/errors.ts');
    const second = new copy.UnknownJobError('nope', ['daily']);
    expect(second).not.toBeInstanceOf(DispatcherError);
    expect(isDispatcherError(second)).toBe(true);
    expect(copy.isDispatcherError(first)).toBe(true);
  });
});
