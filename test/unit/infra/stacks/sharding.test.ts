import { describe, expect, it } from 'vitest';
import {
  jobShard,
  SHARD_COUNT,
  shardOf,
  shardStackName,
} from '../../../../infra/stacks/sharding.ts';

describe('shards', () => {
  it('puts a job in the same shard whatever else is in the file: the shard depends on the id alone', () => {
    expect(jobShard('berlin-nightly-report')).toBe(jobShard('berlin-nightly-report'));
    expect(shardOf('job:berlin-nightly-report')).toBe(jobShard('berlin-nightly-report'));
  });

  it('uses all 64 shards and fills none past 250 of 10,000 ids (stacks hold 500 resources)', () => {
    const counts = new Array<number>(64).fill(0);
    for (let i = 0; i < 10_000; i += 1) {
      const shard = jobShard(`j${String(i).padStart(5, '0')}-daily`);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    expect(counts.every((count) => count > 0)).toBe(true);
    expect(Math.max(...counts)).toBeLessThan(250);
    expect(SHARD_COUNT).toBe(64);
  });

  it('names shard stacks after the main stack with a two-digit shard number', () => {
    expect(shardStackName('Zonecron', 7)).toBe('Zonecron-jobs-07');
    expect(shardStackName('Billing', 63)).toBe('Billing-jobs-63');
  });
});
