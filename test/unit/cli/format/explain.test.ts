import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { explainCron } from '../../../../cli/format/explain.ts';
import { CronSyntaxError, parseCron } from '../../../../functions/schedule/index.ts';

const HASHED = " (H: picked by the job id's hash, fixed for each job)";
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** What the engine's `H` picks for a job id: the reference the sentence must agree with. */
const backup = parseCron('H H * * H', 'nightly_backup');
const minute = String(backup.minutes[0]);
const hour = String(backup.hours[0]).padStart(2, '0');
const quarterHours = parseCron('H/15 * * * *', 'nightly_backup').minutes;

describe('explainCron', () => {
  it.each([
    // times of day
    { expression: '30 2 * * *', sentence: 'at 02:30 every day' },
    { expression: '0 9,17 * * *', sentence: 'at 09:00 and 17:00 every day' },
    { expression: '* * * * *', sentence: 'every minute' },
    { expression: '*/15 * * * *', sentence: 'every 15 minutes' },
    { expression: '5/10 * * * *', sentence: 'every 10 minutes from minute 5' },
    {
      expression: '*/7 * * * *',
      sentence: 'every 7 minutes from minute 0 through 56 of every hour',
    },
    { expression: '0 * * * *', sentence: 'every hour at minute 0' },
    { expression: '0,30 * * * *', sentence: 'every hour at minutes 0 and 30' },
    {
      expression: '10-20 * * * *',
      sentence: 'every minute from minute 10 through 20 of every hour',
    },
    { expression: '0 */2 * * *', sentence: 'every 2 hours from 00:00' },
    { expression: '30 1/6 * * *', sentence: 'every 6 hours from 01:30' },
    { expression: '0 9-17/2 * * *', sentence: 'every 2 hours from 09:00 through 17:00 every day' },
    { expression: '0 9-17 * * *', sentence: 'every hour from 09:00 through 17:00 every day' },
    {
      expression: '0,30 9-17 * * *',
      sentence: 'at minutes 0 and 30 of hours 09 through 17 every day',
    },
    { expression: '* 9 * * *', sentence: 'every minute from 09:00 through 09:59 every day' },
    {
      expression: '*/15 9-17 * * 1-5',
      sentence: 'every 15 minutes from 09:00 through 17:45 on Monday through Friday',
    },
    // days of the week
    { expression: '0 9 * * 1-5', sentence: 'at 09:00 on Monday through Friday' },
    { expression: '0 9 ? * MON', sentence: 'at 09:00 on Monday' },
    { expression: '0 0 * * FRI-SUN', sentence: 'at 00:00 on Friday through Sunday' },
    { expression: '0 12 * * 0,7', sentence: 'at 12:00 on Sunday' },
    {
      expression: '0 0 * * */2',
      sentence: 'at 00:00 on Sunday, Tuesday, Thursday and Saturday',
    },
    { expression: '0 9 * * 5L', sentence: 'at 09:00 on the last Friday of the month' },
    { expression: '0 9 * * FRI#3', sentence: 'at 09:00 on the third Friday of the month' },
    // days of the month
    { expression: '0 0 1,15 * *', sentence: 'at 00:00 on the 1st and 15th of the month' },
    { expression: '0 0 1-7 * *', sentence: 'at 00:00 on the 1st through 7th of the month' },
    { expression: '0 22 L * *', sentence: 'at 22:00 on the last day of the month' },
    {
      expression: '0 9 LW * *',
      sentence: 'at 09:00 on the last weekday (Mon–Fri) of the month',
    },
    {
      expression: '0 9 15W * *',
      sentence: 'at 09:00 on the weekday nearest the 15th of the month',
    },
    {
      expression: '0 0 1,15,L * *',
      sentence: 'at 00:00 on the 1st, the 15th and the last day of the month',
    },
    // both day fields: OR when both are restricted, AND when one starts with *
    {
      expression: '0 0 13 * FRI',
      sentence: 'at 00:00 on the 13th of the month or on Friday (either matches)',
    },
    {
      expression: '0 0 1/1 * MON',
      sentence: 'at 00:00 on every day of the month or on Monday (either matches)',
    },
    {
      expression: '0 0 */2 * 1',
      sentence: 'at 00:00 on odd-numbered days of the month that fall on Monday',
    },
    // months
    { expression: '0 0 * JAN-MAR *', sentence: 'at 00:00 every day in January through March' },
    { expression: '0 0 L 2 *', sentence: 'at 00:00 on the last day of February' },
    {
      expression: '0 0 1 */3 *',
      sentence: 'at 00:00 on the 1st of January, April, July and October',
    },
    { expression: '0 0 * 3 FRI#3', sentence: 'at 00:00 on the third Friday of March' },
    {
      expression: '0 0 13 3 FRI',
      sentence: 'at 00:00 on the 13th of the month or on Friday (either matches), in March',
    },
    // macros
    { expression: '@yearly', sentence: 'at 00:00 on the 1st of January' },
    { expression: '@annually', sentence: 'at 00:00 on the 1st of January' },
    { expression: '@monthly', sentence: 'at 00:00 on the 1st of the month' },
    { expression: '@weekly', sentence: 'at 00:00 on Sunday' },
    { expression: '@daily', sentence: 'at 00:00 every day' },
    { expression: '@midnight', sentence: 'at 00:00 every day' },
    { expression: '@hourly', sentence: 'every hour at minute 0' },
    // H without a job id: what the hash chooses from
    {
      expression: 'H 3 * * *',
      sentence: `at one minute between 03:00 and 03:59 every day${HASHED}`,
    },
    {
      expression: 'H(0-29) 1 * * *',
      sentence: `at one minute between 01:00 and 01:29 every day${HASHED}`,
    },
    { expression: 'H H * * *', sentence: `at one time of day every day${HASHED}` },
    { expression: 'H/15 * * * *', sentence: `every 15 minutes from a minute below 15${HASHED}` },
    {
      expression: '0 0 H * *',
      sentence: `at 00:00 on one day from the 1st through 28th of the month${HASHED}`,
    },
    { expression: '0 0 * H *', sentence: `at 00:00 every day in one month${HASHED}` },
  ])('says $expression as "$sentence"', ({ expression, sentence }) => {
    expect(explainCron(expression)).toBe(sentence);
  });

  it.each([
    {
      expression: 'H 3 * * *',
      sentence: `at 03:${minute.padStart(2, '0')} every day (H: minute ${minute}, picked by the hash of job id 'nightly_backup')`,
    },
    {
      expression: 'H H * * *',
      sentence: `at ${hour}:${minute.padStart(2, '0')} every day (H: minute ${minute} and hour ${Number(hour)}, picked by the hash of job id 'nightly_backup')`,
    },
    {
      expression: 'H/15 * * * *',
      sentence: `every 15 minutes${quarterHours[0] === 0 ? '' : ` from minute ${quarterHours[0]}`} (H: minutes ${quarterHours.slice(0, -1).join(', ')} and ${quarterHours.at(-1)}, picked by the hash of job id 'nightly_backup')`,
    },
    {
      expression: '0 9 * * H',
      sentence: `at 09:00 on ${WEEKDAYS[backup.daysOfWeek.values[0] ?? -1]} (H: ${WEEKDAYS[backup.daysOfWeek.values[0] ?? -1]}, picked by the hash of job id 'nightly_backup')`,
    },
  ])('names what H picks in $expression for a job id', ({ expression, sentence }) => {
    expect(explainCron(expression, { jobId: 'nightly_backup' })).toBe(sentence);
  });

  it("throws the engine's CronSyntaxError for an invalid expression", () => {
    expect(() => explainCron('61 2 * * *')).toThrow(CronSyntaxError);
    expect(() => explainCron('61 2 * * *')).toThrow(
      "invalid value '61' for field 'minute' at position 0 (allowed 0-59)",
    );
  });

  it('says "either matches" exactly when the engine combines the day fields with OR', () => {
    const dayOfMonth = fc.constantFrom('*', '?', '1', '1-7', '*/2', '1/1', 'L', 'LW', '15W', '13');
    const dayOfWeek = fc.constantFrom('*', '?', 'MON', '1-5', '*/2', 'FRI#3', '5L', '0,6');
    fc.assert(
      fc.property(dayOfMonth, dayOfWeek, (dom, dow) => {
        const expression = `0 0 ${dom} * ${dow}`;
        const either = explainCron(expression).includes('(either matches)');
        expect(either).toBe(parseCron(expression).dayRule === 'or');
      }),
    );
  });
});
