/**
 * Hints for cron expressions written for another scheduler: a seconds field first (Spring,
 * croner, node-cron), AWS EventBridge's `cron(min hour dom month dow year)`, Quartz's
 * `sec min hour dom month dow [year]`, and AWS/Quartz weekday numbers (1=SUN) in a five-field
 * expression.
 *
 * The engine's own errors stay as they are; the loader, `zonecron next` and `zonecron explain`
 * append the hint to them. It lives beside the loader because the loader must not import from
 * the CLI.
 */
import { isScheduleError, parseCron } from '../../functions/schedule/index.ts';

/** What an expression from another scheduler looks like, and how to write it for zonecron. */
export interface CronHint {
  /**
   * `seconds`: six fields, seconds first, Unix weekday numbers; `aws`: EventBridge, year last,
   * weekdays 1=SUN-7=SAT; `quartz`: seconds first, `?`, weekdays 1=SUN-7=SAT;
   * `weekday-numbers`: five fields with `?` and numbered weekdays, which zonecron counts from
   * 0=SUN; `rate` and `at`: EventBridge Scheduler's `rate(…)` and one-time `at(…)`, not cron.
   */
  readonly style: 'seconds' | 'aws' | 'quartz' | 'weekday-numbers' | 'rate' | 'at';
  /** The five-field expression that means the same, when there is exactly one. */
  readonly suggestion?: string;
  /** One lowercase sentence without a trailing period, for after an error message. */
  readonly text: string;
}

const LOOKS_LIKE = {
  seconds: 'it looks like an expression with seconds first',
  aws: 'it looks like an AWS EventBridge expression (year last, weekdays 1=SUN-7=SAT)',
  quartz: 'it looks like a Quartz expression (seconds first, weekdays 1=SUN-7=SAT)',
  rate: "rate(…) is AWS EventBridge Scheduler's rate expression, not cron",
  at: "at(…) is AWS EventBridge Scheduler's one-time schedule, not cron",
} as const;

/**
 * A hint for an expression that looks written for AWS EventBridge, Quartz or a scheduler with
 * seconds; undefined for anything else.
 *
 * People paste expressions from the AWS console and from Java schedulers; the engine can only
 * say that five fields were expected. This says which dialect it looks like and, where there
 * is exactly one equivalent, the five fields to write: seconds dropped when `0`, the year
 * dropped when `*`, `?` read as `*`, AWS/Quartz weekday numbers 1-7 (SUN-SAT) turned into
 * 0-6. A valid five-field expression gets a hint only when `?` suggests AWS or Quartz habits
 * and it numbers its weekdays, because zonecron reads those numbers differently.
 *
 * @example
 * cronHint('cron(30 2 * * ? *)')?.suggestion
 * //=> '30 2 * * *'
 * cronHint('0 0 12 ? * 2-6 *')?.suggestion
 * //=> '0 12 * * 1-5'
 * cronHint('0 15 10 * * *')?.text
 * //=> 'it looks like an expression with seconds first: write it as `15 10 * * *`'
 * cronHint('61 2 * * *')
 * //=> undefined
 */
export function cronHint(expression: string): CronHint | undefined {
  const scheduler = schedulerExpressionHint(expression);
  if (scheduler !== undefined) return scheduler;
  const wrapped = /^\s*cron\((.*)\)\s*$/is.exec(expression);
  const fields = (wrapped?.[1] ?? expression).trim().split(/\s+/);
  if (wrapped !== null && fields.length === 5) {
    return suggest('aws', fields.join(' '), 'drop cron(…) and write');
  }
  if (wrapped !== null || (fields.length === 6 && looksAws(fields))) return fromAws(fields);
  if (fields.length === 6 || fields.length === 7) return fromSecondsFirst(fields);
  if (fields.length === 5) return weekdayNumbers(fields);
  return undefined;
}

/**
 * `message`, followed by the hint for `expression` when there is one.
 *
 * @example
 * withCronHint("expected 5 fields but got 6 …", '30 2 * * ? *')
 * //=> 'expected 5 fields but got 6 …; it looks like an AWS EventBridge expression (year last, weekdays 1=SUN-7=SAT): write it as `30 2 * * *`'
 */
export function withCronHint(message: string, expression: string): string {
  const hint = cronHint(expression);
  return hint === undefined ? message : `${message}; ${hint.text}`;
}

/** Six fields with `?` where AWS puts its day fields, or a year last. */
function looksAws(fields: readonly string[]): boolean {
  if (fields[2] === '?' || fields[4] === '?') return true;
  const seconds = fields[3] === '?' || fields[5] === '?';
  return !seconds && /^\d{4}([-,/]\d{1,4})*$/.test(fields[5] ?? '');
}

/** `min hour dom month dow year`. */
function fromAws(fields: readonly string[]): CronHint {
  if (fields.length !== 6) {
    return { style: 'aws', text: `${LOOKS_LIKE.aws}, which has 6 fields, not ${fields.length}` };
  }
  const [minute, hour, dom, month, dow, year] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const fiveFields = convertWeekdays('aws', [minute, hour, anyDay(dom), month], dow);
  if (year === '*' || year === '?') return fiveFields;
  if (fiveFields.suggestion === undefined) {
    return unconvertible('aws', `year '${year}' cannot be kept: zonecron has no year field`);
  }
  return unconvertible(
    'aws',
    `AWS cron has 6 fields and zonecron's 5, with no year: year '${year}' cannot be kept; write \`${fiveFields.suggestion}\`, which runs every year (set enabled: false once ${year} is over)`,
  );
}

const RATE = /^\s*rate\(\s*(\d+)\s+(minutes?|hours?|days?)\s*\)\s*$/i;
const AT = /^\s*at\((.*)\)\s*$/is;

/**
 * EventBridge Scheduler's other two forms, which are not cron: `rate(n unit)`, written in cron
 * as a step where one divides evenly, and the one-time `at(…)`, which zonecron has no form for.
 *
 * @example
 * schedulerExpressionHint('rate(15 minutes)')?.suggestion //=> '*\/15 * * * *'
 */
function schedulerExpressionHint(expression: string): CronHint | undefined {
  const rate = RATE.exec(expression);
  if (rate !== null) return rateHint(Number(rate[1]), (rate[2] ?? '').toLowerCase());
  if (/^\s*rate\(/i.test(expression)) {
    return {
      style: 'rate',
      text: `${LOOKS_LIKE.rate}: write a cron expression instead, such as \`*/15 * * * *\` for rate(15 minutes)`,
    };
  }
  const at = AT.exec(expression);
  if (at === null) return undefined;
  const when = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec((at[1] ?? '').trim());
  const yearly = when
    ? `; \`${Number(when[5])} ${Number(when[4])} ${Number(when[3])} ${Number(when[2])} *\` runs at that local time every year (set enabled: false after it ran)`
    : '';
  return {
    style: 'at',
    text: `${LOOKS_LIKE.at}: zonecron schedules repeat, so write a five-field cron expression${yearly}, or run a job once by hand with zonecron run <jobId>`,
  };
}

function rateHint(n: number, unit: string): CronHint {
  const every = (step: number, within: number, form: (s: string) => string) => {
    if (step < 1 || within % step !== 0) {
      return unconvertible(
        'rate',
        `every ${n} ${unit} has no cron form: cron steps restart each ${unit.startsWith('minute') ? 'hour' : 'day'}; pick a step that divides ${within}`,
      );
    }
    return suggest('rate', form(step === 1 ? '*' : `*/${step}`));
  };
  if (unit.startsWith('minute')) return every(n, 60, (m) => `${m} * * * *`);
  if (unit.startsWith('hour')) return every(n, 24, (h) => `0 ${h} * * *`);
  if (n === 1) return suggest('rate', '0 0 * * *');
  return unconvertible(
    'rate',
    `every ${n} days has no cron form (day-of-month steps restart each month): \`0 0 */${n} * *\` is the nearest`,
  );
}

/** `sec min hour dom month dow [year]`: Quartz when it has `?` or a year, else Unix-style. */
function fromSecondsFirst(fields: readonly string[]): CronHint {
  const [second, minute, hour, dom, month, dow, year] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  const quartz = year !== undefined || dom === '?' || dow === '?';
  const style = quartz ? 'quartz' : 'seconds';
  if (second !== '0') {
    return unconvertible(
      style,
      `second '${second}' cannot be kept: zonecron runs at whole minutes`,
    );
  }
  if (year !== undefined && year !== '*' && year !== '?') {
    return unconvertible(style, `year '${year}' cannot be kept: zonecron has no year field`);
  }
  const days = [minute, hour, anyDay(dom), month];
  if (!quartz) return suggest(style, [...days, dow].join(' '));
  if (year === undefined && /\d/.test(dow)) {
    // Six fields with `?` are Quartz (1=SUN) or Spring (0=SUN): the numbers are ambiguous.
    return unconvertible(
      style,
      `weekday numbers mean other days in Quartz (1=SUN) than in Spring (0=SUN): write weekdays as names (SUN-SAT)`,
    );
  }
  return convertWeekdays(style, days, dow);
}

/** Five fields with `?` and numbered weekdays: zonecron counts 0=SUN, AWS and Quartz 1=SUN. */
function weekdayNumbers(fields: readonly string[]): CronHint | undefined {
  const [, , dom, , dow = ''] = fields;
  if ((dom !== '?' && dow !== '?') || !/\d/.test(dow.replace(/#\d+/g, ''))) return undefined;
  return {
    style: 'weekday-numbers',
    text: `day-of-week '${dow}' counts weekdays from 0=SUN here, not from 1=SUN as in AWS and Quartz; names (SUN-SAT) avoid the doubt`,
  };
}

function anyDay(field: string): string {
  return field === '?' ? '*' : field;
}

function convertWeekdays(style: CronHint['style'], days: readonly string[], dow: string): CronHint {
  const converted = dow.split(',').map(fromSundayOne);
  if (converted.some((item) => item === undefined)) {
    return unconvertible(style, `day-of-week '${dow}' has no five-field form`);
  }
  return suggest(style, [...days, converted.join(',')].join(' '));
}

/**
 * One day-of-week item from 1=SUN..7=SAT to zonecron's 0=SUN..6=SAT; names stay. `a/n` gets
 * an end of 6, because zonecron's open steps run to 7 (Sunday again).
 */
function fromSundayOne(item: string): string | undefined {
  if (item === '*' || item === '?') return '*';
  if (/^L$/i.test(item)) return 'SAT';
  const match = /^([^/#L]+?)(L|#[1-5])?(?:\/(\d+))?$/i.exec(item);
  if (match === null) return undefined;
  const [, base = '', extension = '', step] = match;
  const bounds = base === '*' ? ['*'] : base.split('-').map(shiftDay);
  if (bounds.some((b) => b === undefined) || bounds.length > 2) return undefined;
  const open = step !== undefined && bounds.length === 1 && base !== '*';
  return `${bounds.join('-')}${open ? '-6' : ''}${extension}${step === undefined ? '' : `/${step}`}`;
}

function shiftDay(value: string): string | undefined {
  if (/^[a-z]{3}$/i.test(value)) return value;
  if (!/^[1-7]$/.test(value)) return undefined;
  return String(Number(value) - 1);
}

function suggest(style: CronHint['style'], candidate: string, how = 'write it as'): CronHint {
  if (!isValid(candidate)) {
    return unconvertible(style, `its five-field form \`${candidate}\` is not valid in zonecron`);
  }
  return { style, suggestion: candidate, text: `${lookLike(style)}: ${how} \`${candidate}\`` };
}

function unconvertible(style: CronHint['style'], reason: string): CronHint {
  return { style, text: `${lookLike(style)}, but ${reason}` };
}

function lookLike(style: CronHint['style']): string {
  return style === 'weekday-numbers' ? '' : LOOKS_LIKE[style];
}

/** Whether the engine accepts `candidate`; any other error than a schedule error is a bug. */
function isValid(candidate: string): boolean {
  try {
    parseCron(candidate);
    return true;
  } catch (error) {
    if (!isScheduleError(error)) throw error;
    return false;
  }
}
