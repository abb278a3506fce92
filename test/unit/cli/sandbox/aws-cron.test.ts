import { describe, expect, it } from 'vitest';
import { engineCronOf } from '../../../../cli/sandbox/aws-cron.ts';

describe('engineCronOf', () => {
  it.each([
    ['cron(30 0,1 * * ? *)', '30 0,1 * * ?'],
    ['cron(0/5 * * * ? *)', '0/5 * * * ?'],
    ['cron(0 9 ? * 2-6 *)', '0 9 ? * 1-5'],
    ['cron(0 9 ? * 1,7 *)', '0 9 ? * 0,6'],
    ['cron(0 9 ? * 1L *)', '0 9 ? * 0L'],
    ['cron(0 9 ? * 2#3 *)', '0 9 ? * 1#3'],
    ['cron(0 9 ? * 2-6/2 *)', '0 9 ? * 1-5/2'],
    ['cron(0 9 ? * MON-FRI *)', '0 9 ? * MON-FRI'],
    ['cron(0 9 L * ? *)', '0 9 L * ?'],
  ])('reads %s as the engine expression %s (days of the week one lower)', (aws, engine) => {
    expect(engineCronOf(aws)).toBe(engine);
  });

  it.each([
    ['rate(5 minutes)', 'it is not cron(minute hour day-of-month month day-of-week year)'],
    ['cron(0 9 * * ? 2027)', "a year ('2027') is not read"],
    ['cron(0 9 ? * 0 *)', "invalid day-of-week '0' (allowed 1-7 or SUN-SAT)"],
    ['cron(61 9 * * ? *)', "invalid value '61' for field 'minute'"],
  ])('refuses %s, saying why', (aws, reason) => {
    expect(() => engineCronOf(aws)).toThrow(`the sandbox cannot fire '${aws}': ${reason}`);
  });
});
