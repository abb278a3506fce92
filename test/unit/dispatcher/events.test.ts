import { describe, expect, it } from 'vitest';
import { MalformedEventError, parseEvent } from '../../../functions/dispatcher/events.ts';

describe('parseEvent', () => {
  it('reads a Scheduler tick from scheduledTime, truncated to the minute', () => {
    expect(
      parseEvent({
        jobId: 'daily',
        scheduledTime: '2023-03-26T01:30:07Z',
        executionId: 'e-1',
        attempt: 2,
      }),
    ).toEqual({
      kind: 'tick',
      jobId: 'daily',
      scheduledAt: new Date('2023-03-26T01:30:00.000Z'),
      executionId: 'e-1',
      schedulerAttempt: 2,
    });
  });

  it('accepts an attempt number rendered as a string and a zone offset', () => {
    const event = parseEvent({
      jobId: 'j',
      scheduledTime: '2023-03-26T03:30:59+02:00',
      attempt: '3',
    });
    expect(event).toMatchObject({
      scheduledAt: new Date('2023-03-26T01:30:00.000Z'),
      schedulerAttempt: 3,
    });
  });

  it('reads the sweep, a manual run and a redrive', () => {
    expect(parseEvent({ sweep: true, scheduledTime: '2023-03-26T01:31:00Z' })).toEqual({
      kind: 'sweep',
      scheduledAt: new Date('2023-03-26T01:31:00.000Z'),
    });
    expect(parseEvent({ manual: true, jobId: 'j' })).toEqual({ kind: 'manual', jobId: 'j' });
    expect(parseEvent({ redrive: true, jobId: 'j', at: '2023-03-26T01:30:00.000Z' })).toEqual({
      kind: 'redrive',
      jobId: 'j',
      at: new Date('2023-03-26T01:30:00.000Z'),
      manual: false,
    });
  });

  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'tick'],
    ['no jobId', { scheduledTime: '2023-03-26T01:30:00Z' }],
    ['an empty jobId', { jobId: '', scheduledTime: '2023-03-26T01:30:00Z' }],
    ['no scheduledTime', { jobId: 'j' }],
    ['a local time without zone', { jobId: 'j', scheduledTime: '2023-03-26T01:30:00' }],
    ['a non-date', { jobId: 'j', scheduledTime: 'yesterday' }],
    ['sweep: false', { sweep: false, scheduledTime: '2023-03-26T01:30:00Z' }],
    ['a negative attempt', { jobId: 'j', scheduledTime: '2023-03-26T01:30:00Z', attempt: -1 }],
  ])('rejects %s with a MalformedEventError that lists the issues', (_name, event) => {
    let caught: unknown;
    try {
      parseEvent(event);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MalformedEventError);
    expect((caught as MalformedEventError).issues.length).toBeGreaterThan(0);
    expect((caught as MalformedEventError).message).toMatch(/^malformed dispatcher event: /);
  });
});
