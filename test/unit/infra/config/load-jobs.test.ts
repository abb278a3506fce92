import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { JobDefinition } from '#jobs/job.ts';
import {
  ConfigError,
  type ConfigIssue,
  loadJobsFile,
  parseJobsConfig,
} from '../../../../infra/config/load-jobs.ts';
import { issuesOf, thrownIssues } from './config-issues.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const fixture = (name: string) => `${root}test/fixtures/jobs/${name}`;

/** Strips the indentation of the first line from every line, so YAML can sit inside a test. */
function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings }, ...values).replace(/^\n/, '');
  const indent = /^ */.exec(text)?.[0].length ?? 0;
  return text
    .split('\n')
    .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
    .join('\n');
}

/** A valid job; `extra` lines are appended at the job's indentation (lines 8 onwards). */
function oneJob(
  extra = '',
  fields: Partial<Record<'id' | 'schedule' | 'timezone' | 'type' | 'arn', string>> = {},
) {
  const lines = [
    'jobs:',
    `  - id: ${fields.id ?? 'nightly'}`,
    '    description: Nightly report',
    `    schedule: '${fields.schedule ?? '30 2 * * *'}'`,
    `    timezone: ${fields.timezone ?? 'Europe/Berlin'}`,
    '    target:',
    `      type: ${fields.type ?? 'lambda'}`,
    `      arn: ${fields.arn ?? 'arn:aws:lambda:eu-west-1:123456789012:function:report'}`,
  ];
  if (extra !== '') lines.push(...extra.split('\n').map((line) => `    ${line}`));
  return `${lines.join('\n')}\n`;
}

describe('loading a valid file', () => {
  it('applies every built-in default to a job that sets only the required fields', () => {
    const config = loadJobsFile(fixture('minimal.yaml'));
    const expected: JobDefinition = {
      id: 'nightly',
      description: 'Nightly report',
      schedule: '30 2 * * *',
      timezone: 'Europe/Berlin',
      target: { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:report' },
      payload: null,
      catchup: { policy: 'all', windowSeconds: 86_400, maxRuns: 100 },
      retry: { maxAttempts: 3 },
      concurrency: 'allow',
      maxRuntimeSeconds: 3_600,
      enabled: true,
      alarm: { graceSeconds: 300, dedicated: false },
    };
    expect(config).toEqual({
      file: fixture('minimal.yaml'),
      jobs: [expected],
      warnings: [],
      alarmEmails: [],
      retentionDays: 35,
      completion: { lambdaInvokeConfig: 'create', existingInvokeConfigs: [] },
    });
  });

  it('loads the example jobs.yaml with its defaults merged key by key', () => {
    const config = loadJobsFile(`${root}jobs.yaml`);
    expect(config.jobs.map((job) => job.id)).toEqual([
      'berlin-nightly-report',
      'ny-billing-sync',
      'sydney-backup',
      'cache-warmup',
      'month-end-close',
      'kathmandu-etl',
      'berlin-export',
      'berlin-payroll',
    ]);
    expect(new Set(config.jobs.map((job) => job.target.type))).toEqual(
      new Set(['lambda', 'sqs', 'sns', 'eventbridge', 'stepfunctions']),
    );
    expect(config.alarmEmails).toEqual(['oncall@example.com']);
    expect(config.retentionDays).toBe(35);
    const byId = new Map(config.jobs.map((job) => [job.id, job]));
    // policy from the job, window and maxRuns from the file's defaults
    expect(byId.get('ny-billing-sync')?.catchup).toEqual({
      policy: 'latest',
      windowSeconds: 21_600,
      maxRuns: 10,
    });
    expect(byId.get('ny-billing-sync')?.payload).toBeNull();
    expect(byId.get('sydney-backup')?.dst).toEqual({ gap: 'shift', overlap: 'last' });
    expect(byId.get('sydney-backup')?.alarm).toEqual({ graceSeconds: 1_800, dedicated: false });
    expect(byId.get('berlin-nightly-report')?.alarm).toEqual({
      graceSeconds: 600,
      dedicated: false,
    });
    expect(byId.get('berlin-nightly-report')?.maxRuntimeSeconds).toBe(1_800);
    expect(byId.get('berlin-nightly-report')?.dst).toBeUndefined();
    expect(byId.get('cache-warmup')?.payload).toEqual({ action: 'warm', regions: ['uk'] });
  });

  it('merges nested defaults per key and replaces a payload whole', () => {
    const config = parseJobsConfig(
      yaml`
        defaults:
          dst: { gap: skip }
          catchup: { window: 2h, maxRuns: 4 }
          alarm: { grace: 2m }
          payload: { a: 1, b: 2 }
          enabled: false
        retention: { days: 7 }
        alarms: { email: [a@example.com, b@example.org] }
        jobs:
          - id: j1
            description: d
            schedule: '0 3 * * *'
            timezone: Europe/Paris
            dst: { overlap: last }
            catchup: { policy: none }
            payload: { c: 3 }
            target: { type: sns, arn: 'arn:aws-cn:sns:cn-north-1:123456789012:topic.fifo' }
      `,
      'inline.yaml',
    );
    expect(config.file).toBe('inline.yaml');
    expect(config.retentionDays).toBe(7);
    expect(config.alarmEmails).toEqual(['a@example.com', 'b@example.org']);
    const [job] = config.jobs;
    expect(job?.dst).toEqual({ gap: 'skip', overlap: 'last' });
    expect(job?.catchup).toEqual({ policy: 'none', windowSeconds: 7_200, maxRuns: 4 });
    expect(job?.alarm).toEqual({ graceSeconds: 120, dedicated: false });
    expect(job?.payload).toEqual({ c: 3 });
    expect(job?.enabled).toBe(false);
  });

  it.each([
    ['lambda', 'arn:aws:lambda:eu-west-1:123456789012:function:report'],
    ['lambda', 'arn:aws:lambda:eu-west-1:123456789012:function:report:live'],
    ['lambda', 'arn:aws:lambda:us-east-1:123456789012:function:report:$LATEST'],
    ['lambda', 'arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:report:7'],
    ['sqs', 'arn:aws:sqs:eu-west-1:123456789012:billing'],
    ['sqs', 'arn:aws:sqs:eu-west-1:123456789012:billing.fifo'],
    ['sns', 'arn:aws:sns:eu-west-1:123456789012:alerts'],
    ['eventbridge', 'arn:aws:events:eu-west-1:123456789012:event-bus/default'],
    ['stepfunctions', 'arn:aws:states:eu-west-1:123456789012:stateMachine:backup'],
  ])('accepts a %s target with ARN %s', (type, arn) => {
    const config = parseJobsConfig(oneJob('', { type, arn }), 'jobs.yaml');
    expect(config.jobs[0]?.target).toEqual({ type, arn });
  });
});

describe('reporting problems', () => {
  it('names file, line, column, job and field of an unknown target type, and what is allowed', () => {
    expect(issuesOf(oneJob('', { type: 'lamda' }))).toEqual([
      {
        file: 'jobs.yaml',
        line: 7,
        column: 13,
        jobId: 'nightly',
        field: 'target.type',
        message: "must be one of lambda, sqs, sns, eventbridge, stepfunctions, got 'lamda'",
        code: 'invalid-value',
      },
    ]);
  });

  it('points at a mistyped key, suggests the right one, and reports the field it left missing', () => {
    const text = oneJob('', {}).replace(
      '    timezone: Europe/Berlin',
      '    timezon: Europe/Berlin',
    );
    expect(issuesOf(text)).toEqual([
      {
        file: 'jobs.yaml',
        line: 2,
        column: 5,
        jobId: 'nightly',
        field: 'timezone',
        message: "missing (expected an IANA zone name like 'Europe/Berlin')",
        code: 'missing-field',
      },
      {
        file: 'jobs.yaml',
        line: 5,
        column: 5,
        jobId: 'nightly',
        field: 'timezon',
        message:
          "unknown field 'timezon'; did you mean 'timezone'? (allowed: id, description, schedule, timezone, dst, target, payload, catchup, retry, concurrency, maxRuntime, enabled, alarm, calendar, deadline, from, until, at)",
        code: 'unknown-field',
      },
    ]);
  });

  it.each([
    [
      'another service',
      'arn:aws:sqs:eu-west-1:123456789012:q',
      "a 'lambda' target needs a Lambda function ARN (arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER]), got an 'sqs' ARN",
    ],
    [
      'an 11-digit account',
      'arn:aws:lambda:eu-west-1:12345678901:function:report',
      'expected an ARN like arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER] (partition aws, aws-cn or aws-us-gov, a region, a 12-digit account), got',
    ],
    [
      'an unknown partition',
      'arn:azure:lambda:eu-west-1:123456789012:function:report',
      'partition aws, aws-cn or aws-us-gov',
    ],
    [
      'a layer instead of a function',
      'arn:aws:lambda:eu-west-1:123456789012:layer:report',
      "'arn:aws:lambda:eu-west-1:123456789012:layer:report' is not a Lambda function ARN (expected arn:aws:lambda:REGION:ACCOUNT:function:NAME[:QUALIFIER])",
    ],
  ])('rejects a lambda ARN with %s', (_, arn, message) => {
    const [issue, ...rest] = issuesOf(oneJob('', { arn }));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ line: 8, column: 12, jobId: 'nightly', field: 'target.arn' });
    expect(issue?.message).toContain(message);
  });

  it.each([
    ['sqs', 'arn:aws:sqs:eu-west-1:123456789012:a.b'],
    ['eventbridge', 'arn:aws:events:eu-west-1:123456789012:rule/nightly'],
    ['stepfunctions', 'arn:aws:states:eu-west-1:123456789012:execution:m:e'],
    ['sns', 'arn:aws:sns:eu-west-1:123456789012:a/b'],
  ])('rejects a %s target whose resource is not one (%s)', (type, arn) => {
    const [issue, ...rest] = issuesOf(oneJob('', { type, arn }));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ line: 8, field: 'target.arn' });
    expect(issue?.message).toMatch(/^'arn:aws:.*' is not an? .* ARN \(expected arn:aws:/);
  });

  it("includes the engine's message for a bad schedule", () => {
    const [issue, ...rest] = issuesOf(oneJob('', { schedule: '61 2 * * *' }));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ line: 4, column: 15, jobId: 'nightly', field: 'schedule' });
    expect(issue?.message).toContain("'61'");
    expect(issue?.message).toContain('minute');
  });

  it('appends the five-field form to the message for an AWS EventBridge schedule', () => {
    const [issue, ...rest] = issuesOf(oneJob('', { schedule: 'cron(0 9 ? * 2-6 *)' }));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ line: 4, column: 15, jobId: 'nightly', field: 'schedule' });
    expect(issue?.message).toBe(
      'expected 5 fields but got 6 at position 17: zonecron expressions have 5 fields (minute hour day-of-month month day-of-week), without seconds or year fields; it looks like an AWS EventBridge expression (year last, weekdays 1=SUN-7=SAT): write it as `0 9 * * 1-5`',
    );
  });

  it("includes the engine's message for a fixed-offset zone", () => {
    const [issue, ...rest] = issuesOf(oneJob('', { timezone: "'+01:00'" }));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ line: 5, column: 15, jobId: 'nightly', field: 'timezone' });
    expect(issue?.message).toContain('+01:00');
  });

  it('passes the job id to the engine, so a schedule with H validates', () => {
    const config = parseJobsConfig(oneJob('', { schedule: 'H H * * *' }), 'jobs.yaml');
    expect(config.jobs[0]?.schedule).toBe('H H * * *');
  });

  it.each([
    ['maxRuntime: 5 minutes', 9, 17, 'maxRuntime', "invalid duration '5 minutes'"],
    ['maxRuntime: 300', 9, 17, 'maxRuntime', 'expected a duration like 90s, 5m'],
    ['catchup: { window: P1M }', 9, 24, 'catchup.window', 'months and years have no fixed length'],
    ['catchup: { policy: some }', 9, 24, 'catchup.policy', 'must be one of all, latest, none'],
    ['catchup: { maxRuns: 0 }', 9, 25, 'catchup.maxRuns', 'a whole number from 1 to 1000, got 0'],
    [
      'retry: { maxAttempts: 11 }',
      9,
      27,
      'retry.maxAttempts',
      'a whole number from 1 to 10, got 11',
    ],
    [
      'retry: { maxAttempts: 2.5 }',
      9,
      27,
      'retry.maxAttempts',
      'a whole number from 1 to 10, got 2.5',
    ],
    ['concurrency: never', 9, 18, 'concurrency', 'must be one of allow, forbid'],
    ['enabled: "yes"', 9, 14, 'enabled', "expected true or false, got 'yes'"],
    ['alarm: { grace: 30s }', 9, 21, 'alarm.grace', "must be at least 60s, got '30s'"],
    ['dst: { gap: later }', 9, 17, 'dst.gap', 'must be one of shift, transition, skip'],
    ['dst: { overlap: twice }', 9, 21, 'dst.overlap', 'must be one of first, last, both'],
    [
      'dst: { gap: skip, when: always }',
      9,
      23,
      'dst.when',
      "unknown field 'when' (allowed: gap, overlap)",
    ],
    ['payload: { ratio: .nan }', 9, 23, 'payload.ratio', 'must be plain JSON'],
  ])('rejects %s', (line, lineNo, column, field, message) => {
    const issues = issuesOf(oneJob(line));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: lineNo, column, jobId: 'nightly', field });
    expect(issues[0]?.message).toContain(message);
  });

  it('rejects an empty description', () => {
    const text = oneJob().replace('description: Nightly report', "description: ''");
    expect(issuesOf(text)).toEqual([
      {
        file: 'jobs.yaml',
        line: 3,
        column: 18,
        jobId: 'nightly',
        field: 'description',
        message: 'must not be empty',
        code: 'invalid-value',
      },
    ]);
  });

  it.each([
    ['Nightly', "must contain only a-z, 0-9, - and _, got 'Nightly'"],
    ['a:b', "must contain only a-z, 0-9, - and _, got 'a:b'"],
    ['x'.repeat(65), 'must be at most 64 characters (it becomes part of AWS resource names)'],
  ])('rejects the job id %s', (id, message) => {
    const issues = issuesOf(oneJob('', { id: `'${id}'` }));
    expect(issues).toEqual([
      {
        file: 'jobs.yaml',
        line: 2,
        column: 9,
        jobId: id,
        field: 'id',
        message,
        code: 'invalid-value',
      },
    ]);
  });

  it('reports a duplicate id at its second occurrence', () => {
    const text = `${oneJob()}${oneJob().replace('jobs:\n', '')}`;
    expect(issuesOf(text)).toEqual([
      {
        file: 'jobs.yaml',
        line: 9,
        column: 9,
        jobId: 'nightly',
        field: 'id',
        message: "duplicate job id 'nightly' (first defined at line 2); ids must be unique",
        code: 'duplicate-id',
      },
    ]);
  });

  it('reports a bad value in defaults once, at the defaults block, not once per job', () => {
    const text = `defaults:\n  retry: { maxAttempts: 0 }\n${oneJob()}${oneJob('', { id: 'other' }).replace('jobs:\n', '')}`;
    expect(issuesOf(text)).toEqual([
      {
        file: 'jobs.yaml',
        line: 2,
        column: 25,
        field: 'defaults.retry.maxAttempts',
        message: 'expected a whole number from 1 to 10, got 0',
        code: 'invalid-value',
      },
    ]);
  });

  it('locates a problem that only appears after merging at the defaults value it came from', () => {
    const text = `defaults:\n  catchup: { window: 30d }\nretention: { days: 7 }\n${oneJob()}`;
    expect(issuesOf(text)).toEqual([
      {
        file: 'jobs.yaml',
        line: 2,
        column: 22,
        jobId: 'nightly',
        field: 'catchup.window',
        message:
          'must be shorter than the ledger retention (7 days), or runs older than the retention could run twice (inherited from defaults)',
        code: 'conflict',
      },
    ]);
  });

  it.each([
    ['an empty file', '', 1, 1, '', 'missing (expected a mapping with jobs'],
    ['no jobs key', 'defaults: {}\n', 1, 1, 'jobs', 'missing (expected a list of jobs)'],
    [
      'jobs that is not a list',
      'jobs: nightly\n',
      1,
      7,
      'jobs',
      "expected a list of jobs, got 'nightly'",
    ],
    [
      'a job that is not a mapping',
      'jobs:\n  - nightly\n',
      2,
      5,
      'jobs[0]',
      "expected a mapping of job fields, got 'nightly'",
    ],
    [
      'an unknown top-level key',
      'job: []\njobs: []\n',
      1,
      1,
      'job',
      "unknown field 'job'; did you mean 'jobs'?",
    ],
    [
      'a bad e-mail',
      'alarms: { email: [oncall] }\njobs: []\n',
      1,
      19,
      'alarms.email[0]',
      "expected an e-mail address, got 'oncall'",
    ],
    [
      'retention days out of range',
      'retention: { days: 0 }\njobs: []\n',
      1,
      20,
      'retention.days',
      'from 1 to 3650, got 0',
    ],
  ])('rejects %s', (_, text, line, column, field, message) => {
    const issues = issuesOf(text);
    expect(issues.map(({ line, column, field }) => ({ line, column, field }))).toContainEqual({
      line,
      column,
      field,
    });
    expect(issues.find((issue) => issue.field === field)?.message).toContain(message);
  });

  it('accepts a file with no jobs', () => {
    expect(parseJobsConfig('jobs: []\n', 'jobs.yaml').jobs).toEqual([]);
  });

  it('reports YAML syntax errors with their position', () => {
    const text = "jobs:\n  - id: nightly\n    description: [unclosed\n    schedule: '30 2 * * *'\n";
    const issues = issuesOf(text);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ file: 'jobs.yaml', line: 4, column: 5, field: '' });
    expect(issues[0]?.message).toMatch(/^invalid YAML: flow sequence .* end with a \]$/);
  });

  it('rejects a YAML alias bomb as a config error', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i += 1) {
      const ref = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(
        `${name}: &${name} [*${ref}, *${ref}, *${ref}, *${ref}, *${ref}, *${ref}, *${ref}, *${ref}, *${ref}, *${ref}]`,
      );
    }
    const issues = issuesOf(`${levels.join('\n')}\njobs: []\n`);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/^invalid YAML: excessive alias count/);
  });

  it('rejects duplicate keys in a mapping', () => {
    const issues = issuesOf(`${oneJob()}    schedule: '0 3 * * *'\n`);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/^invalid YAML: map keys must be unique/);
  });

  it('reports a missing file as a ConfigError naming it', () => {
    expect(() => loadJobsFile(fixture('does-not-exist.yaml'))).toThrow(
      `${fixture('does-not-exist.yaml')}: jobs file: no such file`,
    );
  });

  it('collects every problem of a file and renders them one per line', () => {
    let caught: unknown;
    try {
      loadJobsFile(fixture('bad-many.yaml'));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const error = caught as ConfigError;
    const file = fixture('bad-many.yaml');
    expect(error.message.split('\n')).toEqual([
      `${file}:4:18: field 'defaults.retry.maxAttempts': expected a whole number from 1 to 10, got 0`,
      `${file}:11:13: job 'first': field 'target.type': must be one of lambda, sqs, sns, eventbridge, stepfunctions, got 'lamda'`,
      expect.stringMatching(
        new RegExp(`^${file}:16:15: job 'second': field 'timezone': .*\\+01:00`),
      ),
      `${file}:17:5: job 'second': field 'maxRuntim': unknown field 'maxRuntim'; did you mean 'maxRuntime'? (allowed: id, description, schedule, timezone, dst, target, payload, catchup, retry, concurrency, maxRuntime, enabled, alarm, calendar, deadline, from, until, at)`,
      `${file}:20:12: job 'second': field 'target.arn': a 'sns' target needs an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:TOPIC), got an 'sqs' ARN`,
      `${file}:21:9: job 'first': field 'id': duplicate job id 'first' (first defined at line 6); ids must be unique`,
      `${file}:25:17: job 'first': field 'maxRuntime': invalid duration '5 minutes' (use 90s, 5m, 24h, 1h30m, 2d, or ISO 8601 like 'PT5M', 'P1D')`,
    ]);
  });

  it('refuses concurrency: forbid with an sqs target whose runs come closer than maxRuntime, saying how many would be skipped', () => {
    const text = oneJob('concurrency: forbid', {
      schedule: '*/15 * * * *',
      type: 'sqs',
      arn: 'arn:aws:sqs:eu-west-1:123456789012:jobs',
    });
    const [issue, ...rest] = issuesOf(text);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ line: 9, field: 'concurrency', code: 'conflict' });
    expect(issue?.message).toContain('holds each run for maxRuntime (1h)');
    expect(issue?.message).toContain('every 15m, so up to 3 runs in a row would be skipped');
  });

  it('accepts concurrency: forbid with an sqs target when maxRuntime fits between runs, and with a lambda target', () => {
    const sqs = {
      schedule: '*/15 * * * *',
      type: 'sqs',
      arn: 'arn:aws:sqs:eu-west-1:123456789012:jobs',
    };
    expect(() =>
      parseJobsConfig(oneJob('concurrency: forbid\nmaxRuntime: 15m', sqs), 'jobs.yaml'),
    ).not.toThrow();
    expect(() =>
      parseJobsConfig(oneJob('concurrency: forbid', { schedule: '*/15 * * * *' }), 'jobs.yaml'),
    ).not.toThrow();
  });

  it('judges forbid by the runs a calendar leaves: a monthly businessDay job of a daily expression may hold 2d, a business-hours job may not hold 1h', () => {
    const sqs = { type: 'sqs', arn: 'arn:aws:sqs:eu-west-1:123456789012:jobs' };
    const withCalendar = (extra: string, schedule: string) =>
      `calendars:\n  office: { weekends: [sat, sun] }\n${oneJob(extra, { ...sqs, schedule })}`;
    const monthly =
      'concurrency: forbid\nmaxRuntime: 2d\ncalendar: { name: office, businessDay: last }';
    expect(() => parseJobsConfig(withCalendar(monthly, '0 18 * * *'), 'jobs.yaml')).not.toThrow();
    const everyHalfHour = 'concurrency: forbid\ncalendar: office';
    const [issue, ...rest] = issuesOf(withCalendar(everyHalfHour, '*/30 9-17 * * *'));
    expect(rest).toEqual([]);
    expect(issue?.message).toContain('every 30m, so up to 1 run in a row would be skipped');
  });

  it('never returns the valid jobs of a file that also has an invalid one', () => {
    expect(() => loadJobsFile(fixture('bad-schedule.yaml'))).toThrow(
      /bad-schedule\.yaml:12:15: job 'broken-minute': field 'schedule': .*'61'/,
    );
  });
});

describe('time zones in the file', () => {
  it.each([
    ['europe/berlin', 'case', "did you mean 'Europe/Berlin'?"],
    ['EST', 'abbreviation', "did you mean 'America/New_York'?"],
    ["'Etc/GMT+5'", 'fixed-offset', 'UTC-05:00 all year'],
    ['Europe/Berln', 'unknown', "did you mean 'Europe/Berlin'?"],
  ])('refuses %s at the timezone value, with the reason (%s)', (zone, _problem, reason) => {
    const [issue, ...rest] = issuesOf(oneJob('', { timezone: zone }));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({
      line: 5,
      column: 15,
      jobId: 'nightly',
      field: 'timezone',
      code: 'invalid-timezone',
    });
    expect(issue?.message).toContain(reason);
  });
});

describe('files that are not YAML text', () => {
  function issuesOfFile(bytes: Uint8Array): ConfigIssue[] {
    const dir = mkdtempSync(join(tmpdir(), 'zonecron-jobs-'));
    const path = join(dir, 'jobs.yaml');
    writeFileSync(path, bytes);
    try {
      return thrownIssues(() => loadJobsFile(path));
    } finally {
      rmSync(dir, { recursive: true });
    }
  }

  it('calls a file with a NUL byte not a text file, without repeating its bytes', () => {
    const bytes = Buffer.concat([
      Buffer.from('\x7fELF\x02\x01'),
      Buffer.from([0, 0, 1]),
      Buffer.from('x: ['),
    ]);
    const issues = issuesOfFile(bytes);
    expect(issues).toEqual([
      {
        file: expect.stringMatching(/jobs\.yaml$/),
        line: 0,
        column: 0,
        field: '',
        message:
          'jobs file: not a text file (a NUL byte at offset 6); a jobs file is YAML in UTF-8',
        code: 'not-text',
      },
    ]);
  });

  it('locates the first byte that is not UTF-8 by line and column', () => {
    const latin1 = Buffer.from('jobs:\n  - id: caf\xe9\n', 'latin1');
    const [issue, ...rest] = issuesOfFile(latin1);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ line: 2, column: 12, code: 'not-text' });
    expect(issue?.message).toBe(
      'not a UTF-8 text file (byte 0xe9 here is not UTF-8); save it as UTF-8',
    );
  });

  it('cuts a long line short where a YAML message repeats it', () => {
    const line = 'w'.repeat(5000);
    const issues = issuesOf(`jobs: []\n] ${line}\n`);
    const repeated = issues.find((issue) => issue.message.includes('scalar token'));
    expect(repeated?.message).toBe(
      `invalid YAML: unexpected scalar token in YAML stream: "${'w'.repeat(59)}…"`,
    );
    expect(issues.every((issue) => issue.code === 'yaml')).toBe(true);
  });
});
