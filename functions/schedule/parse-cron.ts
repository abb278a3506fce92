import { monthDayMask, possibleMonthLengths } from './day-match.ts';
import { type CronField, CronSyntaxError, InvalidArgumentError } from './errors.ts';
import { spreadHash } from './spread-hash.ts';
import type { ParsedCron } from './types.ts';

interface FieldRules {
  readonly field: Exclude<CronField, 'expression'>;
  readonly index: number;
  readonly min: number;
  readonly max: number;
  /** Range `H` (without bounds) chooses from. */
  readonly spreadMin: number;
  readonly spreadMax: number;
  readonly names?: Readonly<Record<string, number>>;
  readonly allowed: string;
}

const MONTH_NAMES: Record<string, number> = {
  JAN: 1,
  FEB: 2,
  MAR: 3,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AUG: 8,
  SEP: 9,
  OCT: 10,
  NOV: 11,
  DEC: 12,
};
const WEEKDAY_NAMES: Record<string, number> = {
  SUN: 0,
  MON: 1,
  TUE: 2,
  WED: 3,
  THU: 4,
  FRI: 5,
  SAT: 6,
};

const FIELDS: readonly FieldRules[] = [
  { field: 'minute', index: 0, min: 0, max: 59, spreadMin: 0, spreadMax: 59, allowed: '0-59' },
  { field: 'hour', index: 1, min: 0, max: 23, spreadMin: 0, spreadMax: 23, allowed: '0-23' },
  {
    field: 'day-of-month',
    index: 2,
    min: 1,
    max: 31,
    spreadMin: 1,
    spreadMax: 28,
    allowed: '1-31',
  },
  {
    field: 'month',
    index: 3,
    min: 1,
    max: 12,
    spreadMin: 1,
    spreadMax: 12,
    names: MONTH_NAMES,
    allowed: '1-12 or jan-dec',
  },
  {
    field: 'day-of-week',
    index: 4,
    min: 0,
    max: 7,
    spreadMin: 0,
    spreadMax: 6,
    names: WEEKDAY_NAMES,
    allowed: '0-7 or sun-sat',
  },
];

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MACRO_LIST = '@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly';
const FIELD_LIST = 'minute hour day-of-month month day-of-week';

interface Token {
  readonly text: string;
  readonly position: number;
}

/** Collects the values and extensions of one field while its items are parsed. */
interface FieldAccumulator {
  /** values[v] === 1 when v is in the field; a bitmap keeps long lists linear and cheap. */
  readonly values: Uint8Array;
  last: boolean;
  lastWeekday: boolean;
  readonly nearestWeekday: Set<number>;
  readonly lastWeekdays: Set<number>;
  readonly nth: Map<string, { weekday: number; nth: number }>;
}

/**
 * Parses and validates a five-field cron expression in zonecron's syntax (docs/semantics.md, "Expressions").
 *
 * Everything that can be wrong with an expression is found here, before anything is deployed:
 * wrong field count, out-of-range values, bad steps and ranges, unknown names, misplaced
 * `L`/`W`/`#`, malformed `H` or `H` without a job id, and days that can never occur. The
 * error is a `CronSyntaxError` whose `position` is the 0-based character offset of the
 * offending token. Parsing is linear in the length of the text.
 *
 * @example
 * parseCron('0 9 * * MON-FRI').daysOfWeek.values
 * //=> [1, 2, 3, 4, 5]
 * parseCron('H 3 * * *', 'nightly_backup').minutes
 * //=> [20] (the same on every machine, forever)
 * parseCron('0 0 30 2 *')
 * //=> throws CronSyntaxError: expression can never match: day-of-month '30' with month '2' at
 * //   position 4 selects no day (allowed a day that occurs in the selected months)
 */
export function parseCron(expression: string, jobId?: string): ParsedCron {
  checkArguments(expression, jobId);
  const tokens = tokenize(expression);
  const fieldTokens = expandMacro(expression, tokens);
  const fail = (
    data: Omit<ConstructorParameters<typeof CronSyntaxError>[1], 'expression'>,
    message: string,
  ): never => {
    throw new CronSyntaxError(message, { expression, ...data });
  };
  const context: ParseContext = { expression, jobId, fail };

  const accumulators = FIELDS.map((rules, index) => {
    const token = fieldTokens[index] as Token;
    return parseField(rules, token, context);
  });
  const parsed = assemble(expression, fieldTokens, accumulators);
  assertCanMatch(parsed, fieldTokens, context);
  return parsed;
}

/** Rejects an expression or job id that is no string (callers in plain JavaScript, YAML). */
function checkArguments(expression: unknown, jobId: unknown): void {
  if (typeof expression !== 'string') {
    throw new InvalidArgumentError(
      `invalid expression ${describe(expression)} (allowed a string)`,
      'expression',
      expression,
    );
  }
  if (jobId !== undefined && typeof jobId !== 'string') {
    throw new InvalidArgumentError(
      `invalid job id ${describe(jobId)} (allowed a string)`,
      'jobId',
      jobId,
    );
  }
}

/** The parsed expression from its five fields' accumulators: sorted values, the day rule. */
function assemble(
  expression: string,
  fieldTokens: readonly Token[],
  accumulators: readonly FieldAccumulator[],
): ParsedCron {
  const [minuteAcc, hourAcc, domAcc, monthAcc, dowAcc] = accumulators as [
    FieldAccumulator,
    FieldAccumulator,
    FieldAccumulator,
    FieldAccumulator,
    FieldAccumulator,
  ];
  const texts = fieldTokens.map((token) => token.text) as [string, string, string, string, string];
  const domRestricted = !/^[*?]/.test(texts[2]);
  const dowRestricted = !/^[*?]/.test(texts[4]);
  return {
    expression,
    fields: texts,
    minutes: members(minuteAcc.values),
    hours: members(hourAcc.values),
    daysOfMonth: {
      values: members(domAcc.values),
      last: domAcc.last,
      lastWeekday: domAcc.lastWeekday,
      nearestWeekday: sorted(domAcc.nearestWeekday),
    },
    months: members(monthAcc.values),
    daysOfWeek: {
      values: sorted(new Set(members(dowAcc.values).map((day) => day % 7))),
      last: sorted(dowAcc.lastWeekdays),
      nth: [...dowAcc.nth.values()].sort((a, b) => a.weekday - b.weekday || a.nth - b.nth),
    },
    dayRule: domRestricted && dowRestricted ? 'or' : 'and',
  };
}

interface ParseContext {
  readonly expression: string;
  readonly jobId: string | undefined;
  readonly fail: (
    data: Omit<ConstructorParameters<typeof CronSyntaxError>[1], 'expression'>,
    message: string,
  ) => never;
}

function describe(value: unknown): string {
  return typeof value === 'string'
    ? `'${value}'`
    : `of type ${value === null ? 'null' : typeof value}`;
}

function sorted(values: Iterable<number>): number[] {
  return [...values].sort((a, b) => a - b);
}

function members(bitmap: Uint8Array): number[] {
  const result: number[] = [];
  for (let value = 0; value < bitmap.length; value++) if (bitmap[value] === 1) result.push(value);
  return result;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let start = -1;
  for (let i = 0; i <= expression.length; i++) {
    const blank = i === expression.length || /\s/.test(expression.charAt(i));
    if (blank && start >= 0) {
      tokens.push({ text: expression.slice(start, i), position: start });
      start = -1;
    } else if (!blank && start < 0) {
      start = i;
    }
  }
  return tokens;
}

/** The five field tokens: the expression's own, or its macro's expansion. */
function expandMacro(expression: string, tokens: Token[]): Token[] {
  const first = tokens[0];
  if (first === undefined) {
    throw new CronSyntaxError(
      `empty expression (allowed 5 fields: ${FIELD_LIST}, or a macro such as @daily)`,
      {
        expression,
        field: 'expression',
        position: 0,
        token: '',
        allowed: `5 fields or ${MACRO_LIST}`,
      },
    );
  }
  if (first.text.startsWith('@')) return macroFields(expression, first, tokens[1]);
  if (tokens.length !== 5) rejectFieldCount(expression, tokens);
  return tokens;
}

/** The field tokens of macro `first`; `extra`, a token after it, is an error. */
function macroFields(expression: string, first: Token, extra: Token | undefined): Token[] {
  const name = first.text.toLowerCase();
  const expansion = MACROS[name];
  if (expansion === undefined) {
    const why =
      name === '@reboot'
        ? `'@reboot' has no meaning for a scheduler that never reboots`
        : `unknown macro '${first.text}'`;
    throw new CronSyntaxError(`${why} at position ${first.position} (allowed ${MACRO_LIST})`, {
      expression,
      field: 'expression',
      position: first.position,
      token: first.text,
      allowed: MACRO_LIST,
    });
  }
  if (extra !== undefined) {
    throw new CronSyntaxError(
      `unexpected '${extra.text}' after macro '${first.text}' at position ${extra.position} (allowed a macro alone)`,
      {
        expression,
        field: 'expression',
        position: extra.position,
        token: extra.text,
        allowed: 'a macro alone',
      },
    );
  }
  return tokenize(expansion).map((token) => ({ text: token.text, position: first.position }));
}

/** Throws for an expression of other than five fields, at the sixth or at the end. */
function rejectFieldCount(expression: string, tokens: readonly Token[]): never {
  const extra = tokens[5];
  const position = extra === undefined ? expression.length : extra.position;
  const hint = tokens.length > 5 ? ', without seconds or year fields' : '';
  throw new CronSyntaxError(
    `expected 5 fields but got ${tokens.length} at position ${position}: zonecron expressions have 5 fields (${FIELD_LIST})${hint}`,
    {
      expression,
      field: 'expression',
      position,
      token: extra?.text ?? '',
      allowed: `5 fields: ${FIELD_LIST}`,
    },
  );
}

function newAccumulator(rules: FieldRules): FieldAccumulator {
  return {
    values: new Uint8Array(rules.max + 1),
    last: false,
    lastWeekday: false,
    nearestWeekday: new Set(),
    lastWeekdays: new Set(),
    nth: new Map(),
  };
}

function parseField(rules: FieldRules, token: Token, context: ParseContext): FieldAccumulator {
  const accumulator = newAccumulator(rules);
  let offset = 0;
  for (const item of token.text.split(',')) {
    parseItem(rules, { text: item, position: token.position + offset }, accumulator, context);
    offset += item.length + 1;
  }
  return accumulator;
}

const H_FORMS = 'H, H(a-b), H/n or H(a-b)/n';

/** Throws the field's "invalid value" error for `token`. */
function invalidValue(
  rules: FieldRules,
  context: ParseContext,
  token: Token,
  allowed: string = rules.allowed,
): never {
  return context.fail(
    { field: rules.field, position: token.position, token: token.text, allowed },
    `invalid value '${token.text}' for field '${rules.field}' at position ${token.position} (allowed ${allowed})`,
  );
}

/**
 * Parses one comma-separated item of a field into the accumulator.
 *
 * ```
 *  item = base [ '/' step ]
 *  base: H…  → parseSpread      *, ?  → the whole range      a-b → parseRange
 *        a   → one value (a step makes it a-max)              L, LW, nW, dL, d#k → extensions
 * ```
 */
function parseItem(
  rules: FieldRules,
  item: Token,
  accumulator: FieldAccumulator,
  context: ParseContext,
): void {
  const { field, allowed } = rules;
  if (item.text === '') {
    context.fail(
      { field, position: item.position, token: '', allowed },
      `empty item '' for field '${field}' at position ${item.position} (allowed ${allowed})`,
    );
  }
  const { base, step } = splitStep(rules, item, context);
  if (base.text.charAt(0) === 'H' || base.text.charAt(0) === 'h') {
    parseSpread(rules, base, item, step, accumulator, context);
    return;
  }
  const isAny =
    base.text === '*' ||
    (base.text === '?' && (field === 'day-of-month' || field === 'day-of-week'));
  if (isAny) {
    if (base.text === '?' && step !== undefined) {
      invalidValue(rules, context, item, `? alone, or ${allowed}`);
    }
    addRange(accumulator, rules.min, rules.max, step ?? 1);
    return;
  }
  if (base.text === '') invalidValue(rules, context, base);
  if (base.text.indexOf('-', 1) > 0) {
    parseRange(rules, base, step, accumulator, context);
    return;
  }
  const value = parseValue(rules, base, false);
  if (value !== undefined) {
    if (step === undefined) accumulator.values[value] = 1;
    else addRange(accumulator, value, rules.max, step);
    return;
  }
  parseExtension(rules, base, item, step, accumulator, context);
}

/** Splits `base/step`; more than one `/` is an error. */
function splitStep(
  rules: FieldRules,
  item: Token,
  context: ParseContext,
): { base: Token; step: number | undefined } {
  const slash = item.text.indexOf('/');
  if (slash >= 0 && item.text.indexOf('/', slash + 1) >= 0) {
    const stepAllowed = 'one step per item, e.g. */5';
    context.fail(
      { field: rules.field, position: item.position, token: item.text, allowed: stepAllowed },
      `invalid step in '${item.text}' for field '${rules.field}' at position ${item.position} (allowed ${stepAllowed})`,
    );
  }
  if (slash < 0) return { base: item, step: undefined };
  const stepToken = { text: item.text.slice(slash + 1), position: item.position + slash + 1 };
  return {
    base: { text: item.text.slice(0, slash), position: item.position },
    step: parseStep(rules, stepToken, context),
  };
}

/** `a-b` (names allowed; `SUN` ending a range is 7), optionally with a step. */
function parseRange(
  rules: FieldRules,
  base: Token,
  step: number | undefined,
  accumulator: FieldAccumulator,
  context: ParseContext,
): void {
  const dash = base.text.indexOf('-', 1);
  const lowToken: Token = { text: base.text.slice(0, dash), position: base.position };
  const highToken: Token = { text: base.text.slice(dash + 1), position: base.position + dash + 1 };
  const low = parseValue(rules, lowToken, false) ?? invalidValue(rules, context, lowToken);
  const high = parseValue(rules, highToken, true) ?? invalidValue(rules, context, highToken);
  if (low > high) {
    const rangeAllowed = `a-b with a <= b within ${rules.allowed}`;
    context.fail(
      { field: rules.field, position: base.position, token: base.text, allowed: rangeAllowed },
      `invalid range '${base.text}' for field '${rules.field}' at position ${base.position} (allowed ${rangeAllowed})`,
    );
  }
  addRange(accumulator, low, high, step ?? 1);
}

/** The extensions: `L`, `LW`, `nW` in day-of-month; `dL`, `d#k` in day-of-week. No steps. */
function parseExtension(
  rules: FieldRules,
  base: Token,
  item: Token,
  step: number | undefined,
  accumulator: FieldAccumulator,
  context: ParseContext,
): void {
  const { field, allowed } = rules;
  const upper = base.text.toUpperCase();
  const domExtension = /^(?:L|LW|\d{1,9}W)$/.test(upper);
  const dowExtension = /^(?:\d{1,9}|[A-Z]{3})(?:L|#\d{1,9})$/.test(upper);
  if (domExtension && field === 'day-of-month') {
    if (step !== undefined)
      invalidValue(rules, context, item, `L, LW or nW without a step, or ${allowed}`);
    if (upper === 'L') accumulator.last = true;
    else if (upper === 'LW') accumulator.lastWeekday = true;
    else {
      const dayToken: Token = { text: base.text.slice(0, -1), position: base.position };
      const day =
        parseValue(rules, dayToken, false) ??
        invalidValue(rules, context, dayToken, '1-31 before W');
      accumulator.nearestWeekday.add(day);
    }
    return;
  }
  if (dowExtension && field === 'day-of-week') {
    if (step !== undefined)
      invalidValue(rules, context, item, `dL or d#k without a step, or ${allowed}`);
    parseWeekdayExtension(rules, base, accumulator, context);
    return;
  }
  if (domExtension)
    invalidValue(rules, context, item, `${allowed}; L, LW and nW belong to day-of-month`);
  if (dowExtension || base.text.includes('#')) {
    invalidValue(rules, context, item, `${allowed}; dL and d#k belong to day-of-week`);
  }
  invalidValue(rules, context, base);
}

/** `dL` (the last such weekday of the month) or `d#k` (the k-th, 1-5). */
function parseWeekdayExtension(
  rules: FieldRules,
  base: Token,
  accumulator: FieldAccumulator,
  context: ParseContext,
): void {
  const hash = base.text.indexOf('#');
  const dayToken: Token = {
    text: hash >= 0 ? base.text.slice(0, hash) : base.text.slice(0, -1),
    position: base.position,
  };
  const weekday =
    (parseValue(rules, dayToken, false) ?? invalidValue(rules, context, dayToken)) % 7;
  if (hash < 0) {
    accumulator.lastWeekdays.add(weekday);
    return;
  }
  const nthToken: Token = { text: base.text.slice(hash + 1), position: base.position + hash + 1 };
  const nth = Number(nthToken.text);
  if (!(nth >= 1 && nth <= 5)) invalidValue(rules, context, nthToken, '1-5 after #');
  accumulator.nth.set(`${weekday}#${nth}`, { weekday, nth });
}

function parseStep(rules: FieldRules, token: Token, context: ParseContext): number {
  // A step must be able to reach a second value of the field: `*/60` in minutes is a mistake.
  const span = rules.max - rules.min;
  const stepAllowed = `1-${span}`;
  const value = /^\d{1,9}$/.test(token.text) ? Number(token.text) : Number.NaN;
  if (!(value >= 1 && value <= span)) {
    context.fail(
      { field: rules.field, position: token.position, token: token.text, allowed: stepAllowed },
      `invalid step '${token.text}' for field '${rules.field}' at position ${token.position} (allowed ${stepAllowed})`,
    );
  }
  return value;
}

/** A number or name of the field, or undefined. `SUN` ending a range means 7. */
function parseValue(rules: FieldRules, token: Token, rangeEnd: boolean): number | undefined {
  let value: number | undefined;
  if (/^\d{1,9}$/.test(token.text)) value = Number(token.text);
  else if (rules.names !== undefined && /^[a-z]{3}$/i.test(token.text)) {
    value = rules.names[token.text.toUpperCase()];
    if (value === 0 && rangeEnd && rules.field === 'day-of-week') value = 7;
  }
  if (value === undefined || value < rules.min || value > rules.max) return undefined;
  return value;
}

function addRange(accumulator: FieldAccumulator, low: number, high: number, step: number): void {
  for (let value = low; value <= high; value += step) accumulator.values[value] = 1;
}

/** `H`, `H(a-b)`, `H/n` or `H(a-b)/n`: the job's own value(s) in the range, from its id. */
function parseSpread(
  rules: FieldRules,
  base: Token,
  item: Token,
  step: number | undefined,
  accumulator: FieldAccumulator,
  context: ParseContext,
): void {
  const { field } = rules;
  const match = /^[Hh](?:\(([^()]*)\))?$/.exec(base.text);
  if (match === null) {
    rejectSpread(rules, base, context);
    return;
  }
  const inner = match[1];
  const { low, high } =
    inner === undefined
      ? { low: rules.spreadMin, high: rules.spreadMax }
      : spreadRange(rules, base, inner, context);
  if (context.jobId === undefined || context.jobId === '') {
    context.fail(
      { field, position: base.position, token: base.text, allowed: `${H_FORMS}, given a job id` },
      `'${base.text}' in field '${field}' at position ${base.position} needs a job id (allowed ${H_FORMS}, given a job id)`,
    );
    return;
  }
  const hash = spreadHash(context.jobId, rules.index);
  if (step === undefined) {
    accumulator.values[low + (hash % (high - low + 1))] = 1;
    return;
  }
  const width = high - low + 1;
  if (step > width) {
    const stepAllowed = `1-${width}`;
    context.fail(
      { field, position: item.position, token: item.text, allowed: stepAllowed },
      `invalid step in '${item.text}' for field '${field}' at position ${item.position} (allowed ${stepAllowed})`,
    );
  }
  // `H/n` steps through the whole field, like `*/n`; only its start comes from the hash.
  const stepHigh = inner === undefined ? Math.max(rules.max === 7 ? 6 : rules.max, high) : high;
  addRange(accumulator, low + (hash % step), stepHigh, step);
}

/** The `a-b` of `H(a-b)` (`inner`), both values of the field and `a <= b`. */
function spreadRange(
  rules: FieldRules,
  base: Token,
  inner: string,
  context: ParseContext,
): { low: number; high: number } {
  const dash = inner.indexOf('-', 1);
  const lowToken: Token = {
    text: dash > 0 ? inner.slice(0, dash) : inner,
    position: base.position + 2,
  };
  const highToken: Token = {
    text: dash > 0 ? inner.slice(dash + 1) : '',
    position: base.position + 3 + dash,
  };
  const low = dash > 0 ? parseValue(rules, lowToken, false) : undefined;
  const high = dash > 0 ? parseValue(rules, highToken, true) : undefined;
  if (low === undefined || high === undefined || low > high)
    return rejectSpread(rules, base, context);
  return { low, high };
}

/** Throws for a malformed `H` item, naming the forms allowed. */
function rejectSpread(rules: FieldRules, base: Token, context: ParseContext): never {
  const { field } = rules;
  const spreadAllowed = `${H_FORMS} with a-b within ${rules.allowed}`;
  return context.fail(
    { field, position: base.position, token: base.text, allowed: spreadAllowed },
    `invalid value '${base.text}' for field '${field}' at position ${base.position} (allowed ${spreadAllowed})`,
  );
}

function assertCanMatch(parsed: ParsedCron, fieldTokens: Token[], context: ParseContext): void {
  // Every (month, length, weekday of the 1st) occurs in the 400-year Gregorian cycle, so an
  // expression whose mask is empty for all of them can never run.
  for (const month of parsed.months) {
    for (const length of possibleMonthLengths(month)) {
      for (let firstWeekday = 0; firstWeekday < 7; firstWeekday++) {
        if (monthDayMask(parsed, length, firstWeekday) !== 0) return;
      }
    }
  }
  const domToken = fieldTokens[2] as Token;
  const dayFields =
    parsed.dayRule === 'and' && !/^[*?]$/.test(parsed.fields[4])
      ? `day-of-month '${parsed.fields[2]}' and day-of-week '${parsed.fields[4]}'`
      : `day-of-month '${parsed.fields[2]}'`;
  const allowed = 'a day that occurs in the selected months';
  context.fail(
    { field: 'day-of-month', position: domToken.position, token: domToken.text, allowed },
    `expression can never match: ${dayFields} with month '${parsed.fields[3]}' at position ${domToken.position} selects no day (allowed ${allowed})`,
  );
}
