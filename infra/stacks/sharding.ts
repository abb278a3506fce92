/**
 * Which stack of an installation holds a job's schedule (and a function's invoke config): a
 * fixed hash of its id into a fixed number of shards.
 *
 * Why separate stacks, and why this way:
 *
 * - A template holds at most 500 resources, and one stack operation creates, updates or
 *   deletes at most 2,500 resources across a stack and all its nested stacks (AWS CloudFormation
 *   User Guide, "Understand CloudFormation quotas": "Resources", "Nested stacks"). 10,000
 *   schedules cannot be created by one stack operation, nested or not; 64 top-level stacks of
 *   about 160 schedules each can, one operation each.
 * - Schedule names are unique within a schedule group, and all of an installation's schedules
 *   share one group. A schedule that moved to another stack would be created there before the
 *   old stack deleted it, and the create would fail on the name. So a job's shard depends on its
 *   id alone: adding, removing or changing other jobs never moves it. `SHARD_COUNT` is part of
 *   that contract and must never change for an existing installation.
 * - A shard's stack exists only while some job or function hashes to it.
 */
import { createHash } from 'node:crypto';

/** Shards per installation. Never change it: every schedule would move. */
export const SHARD_COUNT = 64;

/**
 * The shard of a key: the first 32 bits of its SHA-256, modulo `SHARD_COUNT`.
 *
 * @example
 * shardOf('job:berlin-nightly-report') //=> a number from 0 to 63, the same forever
 */
export function shardOf(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % SHARD_COUNT;
}

/** The shard of a job's schedule and dedicated alarms. */
export function jobShard(jobId: string): number {
  return shardOf(`job:${jobId}`);
}

/** The shard of a Lambda function's invoke config (`functionArn:qualifier`). */
export function functionShard(functionKey: string): number {
  return shardOf(`function:${functionKey}`);
}

/**
 * The CloudFormation name of a shard's stack.
 *
 * @example
 * shardStackName('Zonecron', 7) //=> 'Zonecron-jobs-07'
 */
export function shardStackName(stackName: string, shard: number): string {
  return `${stackName}-jobs-${String(shard).padStart(2, '0')}`;
}
