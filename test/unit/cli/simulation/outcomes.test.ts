import { describe, expect, it } from 'vitest';
import { outcomeStatus, runOutcomes } from '../../../../cli/simulation/outcomes.ts';
import { cleanInput, delivery, hourly, item, keyOf } from '../../../support/simulation-input.ts';

describe('runOutcomes', () => {
  it('gives one outcome per expected run, in time order, with its deliveries and attempts', () => {
    const input = cleanInput({
      deliveries: [
        delivery(hourly, '11:00', 1, 'req-a'),
        delivery(hourly, '10:00', 1, 'req-b'),
        delivery(hourly, '11:00', 200, 'req-c', 2),
      ],
      items: new Map([
        [keyOf(hourly, '10:00'), item(hourly, '10:00')],
        [keyOf(hourly, '11:00'), item(hourly, '11:00', { attempts: 2, status: 'dispatched' })],
      ]),
    });
    expect(runOutcomes(input)).toEqual([
      {
        jobId: 'hourly',
        at: '2027-03-28T10:00:00.000Z',
        nominal: '2027-03-28T10:00',
        key: keyOf(hourly, '10:00'),
        status: 'delivered',
        reason: null,
        deliveries: 1,
        deliveredAt: '2027-03-28T10:00:01.000Z',
        attempts: 1,
      },
      {
        jobId: 'hourly',
        at: '2027-03-28T11:00:00.000Z',
        nominal: '2027-03-28T11:00',
        key: keyOf(hourly, '11:00'),
        status: 'delivered',
        reason: null,
        deliveries: 2,
        deliveredAt: '2027-03-28T11:00:01.000Z',
        attempts: 2,
      },
    ]);
  });

  it('calls a run nobody decided undecided, with no deliveries and no attempts', () => {
    const input = cleanInput({ items: new Map(), deliveries: [] });
    expect(runOutcomes(input).map((o) => [o.status, o.deliveries, o.attempts])).toEqual([
      ['undecided', 0, 0],
      ['undecided', 0, 0],
    ]);
  });
});

describe('outcomeStatus', () => {
  it.each([
    ['dispatched', undefined, 'delivered'],
    ['succeeded', undefined, 'delivered'],
    ['failed', 'execution', 'delivered'],
    ['failed', 'delivery', 'dead-lettered'],
    ['skipped', undefined, 'skipped'],
    ['claimed', undefined, 'open'],
    ['delivery-failed', undefined, 'open'],
  ] as const)('reads a %s item (failure %s) as %s', (status, failure, expected) => {
    const run = item(hourly, '10:00', { status, ...(failure ? { failure } : {}) });
    expect(outcomeStatus(run)).toBe(expected);
  });

  it('reads no item as undecided', () => {
    expect(outcomeStatus(undefined)).toBe('undecided');
  });
});
