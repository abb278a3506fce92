import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MalformedEventError,
  parseEvent,
  readEvent,
} from '../../../functions/dispatcher/events.ts';
import { FIVE_MB, HOSTILE_EVENTS } from '../../support/hostile-events.ts';

/** Longest issue text a refusal may carry, whatever the event held. */
const MAX_ISSUE_CHARS = 400;

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

describe('readEvent on events nobody legitimate sends', () => {
  it.each(HOSTILE_EVENTS)('refuses %s with short issues, without throwing', (_name, event) => {
    const reading = readEvent(event);
    expect(reading.ok).toBe(false);
    if (reading.ok) return;
    expect(reading.issues.length).toBeGreaterThan(0);
    for (const issue of reading.issues) expect(issue.length).toBeLessThan(MAX_ISSUE_CHARS);
    expect(typeof reading.summary.type).toBe('string');
  });

  it.each([
    ['a 5 MB executionId', { executionId: FIVE_MB }],
    ['a 5 MB attempt of digits', { attempt: '9'.repeat(5 * 1024 * 1024) }],
    ['an attempt past any Scheduler retry', { attempt: '1000000000' }],
    ['an executionId that is an object', { executionId: { id: 'e' } }],
  ])('refuses a tick with %s, quoting a short excerpt of it', (_name, fields) => {
    const reading = readEvent({ jobId: 'daily', scheduledTime: '2023-06-01T10:00:00Z', ...fields });
    expect(reading).toMatchObject({ ok: false, issues: [expect.any(String)] });
    if (!reading.ok) expect(reading.issues[0]?.length).toBeLessThan(MAX_ISSUE_CHARS);
  });

  it('reads a field only when the event holds it itself, never through its prototype', () => {
    const inherited = Object.create({ sweep: true, scheduledTime: '2023-06-01T10:00:00Z' });
    expect(readEvent(inherited).ok).toBe(false);
  });

  it('keeps an empty executionId a tick, as none', () => {
    expect(
      readEvent({ jobId: 'daily', scheduledTime: '2023-06-01T10:00:00Z', executionId: '' }),
    ).toEqual({
      ok: true,
      event: { kind: 'tick', jobId: 'daily', scheduledAt: new Date('2023-06-01T10:00:00Z') },
    });
  });

  it('never throws for arbitrary values: it returns an event or a refusal with short issues', () => {
    const anyValue = fc.oneof(
      fc.jsonValue({ maxDepth: 6 }),
      fc.anything({ maxDepth: 4, maxKeys: 6, withNullPrototype: true, withBigInt: true }),
      fc.record(
        {
          jobId: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })),
          scheduledTime: fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.string(),
          ),
          executionId: fc.oneof(fc.string(), fc.integer()),
          attempt: fc.oneof(fc.nat().map(String), fc.double(), fc.string()),
          sweep: fc.oneof(fc.constant(true), fc.jsonValue({ maxDepth: 1 })),
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(anyValue, (value) => {
        const reading = readEvent(value);
        if (reading.ok) {
          expect(['tick', 'sweep', 'manual', 'redrive']).toContain(reading.event.kind);
          return;
        }
        expect(reading.issues.length).toBeGreaterThan(0);
        for (const issue of reading.issues) expect(issue.length).toBeLessThan(MAX_ISSUE_CHARS);
      }),
      { numRuns: 300 },
    );
  });
});
