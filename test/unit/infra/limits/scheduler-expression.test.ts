import { describe, expect, it } from 'vitest';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';
import { coveringSchedule } from '../../../../infra/covering/covering-cron.ts';
import { schedulerExpressionProblem } from '../../../../infra/limits/scheduler-expression.ts';
import { generateJobsYaml } from '../../../../scripts/generate-jobs.ts';

describe('EventBridge Scheduler cron syntax', () => {
  it.each([
    'cron(30 0,1 * * ? *)',
    'cron(0/15 * * * ? *)',
    'cron(0 13,14 ? * MON-FRI *)',
    'cron(0 13 L * ? *)',
    'cron(45 6,7 1,27-31 * ? *)',
    'cron(0 11 ? * 2#1 *)',
    'cron(0 9 15W * ? *)',
    'cron(0 9 ? * 6L *)',
    'cron(* * * * ? *)',
    'cron(0 12 29 FEB ? 2028)',
    'rate(5 minutes)',
    'at(2027-03-28T01:30:00)',
  ])('accepts %s', (expression) => {
    expect(schedulerExpressionProblem(expression)).toBeUndefined();
  });

  it.each([
    [
      'cron(30 0,1 * * * *)',
      "exactly one of day-of-month and day-of-week must be '?', got '*' and '*'",
    ],
    [
      'cron(30 0,1 ? * ? *)',
      "exactly one of day-of-month and day-of-week must be '?', got '?' and '?'",
    ],
    [
      'cron(30 0,1 * * ?)',
      'expected 6 fields (minutes hours day-of-month month day-of-week year), got 5',
    ],
    ['cron(60 0 * * ? *)', "invalid item '60' in field minutes"],
    ['cron(*/15 * * * ? *)', "invalid item '*/15' in field minutes"],
    ['cron(0 0 ? * 0 *)', "invalid item '0' in field day-of-week"],
    ['cron(0 0 ? * 1#6 *)', "invalid item '1#6' in field day-of-week"],
    ['cron(0 0 L,15 * ? *)', "'L' in field day-of-month cannot be part of a list"],
    ['30 2 * * *', 'expected cron(...), rate(...) or at(...)'],
  ])('refuses %s: %s', (expression, problem) => {
    expect(schedulerExpressionProblem(expression)).toContain(problem);
  });

  it('accepts the covering expression of every generated job form', () => {
    const config = parseJobsConfig(generateJobsYaml({ count: 300, seed: 3 }), 'generated.yaml');
    const from = new Date('2026-11-29T00:00:00.000Z');
    const refused = config.jobs
      .filter((job) => job.enabled)
      .map((job) => coveringSchedule(job, from).awsExpression)
      .filter((expression) => schedulerExpressionProblem(expression) !== undefined);
    expect(refused).toEqual([]);
  });
});
