/**
 * The stable hash behind `H`: 32-bit FNV-1a over the UTF-8 bytes of `<jobId>:<fieldIndex>`,
 * finished with the MurmurHash3 32-bit finaliser (fmix32).
 *
 * Fixed forever: changing it would move every `H` job on every deployment. The field index
 * (0 = minute ... 4 = day-of-week) is mixed in so that the fields of one job get independent
 * values; the finaliser spreads ids that differ only in their last character (`job-1`,
 * `job-2`) over the whole range, even when the result is taken modulo a small number.
 */
export function spreadHash(jobId: string, fieldIndex: number): number {
  const bytes = new TextEncoder().encode(`${jobId}:${fieldIndex}`);
  let hash = 0x811c9dc5;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
