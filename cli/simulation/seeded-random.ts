/**
 * A seeded pseudo-random source in [0, 1) (mulberry32): the same seed, the same simulation
 * and the same generated jobs file, on any machine.
 *
 * @example
 * const random = seededRandom(42); random() //=> 0.6011037519201636
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
