import type { JobDefinition } from '#jobs/job.ts';

/** A job's fields, each optional; nested mappings may be given in part. */
export type JobOverrides = {
  readonly [K in keyof JobDefinition]?: JobDefinition[K] extends object
    ? Partial<JobDefinition[K]>
    : JobDefinition[K];
};

/**
 * A job as the loader would produce it from a minimal entry (its built-in defaults applied),
 * overridden where given: the tests' and benchmarks' one job builder.
 *
 * @example
 * makeJob({ id: 'nightly', schedule: '30 2 * * *', catchup: { policy: 'latest' } }).catchup
 * //=> { policy: 'latest', windowSeconds: 86400, maxRuns: 100 }
 */
export function makeJob(overrides: JobOverrides & { readonly id: string }): JobDefinition {
  const { catchup, retry, alarm, target, dst, ...rest } = overrides;
  return {
    description: overrides.id,
    schedule: '*/15 * * * *',
    timezone: 'Europe/Berlin',
    payload: null,
    concurrency: 'allow',
    maxRuntimeSeconds: 3600,
    enabled: true,
    ...rest,
    ...(dst ? { dst } : {}),
    target: { type: 'sqs', arn: 'arn:aws:sqs:us-east-1:000000000000:target', ...target },
    catchup: { policy: 'all', windowSeconds: 86_400, maxRuns: 100, ...catchup },
    retry: { maxAttempts: 3, ...retry },
    alarm: { graceSeconds: 300, dedicated: false, ...alarm },
  };
}
