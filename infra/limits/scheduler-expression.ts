/**
 * EventBridge Scheduler's schedule expression syntax, checked before a deploy instead of by
 * `CreateSchedule` (EventBridge Scheduler User Guide, "Schedule types on EventBridge
 * Scheduler": cron-based schedules).
 *
 * `cron(minutes hours day-of-month month day-of-week year)`: six fields; day of week 1-7 from
 * Sunday or SUN-SAT; steps from an explicit start (`0/15`, not `*\/15`); `L`, `W` only in day of month, `L`, `#` only in day of week; and exactly one
 * of day of month and day of week must be `?` ("You can't specify the Day-of-month and
 * Day-of-week fields in the same cron expression").
 */

interface CronFieldRule {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** Matches the field's special items (`?`, `L`, `LW`, `15W`, `5L`, `6#3`). */
  readonly special?: RegExp;
}

const MONTH_NAMES = [
  'JAN',
  'FEB',
  'MAR',
  'APR',
  'MAY',
  'JUN',
  'JUL',
  'AUG',
  'SEP',
  'OCT',
  'NOV',
  'DEC',
];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly CronFieldRule[] = [
  { name: 'minutes', min: 0, max: 59 },
  { name: 'hours', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, special: /^(\?|L|LW|([1-9]|[12]\d|3[01])W)$/ },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day-of-week', min: 1, max: 7, names: DAY_NAMES, special: /^(\?|L|[1-7]L|[1-7]#[1-5])$/ },
  { name: 'year', min: 1970, max: 2199 },
];

/**
 * Why a schedule expression would be refused, or `undefined` when it is valid. Accepts
 * `cron(...)`, `rate(n unit)` and `at(yyyy-mm-ddThh:mm:ss)`.
 *
 * @example
 * schedulerExpressionProblem('cron(30 0,1 * * ? *)') //=> undefined
 * schedulerExpressionProblem('cron(30 0,1 * * * *)')
 * //=> "exactly one of day-of-month and day-of-week must be '?', got '*' and '*'"
 */
export function schedulerExpressionProblem(expression: string): string | undefined {
  if (/^rate\(\d+ (minute|minutes|hour|hours|day|days)\)$/.test(expression)) return undefined;
  if (/^at\(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\)$/.test(expression)) return undefined;
  const match = /^cron\((.*)\)$/.exec(expression);
  if (!match) return 'expected cron(...), rate(...) or at(...)';
  const fields = (match[1] ?? '').split(' ');
  if (fields.length !== 6) {
    return `expected 6 fields (minutes hours day-of-month month day-of-week year), got ${fields.length}`;
  }
  for (const [index, rule] of FIELDS.entries()) {
    const problem = fieldProblem(fields[index] ?? '', rule);
    if (problem) return problem;
  }
  const [dayOfMonth, dayOfWeek] = [fields[2], fields[4]];
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    return `exactly one of day-of-month and day-of-week must be '?', got '${dayOfMonth}' and '${dayOfWeek}'`;
  }
  return undefined;
}

function fieldProblem(text: string, rule: CronFieldRule): string | undefined {
  if (text === '') return `field ${rule.name} is empty`;
  const items = text.split(',');
  for (const item of items) {
    if (rule.special?.test(item)) {
      if (items.length > 1) return `'${item}' in field ${rule.name} cannot be part of a list`;
      continue;
    }
    if (!itemValid(item, rule)) {
      return `invalid item '${item}' in field ${rule.name} (allowed ${rule.min}-${rule.max}${rule.names ? ` or ${rule.names[0]}-${rule.names.at(-1)}` : ''}, *, ranges, /steps, lists${rule.special ? ` and ${rule.special.source}` : ''})`;
    }
  }
  return undefined;
}

function itemValid(item: string, rule: CronFieldRule): boolean {
  const [range, step, ...rest] = item.split('/');
  if (rest.length > 0 || range === undefined) return false;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1)) return false;
  // Steps start from a value (`0/15`), as the Scheduler documentation writes them.
  if (range === '*') return step === undefined;
  const bounds = range.split('-');
  if (bounds.length > 2) return false;
  const values = bounds.map((bound) => fieldValue(bound, rule));
  if (values.some((value) => value === undefined)) return false;
  return bounds.length === 1 || (values[0] ?? 0) <= (values[1] ?? 0);
}

function fieldValue(text: string, rule: CronFieldRule): number | undefined {
  const named = rule.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + rule.min;
  if (!/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= rule.min && value <= rule.max ? value : undefined;
}
