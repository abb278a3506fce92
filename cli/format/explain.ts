/**
 * A cron expression in one plain-English sentence: `30 2 * * *` → "at 02:30 every day".
 *
 * The engine validates (`parseCron`), this only words what the fields say. The engine's parsed
 * form is value sets, which lose the structure a person wrote (`*\/15`, `MON-FRI`, `FRI#3`), so
 * the fields are read again here, item by item, from the validated text.
 */
import { parseCron } from '../../functions/schedule/index.ts';

/** Options of `explainCron`. */
export interface ExplainOptions {
  /** The job id that `H` fields hash; with it the sentence says which values `H` picks. */
  readonly jobId?: string;
}

/**
 * A job id to validate `H` fields with when none is given. Whether an `H` is well-formed does
 * not depend on the id; which value it picks does, and without an id the sentence does not
 * name one.
 */
const PLACEHOLDER_JOB_ID = 'explain';

/**
 * Says in one English sentence when a five-field expression runs.
 *
 * `zonecron explain`, `next`, `validate` and `describe` show this sentence so that a person can
 * check that an expression means what they think before it is deployed. It names the Vixie
 * rule when both day fields are restricted ("either matches"), the extensions (`L`, `LW`,
 * `nW`, `dL`, `d#k`) and `H`, and with a job id the values `H` picks. Throws the engine's
 * `CronSyntaxError` for an invalid expression.
 *
 * @example
 * explainCron('0 9 * * 1-5')
 * //=> 'at 09:00 on Monday through Friday'
 * explainCron('0 0 13 * FRI')
 * //=> 'at 00:00 on the 13th of the month or on Friday (either matches)'
 * explainCron('H 3 * * *', { jobId: 'nightly_backup' })
 * //=> "at 03:20 every day (H: minute 20, picked by the hash of job id 'nightly_backup')"
 */
export function explainCron(expression: string, options: ExplainOptions = {}): string {
  const { jobId } = options;
  const { fields, dayRule } = parseCron(expression, jobId ?? PLACEHOLDER_JOB_ID);
  const read = FIELD_RULES.map((rules, index) => {
    const items = (fields[index] as string).split(',').map((text) => readItem(text, rules));
    return jobId === undefined ? { items, picks: [] } : resolveHashes(items, rules, jobId);
  });
  const [minute, hour, dayOfMonth, month, dayOfWeek] = read.map((r) => r.items) as FiveFields;
  const time = timePhrase(minute, hour);
  const days = dayPhrase({ dayOfMonth, month, dayOfWeek, dayRule, everyDay: time.daily });
  const picks = read.flatMap((r) => r.picks);
  return `${time.text}${days}${hashNote(picks, fields, jobId)}`;
}

/** What `H` picks: the values for a job id, else that the hash picks them. */
function hashNote(picks: string[], fields: readonly string[], jobId: string | undefined): string {
  if (jobId !== undefined) {
    return picks.length > 0
      ? ` (H: ${listOf(picks)}, picked by the hash of job id '${jobId}')`
      : '';
  }
  const hashed = fields.some((field) => /(^|,)h/i.test(field));
  return hashed ? ` (H: picked by the job id's hash, fixed for each job)` : '';
}

type FiveFields = [Item[], Item[], Item[], Item[], Item[]];

type FieldName = 'minute' | 'hour' | 'day-of-month' | 'month' | 'day-of-week';

interface FieldRules {
  readonly field: FieldName;
  readonly min: number;
  /** Where an open step (`*\/n`, `a/n`) ends; 7 in day-of-week, as in the engine. */
  readonly max: number;
  /** The range a bare `H` picks from. */
  readonly hashMax: number;
  readonly names?: readonly string[];
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const FIELD_RULES: readonly FieldRules[] = [
  { field: 'minute', min: 0, max: 59, hashMax: 59 },
  { field: 'hour', min: 0, max: 23, hashMax: 23 },
  { field: 'day-of-month', min: 1, max: 31, hashMax: 28 },
  { field: 'month', min: 1, max: 12, hashMax: 12, names: MONTHS },
  { field: 'day-of-week', min: 0, max: 7, hashMax: 6, names: WEEKDAYS },
];

/** One comma-separated item of a field, as written (names read as numbers). */
type Item =
  | { readonly kind: 'any' }
  | { readonly kind: 'value'; readonly value: number }
  | { readonly kind: 'range'; readonly from: number; readonly to: number }
  | {
      readonly kind: 'step';
      readonly from: number;
      readonly to: number;
      readonly step: number;
      /** No upper bound written (`*\/n`, `a/n`): it runs to the end of the field. */
      readonly open: boolean;
    }
  | {
      readonly kind: 'hash';
      readonly text: string;
      readonly from: number;
      readonly to: number;
      readonly step: number | undefined;
      /** `H(a-b)…`: the range was written. */
      readonly bounded: boolean;
    }
  | { readonly kind: 'last' }
  | { readonly kind: 'last-weekday' }
  | { readonly kind: 'nearest-weekday'; readonly day: number }
  | { readonly kind: 'last-of'; readonly weekday: number }
  | { readonly kind: 'nth'; readonly weekday: number; readonly nth: number };

function numberOf(text: string, rules: FieldRules, rangeEnd = false): number {
  if (/^\d+$/.test(text)) return Number(text);
  const index = (rules.names ?? []).findIndex(
    (n) => n.slice(0, 3).toUpperCase() === text.toUpperCase(),
  );
  return index === 0 && rangeEnd && rules.field === 'day-of-week'
    ? 7
    : index + (rules.field === 'month' ? 1 : 0);
}

/** Reads one item of a field the engine has already accepted. */
function readItem(text: string, rules: FieldRules): Item {
  const hash = /^[Hh](?:\(([^-()]+)-([^()]+)\))?(?:\/(\d+))?$/.exec(text);
  if (hash !== null) {
    const [, low, high, step] = hash;
    return {
      kind: 'hash',
      text,
      from: low === undefined ? rules.min : numberOf(low, rules),
      to: high === undefined ? rules.hashMax : numberOf(high, rules, true),
      step: step === undefined ? undefined : Number(step),
      bounded: low !== undefined,
    };
  }
  const [base = '', stepText] = text.split('/');
  const upper = base.toUpperCase();
  if (upper === 'L') return { kind: 'last' };
  if (upper === 'LW') return { kind: 'last-weekday' };
  if (/^\d+W$/.test(upper)) return { kind: 'nearest-weekday', day: Number(upper.slice(0, -1)) };
  if (upper.includes('#')) {
    const [weekday = '', nth = ''] = upper.split('#');
    return { kind: 'nth', weekday: numberOf(weekday, rules) % 7, nth: Number(nth) };
  }
  if (rules.field === 'day-of-week' && upper.endsWith('L')) {
    return { kind: 'last-of', weekday: numberOf(upper.slice(0, -1), rules) % 7 };
  }
  return readPlain(base, stepText === undefined ? undefined : Number(stepText), rules);
}

/** `*`, `?`, `a`, `a-b`, each with an optional step; a step of 1 is no step. */
function readPlain(base: string, step: number | undefined, rules: FieldRules): Item {
  const dash = base.indexOf('-', 1);
  const any = base === '*' || base === '?';
  const from = any ? rules.min : numberOf(dash > 0 ? base.slice(0, dash) : base, rules);
  const to = dash > 0 ? numberOf(base.slice(dash + 1), rules, true) : any ? rules.max : from;
  if (step === undefined || step === 1) {
    if (any || (step === 1 && dash < 0 && from === rules.min)) return { kind: 'any' };
    if (step === 1 && dash < 0) return { kind: 'range', from, to: rules.max };
    return dash > 0 ? { kind: 'range', from, to } : { kind: 'value', value: from };
  }
  return { kind: 'step', from, to: dash > 0 ? to : rules.max, step, open: dash < 0 };
}

/** Replaces each `H` item by the values it picks for the job id, and says what they are. */
function resolveHashes(
  items: Item[],
  rules: FieldRules,
  jobId: string,
): { items: Item[]; picks: string[] } {
  const picks: string[] = [];
  const resolved = items.map((item): Item => {
    if (item.kind !== 'hash') return item;
    const values = hashValues(item.text, rules.field, jobId);
    const first = values[0] ?? item.from;
    picks.push(pickNoun(values, rules));
    if (item.step === undefined) return { kind: 'value', value: first };
    const to = item.bounded ? item.to : Math.max(rules.max === 7 ? 6 : rules.max, item.to);
    return { kind: 'step', from: first, to, step: item.step, open: !item.bounded };
  });
  return { items: resolved, picks };
}

/** The values an `H` item picks, asked of the engine with the item alone in its field. */
function hashValues(text: string, field: FieldName, jobId: string): readonly number[] {
  switch (field) {
    case 'minute':
      return parseCron(`${text} * * * *`, jobId).minutes;
    case 'hour':
      return parseCron(`0 ${text} * * *`, jobId).hours;
    case 'day-of-month':
      return parseCron(`0 0 ${text} * *`, jobId).daysOfMonth.values;
    case 'month':
      return parseCron(`0 0 * ${text} *`, jobId).months;
    case 'day-of-week':
      return parseCron(`0 0 * * ${text}`, jobId).daysOfWeek.values;
  }
}

function pickNoun(values: readonly number[], rules: FieldRules): string {
  if (rules.names !== undefined) return listOf(values.map((v) => nameOf(v, rules)));
  const noun = rules.field === 'day-of-month' ? 'day' : rules.field;
  return `${noun}${values.length === 1 ? '' : 's'} ${listOf(values.map(String))}`;
}

function nameOf(value: number, rules: FieldRules): string {
  const names = rules.names ?? [];
  return rules.field === 'month' ? (names[value - 1] ?? '') : (names[value % 7] ?? '');
}

/** "a", "a and b", "a, b and c". */
function listOf(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st. */
function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

const NTH_WORDS = ['', 'first', 'second', 'third', 'fourth', 'fifth'];

function clock(hour: number, minute: number): string {
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}

function lastOfStep(item: { from: number; to: number; step: number }): number {
  return item.from + Math.floor((item.to - item.from) / item.step) * item.step;
}

/** The values an item selects; only for items without extensions or unresolved `H`. */
function valuesOf(item: Item, rules: FieldRules): number[] {
  switch (item.kind) {
    case 'value':
      return [item.value];
    case 'any':
    case 'range':
    case 'step': {
      const from = item.kind === 'any' ? rules.min : item.from;
      const to = item.kind === 'any' ? rules.max : item.to;
      const step = item.kind === 'step' ? item.step : 1;
      const values: number[] = [];
      for (let v = from; v <= to; v += step) values.push(v);
      return values;
    }
    default:
      return [];
  }
}

type StepItem = Extract<Item, { kind: 'step' }>;

/** An open step that divides the period and starts in its first step: the same gap all day. */
function uniformStep(item: Item, period: number): StepItem | undefined {
  const uniform =
    item.kind === 'step' && item.open && period % item.step === 0 && item.from < item.step;
  return uniform ? item : undefined;
}

function only(items: Item[]): Item | undefined {
  return items.length === 1 ? items[0] : undefined;
}

// ── Time of day ──────────────────────────────────────────────────────────────────────────────

interface TimePhrase {
  readonly text: string;
  /** Whether to say "every day": not when the time repeats through the whole day. */
  readonly daily: boolean;
}

const MINUTE_RULES = FIELD_RULES[0] as FieldRules;
const HOUR_RULES = FIELD_RULES[1] as FieldRules;

function timePhrase(minute: Item[], hour: Item[]): TimePhrase {
  const h = only(hour);
  const allDay =
    h !== undefined && (h.kind === 'any' || uniformStep(h, 24) !== undefined || isOpenHashStep(h));
  const text =
    listedTimes(minute, hour) ??
    (isOnceHashed(only(minute)) && isOnceHashed(h) ? 'at one time of day' : undefined) ??
    (h?.kind === 'any' ? everyHour(minute) : undefined) ??
    (h === undefined ? undefined : oneHourItem(minute, h)) ??
    `${minutePhrase(minute)} ${hourSuffix(hour)}`;
  return { text, daily: !allDay };
}

/** A bare `H`: one value anywhere in the field. */
function isOnceHashed(item: Item | undefined): boolean {
  return item?.kind === 'hash' && item.step === undefined && !item.bounded;
}

function isOpenHashStep(item: Item): boolean {
  return item.kind === 'hash' && item.step !== undefined && !item.bounded;
}

/** "at 09:00 and 17:00" when both fields are plain values and the times are few. */
function listedTimes(minute: Item[], hour: Item[]): string | undefined {
  const plain = [...minute, ...hour].every((item) => item.kind === 'value');
  const minutes = minute.flatMap((item) => valuesOf(item, MINUTE_RULES));
  const hours = hour.flatMap((item) => valuesOf(item, HOUR_RULES));
  if (!plain || minutes.length * hours.length > 6) return undefined;
  const times = hours.flatMap((h) => minutes.map((m) => clock(h, m)));
  return `at ${listOf([...new Set(times)].sort())}`;
}

/** The hour field is `*`. */
function everyHour(minute: Item[]): string {
  const m = only(minute);
  const cadence =
    m !== undefined && (m.kind === 'any' || uniformStep(m, 60) !== undefined || isOpenHashStep(m));
  if (cadence) return minutePhrase(minute);
  const once = m?.kind === 'hash' && m.step === undefined;
  if (once || minute.every((item) => item.kind === 'value')) {
    return `every hour ${minutePhrase(minute)}`;
  }
  return `${minutePhrase(minute)} of every hour`;
}

/** The hour field is one item other than `*`: "every 2 hours from 00:00". */
function oneHourItem(minute: Item[], hour: Item): string | undefined {
  const m = only(minute);
  if (m?.kind === 'value') return everyFewHours(m.value, hour);
  if (m === undefined || (hour.kind !== 'value' && hour.kind !== 'range')) return undefined;
  const [first, last] = hour.kind === 'value' ? [hour.value, hour.value] : [hour.from, hour.to];
  if (m.kind === 'any') return `every minute from ${clock(first, 0)} through ${clock(last, 59)}`;
  const step = uniformStep(m, 60);
  if (step !== undefined) {
    const end = clock(last, lastOfStep(step));
    return `every ${step.step} minutes from ${clock(first, step.from)} through ${end}`;
  }
  if (m.kind === 'hash' && m.step === undefined && hour.kind === 'value') {
    return `at one minute between ${clock(first, m.from)} and ${clock(last, m.to)}`;
  }
  return undefined;
}

function everyFewHours(minute: number, hour: Item): string | undefined {
  if (hour.kind === 'range') {
    return `every hour from ${clock(hour.from, minute)} through ${clock(hour.to, minute)}`;
  }
  if (hour.kind !== 'step') return undefined;
  const from = `every ${hour.step} hours from ${clock(hour.from, minute)}`;
  return uniformStep(hour, 24) ? from : `${from} through ${clock(lastOfStep(hour), minute)}`;
}

/** What the minute field selects inside an hour: "every 15 minutes", "at minutes 0 and 30". */
function minutePhrase(minute: Item[]): string {
  const m = only(minute);
  if (minute.every((item) => item.kind === 'value')) {
    const values = minute.flatMap((item) => valuesOf(item, MINUTE_RULES));
    return `at minute${values.length === 1 ? '' : 's'} ${listOf(values.map(String))}`;
  }
  switch (m?.kind) {
    case 'any':
      return 'every minute';
    case 'range':
      return `every minute from minute ${m.from} through ${m.to}`;
    case 'step':
      return uniformStep(m, 60)
        ? `every ${m.step} minutes${m.from > 0 ? ` from minute ${m.from}` : ''}`
        : `every ${m.step} minutes from minute ${m.from} through ${lastOfStep(m)}`;
    case 'hash':
      return hashedMinutes(m);
    default:
      return `at minutes ${listOf(minute.map(minuteNoun))}`;
  }
}

function hashedMinutes(item: Extract<Item, { kind: 'hash' }>): string {
  const within = item.bounded ? ` from ${item.from} through ${item.to}` : '';
  if (item.step === undefined) return `at one minute${within}`;
  return item.bounded
    ? `every ${item.step} minutes within minutes ${item.from} through ${item.to}`
    : `every ${item.step} minutes from a minute below ${item.step}`;
}

function minuteNoun(item: Item): string {
  switch (item.kind) {
    case 'value':
      return String(item.value);
    case 'range':
      return `${item.from} through ${item.to}`;
    case 'step':
      return `every ${ordinal(item.step)} from ${item.from} through ${lastOfStep(item)}`;
    default:
      return `${item.kind === 'hash' && item.bounded ? `one from ${item.from} through ${item.to}` : 'one'} picked by H`;
  }
}

/** Which hours the minutes are in: "of every hour", "of hours 09 through 17". */
function hourSuffix(hour: Item[]): string {
  const nouns = hour.map(hourNoun);
  const single = hour.length === 1 && (hour[0]?.kind === 'value' || hour[0]?.kind === 'hash');
  if (hour.length === 1 && hour[0]?.kind !== 'value' && hour[0]?.kind !== 'range') {
    return `of ${nouns[0]}`;
  }
  return `of hour${single ? '' : 's'} ${listOf(nouns)}`;
}

function hourNoun(item: Item): string {
  switch (item.kind) {
    case 'value':
      return pad(item.value);
    case 'range':
      return `${pad(item.from)} through ${pad(item.to)}`;
    case 'step':
      return `every ${ordinal(item.step)} hour from ${pad(item.from)} through ${pad(lastOfStep(item))}`;
    case 'hash': {
      const within = item.bounded ? ` within hours ${pad(item.from)} through ${pad(item.to)}` : '';
      return item.step === undefined
        ? `one hour${within}`
        : `every ${ordinal(item.step)} hour${within || ` from an hour below ${item.step}`}`;
    }
    default:
      return 'every hour';
  }
}

function pad(hour: number): string {
  return String(hour).padStart(2, '0');
}

// ── Days ─────────────────────────────────────────────────────────────────────────────────────

const DOM_RULES = FIELD_RULES[2] as FieldRules;
const MONTH_RULES = FIELD_RULES[3] as FieldRules;
const DOW_RULES = FIELD_RULES[4] as FieldRules;

interface DayFields {
  readonly dayOfMonth: Item[];
  readonly month: Item[];
  readonly dayOfWeek: Item[];
  /** The engine's rule for the two day fields. */
  readonly dayRule: 'and' | 'or';
  /** Whether to say "every day" when no day is restricted. */
  readonly everyDay: boolean;
}

/**
 * The days, with the months: " every day", " on Monday through Friday", " on the 13th of the
 * month or on Friday (either matches)", " on the last day of February".
 */
function dayPhrase({ dayOfMonth, month, dayOfWeek, dayRule, everyDay }: DayFields): string {
  const domAny = only(dayOfMonth)?.kind === 'any';
  const dowAny = only(dayOfWeek)?.kind === 'any';
  const monthAny = only(month)?.kind === 'any';
  const months = monthAny ? 'the month' : monthNoun(month);
  const inMonths = monthAny ? '' : ` in ${months}`;
  if (dayRule === 'or') {
    const either = ` on ${domNoun(dayOfMonth)} of the month or on ${dowNoun(dayOfWeek, 'the month')} (either matches)`;
    return monthAny ? either : `${either},${inMonths}`;
  }
  if (domAny && dowAny) return `${everyDay ? ' every day' : ''}${inMonths}`;
  if (dowAny) return ` on ${domNoun(dayOfMonth)} of ${months}`;
  if (domAny) {
    const ofMonths = dayOfWeek.every((item) => item.kind === 'nth' || item.kind === 'last-of');
    return ofMonths
      ? ` on ${dowNoun(dayOfWeek, months)}`
      : ` on ${dowNoun(dayOfWeek, 'the month')}${inMonths}`;
  }
  return ` on ${domNoun(dayOfMonth)} of ${months} that fall on ${dowNoun(dayOfWeek, 'the month')}`;
}

function domNoun(items: Item[]): string {
  if (items.every((item) => item.kind === 'value')) {
    const days = items.flatMap((item) => valuesOf(item, DOM_RULES)).map(ordinal);
    return `the ${listOf(days)}`;
  }
  return listOf(items.map(domItemNoun));
}

function domItemNoun(item: Item): string {
  switch (item.kind) {
    case 'value':
      return `the ${ordinal(item.value)}`;
    case 'range':
      return `the ${ordinal(item.from)} through ${ordinal(item.to)}`;
    case 'step': {
      if (item.step === 2 && item.open && item.from <= 2) {
        return item.from === 1 ? 'odd-numbered days' : 'even-numbered days';
      }
      const through = item.open ? '' : ` through ${ordinal(lastOfStep(item))}`;
      return `every ${ordinal(item.step)} day from the ${ordinal(item.from)}${through}`;
    }
    case 'last':
      return 'the last day';
    case 'last-weekday':
      return 'the last weekday (Mon–Fri)';
    case 'nearest-weekday':
      return `the weekday nearest the ${ordinal(item.day)}`;
    case 'hash': {
      const span = `the ${ordinal(item.from)} through ${ordinal(item.to)}`;
      if (item.step === undefined) return `one day from ${span}`;
      return item.bounded
        ? `every ${ordinal(item.step)} day within ${span}`
        : `every ${ordinal(item.step)} day from one of the first ${item.step} days`;
    }
    default:
      return 'every day';
  }
}

/** Weekdays; `dL` and `d#k` items say "of <months>" once, after them. */
function dowNoun(items: Item[], months: string): string {
  const plain = items.flatMap(weekdayNouns);
  const extensions = items.flatMap((item) =>
    item.kind === 'nth'
      ? [`the ${NTH_WORDS[item.nth]} ${nameOf(item.weekday, DOW_RULES)}`]
      : item.kind === 'last-of'
        ? [`the last ${nameOf(item.weekday, DOW_RULES)}`]
        : [],
  );
  const ofMonths = extensions.length > 0 ? [`${listOf(extensions)} of ${months}`] : [];
  return listOf([...new Set(plain), ...ofMonths]);
}

function weekdayNouns(item: Item): string[] {
  switch (item.kind) {
    case 'nth':
    case 'last-of':
      return [];
    case 'range':
      return [`${nameOf(item.from, DOW_RULES)} through ${nameOf(item.to, DOW_RULES)}`];
    case 'hash': {
      const within = item.bounded
        ? ` from ${nameOf(item.from, DOW_RULES)} through ${nameOf(item.to, DOW_RULES)}`
        : '';
      return item.step === undefined
        ? [`one day of the week${within}`]
        : [`every ${ordinal(item.step)} day of the week${within}`];
    }
    default: {
      const days = new Set(valuesOf(item, DOW_RULES).map((v) => v % 7));
      return [...days].sort((a, b) => a - b).map((v) => nameOf(v, DOW_RULES));
    }
  }
}

function monthNoun(items: Item[]): string {
  const nouns = items.flatMap((item): string[] => {
    if (item.kind === 'range') {
      return [`${nameOf(item.from, MONTH_RULES)} through ${nameOf(item.to, MONTH_RULES)}`];
    }
    if (item.kind === 'hash') {
      const within = item.bounded
        ? ` from ${nameOf(item.from, MONTH_RULES)} through ${nameOf(item.to, MONTH_RULES)}`
        : '';
      return item.step === undefined
        ? [`one month${within}`]
        : [`every ${ordinal(item.step)} month${within}`];
    }
    return valuesOf(item, MONTH_RULES).map((v) => nameOf(v, MONTH_RULES));
  });
  return listOf(nouns);
}
