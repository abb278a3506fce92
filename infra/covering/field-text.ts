/**
 * Writes a set of cron field values as compact text: `*`, `*\/15`, `5/15`, `1-5`, `0,30`.
 *
 * Used twice, for the engine's five-field syntax and for EventBridge Scheduler's `cron(...)`,
 * which differ in two ways: AWS wants an explicit start for steps (`0/15`, not `*\/15`) and
 * counts days of the week 1-7 from Sunday, so days of the week are written as names there.
 */

/** The range of a cron field, inclusive. */
export interface FieldRange {
  readonly min: number;
  readonly max: number;
}

export const MINUTE: FieldRange = { min: 0, max: 59 };
export const HOUR: FieldRange = { min: 0, max: 23 };
export const DAY_OF_MONTH: FieldRange = { min: 1, max: 31 };
export const MONTH: FieldRange = { min: 1, max: 12 };
/** Day of week as the engine and JavaScript count it: 0 = Sunday … 6 = Saturday. */
export const DAY_OF_WEEK: FieldRange = { min: 0, max: 6 };

const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

/** How to write a field: the engine's dialect or EventBridge Scheduler's. */
export interface FieldStyle {
  /** Steps starting at the field's minimum as `*\/n` (engine) or `min/n` (AWS). */
  readonly stepFromStar: boolean;
  /** Renders one value (a number, or a day name for AWS days of the week). */
  readonly value: (n: number) => string;
  /** Whether `a/n` steps may be used for this field. */
  readonly steps: boolean;
}

export const ENGINE_STYLE: FieldStyle = { stepFromStar: true, value: String, steps: true };
export const AWS_STYLE: FieldStyle = { stepFromStar: false, value: String, steps: true };
/**
 * Engine days of the week as numbers without steps: the engine reads `1/2` up to 7 (Sunday
 * again), so a step would add a day the set does not have.
 */
export const ENGINE_DAY_OF_WEEK_STYLE: FieldStyle = {
  stepFromStar: false,
  value: String,
  steps: false,
};
/** AWS days of the week by name (`SUN`, `MON-FRI`): no 0-vs-1 confusion, no steps. */
export const AWS_DAY_OF_WEEK_STYLE: FieldStyle = {
  stepFromStar: false,
  value: (n) => DAY_NAMES[n] ?? String(n),
  steps: false,
};

/** True when `values` holds every value of `range`. */
export function isFull(values: ReadonlySet<number>, range: FieldRange): boolean {
  for (let n = range.min; n <= range.max; n += 1) if (!values.has(n)) return false;
  return true;
}

/**
 * Writes exactly the values of a non-empty set, as briefly as the dialect allows.
 *
 * A full set is `*`. A set that is exactly every n-th value from a up to the field's maximum is
 * a step (`*\/15`, `0/15`, `5/15`); otherwise consecutive runs of three or more become ranges
 * (`1-5`) and the rest a list.
 *
 * @example
 * fieldText(new Set([0, 15, 30, 45]), MINUTE, ENGINE_STYLE) //=> '*\/15'
 * fieldText(new Set([0, 15, 30, 45]), MINUTE, AWS_STYLE)    //=> '0/15'
 * fieldText(new Set([1, 2, 3, 4, 5]), DAY_OF_WEEK, AWS_DAY_OF_WEEK_STYLE) //=> 'MON-FRI'
 * fieldText(new Set([0, 1, 23]), HOUR, ENGINE_STYLE)        //=> '0,1,23'
 */
export function fieldText(
  values: ReadonlySet<number>,
  range: FieldRange,
  style: FieldStyle,
): string {
  const sorted = [...values].sort((a, b) => a - b);
  const first = sorted[0];
  if (first === undefined) throw new Error('internal: a covering field cannot be empty');
  if (isFull(values, range)) return '*';
  if (style.steps && sorted.length >= 3) {
    const step = (sorted[1] ?? first) - first;
    const isStep =
      step > 1 &&
      sorted.every((n, i) => n === first + i * step) &&
      (sorted.at(-1) ?? first) + step > range.max;
    if (isStep) {
      const start = first === range.min && style.stepFromStar ? '*' : style.value(first);
      return `${start}/${step}`;
    }
  }
  const items: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] ?? 0) === (sorted[j] ?? 0) + 1) j += 1;
    const low = sorted[i] ?? 0;
    const high = sorted[j] ?? 0;
    if (j - i >= 2) {
      items.push(`${style.value(low)}-${style.value(high)}`);
    } else {
      for (let k = i; k <= j; k += 1) items.push(style.value(sorted[k] ?? 0));
    }
    i = j + 1;
  }
  return items.join(',');
}
