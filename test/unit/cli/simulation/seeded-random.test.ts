import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../../cli/simulation/seeded-random.ts';

describe('seededRandom', () => {
  it('draws the same sequence from the same seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const drawsA = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(drawsA);
  });

  it('draws a different sequence from another seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(43);
    const drawsA = Array.from({ length: 20 }, () => a());
    expect(Array.from({ length: 20 }, () => b())).not.toEqual(drawsA);
  });

  it('draws values in [0, 1) that spread over the interval', () => {
    const random = seededRandom(7);
    const draws = Array.from({ length: 10_000 }, () => random());
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    const tenths = new Set(draws.map((x) => Math.floor(x * 10)));
    expect(tenths.size).toBe(10);
  });
});
