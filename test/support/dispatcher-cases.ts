// What the dispatcher's integration cases (test/integration/dispatcher/) share: the stack's
// lease, a five-minutely job, a lambda target and a run's key.
import type { JobDefinition } from '#jobs/job.ts';
import { periodBucket } from '../../functions/schedule/index.ts';
import { makeJob } from './jobs.ts';

/** The stack's lease: the dispatcher's 60 s timeout plus 30 s. */
export const STACK_LEASE_SECONDS = 90;

/** A job every five minutes, in UTC. */
export const fiveMinutely = makeJob({ id: 'every-five', schedule: '*/5 * * * *', timezone: 'UTC' });

/**
 * A lambda target of the function `name`.
 *
 * The cases that pass it to `makeJob` read the recorder's completions, which name the function.
 */
export const lambdaTarget = (name: string) => ({
  type: 'lambda' as const,
  arn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
});

/**
 * The key of `job`'s run at the instant `iso`.
 *
 * @example
 * key(job, '2023-06-01T10:10:00Z') //=> periodBucket(job.id, new Date('2023-06-01T10:10:00Z'))
 */
export function key(job: JobDefinition, iso: string) {
  return periodBucket(job.id, new Date(iso));
}
