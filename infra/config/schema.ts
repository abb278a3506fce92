/**
 * The zod schema of `jobs.yaml`.
 *
 * Every object is strict: a typo such as `timezon:` or `catchup: { windw: 1h }` is an error,
 * never a silently ignored key. Every message says what is allowed. The loader
 * (`load-jobs.ts`) validates the `defaults` block with `defaultsSchema`, merges it into each
 * job, and validates the result with `jobSchema`; the engine checks schedules and zones after
 * that.
 */
import { z } from 'zod';
import { excerpt } from '#text/message-text.ts';
import { DURATION_FORMS, DurationError, parseDurationSeconds } from './duration.ts';

/** Longest job id: ids become part of AWS resource names (a Scheduler schedule name is ≤ 64). */
export const MAX_JOB_ID_LENGTH = 64;
/** Longest description: EventBridge Scheduler schedule descriptions are ≤ 512 characters. */
export const MAX_DESCRIPTION_LENGTH = 512;
/**
 * Largest payload, as serialized JSON. The run envelope wraps it, and SQS, SNS, EventBridge,
 * Step Functions and asynchronous Lambda invocations all cap a message at 256 KiB.
 */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** Bounds of `retry.maxAttempts`. */
export const MAX_ATTEMPTS_RANGE = { min: 1, max: 10 } as const;
/** Bounds of `catchup.maxRuns`. */
export const MAX_RUNS_RANGE = { min: 1, max: 1000 } as const;
/** Bounds of `retention.days`. */
export const RETENTION_DAYS_RANGE = { min: 1, max: 3650 } as const;
/** Shortest alarm grace: the sweep looks once a minute, so a shorter grace would only flap. */
export const MIN_GRACE_SECONDS = 60;

export const TARGET_TYPES = ['lambda', 'sqs', 'sns', 'eventbridge', 'stepfunctions'] as const;
export const GAP_POLICIES = ['shift', 'transition', 'skip'] as const;
export const OVERLAP_POLICIES = ['first', 'last', 'both'] as const;
export const CATCHUP_POLICIES = ['all', 'latest', 'none'] as const;
export const CONCURRENCY_POLICIES = ['allow', 'forbid'] as const;

/** `^[a-z0-9_-]+$`: no `:` (manual-run keys rely on it), no capitals, no dots. */
export const JOB_ID_PATTERN = /^[a-z0-9_-]+$/;

const PARTITION = '(aws|aws-cn|aws-us-gov)';
const REGION = '[a-z]{2}(?:-[a-z]+)+-\\d+';
const ACCOUNT = '\\d{12}';
const ARN_SHAPE = new RegExp(`^arn:${PARTITION}:([a-z0-9-]+):${REGION}:${ACCOUNT}:.+$`);

interface ArnRule {
  readonly service: string;
  readonly resource: RegExp;
  readonly example: string;
  readonly noun: string;
}

/** What each target type accepts after `arn:PARTITION:SERVICE:REGION:ACCOUNT:`. */
const ARN_RULES: Record<(typeof TARGET_TYPES)[number], ArnRule> = {
  lambda: {
    service: 'lambda',
    // A function, optionally qualified by a version or an alias.
    resource: /^function:[A-Za-z0-9_-]{1,64}(?::(?:\$LATEST|[A-Za-z0-9_-]{1,128}))?$/,
    example: 'arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]',
    noun: 'a Lambda function',
  },
  sqs: {
    service: 'sqs',
    resource: /^[A-Za-z0-9_-]{1,75}(?:\.fifo)?$|^[A-Za-z0-9_-]{1,80}$/,
    example: 'arn:aws:sqs:REGION:ACCOUNT:QUEUE',
    noun: 'an SQS queue',
  },
  sns: {
    service: 'sns',
    resource: /^[A-Za-z0-9_-]{1,251}(?:\.fifo)?$|^[A-Za-z0-9_-]{1,256}$/,
    example: 'arn:aws:sns:REGION:ACCOUNT:TOPIC',
    noun: 'an SNS topic',
  },
  eventbridge: {
    service: 'events',
    resource: /^event-bus\/[A-Za-z0-9._/-]{1,256}$/,
    example: 'arn:aws:events:REGION:ACCOUNT:event-bus/NAME',
    noun: 'an EventBridge event bus',
  },
  stepfunctions: {
    service: 'states',
    // A state machine, optionally qualified by a version number or an alias.
    resource: /^stateMachine:[A-Za-z0-9_-]{1,80}(?::[A-Za-z0-9_-]{1,80})?$/,
    example: 'arn:aws:states:REGION:ACCOUNT:stateMachine:NAME',
    noun: 'a Step Functions state machine',
  },
};

/**
 * Checks that `arn` is well formed and names the kind of resource a `type` target delivers to.
 *
 * Returns the reason it does not, or `undefined` when it does.
 *
 * @example
 * arnProblem('sqs', 'arn:aws:sqs:eu-west-1:123456789012:billing.fifo') //=> undefined
 * arnProblem('sqs', 'arn:aws:sns:eu-west-1:123456789012:alerts')
 * //=> "a 'sqs' target needs an SQS queue ARN (arn:aws:sqs:REGION:ACCOUNT:QUEUE), got an 'sns' ARN"
 */
export function arnProblem(type: (typeof TARGET_TYPES)[number], arn: string): string | undefined {
  const rule = ARN_RULES[type];
  const shape = ARN_SHAPE.exec(arn);
  if (!shape) {
    return `expected an ARN like ${rule.example} (partition aws, aws-cn or aws-us-gov, a region, a 12-digit account), got '${excerpt(arn)}'`;
  }
  const service = shape[2] ?? '';
  if (service !== rule.service) {
    return `a '${type}' target needs ${rule.noun} ARN (${rule.example}), got an '${service}' ARN`;
  }
  const resource = arn.split(':').slice(5).join(':');
  if (!rule.resource.test(resource)) {
    return `'${excerpt(arn)}' is not ${rule.noun} ARN (expected ${rule.example})`;
  }
  return undefined;
}

/** Renders a YAML value for a message: `'text'`, `300`, `a mapping`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${excerpt(value)}'`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

/** A zod error map: "missing …" when absent, "expected …, got …" otherwise. */
function expected(what: string) {
  return (issue: { input?: unknown; code?: string }) =>
    issue.input === undefined
      ? `missing (expected ${what})`
      : `expected ${what}, got ${describeValue(issue.input)}`;
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (issue) =>
      `must be one of ${values.join(', ')}${issue.input === undefined ? '' : `, got ${describeValue(issue.input)}`}`,
  });
}

/** The message of an unknown-key issue; the loader splits it per key and adds the key. */
export const UNKNOWN_KEYS_PREFIX = 'allowed: ';

function strict<T extends z.ZodRawShape>(shape: T, what: string) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${UNKNOWN_KEYS_PREFIX}${allowed}`
        : expected(what)(issue),
  });
}

/** A duration string, transformed to whole seconds. */
function duration(minSeconds: number) {
  return z
    .string({ error: expected(`a duration like ${DURATION_FORMS}`) })
    .transform((text, ctx) => {
      try {
        const seconds = parseDurationSeconds(text);
        if (seconds < minSeconds) {
          ctx.addIssue({
            code: 'custom',
            message: `must be at least ${minSeconds}s, got '${excerpt(text)}'`,
            input: text,
          });
          return z.NEVER;
        }
        return seconds;
      } catch (error) {
        if (!(error instanceof DurationError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message, input: text });
        return z.NEVER;
      }
    });
}

function integer(range: { min: number; max: number }) {
  const what = `a whole number from ${range.min} to ${range.max}`;
  return z
    .number({ error: expected(what) })
    .int({ error: expected(what) })
    .min(range.min, { error: expected(what) })
    .max(range.max, { error: expected(what) });
}

/** Where a value is not plain JSON (NaN, Infinity, YAML-only types), or undefined. */
function nonJsonPath(
  value: unknown,
  path: (string | number)[] = [],
): (string | number)[] | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nonJsonPath(item, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) {
      const found = nonJsonPath(item, [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  return path;
}

const payload = z.unknown().superRefine((value, ctx) => {
  const bad = nonJsonPath(value);
  if (bad) {
    ctx.addIssue({
      code: 'custom',
      path: bad,
      message: 'must be plain JSON (strings, finite numbers, booleans, null, lists, mappings)',
    });
    return;
  }
  const bytes = Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
  if (bytes > MAX_PAYLOAD_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `must serialize to at most ${MAX_PAYLOAD_BYTES} bytes of JSON, got ${bytes}`,
    });
  }
});

const targetType = oneOf(TARGET_TYPES);
const targetArn = z.string({ error: expected('an ARN') });

function checkArn(
  value: { type?: (typeof TARGET_TYPES)[number] | undefined; arn?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (value.type === undefined || value.arn === undefined) return;
  const problem = arnProblem(value.type, value.arn);
  if (problem) ctx.addIssue({ code: 'custom', path: ['arn'], message: problem, input: value.arn });
}

const target = strict(
  { type: targetType, arn: targetArn },
  'a mapping with type and arn',
).superRefine(checkArn);
/** In `defaults:`, a target may name only its type or only its ARN. */
const partialTarget = strict(
  { type: targetType.optional(), arn: targetArn.optional() },
  'a mapping with type and/or arn',
).superRefine(checkArn);

const dst = strict(
  { gap: oneOf(GAP_POLICIES).optional(), overlap: oneOf(OVERLAP_POLICIES).optional() },
  'a mapping with gap and/or overlap',
);

const catchup = strict(
  {
    policy: oneOf(CATCHUP_POLICIES).optional(),
    window: duration(60).optional(),
    maxRuns: integer(MAX_RUNS_RANGE).optional(),
  },
  'a mapping with policy, window and/or maxRuns',
);

const retry = strict(
  { maxAttempts: integer(MAX_ATTEMPTS_RANGE).optional() },
  'a mapping with maxAttempts',
);

const alarm = strict(
  {
    grace: duration(MIN_GRACE_SECONDS).optional(),
    dedicated: z.boolean({ error: expected('true or false') }).optional(),
  },
  'a mapping with grace and/or dedicated',
);

const description = z
  .string({ error: expected('a text') })
  .min(1, { error: 'must not be empty' })
  .max(MAX_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
const schedule = z.string({ error: expected("a five-field cron expression like '30 2 * * *'") });
const timezone = z.string({ error: expected("an IANA zone name like 'Europe/Berlin'") });

/** The fields after `target` that are optional both in a job and in `defaults:`. */
const optionalFields = {
  payload: payload.optional(),
  catchup: catchup.optional(),
  retry: retry.optional(),
  concurrency: oneOf(CONCURRENCY_POLICIES).optional(),
  maxRuntime: duration(1).optional(),
  enabled: z.boolean({ error: expected('true or false') }).optional(),
  alarm: alarm.optional(),
};

/** The `defaults:` block: any job field except `id`, every one optional. */
export const defaultsSchema = strict(
  {
    description: description.optional(),
    schedule: schedule.optional(),
    timezone: timezone.optional(),
    dst: dst.optional(),
    target: partialTarget.optional(),
    ...optionalFields,
  },
  'a mapping of job fields',
);

/**
 * One job after the defaults were merged in.
 *
 * Nested fields are optional here because the loader fills in the built-in defaults
 * (architecture §2) before it applies the file's own.
 */
export const jobSchema = strict(
  {
    id: z
      .string({ error: expected('an id made of a-z, 0-9, - and _') })
      .regex(JOB_ID_PATTERN, {
        error: (issue) => `must contain only a-z, 0-9, - and _, got ${describeValue(issue.input)}`,
      })
      .max(MAX_JOB_ID_LENGTH, {
        error: `must be at most ${MAX_JOB_ID_LENGTH} characters (it becomes part of AWS resource names)`,
      }),
    description,
    schedule,
    timezone,
    dst: dst.optional(),
    target,
    ...optionalFields,
  },
  'a mapping of job fields',
);

/** How many enabled jobs may have `alarm.dedicated: true` (see `loadJobsFile`). */
export const MAX_DEDICATED_ALARM_JOBS = 100;

/** `create` (one async invoke config per lambda target function) or `existing` (none). */
export const LAMBDA_INVOKE_CONFIG_MODES = ['create', 'existing'] as const;

const ACCOUNT_ID = /^\d{12}$/;
const REGION_NAME = new RegExp(`^${REGION}$`);

/** An ARN of the given target type's kind, e.g. an SNS topic for `alarms.topicArn`. */
function arnOf(type: (typeof TARGET_TYPES)[number]) {
  return z.string({ error: expected('an ARN') }).superRefine((arn, ctx) => {
    const problem = arnProblem(type, arn);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: arn });
  });
}

/** The whole file. `jobs` entries are only required to be mappings here; `jobSchema` follows. */
export const fileSchema = strict(
  {
    defaults: z.unknown().optional(),
    alarms: strict(
      {
        email: z
          .array(z.email({ error: expected('an e-mail address') }), {
            error: expected('a list of e-mail addresses'),
          })
          .optional(),
        topicArn: arnOf('sns').optional(),
      },
      'a mapping with email and/or topicArn',
    ).optional(),
    retention: strict(
      { days: integer(RETENTION_DAYS_RANGE).optional() },
      'a mapping with days',
    ).optional(),
    completion: strict(
      {
        lambdaInvokeConfig: oneOf(LAMBDA_INVOKE_CONFIG_MODES).optional(),
        existingInvokeConfigs: z
          .array(arnOf('lambda'), { error: expected('a list of Lambda function ARNs') })
          .optional(),
      },
      'a mapping with lambdaInvokeConfig and/or existingInvokeConfigs',
    ).optional(),
    environment: strict(
      {
        account: z
          .string({ error: expected("a 12-digit account id in quotes, like '123456789012'") })
          .regex(ACCOUNT_ID, { error: "must be 12 digits in quotes, like '123456789012'" }),
        region: z
          .string({ error: expected('a region name like eu-west-1') })
          .regex(REGION_NAME, { error: 'must be a region name like eu-west-1' }),
      },
      'a mapping with account and region',
    ).optional(),
    jobs: z.array(z.unknown(), { error: expected('a list of jobs') }),
  },
  'a mapping with jobs (and optionally defaults, alarms, retention, completion, environment)',
);

export type RawJob = z.output<typeof jobSchema>;
export type RawDefaults = z.output<typeof defaultsSchema>;
