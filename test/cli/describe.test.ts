import { GetScheduleCommand } from '@aws-sdk/client-scheduler';
import pc from 'picocolors';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import { buildDescription, type DescribeOptions } from '../../cli/commands/describe.ts';
import { CliError } from '../../cli/errors.ts';
import { describeJson, describeText } from '../../cli/format/job-description.ts';
import { holidayDataVersion } from '../../functions/calendar/date-holidays-data.ts';
import { nextOccurrences } from '../../functions/schedule/index.ts';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { tickInput } from '../../infra/constructs/schedule-inputs.ts';
import {
  type FakeStack,
  putRun,
  type RunState,
  SCHEDULE_GROUP,
  startFakeStack,
} from './fake-stack.ts';
import { hasAnsi, overlongLines, runCli } from './run-cli.ts';

const FIXTURE = 'test/cli/fixtures/berlin.yaml';
const plain = pc.createColors(false);
/** Every run of spaces and line breaks as one space: what a sentence says, wrapping aside. */
const squashed = (text: string) => text.replace(/\s+/g, ' ');

describe('zonecron describe, offline from the jobs file', () => {
  it('shows a DST job with its covering, its sentence and the DST note of the night 02:30 does not exist', async () => {
    const result = await runCli([
      'describe',
      'berlin-nightly',
      '--config',
      FIXTURE,
      '--after',
      '2027-03-27T12:00Z',
      '-n',
      '2',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  UTC covering cron(30 0,1 * * ? *), 2 ticks per run');
    expect(result.stdout).toContain('               at 02:30 every day');
    expect(result.stdout).toContain(
      'next 2 runs after 2027-03-27T12:00:00Z\n' +
        'local                             UTC                   nominal\n' +
        'Sun 2027-03-28 03:30 +02:00 CEST  2027-03-28T01:30:00Z  2027-03-28T02:30\n' +
        '  ↳ 02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST\n' +
        'Mon 2027-03-29 02:30 +02:00 CEST  2027-03-29T00:30:00Z  2027-03-29T02:30\n',
    );
    expect(result.stdout).toMatch(/\n\nzone data: tz \S+ \(ICU /);
    expect(result.stdout).toContain('note: offline: from the jobs file alone');
    expect(overlongLines(result.stdout)).toEqual([]);
    expect(hasAnsi(result.stdout)).toBe(false);
  });

  it('prints 5 next runs by default and the documented --json document, null where nothing was read', async () => {
    const result = await runCli([
      'describe',
      'berlin-nightly',
      '--config',
      FIXTURE,
      '--after',
      '2027-10-30T12:00Z',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({
      file: FIXTURE,
      after: '2027-10-30T12:00:00.000Z',
      job: {
        id: 'berlin-nightly',
        retry: { maxAttempts: 3 },
        catchup: { policy: 'all' },
        enabled: true,
      },
      state: 'enabled',
      sentence: 'at 02:30 every day',
      hint: null,
      kind: 'wall-clock',
      policies: { gap: 'shift', overlap: 'first' },
      covering: 'cron(30 0,1 * * ? *)',
      ticksPerRun: 2,
      deployment: { stack: null, table: null, scheduleGroup: null },
      pause: null,
      last: null,
      ranges: null,
      calendarSkipped: null,
      signals: null,
      deployedSchedule: null,
      drift: null,
    });
    expect(doc.next).toHaveLength(5);
    expect(doc.next[0]).toEqual({
      at: '2027-10-31T00:30:00.000Z',
      local: 'Sun 2027-10-31 02:30 +02:00 CEST',
      nominal: '2027-10-31T02:30',
      dst: 'overlap',
      note: '02:30 happens twice on 2027-10-31 in Europe/Berlin — runs at the first (CEST)',
    });
    expect(Object.keys(doc.zoneData)).toEqual(['zoneData', 'changesKnownThrough', 'warnings']);
  });

  it('warns about a recent rule change of the zone, naming the job', async () => {
    const result = await runCli([
      'describe',
      'payroll',
      '--config',
      'test/cli/fixtures/changed-zones.yaml',
      '--after',
      '2026-06-01T00:00Z',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const { zoneData } = JSON.parse(result.stdout);
    expect(zoneData.warnings).toMatchObject([
      { timezone: 'America/Vancouver', jobIds: ['payroll'], release: '2026b' },
    ]);
  });

  it('refuses an unknown job id with exit code 2 and the closest id', async () => {
    const result = await runCli(['describe', 'berlin-nigthly', '--config', FIXTURE]);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "zonecron: error: unknown job 'berlin-nigthly' in test/cli/fixtures/berlin.yaml; did you mean 'berlin-nightly'? (3 jobs: berlin-nightly, london-half-hourly, switched-off)\n",
    );
    expect(result.code).toBe(2);
  });

  it('refuses -n 0 with exit code 2', async () => {
    const result = await runCli(['describe', 'berlin-nightly', '--config', FIXTURE, '-n', '0']);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(2);
  });
});

const CALENDARS = 'test/fixtures/jobs/calendars.yaml';

describe('zonecron describe, calendars, bounds, at and deadlines', () => {
  it("shows the job's calendar with its holidays code and businessDay, its deadline, and the holiday data version", async () => {
    const result = await runCli(['describe', 'weekly-digest', '--config', CALENDARS, '-n', '1']);
    expect(result.code).toBe(0);
    expect(overlongLines(result.stdout)).toEqual([]);
    const text = squashed(result.stdout);
    expect(text).toContain(
      'calendar london-office: holidays GB-ENG (public), weekends fri, sat, sun, 0 closed days, 0 closed ranges, days in Europe/London; businessDay 3',
    );
    expect(text).toContain('deadline 07:00 Europe/London wall time after each run');
    const { version, dataVersion } = holidayDataVersion();
    expect(text).toContain(`holiday data: date-holidays ${version} (data ${dataVersion})`);
  });

  it('shows onClosed and the bounds of a bounded calendar job, and nothing ended before its until', async () => {
    const args = ['describe', 'settlement', '--config', CALENDARS, '-n', '1'];
    const text = squashed((await runCli(args)).stdout);
    expect(text).toContain('holidays US-NY (public, bank)');
    expect(text).toContain('; onClosed modified-preceding');
    expect(text).toContain(
      'bounds from 2027-01-01T05:00:00Z until 2028-01-01T05:00:00Z (exclusive)',
    );
    expect(text).not.toContain('ENDED');
    const doc = JSON.parse((await runCli([...args, '--json'])).stdout) as { ended: unknown };
    expect(doc.ended).toBeNull();
  });

  it('says a job whose until has passed has ended, in the text and as ended in --json', async () => {
    const args = ['describe', 'summer-campaign', '--config', CALENDARS];
    const text = squashed((await runCli(args)).stdout);
    expect(text).toContain('ENDED: until 2026-08-31T22:00:00Z has passed, no run after it');
    expect(text).not.toContain('holiday data');
    const doc = JSON.parse((await runCli([...args, '--json'])).stdout) as {
      ended: unknown;
      holidayData: unknown;
    };
    expect(doc.ended).toEqual({ field: 'until', at: '2026-08-31T22:00:00.000Z' });
    expect(doc.holidayData).toBeNull();
  });

  it('says under its next runs which runs the calendar skipped and why, and gives them under skipped in --json', async () => {
    const args = ['describe', 'exports', '--config', CALENDARS, '-n', '1'];
    const after = ['--after', '2026-12-23T12:00Z'];
    const result = await runCli([...args, ...after]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  ✗ Fri 2026-12-25 06:00 CET — closed: Christmas Day (DE-BE) — skipped\n',
    );
    const doc = JSON.parse((await runCli([...args, ...after, '--json'])).stdout) as {
      next: { at: string }[];
      skipped: { at: string; nominal: string; reason: string; detail: string }[];
    };
    expect(doc.next.map((r) => r.at)).toEqual(['2027-01-04T05:00:00.000Z']);
    expect(doc.skipped).toHaveLength(11);
    expect(doc.skipped[1]).toEqual({
      at: '2026-12-25T05:00:00.000Z',
      local: 'Fri 2026-12-25 06:00 +01:00 CET',
      nominal: '2026-12-25T06:00',
      reason: 'calendar',
      detail: 'Christmas Day (DE-BE)',
      note: 'Fri 2026-12-25 06:00 CET — closed: Christmas Day (DE-BE) — skipped',
    });
  });

  it('shows the one run of an at job and its duration deadline', async () => {
    const text = squashed(
      (await runCli(['describe', 'christmas-greeting', '--config', CALENDARS])).stdout,
    );
    expect(text).toContain(
      'at one run at 2026-12-24T18:00 in Europe/Berlin (2026-12-24T17:00:00Z)',
    );
    expect(text).toContain('deadline 2h after each scheduled instant');
  });
});

const JOBS = `jobs:
  - id: nightly
    description: a report run by a Lambda function
    schedule: '30 2 * * *'
    timezone: Europe/Berlin
    maxRuntime: 30m
    target: { type: lambda, arn: 'arn:aws:lambda:us-east-1:123456789012:function:nightly' }
  - id: hourly
    description: its schedule was edited by hand
    schedule: '0 * * * *'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:hourly' }
  - id: monthly
    description: its schedule is missing
    schedule: '0 6 1 * *'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:monthly' }
`;
const NOW = new Date('2026-11-29T12:20:00.000Z');
const ALICE = 'arn:aws:iam::123456789012:user/alice';
const deployed = (name: string, expression: string) => ({
  name,
  state: 'ENABLED',
  expression,
  timezone: 'UTC',
  input: tickInput(name),
});

describe('zonecron describe --stack, the ledger on DynamoDB Local, Scheduler and CloudFormation stubbed', () => {
  let stack: FakeStack;
  const { jobs } = parseJobsConfig(JOBS, 'jobs.yaml');
  const nightly = jobs[0] as JobDefinition;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), JOBS, [
      deployed('nightly', 'cron(30 0,1 * * ? *)'),
      deployed('hourly', 'cron(30 * * * ? *)'),
    ]);
    await stack.ledger.pause('nightly', {
      at: new Date('2026-11-29T09:00:00.000Z'),
      by: ALICE,
      reason: 'db migration',
      until: new Date('2026-11-29T18:00:00.000Z'),
    });
    // Four nights before NOW, oldest first: 02:30 CET is 01:30 UTC.
    const nights = nextOccurrences(scheduleSpecOf(nightly), new Date('2026-11-25T12:00Z'), 4);
    const states: RunState[] = ['dead-lettered', 'claimed', 'delivery-failed', 'dispatched'];
    for (const [i, night] of nights.entries()) {
      keys[states[i] as RunState] = await putRun(
        stack.ledger,
        nightly,
        night,
        states[i] as RunState,
      );
    }
  });
  afterAll(() => stack.stop());

  it('counts the runs the skip ranges of the last retention period hold, in the text and in --json', async () => {
    // An hourly job down from 2026-11-20 to 2026-11-25: its older 120 skipped runs in one range.
    const range = {
      jobId: 'hourly',
      afterMs: Date.parse('2026-11-20T00:00:00.000Z'),
      beforeMs: Date.parse('2026-11-25T00:00:00.001Z'),
      windowStartMs: Date.parse('2026-11-25T02:00:00.000Z'),
      policyReason: 'max-runs' as const,
      pauses: [],
      runs: 120,
      pausedRuns: 0,
      countedFromMs: Date.parse('2026-11-20T00:00:00.000Z'),
      decidedAt: '2026-11-29T04:00:02.000Z',
    };
    // One that ended before the retention period (35 days) is not counted.
    const old = {
      ...range,
      afterMs: Date.parse('2026-10-01T00:00Z'),
      beforeMs: Date.parse('2026-10-10T00:00Z'),
    };
    await stack.ledger.recordSkipRange(range, Math.floor(NOW.getTime() / 1000) + 86_400);
    await stack.ledger.recordSkipRange(old, Math.floor(NOW.getTime() / 1000) + 86_400);
    const description = await describeJob('hourly');
    expect(describeJson(description).ranges).toEqual({
      since: '2026-10-25T12:20:00.000Z',
      count: 1,
      runs: 120,
      pausedRuns: 0,
      truncated: false,
      items: [
        {
          after: '2026-11-20T00:00:00.000Z',
          before: '2026-11-25T00:00:00.001Z',
          runs: 120,
          pausedRuns: 0,
          countedFrom: '2026-11-20T00:00:00.000Z',
          reasons: [
            {
              from: '2026-11-20T00:00:00.000Z',
              to: '2026-11-25T00:00:00.001Z',
              reason: 'outside-window',
            },
          ],
          decidedAt: '2026-11-29T04:00:02.000Z',
        },
      ],
    });
    const text = describeText(description, plain);
    expect(squashed(text)).toContain(
      "last runs: none in the ledger and 120 skipped runs (0 paused) without items of their own, in 1 skip range of the last 35 days (a long gap's older runs): zonecron history hourly --since 35d lists them, --at <instant> answers for one",
    );
    expect(overlongLines(text)).toEqual([]);
  });

  const describeJob = (jobId: string, options: Partial<DescribeOptions> = {}) =>
    buildDescription(
      jobId,
      { ...stack.options, config: stack.config, count: 5, last: 10, ...options },
      { env: {}, now: NOW },
    );

  it('shows the pause with who, why and until, and the open signals: claimed, delivery failed, stuck, dead-lettered', async () => {
    const description = await describeJob('nightly');
    const doc = describeJson(description);
    expect(doc.state).toBe('paused');
    expect(doc.pause).toMatchObject({
      pausedAt: '2026-11-29T09:00:00.000Z',
      pausedBy: ALICE,
      reason: 'db migration',
      until: '2026-11-29T18:00:00.000Z',
    });
    expect(doc.signals?.map((s) => [s.kind, s.open, s.at, s.key])).toEqual([
      ['stuck', true, '2026-11-29T01:30:00.000Z', keys.dispatched],
      ['delivery-failed', true, '2026-11-28T01:30:00.000Z', keys['delivery-failed']],
      ['claimed', true, '2026-11-27T01:30:00.000Z', keys.claimed],
      ['dead-lettered', false, '2026-11-26T01:30:00.000Z', keys['dead-lettered']],
    ]);
    expect(doc.last?.map((run) => run.status)).toEqual([
      'dispatched',
      'delivery-failed',
      'claimed',
      'failed',
    ]);
    expect(doc.drift).toEqual([]);
    const text = describeText(description, plain);
    expect(squashed(text)).toContain(
      `state PAUSED since 2026-11-29T09:00:00.000Z until 2026-11-29T18:00:00.000Z by ${ALICE}: db migration`,
    );
    expect(text).toContain('signals among the last 4 runs in the ledger\n! stuck ');
    expect(text).toContain('✓ as the jobs file says');
    expect(overlongLines(text)).toEqual([]);
  });

  it('--last limits the runs shown, not the runs the signals look at', async () => {
    const doc = describeJson(await describeJob('nightly', { last: 1 }));
    expect(doc.last).toHaveLength(1);
    expect(doc.signals).toHaveLength(4);
  });

  it("flags a schedule on another expression than the file's covering, with both expressions", async () => {
    const doc = describeJson(await describeJob('hourly'));
    expect(doc.deployedSchedule).toMatchObject({
      name: 'hourly',
      expression: 'cron(30 * * * ? *)',
    });
    expect(doc.drift).toMatchObject([{ kind: 'expression' }]);
    expect(doc.drift?.[0]?.text).toContain(
      "schedule fires on cron(30 * * * ? *) in UTC, but the jobs file's covering is cron(0 * * * ? *) in UTC",
    );
    expect(stack.scheduler.commandCalls(GetScheduleCommand).at(-1)?.args[0].input).toEqual({
      GroupName: SCHEDULE_GROUP,
      Name: 'hourly',
    });
  });

  it('flags a missing schedule, and gives it as {name, state: missing} in --json', async () => {
    const description = await describeJob('monthly');
    const doc = describeJson(description);
    expect(doc.deployedSchedule).toEqual({ name: 'monthly', state: 'missing' });
    expect(doc.drift).toMatchObject([{ kind: 'missing' }]);
    expect(doc.signals).toEqual([]);
    expect(describeText(description, plain)).toContain(
      `deployed schedule: none named monthly in group ${SCHEDULE_GROUP}\n✗ drift (missing): `,
    );
  });

  // The stack is looked up first: its deployed jobs, not the file, say which ids exist.
  it('refuses an unknown job id as a usage error before it reads the schedules', async () => {
    stack.scheduler.resetHistory();
    const failure = await describeJob('nigthly').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CliError);
    expect(failure).toMatchObject({ exitCode: 2 });
    expect((failure as Error).message).toMatch(
      /^unknown job 'nigthly' in .*; did you mean 'nightly'\?/,
    );
    expect(stack.scheduler.calls()).toEqual([]);
  });
});

const CALENDAR_JOBS = `calendars:
  berlin-business:
    holidays: DE-BE
jobs:
  - id: payroll
    description: payroll on the last Berlin business day, until November
    schedule: '0 18 * * *'
    timezone: Europe/Berlin
    calendar: { name: berlin-business, businessDay: last }
    until: '2026-11-01'
    deadline: 2h
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:payroll' }
  - id: exports
    description: daily exports on Berlin business days
    schedule: '0 6 * * *'
    timezone: Europe/Berlin
    calendar: berlin-business
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:exports' }
`;

describe('zonecron describe --stack, a calendar job that has ended', () => {
  let stack: FakeStack;
  beforeAll(async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), CALENDAR_JOBS, [
      deployed('payroll', 'cron(0 16,17 * * ? *)'),
    ]);
  });
  afterAll(() => stack.stop());

  it('shows its calendar, deadline, that it ended, and the holiday data version, beside what the stack says', async () => {
    const description = await buildDescription(
      'payroll',
      { ...stack.options, config: stack.config, count: 1, last: 10 },
      { env: {}, now: NOW },
    );
    const doc = describeJson(description);
    expect(doc.deployment.table).toBe(stack.tableName);
    expect(doc.ended).toEqual({ field: 'until', at: '2026-10-31T23:00:00.000Z' });
    expect(doc.holidayData).toEqual(holidayDataVersion());
    const text = describeText(description, plain);
    expect(overlongLines(text)).toEqual([]);
    expect(squashed(text)).toContain(
      'calendar berlin-business: holidays DE-BE (public), weekends sat, sun, 0 closed days, 0 closed ranges, days in Europe/Berlin; businessDay last',
    );
    expect(squashed(text)).toContain('deadline 2h after each scheduled instant');
    expect(squashed(text)).toContain(
      'ENDED: until 2026-10-31T23:00:00Z has passed, no run after it',
    );
    expect(squashed(text)).toContain('holiday data: date-holidays');
  });

  it('lists the runs its calendar skipped among the last runs, newest first, computed, counting the older ones', async () => {
    const description = await buildDescription(
      'exports',
      { ...stack.options, config: stack.config, count: 1, last: 3 },
      { env: {}, now: NOW },
    );
    // No run in the ledger: the skips of the retention period (35 days back from Sunday
    // 2026-11-29 12:20Z), ten weekend days, the newest three listed. The fake stack names a
    // table, not a dispatcher: the definition is the jobs file's.
    const doc = describeJson(description);
    expect(doc.calendarSkipped).toEqual({
      computed: true,
      source: 'file',
      calendar: 'berlin-business',
      runs: [
        ['2026-11-29', 'Sunday'],
        ['2026-11-28', 'Saturday'],
        ['2026-11-22', 'Sunday'],
      ].map(([day, detail]) => ({
        at: `${day}T05:00:00.000Z`,
        nominal: `${day}T06:00`,
        status: 'skipped',
        reason: 'calendar',
        detail,
      })),
      notListed: 7,
    });
    const text = describeText(description, plain);
    expect(overlongLines(text)).toEqual([]);
    expect(squashed(text)).toContain(
      '3 runs skipped by calendar berlin-business (decided; computed from the file definition, not in the ledger)',
    );
    expect(text).toContain('2026-11-29 05:00  2026-11-29T06:00  skipped  calendar: Sunday\n');
    expect(squashed(text)).toContain('and 7 older (see --last)');
  });

  it('lists no calendar skip for a businessDay job: the days it does not pick are no runs', async () => {
    const description = await buildDescription(
      'payroll',
      { ...stack.options, config: stack.config, count: 1, last: 3 },
      { env: {}, now: NOW },
    );
    expect(describeJson(description).calendarSkipped).toEqual(
      expect.objectContaining({ calendar: 'berlin-business', runs: [], notListed: 0 }),
    );
  });
});
