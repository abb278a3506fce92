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
import { HOLIDAY_TYPES, WEEKDAY_NAMES } from '../../functions/calendar/calendar-definition.ts';
import { DURATION_FORMS, DurationError, parseDurationSeconds } from './duration.ts';
import { BOUND_FORMS, isBound, isLocalDate, isLocalDateTime } from './local-times.ts';

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
/** `onClosed:` of a job's calendar: skip, or an ISDA business-day convention. */
export const CLOSED_DAY_CONVENTIONS = [
  'skip',
  'following',
  'modified-following',
  'preceding',
  'modified-preceding',
] as const;
/** The most business days a month can have (31 days, 8 of them weekend days, at least 23). */
export const MAX_BUSINESS_DAY = 23;
/** `^[a-z0-9_-]+$`, like job ids. */
export const CALENDAR_NAME_PATTERN = /^[a-z0-9_-]+$/;
/** A `deadline:` wall time, `HH:mm` (24-hour). */
export const DEADLINE_WALL_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

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

/** A text that must be a real local date, date-time or bound; `what` names the form. */
function formatted(check: (text: string) => boolean, what: string) {
  return z.string({ error: expected(what) }).refine(check, {
    error: (issue) => `expected ${what}, got ${describeValue(issue.input)}`,
  });
}

const localDate = formatted(isLocalDate, "a date like '2026-12-24'");
const localDateTime = formatted(isLocalDateTime, "a local date-time like '2026-12-28T00:00'");
const bound = formatted(isBound, BOUND_FORMS);
const reason = z
  .string({ error: expected('a reason, a text') })
  .min(1, { error: 'must not be empty' })
  .max(MAX_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });

/** One `closed:` entry: a date, or a local-time range `[from, to)`, each with a reason. */
const closedEntry = strict(
  {
    date: localDate.optional(),
    from: localDateTime.optional(),
    to: localDateTime.optional(),
    reason,
  },
  "a mapping like { date: '2026-12-24', reason: … } or { from: …, to: …, reason: … }",
).superRefine((entry, ctx) => {
  const range = entry.from !== undefined || entry.to !== undefined;
  if (entry.date !== undefined && range) {
    ctx.addIssue({
      code: 'custom',
      path: ['date'],
      message: 'give either date, or from and to, not both',
    });
  } else if (entry.date === undefined && !range) {
    ctx.addIssue({ code: 'custom', message: 'needs a date, or from and to' });
  } else if (range && (entry.from === undefined || entry.to === undefined)) {
    const missing = entry.from === undefined ? 'from' : 'to';
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: `missing (a range needs from and to)`,
    });
  } else if (range && (entry.from ?? '') >= (entry.to ?? '')) {
    ctx.addIssue({
      code: 'custom',
      path: ['to'],
      message: `must be after from ('${entry.from}'), got '${entry.to}'`,
    });
  }
});

/** One calendar under `calendars:`. */
export const calendarSchema = strict(
  {
    timezone: z.string({ error: expected("an IANA zone name like 'Europe/Berlin'") }).optional(),
    holidays: z
      .string({ error: expected("a date-holidays code like 'DE-BE', 'US-NY' or 'GB-ENG'") })
      .optional(),
    holidayTypes: z
      .array(oneOf(HOLIDAY_TYPES), { error: expected(`a list of ${HOLIDAY_TYPES.join(', ')}`) })
      .min(1, { error: 'must name at least one type' })
      .optional(),
    weekends: z
      .array(oneOf(WEEKDAY_NAMES), { error: expected('a list of weekdays like [sat, sun]') })
      .optional(),
    closed: z
      .array(closedEntry, { error: expected('a list of closed dates and ranges') })
      .optional(),
  },
  'a mapping with timezone, holidays, holidayTypes, weekends and/or closed',
);

const businessDayError = (issue: { input?: unknown }) =>
  `expected first, last, or a whole number from 1 to ${MAX_BUSINESS_DAY} or -1 to -${MAX_BUSINESS_DAY} (-1 is the last), got ${describeValue(issue.input)}`;

const businessDay = z.union(
  [
    z.enum(['first', 'last'], { error: businessDayError }),
    z
      .number({ error: businessDayError })
      .int({ error: businessDayError })
      .refine((n) => n !== 0 && Math.abs(n) <= MAX_BUSINESS_DAY, { error: businessDayError }),
  ],
  { error: businessDayError },
);

const calendarName = z
  .string({ error: expected('the name of a calendar under calendars:') })
  .regex(CALENDAR_NAME_PATTERN, {
    error: (issue) => `must contain only a-z, 0-9, - and _, got ${describeValue(issue.input)}`,
  });

const calendarRule = strict(
  {
    name: calendarName,
    onClosed: oneOf(CLOSED_DAY_CONVENTIONS).optional(),
    businessDay: businessDay.optional(),
  },
  'a calendar name, or a mapping with name, onClosed and/or businessDay',
);

/**
 * A job's `calendar:`: a calendar's name, or a mapping with the name and the job's rule. Read
 * by the value's type rather than as a union, so a problem inside the mapping is reported
 * where it is, not as "neither a name nor a mapping".
 */
const calendarRef = z
  .unknown()
  .transform((value, ctx): string | z.output<typeof calendarRule> | undefined => {
    const parsed = (typeof value === 'string' ? calendarName : calendarRule).safeParse(value, {
      reportInput: true,
    });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues)
      ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  });

/** `deadline:`: a duration after the run, or a local wall time `HH:mm`. */
const deadline = z
  .string({ error: expected(`a duration like 2h or a wall time like '07:00'`) })
  .transform((text, ctx) => {
    if (/^\d{1,2}:\d{2}$/.test(text)) {
      if (DEADLINE_WALL_TIME.test(text)) return { wallTime: text };
      ctx.addIssue({
        code: 'custom',
        message: `expected a wall time from 00:00 to 23:59 (HH:mm), got '${excerpt(text)}'`,
        input: text,
      });
      return z.NEVER;
    }
    try {
      const afterSeconds = parseDurationSeconds(text);
      if (afterSeconds >= 60) return { afterSeconds };
      ctx.addIssue({
        code: 'custom',
        message: `must be at least 1m after the run, got '${excerpt(text)}'`,
        input: text,
      });
    } catch (error) {
      if (!(error instanceof DurationError)) throw error;
      ctx.addIssue({
        code: 'custom',
        message: `${error.message}, or a wall time like '07:00'`,
        input: text,
      });
    }
    return z.NEVER;
  });

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
  calendar: calendarRef.optional(),
  deadline: deadline.optional(),
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

/** The fields of one job; `jobSchema` and `atJobSchema` are made of them. */
const jobShape = {
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
  from: bound.optional(),
  until: bound.optional(),
  at: localDateTime.optional(),
};

/**
 * One job after the defaults were merged in.
 *
 * Nested fields are optional here because the loader fills in the built-in defaults
 * (architecture §2) before it applies the file's own.
 */
export const jobSchema = strict(jobShape, 'a mapping of job fields');

/**
 * A job with `at:` (one run at a local date-time) after the defaults were merged in: the same
 * fields, `schedule` left out (the loader derives it from `at`).
 */
export const atJobSchema = strict(
  { ...jobShape, schedule: schedule.optional(), at: localDateTime },
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
    calendars: z
      .record(z.string(), z.unknown(), { error: expected('a mapping of calendar names') })
      .optional(),
    jobs: z.array(z.unknown(), { error: expected('a list of jobs') }),
  },
  'a mapping with jobs (and optionally defaults, calendars, alarms, retention, completion, environment)',
);

export type RawJob = z.output<typeof jobSchema> | z.output<typeof atJobSchema>;
export type RawCalendar = z.output<typeof calendarSchema>;
export type RawDefaults = z.output<typeof defaultsSchema>;
