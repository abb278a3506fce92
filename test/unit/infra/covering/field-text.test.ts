import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ParsedCron, parseCron } from '../../../../functions/schedule/index.ts';
import {
  AWS_DAY_OF_WEEK_STYLE,
  AWS_STYLE,
  DAY_OF_MONTH,
  DAY_OF_WEEK,
  ENGINE_DAY_OF_WEEK_STYLE,
  ENGINE_STYLE,
  type FieldRange,
  type FieldStyle,
  fieldText,
  HOUR,
  MINUTE,
  MONTH,
} from '../../../../infra/covering/field-text.ts';

const range = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

describe('fieldText', () => {
  it.each([
    ['a full minute field', range(0, 59), MINUTE, '*', '*'],
    ['every 15 minutes', [0, 15, 30, 45], MINUTE, '*/15', '0/15'],
    ['every 15 minutes from 5', [5, 20, 35, 50], MINUTE, '5/15', '5/15'],
    ['a step that stops early', [0, 15, 30], MINUTE, '0,15,30', '0,15,30'],
    ['two hours', [0, 1], HOUR, '0,1', '0,1'],
    ['a run and a single value', [0, 1, 2, 23], HOUR, '0-2,23', '0-2,23'],
    ['every 7th day of the month', [1, 8, 15, 22, 29], DAY_OF_MONTH, '*/7', '1/7'],
    ['the end of a month', [28, 29, 30, 31], DAY_OF_MONTH, '28-31', '28-31'],
    ['a quarter', [1, 4, 7, 10], MONTH, '*/3', '1/3'],
  ])('writes %s', (_, values, field, engine, aws) => {
    expect(fieldText(new Set(values), field, ENGINE_STYLE)).toBe(engine);
    expect(fieldText(new Set(values), field, AWS_STYLE)).toBe(aws);
  });

  it.each([
    [[1, 2, 3, 4, 5], 'MON-FRI'],
    [[0, 6], 'SUN,SAT'],
    [[0, 1, 2, 3, 4], 'SUN-THU'],
    [[0, 2, 4, 6], 'SUN,TUE,THU,SAT'],
    [range(0, 6), '*'],
  ])('writes AWS days of the week %j by name', (values, text) => {
    expect(fieldText(new Set(values), DAY_OF_WEEK, AWS_DAY_OF_WEEK_STYLE)).toBe(text);
  });

  it('writes no step for engine days of the week, which would run on to 7 (Sunday)', () => {
    expect(fieldText(new Set([1, 3, 5]), DAY_OF_WEEK, ENGINE_DAY_OF_WEEK_STYLE)).toBe('1,3,5');
  });

  it('refuses an empty set', () => {
    expect(() => fieldText(new Set(), MINUTE, ENGINE_STYLE)).toThrow('cannot be empty');
  });

  const fields: [
    string,
    FieldRange,
    FieldStyle,
    number,
    (parsed: ParsedCron) => readonly number[],
  ][] = [
    ['minute', MINUTE, ENGINE_STYLE, 0, (parsed) => parsed.minutes],
    ['hour', HOUR, ENGINE_STYLE, 1, (parsed) => parsed.hours],
    ['day-of-month', DAY_OF_MONTH, ENGINE_STYLE, 2, (parsed) => parsed.daysOfMonth.values],
    ['month', MONTH, ENGINE_STYLE, 3, (parsed) => parsed.months],
    ['day-of-week', DAY_OF_WEEK, ENGINE_DAY_OF_WEEK_STYLE, 4, (parsed) => parsed.daysOfWeek.values],
  ];

  it.each(fields)(
    'writes exactly the chosen %s values, as the engine reads them',
    (_, field, style, index, read) => {
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: field.min, max: field.max }), { minLength: 1 }),
          (values) => {
            const parts = ['0', '0', '*', '*', '*'];
            parts[index] = fieldText(new Set(values), field, style);
            const engineValues = new Set(
              read(parseCron(parts.join(' '))).map((n) => (index === 4 ? n % 7 : n)),
            );
            expect([...engineValues].sort((a, b) => a - b)).toEqual(
              [...values].sort((a, b) => a - b),
            );
          },
        ),
      );
    },
  );
});
