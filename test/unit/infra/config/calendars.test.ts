import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type JobDefinition, scheduleIdOf, scheduleSpecOf } from '#jobs/job.ts';
import { loadJobsFile, parseJobsConfig } from '../../../../infra/config/load-jobs.ts';
import { issuesOf } from './config-issues.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const FIXTURE = `${root}test/fixtures/jobs/calendars.yaml`;

const HEAD = [
  'calendars:',
  '  berlin-business:',
  '    holidays: DE-BE',
  '    closed:',
  "      - { date: '2026-12-24', reason: Christmas Eve }",
  'jobs:',
  '  - id: job',
  '    description: A job',
  '    timezone: Europe/Berlin',
  '    target: { type: lambda, arn: "arn:aws:lambda:eu-west-1:123456789012:function:f" }',
];

/** A file with the calendar above and one job (lines 7-10) with `lines` added from line 11. */
function fileWith(...lines: string[]): string {
  return `${[...HEAD, ...lines.map((line) => `    ${line}`)].join('\n')}\n`;
}

function onlyJob(text: string, now?: Date): JobDefinition {
  const [job] = parseJobsConfig(text, 'jobs.yaml', now === undefined ? {} : { now }).jobs;
  if (job === undefined) throw new Error('no job');
  return job;
}

describe('the calendars fixture', () => {
  const config = loadJobsFile(FIXTURE);
  const byId = new Map(config.jobs.map((job) => [job.id, job]));
  const berlin = {
    name: 'berlin-business',
    timezone: 'Europe/Berlin',
    holidays: 'DE-BE',
    holidayTypes: ['public'],
    weekendDays: [0, 6],
    closedDays: [{ date: '2026-12-24', reason: 'Christmas Eve' }],
    closedRanges: [{ from: '2026-12-28T00:00', to: '2027-01-04T00:00', reason: 'year-end freeze' }],
  };

  it('gives each job the whole calendar definition and its own rule', () => {
    expect(byId.get('exports')?.calendar).toEqual({ definition: berlin });
    expect(byId.get('payroll')?.calendar).toEqual({ definition: berlin, businessDay: -1 });
    expect(byId.get('invoices')?.calendar).toEqual({ definition: berlin, onClosed: 'following' });
  });

  it('shares one definition between the jobs of one calendar and zone', () => {
    expect(byId.get('exports')?.calendar?.definition).toBe(
      byId.get('payroll')?.calendar?.definition,
    );
  });

  it("reads a calendar without a zone in the job's zone, holiday types and weekends as given", () => {
    expect(byId.get('settlement')?.calendar).toEqual({
      definition: {
        name: 'new-york-banks',
        timezone: 'America/New_York',
        holidays: 'US-NY',
        holidayTypes: ['public', 'bank'],
        weekendDays: [0, 6],
        closedDays: [],
        closedRanges: [],
      },
      onClosed: 'modified-preceding',
    });
    expect(byId.get('weekly-digest')?.calendar?.definition.weekendDays).toEqual([0, 5, 6]);
    expect(byId.get('weekly-digest')?.calendar?.businessDay).toBe(3);
  });

  it("resolves from and until in the job's zone, or by their own offset, to UTC", () => {
    expect(byId.get('settlement')).toMatchObject({
      from: '2027-01-01T05:00:00.000Z',
      until: '2028-01-01T05:00:00.000Z',
    });
  });

  it('turns at into a bounded five-field schedule and keeps at for display', () => {
    expect(byId.get('christmas-greeting')).toMatchObject({
      at: '2026-12-24T18:00',
      schedule: '0 18 24 12 *',
      from: '2026-12-22T00:00:00.000Z',
      until: '2026-12-27T00:00:00.000Z',
      deadline: { afterSeconds: 7200 },
    });
    expect(byId.get('weekly-digest')?.deadline).toEqual({ wallTime: '07:00' });
  });

  it('maps calendar and bounds into the engine spec', () => {
    const spec = scheduleSpecOf(byId.get('settlement') as JobDefinition);
    expect(spec.from?.toISOString()).toBe('2027-01-01T05:00:00.000Z');
    expect(spec.until?.toISOString()).toBe('2028-01-01T05:00:00.000Z');
    expect(spec.calendar?.onClosed).toBe('modified-preceding');
    expect(spec.calendar?.calendar.closedDayReason('2027-07-05')).toBe(
      'Independence Day (substitute day) (US-NY)',
    );
    const payroll = scheduleSpecOf(byId.get('payroll') as JobDefinition);
    expect(payroll.calendar?.businessDay).toBe(-1);
    expect(payroll.calendar?.calendar.closedDayReason('2026-12-24')).toBe('Christmas Eve');
  });
});

describe('scheduleIdOf with calendars and bounds', () => {
  const plain = onlyJob(fileWith("schedule: '0 9 * * *'"));

  it('hashes a job without calendar, bounds or at as it always did', () => {
    const text = ['0 9 * * *', 'Europe/Berlin', 'shift', 'first'].join('\n');
    expect(scheduleIdOf(plain)).toBe(createHash('sha256').update(text).digest('hex').slice(0, 16));
  });

  it.each([
    ['a calendar', ["schedule: '0 9 * * *'", 'calendar: berlin-business']],
    [
      'a calendar rule',
      ["schedule: '0 9 * * *'", 'calendar: { name: berlin-business, onClosed: following }'],
    ],
    ['a from', ["schedule: '0 9 * * *'", "from: '2027-01-01'"]],
    ['an until', ["schedule: '0 9 * * *'", "until: '2027-01-01'"]],
    ['an at', ["at: '2026-12-24T09:00'"]],
  ])('changes with %s', (_, lines) => {
    expect(scheduleIdOf(onlyJob(fileWith(...lines)))).not.toBe(scheduleIdOf(plain));
  });

  it('changes when the calendar it follows changes', () => {
    const before = onlyJob(fileWith("schedule: '0 9 * * *'", 'calendar: berlin-business'));
    const text = fileWith("schedule: '0 9 * * *'", 'calendar: berlin-business').replace(
      '2026-12-24',
      '2026-12-23',
    );
    expect(scheduleIdOf(onlyJob(text))).not.toBe(scheduleIdOf(before));
  });
});

describe('a calendar in defaults', () => {
  it('is followed by every job that names none', () => {
    const text = fileWith("schedule: '0 9 * * *'").replace(
      'jobs:',
      'defaults:\n  calendar: { name: berlin-business, onClosed: preceding }\njobs:',
    );
    expect(onlyJob(text).calendar).toMatchObject({
      definition: { name: 'berlin-business', holidays: 'DE-BE' },
      onClosed: 'preceding',
    });
  });

  it('is reported at the defaults block when it names no calendar', () => {
    const text = fileWith("schedule: '0 9 * * *'").replace(
      'jobs:',
      'defaults:\n  calendar: berlin\njobs:',
    );
    expect(issuesOf(text)).toEqual([
      expect.objectContaining({
        line: 7,
        column: 13,
        field: 'calendar',
        code: 'unknown-calendar',
        message: "unknown calendar 'berlin' (calendars: berlin-business) (inherited from defaults)",
      }),
    ]);
  });
});

describe('calendar problems, located', () => {
  it('refuses an unknown calendar name with the nearest one', () => {
    expect(issuesOf(fileWith("schedule: '0 9 * * *'", 'calendar: berlin-busines'))).toEqual([
      {
        file: 'jobs.yaml',
        line: 12,
        column: 15,
        jobId: 'job',
        field: 'calendar',
        message:
          "unknown calendar 'berlin-busines'; did you mean 'berlin-business'? (calendars: berlin-business)",
        code: 'unknown-calendar',
      },
    ]);
  });

  it('points at an unknown key inside a calendar mapping, with the nearest one', () => {
    const [issue] = issuesOf(
      fileWith("schedule: '0 9 * * *'", 'calendar: { name: berlin-business, onClose: skip }'),
    );
    expect(issue).toMatchObject({
      line: 12,
      column: 40,
      field: 'calendar.onClose',
      code: 'unknown-field',
    });
    expect(issue?.message).toMatch(/^unknown field 'onClose'; did you mean 'onClosed'\?/);
  });

  it('points at the name inside a calendar mapping', () => {
    const [issue] = issuesOf(fileWith("schedule: '0 9 * * *'", 'calendar: { name: payroll-cal }'));
    expect(issue).toMatchObject({
      line: 12,
      column: 23,
      field: 'calendar.name',
      code: 'unknown-calendar',
    });
  });

  it('refuses an unknown holiday code with the nearest one, where the calendar says it', () => {
    const text = fileWith("schedule: '0 9 * * *'").replace('holidays: DE-BE', 'holidays: DE-BER');
    expect(issuesOf(text)).toEqual([
      {
        file: 'jobs.yaml',
        line: 3,
        column: 15,
        field: 'calendars.berlin-business.holidays',
        message:
          "unknown holiday code 'DE-BER'; did you mean 'DE-BE'? (country[-state[-region]] as date-holidays names them, e.g. DE-BE, US-NY, GB-ENG)",
        code: 'unknown-holidays',
      },
    ]);
  });

  it('reports a broken calendar once, not again for each job that names it', () => {
    const text = fileWith("schedule: '0 9 * * *'", 'calendar: berlin-business').replace(
      'holidays: DE-BE',
      'holidays: XX-YY',
    );
    expect(issuesOf(text).map((issue) => issue.field)).toEqual([
      'calendars.berlin-business.holidays',
    ]);
  });

  it.each([
    ['a day-of-month', "schedule: '0 18 L * *'", "got '0 18 L * *' (e.g. '0 18 * * *')"],
    ['a day-of-week', "schedule: '0 18 * * 1-5'", "got '0 18 * * 1-5' (e.g. '0 18 * * *')"],
  ])('refuses businessDay with %s field that is not *', (_, schedule, end) => {
    const [issue] = issuesOf(
      fileWith(schedule, 'calendar: { name: berlin-business, businessDay: last }'),
    );
    expect(issue).toMatchObject({
      line: 12,
      column: 53,
      field: 'calendar.businessDay',
      code: 'conflict',
    });
    expect(issue?.message).toMatch(/^businessDay picks the day of the month itself/);
    expect(issue?.message.endsWith(end)).toBe(true);
  });

  it.each([
    ['0', '0'],
    ['24', '24'],
    ['second', "'second'"],
  ])('refuses businessDay %s', (value, shown) => {
    const [issue] = issuesOf(
      fileWith(
        "schedule: '0 18 * * *'",
        `calendar: { name: berlin-business, businessDay: ${value} }`,
      ),
    );
    expect(issue).toMatchObject({ line: 12, field: 'calendar.businessDay', code: 'invalid-value' });
    expect(issue?.message).toBe(
      `expected first, last, or a whole number from 1 to 23 or -1 to -23 (-1 is the last), got ${shown}`,
    );
  });

  it.each([
    [
      "{ date: '2027-02-29', reason: x }",
      'calendars.berlin-business.closed[1].date',
      "expected a date like '2026-12-24', got '2027-02-29'",
    ],
    [
      "{ from: '2027-01-04T00:00', to: '2027-01-04T00:00', reason: x }",
      'calendars.berlin-business.closed[1].to',
      "must be after from ('2027-01-04T00:00'), got '2027-01-04T00:00'",
    ],
    [
      "{ from: '2027-01-01T24:00', to: '2027-01-04T00:00', reason: x }",
      'calendars.berlin-business.closed[1].from',
      "expected a local date-time like '2026-12-28T00:00', got '2027-01-01T24:00'",
    ],
    [
      "{ date: '2027-01-02' }",
      'calendars.berlin-business.closed[1].reason',
      'missing (expected a reason, a text)',
    ],
  ])('refuses the closed entry %s', (entry, field, message) => {
    const text = fileWith("schedule: '0 9 * * *'").replace(
      "      - { date: '2026-12-24', reason: Christmas Eve }",
      `      - { date: '2026-12-24', reason: Christmas Eve }\n      - ${entry}`,
    );
    const [issue] = issuesOf(text);
    expect(issue).toMatchObject({ line: 6, field, message });
  });
});

describe('from, until and at problems, located', () => {
  it('refuses until at or before from', () => {
    const [issue] = issuesOf(
      fileWith("schedule: '0 9 * * *'", "from: '2027-01-01'", "until: '2026-12-31T23:00Z'"),
    );
    expect(issue).toEqual({
      file: 'jobs.yaml',
      line: 13,
      column: 12,
      jobId: 'job',
      field: 'until',
      message:
        "must be after from ('2027-01-01', 2026-12-31T23:00:00.000Z), got '2026-12-31T23:00Z' (2026-12-31T23:00:00.000Z)",
      code: 'conflict',
    });
  });

  it.each(['2027-13-01', '2027-01-01 09:00', '2027-01-01T09:00+15:00', 'soon'])(
    'refuses from: %s',
    (value) => {
      const [issue] = issuesOf(fileWith("schedule: '0 9 * * *'", `from: '${value}'`));
      expect(issue).toMatchObject({ line: 12, column: 11, field: 'from', code: 'invalid-value' });
      expect(issue?.message).toMatch(/^expected a local date-time like '2026-12-24T18:00'/);
    },
  );

  it.each(['schedule', 'from', 'until'])('refuses at together with %s', (field) => {
    const value = field === 'schedule' ? "'0 9 * * *'" : "'2027-01-01'";
    const issues = issuesOf(fileWith("at: '2026-12-24T18:00'", `${field}: ${value}`));
    expect(issues).toEqual([
      expect.objectContaining({
        line: 12,
        field,
        code: 'conflict',
        message: `at: is one run at a local date-time and does not go with ${field}: (remove one of them)`,
      }),
    ]);
  });

  it('lets at replace a schedule inherited from defaults', () => {
    const text = fileWith("at: '2026-12-24T18:00'").replace(
      'jobs:',
      "defaults:\n  schedule: '0 9 * * *'\njobs:",
    );
    expect(onlyJob(text).schedule).toBe('0 18 24 12 *');
  });

  it('refuses an at that names no real time', () => {
    const [issue] = issuesOf(fileWith("at: '2026-12-24T18:00:00'"));
    expect(issue).toMatchObject({ line: 11, column: 9, field: 'at', code: 'invalid-value' });
  });

  it('refuses an at in the spring-forward gap of a job that skips gaps', () => {
    const [issue] = issuesOf(fileWith("at: '2026-03-29T02:30'", 'dst: { gap: skip }'));
    expect(issue).toMatchObject({ line: 11, field: 'at', code: 'never-runs' });
    expect(issue?.message).toBe(
      "'2026-03-29T02:30' never runs: it falls in a gap of Europe/Berlin (clocks jump over it) and dst.gap is skip",
    );
  });

  it('runs an at in the spring-forward gap at the shifted instant by default', () => {
    expect(onlyJob(fileWith("at: '2026-03-29T02:30'")).schedule).toBe('30 2 29 3 *');
  });

  it('refuses an at in the repeated hour of a job that runs both', () => {
    const [issue] = issuesOf(fileWith("at: '2026-10-25T02:30'", 'dst: { overlap: both }'));
    expect(issue).toMatchObject({ line: 12, field: 'dst.overlap', code: 'conflict' });
  });

  it('refuses businessDay with at', () => {
    const [issue] = issuesOf(
      fileWith("at: '2026-12-24T18:00'", 'calendar: { name: berlin-business, businessDay: 1 }'),
    );
    expect(issue).toMatchObject({ field: 'calendar.businessDay', code: 'conflict' });
  });
});

describe('deadline', () => {
  it.each([
    ['2h', { afterSeconds: 7200 }],
    ['PT90M', { afterSeconds: 5400 }],
    ["'07:00'", { wallTime: '07:00' }],
    ["'23:59'", { wallTime: '23:59' }],
  ])('reads %s', (value, expected) => {
    expect(onlyJob(fileWith("schedule: '0 5 * * *'", `deadline: ${value}`)).deadline).toEqual(
      expected,
    );
  });

  it.each([
    ["'24:00'", "expected a wall time from 00:00 to 23:59 (HH:mm), got '24:00'"],
    ['30s', "must be at least 1m after the run, got '30s'"],
    [
      'soon',
      "invalid duration 'soon' (use 90s, 5m, 24h, 1h30m, 2d, or ISO 8601 like 'PT5M', 'P1D'), or a wall time like '07:00'",
    ],
  ])('refuses %s', (value, message) => {
    const [issue] = issuesOf(fileWith("schedule: '0 5 * * *'", `deadline: ${value}`));
    expect(issue).toMatchObject({
      line: 12,
      column: 15,
      field: 'deadline',
      message,
      code: 'invalid-value',
    });
  });
});

describe('warnings about the past', () => {
  const text = fileWith("schedule: '0 9 * * *'", "until: '2027-01-01'");

  it('warns, located, when until has passed at the instant given', () => {
    const config = parseJobsConfig(text, 'jobs.yaml', { now: new Date('2027-01-01T00:00Z') });
    expect(config.warnings).toEqual([
      {
        file: 'jobs.yaml',
        line: 12,
        column: 12,
        jobId: 'job',
        field: 'until',
        message:
          'until (2026-12-31T23:00:00.000Z) has passed: the job has ended and will not run again',
        code: 'past',
      },
    ]);
  });

  it('does not warn before until, nor without an instant', () => {
    expect(
      parseJobsConfig(text, 'jobs.yaml', { now: new Date('2026-12-31T22:59Z') }).warnings,
    ).toEqual([]);
    expect(parseJobsConfig(text, 'jobs.yaml').warnings).toEqual([]);
  });

  it('warns when the run of an at job is in the past, not before', () => {
    const at = fileWith("at: '2026-12-24T18:00'");
    expect(
      parseJobsConfig(at, 'jobs.yaml', { now: new Date('2026-12-24T17:00Z') }).warnings,
    ).toEqual([expect.objectContaining({ line: 11, column: 9, field: 'at', code: 'past' })]);
    expect(
      parseJobsConfig(at, 'jobs.yaml', { now: new Date('2026-12-24T16:59Z') }).warnings,
    ).toEqual([]);
  });
});
