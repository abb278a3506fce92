import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EVENT_BOUNDS,
  inspectEvent,
  preview,
  unreadableEventFields,
} from '#shared/event-bounds.ts';
import { cyclicObject, deepArray, deepObject } from '../../support/hostile-events.ts';

describe('inspectEvent', () => {
  it('never counts more characters than the event has as JSON, so it accepts any small event', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const inspection = inspectEvent(value);
        expect(inspection.ok).toBe(true);
        expect(inspection.summary.sizeEstimate).toBeLessThanOrEqual(JSON.stringify(value).length);
      }),
      { numRuns: 300 },
    );
  });

  it('accepts an event exactly 256 levels deep and refuses one a level deeper', () => {
    expect(inspectEvent(deepArray(DEFAULT_EVENT_BOUNDS.maxDepth - 1)).ok).toBe(true);
    expect(inspectEvent(deepArray(DEFAULT_EVENT_BOUNDS.maxDepth))).toMatchObject({
      ok: false,
      issue: 'nested deeper than 256 levels',
    });
  });

  it('accepts a string field up to 256 KiB of JSON and refuses one a character longer', () => {
    const event = (chars: number) => ({ s: 'x'.repeat(chars) });
    // {"s":"…"}: braces 2, the key 1 and its quotes 2, a colon 1, the string's quotes 2.
    const room = DEFAULT_EVENT_BOUNDS.maxChars - 8;
    expect(inspectEvent(event(room)).ok).toBe(true);
    expect(inspectEvent(event(room + 1))).toMatchObject({
      ok: false,
      issue: 'larger than 262144 characters',
    });
  });

  it('refuses a cycle and a value that throws when read, without throwing', () => {
    expect(inspectEvent(cyclicObject()).ok).toBe(false);
    const trap = new Proxy(
      {},
      {
        ownKeys() {
          throw new TypeError('no');
        },
      },
    );
    expect(inspectEvent({ a: trap })).toMatchObject({ ok: false, issue: 'unreadable: TypeError' });
  });

  it('stops at the first bound: a 20,000-deep object is refused after its first 256 levels', () => {
    const inspection = inspectEvent(deepObject(20_000));
    expect(inspection.ok).toBe(false);
    expect(inspection.summary.sizeEstimate).toBeLessThan(256 * 20);
  });
});

describe('what a log line says of an event', () => {
  it('quotes a long string as a short excerpt with its length, and an array by its length', () => {
    expect(preview('x'.repeat(5_000_000))).toBe(`"${'x'.repeat(32)}…" (5000000 characters)`);
    expect(preview([1, 2])).toBe('an array of 2');
    expect(preview({ a: 1 })).toBe('an object');
  });

  it('cuts the first issue to 300 characters and counts the rest', () => {
    const fields = unreadableEventFields({ type: 'object', sizeEstimate: 9 }, [
      'y'.repeat(1000),
      'z',
    ]);
    expect(fields.issue).toHaveLength(300);
    expect(fields).toMatchObject({ type: 'object', sizeEstimate: 9, issueCount: 2 });
  });
});
