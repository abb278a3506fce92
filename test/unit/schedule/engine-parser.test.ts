// The parser's expansion of each field: names, ranges, steps, `?`, macros, the Vixie rule, `H`,
// and the data carried by its errors. Expected sets are written out by hand.
import { describe, expect, it } from 'vitest';
import { CronSyntaxError, isScheduleError, parseCron } from '../../../functions/schedule/index.ts';

function syntaxError(expression: string, jobId?: string): CronSyntaxError {
  try {
    parseCron(expression, jobId);
  } catch (error) {
    expect(isScheduleError(error)).toBe(true);
    expect(error).toBeInstanceOf(CronSyntaxError);
    return error as CronSyntaxError;
  }
  throw new Error(`expected '${expression}' to be rejected`);
}

describe('field expansion', () => {
  it.each([
    ['*/20 * * * *', 'minutes', [0, 20, 40]],
    ['5-20/5 * * * *', 'minutes', [5, 10, 15, 20]],
    ['50/3 * * * *', 'minutes', [50, 53, 56, 59]],
    ['1,2,2,1 * * * *', 'minutes', [1, 2]],
    ['0 */6 * * *', 'hours', [0, 6, 12, 18]],
    ['0 0 * jan-MAR,Dec *', 'months', [1, 2, 3, 12]],
    ['0 0 * */4 *', 'months', [1, 5, 9]],
  ] as const)('expands %j into %s %j', (expression, key, expected) => {
    expect(parseCron(expression)[key]).toEqual(expected);
  });

  it.each([
    ['MON-FRI', [1, 2, 3, 4, 5]],
    ['FRI-SUN', [0, 5, 6]], // SUN ending a range is 7
    ['1/2', [0, 1, 3, 5]], // Mon, Wed, Fri and 7 = Sun
    ['7', [0]],
    ['0,7', [0]],
    ['*/3', [0, 3, 6]],
    ['sun', [0]],
  ])('reads day-of-week %j as weekdays %j', (field, expected) => {
    expect(parseCron(`0 0 * * ${field}`).daysOfWeek.values).toEqual(expected);
  });

  it('reads ? as * in both day fields', () => {
    const parsed = parseCron('0 0 ? * ?');
    expect(parsed.daysOfMonth.values).toHaveLength(31);
    expect(parsed.daysOfWeek.values).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it.each([
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@MONTHLY', '0 0 1 * *'],
    ['@weekly', '0 0 * * 0'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@hourly', '0 * * * *'],
  ])('expands the macro %s to %j', (macro, fields) => {
    expect(parseCron(macro).fields.join(' ')).toBe(fields);
  });

  it('keeps the extensions apart from plain values', () => {
    const parsed = parseCron('0 0 L,LW,15W,3 * *');
    expect(parsed.daysOfMonth).toEqual({
      values: [3],
      last: true,
      lastWeekday: true,
      nearestWeekday: [15],
    });
    expect(parseCron('0 0 * * FRIL,1#2,mon#4').daysOfWeek).toEqual({
      values: [],
      last: [5],
      nth: [
        { weekday: 1, nth: 2 },
        { weekday: 1, nth: 4 },
      ],
    });
  });
});

describe('the Vixie day rule', () => {
  it.each([
    ['0 0 1 * 0', 'or'],
    ['0 0 1-7 * MON', 'or'],
    ['0 0 L * 5L', 'or'],
    ['0 0 */2 * 1', 'and'], // day-of-month text starts with *
    ['0 0 ? * 1', 'and'],
    ['0 0 1 * *', 'and'],
    ['0 0 1 * */2', 'and'],
    ['0 0 1 * ?', 'and'],
  ] as const)('combines the day fields of %j with %s', (expression, rule) => {
    expect(parseCron(expression).dayRule).toBe(rule);
  });
});

describe('H (spread)', () => {
  const fields = (expression: string, jobId: string) => parseCron(expression, jobId);

  it('is stable per job id and independent per field', () => {
    const a = fields('H H H H H', 'nightly_backup');
    expect(fields('H H H H H', 'nightly_backup')).toEqual(a);
    const values = [
      a.minutes[0],
      a.hours[0],
      a.daysOfMonth.values[0],
      a.months[0],
      a.daysOfWeek.values[0],
    ];
    expect(values.every((v) => typeof v === 'number')).toBe(true);
    // Over many ids, the minute and the hour would be tied if the field were not mixed in.
    let same = 0;
    for (let i = 0; i < 200; i++) {
      const parsed = fields('H H * * *', `job-${i}`);
      if (parsed.minutes[0] === parsed.hours[0]) same++;
    }
    expect(same).toBeLessThan(40);
  });

  it('keeps H inside its bounds: day-of-month 1-28, day-of-week 0-6, H(a-b) inside a-b', () => {
    for (let i = 0; i < 300; i++) {
      const parsed = fields('H(10-14) H * * H', `id-${i}`);
      expect(parsed.minutes[0]).toBeGreaterThanOrEqual(10);
      expect(parsed.minutes[0]).toBeLessThanOrEqual(14);
      const dom = fields('0 0 H * *', `id-${i}`).daysOfMonth.values[0] as number;
      expect(dom).toBeGreaterThanOrEqual(1);
      expect(dom).toBeLessThanOrEqual(28);
      expect(parsed.daysOfWeek.values[0]).toBeLessThanOrEqual(6);
    }
  });

  it('steps H/n from an offset below n through the whole field', () => {
    const minutes = fields('H/15 * * * *', 'nightly_backup').minutes;
    expect(minutes).toHaveLength(4);
    const offset = minutes[0] as number;
    expect(offset).toBeLessThan(15);
    expect(minutes).toEqual([offset, offset + 15, offset + 30, offset + 45]);
    const ranged = fields('H(30-59)/10 * * * *', 'nightly_backup').minutes;
    const start = ranged[0] as number;
    expect(start).toBeGreaterThanOrEqual(30);
    expect(start).toBeLessThan(40);
    expect(ranged).toEqual([start, start + 10, start + 20].filter((m) => m <= 59));
  });

  it('uses one fixed hash forever: fmix32(FNV-1a("<jobId>:<field index>"))', () => {
    // An independent implementation of the documented hash: if the engine's ever changes,
    // every H job would move on the next deployment, and this test fails.
    const hash = (text: string): number => {
      let h = 0x811c9dc5;
      for (const byte of Buffer.from(text, 'utf8')) h = Math.imul(h ^ byte, 0x01000193);
      h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
      h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
      return (h ^ (h >>> 16)) >>> 0;
    };
    for (const id of ['a', 'job-42', 'nightly_backup', 'ünïcødé']) {
      const parsed = fields('H H H H H', id);
      expect([
        parsed.minutes,
        parsed.hours,
        parsed.daysOfMonth.values,
        parsed.months,
        parsed.daysOfWeek.values,
      ]).toEqual([
        [hash(`${id}:0`) % 60],
        [hash(`${id}:1`) % 24],
        [1 + (hash(`${id}:2`) % 28)],
        [1 + (hash(`${id}:3`) % 12)],
        [hash(`${id}:4`) % 7],
      ]);
    }
  });
});

describe('errors', () => {
  it.each([
    ['0 25 * * *', 'hour', '25', 2, '0-23'],
    ['0  0 32 * *', 'day-of-month', '32', 5, '1-31'],
    ['0 0 * * 1-3,MON-FRX', 'day-of-week', 'FRX', 16, '0-7 or sun-sat'],
    ['*/0 * * * *', 'minute', '0', 2, '1-59'],
    ['0 0 * */12 *', 'month', '12', 8, '1-11'],
    ['0 0 1#2 * *', 'day-of-month', '1#2', 4, '1-31; dL and d#k belong to day-of-week'],
    ['0 0 * * 3#9', 'day-of-week', '9', 10, '1-5 after #'],
  ] as const)(
    'reports %j as field %s, token %j at character %i, allowed %j',
    (expression, field, token, position, allowed) => {
      const error = syntaxError(expression);
      expect([error.field, error.token, error.position, error.allowed]).toEqual([
        field,
        token,
        position,
        allowed,
      ]);
      expect(error.message).toBe(
        `invalid ${field === 'minute' || field === 'month' ? 'step' : 'value'} '${token}' for field '${field}' at position ${position} (allowed ${allowed})`,
      );
      expect(error.expression).toBe(expression);
      expect(error.name).toBe('CronSyntaxError');
    },
  );

  it('tells a 6-field expression that zonecron expressions have 5 fields', () => {
    const error = syntaxError('0 30 2 * * *');
    expect(error.message).toBe(
      'expected 5 fields but got 6 at position 11: zonecron expressions have 5 fields (minute hour day-of-month month day-of-week), without seconds or year fields',
    );
    expect([error.field, error.token, error.position]).toEqual(['expression', '*', 11]);
  });

  it.each([
    ['0 0 30 2 *', '30'],
    ['0 0 31 4,6,9,11 *', '31'],
    ['0 0 31W 4 *', '31W'],
    ['0 0 */10 2 MON#5', '*/10'], // AND: only 1, 11, 21 are allowed, a fifth Monday is the 29th
  ])('rejects %j, which can never match a day', (expression, token) => {
    const error = syntaxError(expression);
    expect([error.field, error.token]).toEqual(['day-of-month', token]);
    expect(error.message).toMatch(/^expression can never match: /);
  });

  it.each(['0 0 29 2 *', '0 0 * 2 5#5', '0 0 L 2 *', '0 0 31 4 MON'])(
    'accepts %j, which matches some day',
    (expression) => {
      expect(() => parseCron(expression)).not.toThrow();
    },
  );

  it('rejects an H step wider than the range H chooses from (1-28 in day-of-month)', () => {
    const error = syntaxError('0 0 H/29 * *', 'nightly_backup');
    expect([error.field, error.token, error.position, error.allowed]).toEqual([
      'day-of-month',
      'H/29',
      4,
      '1-28',
    ]);
    expect(error.message).toBe(
      "invalid step in 'H/29' for field 'day-of-month' at position 4 (allowed 1-28)",
    );
  });

  it('needs a job id for H, and names the H token', () => {
    const error = syntaxError('0 H(1-5) * * *');
    expect([error.field, error.token, error.position]).toEqual(['hour', 'H(1-5)', 2]);
    expect(error.message).toContain('needs a job id');
  });
});
