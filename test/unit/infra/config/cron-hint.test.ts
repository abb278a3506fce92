import { describe, expect, it } from 'vitest';
import { cronHint, withCronHint } from '../../../../infra/config/cron-hint.ts';

const AWS = 'it looks like an AWS EventBridge expression (year last, weekdays 1=SUN-7=SAT)';
const QUARTZ = 'it looks like a Quartz expression (seconds first, weekdays 1=SUN-7=SAT)';
const SECONDS = 'it looks like an expression with seconds first';

const RATE = "rate(…) is AWS EventBridge Scheduler's rate expression, not cron";

describe('cronHint for EventBridge Scheduler rate(…) and at(…)', () => {
  it.each([
    ['rate(5 minutes)', '*/5 * * * *'],
    ['rate(1 minute)', '* * * * *'],
    ['rate(6 hours)', '0 */6 * * *'],
    ['rate(1 day)', '0 0 * * *'],
  ])('says %s is not cron and writes it as %s', (expression, to) => {
    expect(cronHint(expression)).toEqual({
      style: 'rate',
      suggestion: to,
      text: `${RATE}: write it as \`${to}\``,
    });
  });

  it('says a rate that no cron step matches has no cron form', () => {
    expect(cronHint('rate(7 minutes)')?.text).toBe(
      `${RATE}, but every 7 minutes has no cron form: cron steps restart each hour; pick a step that divides 60`,
    );
  });

  it('says at(…) is one-time, and gives the yearly expression of its local time', () => {
    expect(cronHint('at(2026-12-02T09:30:00)')).toEqual({
      style: 'at',
      text: "at(…) is AWS EventBridge Scheduler's one-time schedule, not cron: zonecron schedules repeat, so write a five-field cron expression; `30 9 2 12 *` runs at that local time every year (set enabled: false after it ran), or run a job once by hand with zonecron run <jobId>",
    });
  });
});

describe('cronHint', () => {
  it.each([
    { name: 'an AWS cron(…)', expression: 'cron(30 2 * * ? *)', style: 'aws', to: '30 2 * * *' },
    {
      name: 'AWS fields without cron(…)',
      expression: '30 2 * * ? *',
      style: 'aws',
      to: '30 2 * * *',
    },
    {
      name: 'AWS weekday numbers',
      expression: 'cron(0 9 ? * 2-6 *)',
      style: 'aws',
      to: '0 9 * * 1-5',
    },
    { name: 'an AWS d#k', expression: '0 9 ? * 6#3 *', style: 'aws', to: '0 9 * * 5#3' },
    { name: 'an AWS dL', expression: '0 9 ? * 6L *', style: 'aws', to: '0 9 * * 5L' },
    { name: 'an AWS L in day-of-month', expression: '0 9 L * ? *', style: 'aws', to: '0 9 L * *' },
    {
      name: 'AWS L alone in day-of-week (Saturday)',
      expression: '0 9 ? * L *',
      style: 'aws',
      to: '0 9 * * SAT',
    },
    // zonecron's open steps run to 7 (Sunday again), so a/n gets an end of 6
    {
      name: 'an AWS weekday step a/n',
      expression: '0 9 ? * 2/2 *',
      style: 'aws',
      to: '0 9 * * 1-6/2',
    },
    {
      name: 'an AWS weekday step */n',
      expression: '0 9 ? * */2 *',
      style: 'aws',
      to: '0 9 * * */2',
    },
    { name: 'seconds first', expression: '0 30 2 * * *', style: 'seconds', to: '30 2 * * *' },
    {
      name: 'seconds first with Unix weekdays',
      expression: '0 0 9 * * 1-5',
      style: 'seconds',
      to: '0 9 * * 1-5',
    },
    {
      name: 'Quartz with a year',
      expression: '0 0 12 ? * MON-FRI *',
      style: 'quartz',
      to: '0 12 * * MON-FRI',
    },
    {
      name: 'Quartz weekday numbers',
      expression: '0 0 12 ? * 2-6 *',
      style: 'quartz',
      to: '0 12 * * 1-5',
    },
    {
      name: 'Quartz without a year, named weekdays',
      expression: '0 0 12 ? * MON-FRI',
      style: 'quartz',
      to: '0 12 * * MON-FRI',
    },
  ])('suggests the five fields for $name', ({ expression, style, to }) => {
    const hint = cronHint(expression);
    expect(hint?.style).toBe(style);
    expect(hint?.suggestion).toBe(to);
    expect(hint?.text).toMatch(new RegExp(` \`${to.replace(/[*?]/g, '\\$&')}\`$`));
  });

  it.each([
    {
      name: 'seconds other than 0',
      expression: '15 30 2 * * *',
      text: `${SECONDS}, but second '15' cannot be kept: zonecron runs at whole minutes`,
    },
    {
      name: 'a year other than *',
      expression: '30 2 * * ? 2027',
      text: `${AWS}, but AWS cron has 6 fields and zonecron's 5, with no year: year '2027' cannot be kept; write \`30 2 * * *\`, which runs every year (set enabled: false once 2027 is over)`,
    },
    {
      name: 'six Quartz/Spring fields with numbered weekdays',
      expression: '0 0 12 ? * 2-6',
      text: `${QUARTZ}, but weekday numbers mean other days in Quartz (1=SUN) than in Spring (0=SUN): write weekdays as names (SUN-SAT)`,
    },
    {
      name: 'an AWS L-n, which zonecron does not have',
      expression: '0 9 L-2 * ? *',
      text: `${AWS}, but its five-field form \`0 9 L-2 * *\` is not valid in zonecron`,
    },
    {
      name: 'cron(…) with 7 fields',
      expression: 'cron(0 9 * * ? * *)',
      text: `${AWS}, which has 6 fields, not 7`,
    },
  ])('says why there is no five-field form for $name', ({ expression, text }) => {
    const hint = cronHint(expression);
    expect(hint?.suggestion).toBeUndefined();
    expect(hint?.text).toBe(text);
  });

  it('tells a five-field expression with ? that zonecron counts weekdays from 0=SUN', () => {
    expect(cronHint('0 9 ? * 2-6')).toEqual({
      style: 'weekday-numbers',
      text: "day-of-week '2-6' counts weekdays from 0=SUN here, not from 1=SUN as in AWS and Quartz; names (SUN-SAT) avoid the doubt",
    });
  });

  it.each([
    ['an out-of-range value', '61 2 * * *'],
    ['an ordinary five-field expression', '30 2 * * *'],
    ['? without numbered weekdays', '30 2 * * ?'],
    ['a macro', '@daily'],
    ['four fields', '30 2 * *'],
    ['eight fields', '0 0 0 * * * * *'],
    ['an empty expression', ''],
  ])('gives no hint for %s', (_name, expression) => {
    expect(cronHint(expression)).toBeUndefined();
  });
});

describe('withCronHint', () => {
  it('appends the hint after the message', () => {
    expect(withCronHint('expected 5 fields but got 6', 'cron(30 2 * * ? *)')).toBe(
      `expected 5 fields but got 6; ${AWS}: write it as \`30 2 * * *\``,
    );
  });

  it('leaves the message alone when there is no hint', () => {
    expect(withCronHint('invalid value', '61 2 * * *')).toBe('invalid value');
  });
});
