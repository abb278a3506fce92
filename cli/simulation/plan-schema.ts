import { z } from 'zod';
import type { ConfigIssue, ConfigIssueCode } from '../../infra/config/config-error.ts';
import { DurationError, parseDurationSeconds } from '../../infra/config/duration.ts';

const instant = z
  .string({ error: 'expected an ISO 8601 instant like 2027-03-28T00:00:00Z' })
  .refine((text) => /[zZ]|[+-]\d{2}:?\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)), {
    error: 'expected an ISO 8601 instant with a zone designator, e.g. 2027-03-28T00:00:00Z',
    abort: true,
  })
  .transform((text) => new Date(text));

const duration = z.string({ error: 'expected a duration like 10m' }).transform((text, ctx) => {
  try {
    return parseDurationSeconds(text) * 1000;
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
    return z.NEVER;
  }
});

const probability = z
  .number({ error: 'expected a probability from 0 to 1' })
  .min(0, { error: 'expected a probability from 0 to 1' })
  .max(1, { error: 'expected a probability from 0 to 1' });

const interval = z
  .strictObject({ from: instant, to: instant })
  .refine((i) => i.from < i.to, { error: 'from must be before to' });

/** Most nesting a `deep-event` may have, and most bytes a `huge-event` may carry. */
export const HOSTILE_LIMITS = { depth: 1_000_000, bytes: 64 * 1024 * 1024 } as const;

function operatorSchema() {
  const job = z.string().min(1);
  return z.discriminatedUnion('action', [
    z.strictObject({
      at: instant,
      action: z.literal('backfill'),
      job,
      from: instant,
      to: instant,
      force: z.boolean().optional(),
    }),
    z.strictObject({ at: instant, action: z.literal('run'), job, force: z.boolean().optional() }),
    z.strictObject({ at: instant, action: z.literal('redrive'), job, run: instant }),
    z.strictObject({
      at: instant,
      action: z.literal('discard'),
      job,
      run: instant,
      reason: z.string().optional(),
    }),
    z.strictObject({
      at: instant,
      action: z.literal('pause'),
      job,
      reason: z.string().optional(),
      until: instant.optional(),
    }),
    z.strictObject({
      at: instant,
      action: z.literal('resume'),
      job,
      catchUp: z.boolean().optional(),
    }),
  ]);
}

function hostileSchema() {
  const job = z.string().min(1);
  const whole = (max: number) =>
    z
      .number()
      .int({ error: 'expected a whole number' })
      .min(1, { error: `expected a whole number from 1 to ${max}` })
      .max(max, { error: `expected a whole number from 1 to ${max}` });
  const to = z.enum(['dispatcher', 'recorder']).default('dispatcher');
  return z.discriminatedUnion('kind', [
    z.strictObject({ at: instant, kind: z.literal('ancient-tick'), job, scheduledTime: instant }),
    z.strictObject({ at: instant, kind: z.literal('future-tick'), job, scheduledTime: instant }),
    z.strictObject({
      at: instant,
      kind: z.literal('forged-completion'),
      job,
      run: instant,
      outcome: z.enum(['succeeded', 'failed']).default('succeeded'),
    }),
    z.strictObject({
      at: instant,
      kind: z.literal('deep-event'),
      depth: whole(HOSTILE_LIMITS.depth),
      to,
    }),
    z.strictObject({
      at: instant,
      kind: z.literal('huge-event'),
      bytes: whole(HOSTILE_LIMITS.bytes),
      to,
    }),
  ]);
}

/** The fault plan's YAML as zod checks it: instants, durations and probabilities in range. */
export const planSchema = z.strictObject({
  seed: z.number().int({ error: 'expected a whole number' }).default(1),
  outages: z.array(interval).default([]),
  lateTicks: z.strictObject({ probability, maxDelay: duration }).optional(),
  crashes: z
    .array(z.strictObject({ point: z.enum(['after-claim', 'after-delivery']), probability }))
    .default([]),
  throttling: z.strictObject({ probability }).optional(),
  targets: z
    .array(
      z.strictObject({
        job: z.string().min(1),
        fail: interval.optional(),
        runtime: duration.optional(),
      }),
    )
    .default([]),
  pauses: z
    .array(
      z
        .strictObject({
          job: z.string().min(1),
          from: instant,
          to: instant,
          reason: z.string().optional(),
          catchUp: z.boolean().optional(),
        })
        .refine((p) => p.from < p.to, { error: 'from must be before to' }),
    )
    .default([]),
  deploys: z.array(z.strictObject({ at: instant, config: z.string().min(1) })).default([]),
  operator: z.array(operatorSchema()).default([]),
  hostile: z.array(hostileSchema()).default([]),
});

/** The plan as the schema reads it. */
export type ParsedPlan = z.infer<typeof planSchema>;

/** Reports issues at positions of the plan (the plan checks use it). */
export type IssueAt = (
  at: readonly (string | number)[],
  message: string,
  code?: ConfigIssueCode,
) => ConfigIssue;
