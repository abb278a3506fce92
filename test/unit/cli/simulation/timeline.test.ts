import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Timeline } from '../../../../cli/simulation/timeline.ts';

interface Event {
  readonly at: number;
  readonly id: number;
}

describe('Timeline', () => {
  it('gives events back earliest first, and events of one instant in the order they came', () => {
    const timeline = new Timeline<Event>();
    for (const [at, id] of [
      [3, 1],
      [1, 2],
      [2, 3],
      [1, 4],
      [3, 5],
    ] as const) {
      timeline.push({ at, id });
    }
    const out: number[] = [];
    for (let e = timeline.pop(); e; e = timeline.pop()) out.push(e.id);
    expect(out).toEqual([2, 4, 3, 1, 5]);
  });

  it('tells its size and earliest instant, and gives nothing back when empty', () => {
    const timeline = new Timeline<Event>();
    expect(timeline.size).toBe(0);
    expect(timeline.peekAt()).toBeUndefined();
    expect(timeline.pop()).toBeUndefined();
    timeline.push({ at: 5, id: 1 });
    timeline.push({ at: 2, id: 2 });
    expect(timeline.size).toBe(2);
    expect(timeline.peekAt()).toBe(2);
  });

  it('orders any mix of pushes and pops by instant, then by arrival (a sorted, stable queue)', () => {
    const step = fc.oneof(
      fc.record({ push: fc.integer({ min: 0, max: 20 }) }),
      fc.constant({ pop: true as const }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const timeline = new Timeline<Event>();
        const reference: Event[] = [];
        let id = 0;
        for (const s of steps) {
          if ('push' in s) {
            const event = { at: s.push, id: id++ };
            timeline.push(event);
            reference.push(event);
            // Stable by arrival: a later event goes after every event of its instant.
            reference.sort((a, b) => a.at - b.at || a.id - b.id);
          } else {
            expect(timeline.pop()).toEqual(reference.shift());
          }
          expect(timeline.size).toBe(reference.length);
        }
      }),
      { numRuns: 300 },
    );
  });
});
