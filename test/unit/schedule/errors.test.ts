// Bad input gets a typed error with data, never a crash, a hang or a silent wrong answer
// (docs/semantics.md: what is an error, zones, typed errors).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  CronSyntaxError,
  InvalidArgumentError,
  InvalidTimeZoneError,
  isScheduleError,
  iterateOccurrences,
  nextOccurrences,
  occurrencesBetween,
  parseCron,
  ScheduleError,
  type ScheduleSpec,
  validateTimeZone,
} from '../../../functions/schedule/index.ts';
import { anyCronText, optionalJobId } from '../../support/cron-text.ts';

const FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
type FieldName = (typeof FIELD_NAMES)[number];

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

function cronError(expression: string, jobId?: string): CronSyntaxError {
  const e = thrown(() => parseCron(expression, jobId));
  expect(e, `parseCron(${JSON.stringify(expression)}) should throw`).toBeInstanceOf(
    CronSyntaxError,
  );
  expect(isScheduleError(e)).toBe(true);
  expect(e).toBeInstanceOf(ScheduleError);
  expect(e).toBeInstanceOf(Error);
  return e as CronSyntaxError;
}

/** Start and end (exclusive) of each whitespace-separated field of the expression. */
function fieldSpans(expression: string): [number, number][] {
  return [...expression.matchAll(/\S+/g)].map((m) => [m.index, m.index + m[0].length]);
}

/**
 * The contract's error data: the field, a token that really is at `position` in the expression
 * and lies inside that field, what the field allows, and a lowercase message that shows all of
 * it without a trailing period.
 */
function expectFieldError(expression: string, field: FieldName, jobId?: string) {
  const e = cronError(expression, jobId);
  expect(e.name).toBe('CronSyntaxError');
  expect(e.expression).toBe(expression);
  expect(e.field).toBe(field);
  const [start, end] = fieldSpans(expression)[FIELD_NAMES.indexOf(field)] ?? [-1, -1];
  expect(e.position).toBeGreaterThanOrEqual(start);
  expect(e.position).toBeLessThanOrEqual(end);
  expect(expression.slice(e.position, e.position + e.token.length)).toBe(e.token);
  expect(e.position + e.token.length).toBeLessThanOrEqual(end);
  expect(e.allowed.length).toBeGreaterThan(0);
  expect(e.message).toContain(`'${field}'`);
  if (e.token !== '') expect(e.message).toContain(`'${e.token}'`);
  expect(e.message).toContain(`position ${e.position}`);
  expect(e.message).toContain(e.allowed);
  expect(e.message).not.toMatch(/\.$/);
  expect(e.message.charAt(0)).toBe(e.message.charAt(0).toLowerCase());
  return e;
}

describe('the contract example', () => {
  it("reports invalid value '61' for field 'minute' at position 0 (allowed 0-59)", () => {
    const e = cronError('61 * * * *');
    expect(e.message).toBe("invalid value '61' for field 'minute' at position 0 (allowed 0-59)");
    expect([e.field, e.token, e.position, e.allowed]).toEqual(['minute', '61', 0, '0-59']);
  });

  it('gives the position of the offending token in the text, not of the field', () => {
    const e = cronError('0  25 * * *');
    expect([e.field, e.token, e.position]).toEqual(['hour', '25', 3]);
    expect(e.allowed).toContain('0-23');
  });

  it('points inside a list at the bad item', () => {
    const e = cronError('1,2,99 * * * *');
    expect([e.field, e.token, e.position]).toEqual(['minute', '99', 4]);
  });
});

describe('wrong number of fields', () => {
  it.each([
    ['* * * *', 4],
    ['0 0 * * * *', 6],
    ['0 0 0 * * * 2026', 7],
    ['0', 1],
  ])('rejects %j (%i fields) saying zonecron expressions have 5 fields', (expression) => {
    const e = cronError(expression);
    expect(e.message).toMatch(/\b5 fields\b|\bfive fields\b/);
  });

  it('rejects a 6-field (seconds) expression with a message about 5 fields', () => {
    const e = cronError('0 30 2 * * *');
    expect(e.message).toMatch(/5 fields|five fields/);
    expect(e.message).toMatch(/6/);
  });

  it.each(['', '   ', '\t\n'])('rejects the blank expression %j', (expression) => {
    cronError(expression);
  });
});

describe('bad fields', () => {
  it.each([
    // out of range
    ['61 * * * *', 'minute'],
    ['0-60 * * * *', 'minute'],
    ['0 24 * * *', 'hour'],
    ['0 0 0 * *', 'day-of-month'],
    ['0 0 32 * *', 'day-of-month'],
    ['0 0 * 0 *', 'month'],
    ['0 0 * 13 *', 'month'],
    ['0 0 * * 8', 'day-of-week'],
    ['0 0 * * 1-8', 'day-of-week'],
    ['-1 * * * *', 'minute'],
    ['1.5 * * * *', 'minute'],
    // empty items
    ['1,,2 * * * *', 'minute'],
    ['0 1, * * *', 'hour'],
    ['0 0 ,1 * *', 'day-of-month'],
    ['0 0 * * 1,', 'day-of-week'],
    // step 0 and malformed steps
    ['*/0 * * * *', 'minute'],
    ['0 1-5/0 * * *', 'hour'],
    ['5/5/5 * * * *', 'minute'],
    ['*/ * * * *', 'minute'],
    ['*/x * * * *', 'minute'],
    ['? * * * *', 'minute'],
    // reversed ranges
    ['0 5-1 * * *', 'hour'],
    ['30-10 * * * *', 'minute'],
    ['0 0 20-10 * *', 'day-of-month'],
    ['0 0 * DEC-JAN *', 'month'],
    ['0 0 * * FRI-MON', 'day-of-week'],
    // unknown names
    ['0 0 * FOO *', 'month'],
    ['0 0 * * FUN', 'day-of-week'],
    ['0 0 * MON *', 'month'],
    ['0 0 * * JAN', 'day-of-week'],
    ['0 MON * * *', 'hour'],
    ['0 0 MONDAY * *', 'day-of-month'],
    // L, W and # in the wrong field
    ['L * * * *', 'minute'],
    ['0 L * * *', 'hour'],
    ['0 0 * L *', 'month'],
    ['0 0 5#2 * *', 'day-of-month'],
    ['0 0 5L * *', 'day-of-month'],
    ['0 0 * * 15W', 'day-of-week'],
    ['0 0 * * LW', 'day-of-week'],
    ['0 0 * * 1#6', 'day-of-week'],
    ['0 0 * * 1#0', 'day-of-week'],
    ['0 0 32W * *', 'day-of-month'],
    ['0 0 0W * *', 'day-of-month'],
    ['0 0 * * 8L', 'day-of-week'],
  ] as const)('rejects %j in the %s field', (expression, field) => {
    expectFieldError(expression, field);
  });

  it.each([
    ['H(5-1) * * * *', 'minute'],
    ['H(0-60) * * * *', 'minute'],
    ['H( * * * *', 'minute'],
    ['H(1-2 * * * *', 'minute'],
    ['H/0 * * * *', 'minute'],
    ['HH * * * *', 'minute'],
    ['0 H(0-24) * * *', 'hour'],
    ['0 0 H(0-10) * *', 'day-of-month'],
    ['0 0 * H(1-13) *', 'month'],
  ] as const)('rejects the malformed spread %j in the %s field', (expression, field) => {
    expectFieldError(expression, field, 'nightly_backup');
  });

  it.each([
    ['H * * * *', 'minute'],
    ['0 H * * *', 'hour'],
    ['H/15 * * * *', 'minute'],
    ['0 0 H(1-7) * *', 'day-of-month'],
  ] as const)('rejects %j without a job id (field %s)', (expression, field) => {
    expectFieldError(expression, field);
  });

  it('accepts H with a job id, so the errors above are about the job id', () => {
    expect(() => parseCron('H * * * *', 'nightly_backup')).not.toThrow();
    expect(() => parseCron('H(0-29)/10 H(1-5) * * *', 'nightly_backup')).not.toThrow();
  });
});

describe('expressions that can never match', () => {
  it.each([
    '0 0 30 2 *',
    '0 0 31 4 *',
    '0 0 31 4,6,9,11 *',
    '0 0 30,31 FEB *',
    '0 0 31W 4 *',
    '0 0 30W 2 *',
  ])('rejects %j', (expression) => {
    const e = cronError(expression);
    expect(['day-of-month', 'month', 'expression']).toContain(e.field);
    expect(e.message).toContain(e.allowed);
  });

  it.each([
    '0 0 29 2 *', // leap years
    '0 0 31 4 1', // the Vixie rule: every Monday in April
    '0 0 L 2 *',
    '0 0 * 2 1#5', // a fifth Monday in February: 2016-02-29
  ])('accepts %j, which matches some day', (expression) => {
    expect(() => parseCron(expression)).not.toThrow();
  });
});

describe('macros', () => {
  it.each(['@reboot', '@REBOOT'])('rejects %j, which has no meaning here', (expression) => {
    const e = cronError(expression);
    expect(e.token.toLowerCase()).toBe('@reboot');
    expect(e.position).toBe(0);
  });

  it.each(['@fortnightly', '@', '@daily 5', '@hourly * * * * *'])('rejects %j', (expression) => {
    cronError(expression);
  });
});

const berlin = (cron = '30 2 * * *'): ScheduleSpec => ({ cron, timezone: 'Europe/Berlin' });
const AFTER = new Date('2026-01-01T00:00:00Z');

describe('time zones', () => {
  it.each([
    'Mars/Olympus_Mons',
    'Europe/Berlinn',
    '+01:00',
    '-05:00',
    'UTC+1',
    'GMT+01:00',
    '',
    ' ',
  ])('rejects %j with InvalidTimeZoneError carrying the zone', (zone) => {
    const e = thrown(() => validateTimeZone(zone));
    expect(e).toBeInstanceOf(InvalidTimeZoneError);
    expect(isScheduleError(e)).toBe(true);
    expect((e as InvalidTimeZoneError).zone).toBe(zone);
    expect((e as Error).message).toContain(`'${zone}'`);

    const viaSchedule = thrown(() =>
      nextOccurrences({ cron: '0 0 * * *', timezone: zone }, AFTER, 1),
    );
    expect(viaSchedule).toBeInstanceOf(InvalidTimeZoneError);
  });

  it.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Pacific/Apia'])(
    'accepts %s',
    (zone) => {
      expect(() => validateTimeZone(zone)).not.toThrow();
    },
  );
});

describe('arguments', () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    'rejects count %d with InvalidArgumentError',
    (count) => {
      const e = thrown(() => nextOccurrences(berlin(), AFTER, count));
      expect(e).toBeInstanceOf(InvalidArgumentError);
      expect(isScheduleError(e)).toBe(true);
      expect((e as InvalidArgumentError).argument).toBe('count');
    },
  );

  it('rejects an invalid Date as "after"', () => {
    const e = thrown(() => nextOccurrences(berlin(), new Date('x'), 1));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as InvalidArgumentError).argument).toBe('after');
  });

  it.each([
    ['from', new Date('x'), new Date('2026-01-02T00:00:00Z')],
    ['to', new Date('2026-01-01T00:00:00Z'), new Date('x')],
  ] as const)('rejects an invalid Date as "%s" of occurrencesBetween', (argument, from, to) => {
    const e = thrown(() => occurrencesBetween(berlin(), from, to));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as InvalidArgumentError).argument).toBe(argument);
  });

  it('rejects an invalid Date in the lazy iterator, at the latest on the first next()', () => {
    const e = thrown(() => iterateOccurrences(berlin(), new Date('x')).next());
    expect(e).toBeInstanceOf(InvalidArgumentError);
  });

  it('rejects from > to', () => {
    const e = thrown(() =>
      occurrencesBetween(
        berlin(),
        new Date('2026-01-02T00:00:00Z'),
        new Date('2026-01-01T00:00:00Z'),
      ),
    );
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(isScheduleError(e)).toBe(true);
  });

  it('returns nothing for from = to (from < at <= to is empty)', () => {
    const at = new Date('2026-01-01T01:30:00Z');
    expect(occurrencesBetween(berlin(), at, at)).toEqual([]);
  });

  it.each([{ gap: 'later' }, { overlap: 'twice' }])('rejects the DST policy %j', (dst) => {
    const e = thrown(() =>
      nextOccurrences({ ...berlin(), dst: dst as NonNullable<ScheduleSpec['dst']> }, AFTER, 1),
    );
    expect(isScheduleError(e)).toBe(true);
  });

  it('rejects a bad expression through nextOccurrences too, with CronSyntaxError', () => {
    expect(thrown(() => nextOccurrences(berlin('0 0 31 4 *'), AFTER, 1))).toBeInstanceOf(
      CronSyntaxError,
    );
    expect(thrown(() => occurrencesBetween(berlin('H * * * *'), AFTER, AFTER))).toBeInstanceOf(
      CronSyntaxError,
    );
  });
});

describe('isScheduleError', () => {
  it.each([
    ['an Error', new Error('x')],
    ['a TypeError', new TypeError('x')],
    ["a plain object named 'ScheduleError'", { name: 'ScheduleError', message: 'x' }],
    ['null', null],
    ['undefined', undefined],
    ["the string 'ScheduleError'", 'ScheduleError'],
    ['a number', 42],
  ])('is false for %s', (_, value) => {
    expect(isScheduleError(value)).toBe(false);
  });

  it('recognises errors from a second loaded copy of the engine', async () => {
    const first = cronError('61 * * * *');
    vi.resetModules();
    const copy = (await import(
      '../../../functions/schedule/index.ts'
    )) as typeof import('../../../functions/schedule/index.ts');
    expect(copy.ScheduleError).not.toBe(ScheduleError);
    const second = thrown(() => copy.parseCron('61 * * * *'));
    expect(second).not.toBeInstanceOf(ScheduleError);
    expect(isScheduleError(second)).toBe(true);
    expect(copy.isScheduleError(first)).toBe(true);
    expect(copy.isScheduleError(new Error('x'))).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// fast-check: arbitrary input never crashes or throws anything but a ScheduleError (how long a
// parse takes is measured by `npm run bench:parse`, not asserted here)
// ---------------------------------------------------------------------------------------------

describe('parseCron on arbitrary strings', () => {
  it('throws only ScheduleErrors, with the expression, position, token and allowed values of a CronSyntaxError', () => {
    fc.assert(
      fc.property(anyCronText, optionalJobId, (text, jobId) => {
        const error = thrown(() => parseCron(text, jobId));
        if (error === undefined) return;
        expect(isScheduleError(error)).toBe(true);
        expect(error).toBeInstanceOf(ScheduleError);
        if (error instanceof CronSyntaxError) {
          expect(error.expression).toBe(text);
          expect(error.position).toBeGreaterThanOrEqual(0);
          expect(error.position).toBeLessThanOrEqual(text.length);
          expect(typeof error.token).toBe('string');
          expect(error.allowed.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('rejects non-string input with a ScheduleError, not a TypeError', () => {
    for (const value of [undefined, null, 42, {}, ['* * * * *']]) {
      const e = thrown(() => parseCron(value as unknown as string));
      expect(isScheduleError(e)).toBe(true);
    }
  });
});
