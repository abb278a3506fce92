import { hostname } from 'node:os';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetScheduleCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scheduleSpecOf } from '#jobs/job.ts';
import { buildJobList } from '../../cli/commands/list.ts';
import { listJson, listText } from '../../cli/format/job-list.ts';
import { nextOccurrences } from '../../functions/schedule/index.ts';
import { parseJobsConfig } from '../../infra/config/load-jobs.ts';
import { tickInput } from '../../infra/constructs/schedule-inputs.ts';
import {
  type FakeStack,
  putRun,
  SCHEDULE_GROUP,
  STACK_NAME,
  startFakeStack,
} from './fake-stack.ts';
import { hasAnsi, overlongLines, runCli } from './run-cli.ts';

const FIXTURE = 'test/cli/fixtures/berlin.yaml';
const AFTER = '2027-03-27T12:00:00Z';
const plain = { ...(await import('picocolors')).default.createColors(false) };

interface ListedJson {
  id: string;
  state: string;
  next: string | null;
  nextLocal: string | null;
  pause: Record<string, unknown> | null;
  last: { at: string; status: string } | null;
  deployedSchedule: string | null;
  drift: { kind: string; text: string }[] | null;
}

describe('zonecron list, offline from the jobs file', () => {
  it('lists every job with its zone, its next run local and UTC, and a disabled job as disabled', async () => {
    const result = await runCli(['list', '--config', FIXTURE, '--after', AFTER]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /\nberlin-nightly +30 2 \* \* \* +Europe\/Berlin +2027-03-28 03:30 CEST\n/,
    );
    expect(result.stdout).toMatch(/\nswitched-off +0 \* \* \* \* +UTC +disabled\n/);
    expect(result.stdout).toContain('note: offline: from the jobs file alone');
    expect(overlongLines(result.stdout)).toEqual([]);
    expect(hasAnsi(result.stdout)).toBe(false);
  });

  it('with -o wide, adds target, state and the UTC times, on one line per job', async () => {
    const result = await runCli(['list', '--config', FIXTURE, '--after', AFTER, '-o', 'wide']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /\nberlin-nightly +lambda +enabled +30 2 \* \* \* +Europe\/Berlin +2027-03-28 03:30 CEST +2027-03-28 01:30 UTC\n/,
    );
  });

  it('marks a job whose until has passed and an at job whose run is past as ended, one line each within 80 columns', async () => {
    const args = ['list', '--config', 'test/fixtures/jobs/calendars.yaml'];
    const result = await runCli([...args, '--after', '2027-01-02T00:00:00Z']);
    expect(result.code).toBe(0);
    expect(overlongLines(result.stdout)).toEqual([]);
    expect(result.stdout).toContain('7 jobs (7 enabled, 2 ended)');
    expect(result.stdout).toMatch(/\nchristmas-greeting +0 18 24 12 \* +Europe\/Berlin +ended\n/);
    expect(result.stdout).toMatch(/\nsummer-campaign +0 10 \* \* \* +Europe\/Berlin +ended\n/);
    expect(result.stdout).toMatch(
      /\nexports +0 6 \* \* \* +Europe\/Berlin +2027-01-04 06:00 CET\n/,
    );
    const wide = await runCli([...args, '--after', '2027-01-02T00:00:00Z', '-o', 'wide']);
    expect(wide.stdout).toMatch(/\nsummer-campaign +lambda +ended +0 10 /);
    const json = await runCli([...args, '--after', '2026-12-01T00:00:00Z', '--json']);
    const doc = JSON.parse(json.stdout) as { jobs: { id: string; ended: unknown }[] };
    expect(doc.jobs.filter((j) => j.ended !== null)).toEqual([
      expect.objectContaining({
        id: 'summer-campaign',
        ended: { field: 'until', at: '2026-08-31T22:00:00.000Z' },
      }),
    ]);
  });

  it('prints {file, after, deployment, jobs, group} with --json, nothing of a deployment read', async () => {
    const result = await runCli(['list', '--config', FIXTURE, '--after', AFTER, '--json']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(Object.keys(doc)).toEqual(['file', 'after', 'deployment', 'jobs', 'group']);
    expect(doc.deployment).toMatchObject({ stack: null, table: null, scheduleGroup: null });
    expect(doc.group).toBeNull();
    expect(doc.jobs.map((j: ListedJson) => [j.id, j.state, j.next, j.nextLocal, j.drift])).toEqual([
      ['berlin-nightly', 'enabled', '2027-03-28T01:30:00.000Z', '2027-03-28 03:30 CEST', null],
      ['london-half-hourly', 'enabled', '2027-03-27T12:30:00.000Z', '2027-03-27 12:30 GMT', null],
      ['switched-off', 'disabled', null, null, null],
    ]);
  });
});

describe('zonecron list --table, on DynamoDB Local', () => {
  it('shows the pause zonecron pause wrote: who, since when, until when and why', async () => {
    const { createLedgerTable, localDynamoClient } = await import('../support/ledger.ts');
    const client = localDynamoClient(inject('dynamoEndpoint'));
    const table = await createLedgerTable(client, 'list-cli');
    client.destroy();
    const connection = ['--table', table, '--endpoint-url', `dynamodb=${inject('dynamoEndpoint')}`];
    const env = {
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      USER: 'tester',
    };
    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const paused = await runCli(
      [
        'pause',
        'berlin-nightly',
        '--reason',
        'db migration',
        '--until',
        until,
        '--config',
        FIXTURE,
        ...connection,
      ],
      { env },
    );
    expect(paused.code).toBe(0);

    const result = await runCli(['list', '--config', FIXTURE, ...connection, '--json'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.deployment).toMatchObject({ stack: null, table, scheduleGroup: null });
    expect(doc.deployment.notes[0]).toMatch(/^the deployed schedules are not compared: no stack/);
    expect(doc.jobs[0]).toMatchObject({
      id: 'berlin-nightly',
      state: 'paused',
      pause: { paused: true, pausedBy: `tester@${hostname()}`, reason: 'db migration', until },
      drift: null,
    });
    expect(doc.jobs[1]).toMatchObject({ id: 'london-half-hourly', state: 'enabled', pause: null });

    const text = await runCli(['list', '--config', FIXTURE, ...connection], { env });
    expect(text.stdout.replace(/\s+/g, ' ')).toContain(
      `↳ paused since ${doc.jobs[0].pause.pausedAt} until ${until} by tester@${hostname()}: db migration`,
    );
  });
});

const JOBS = `jobs:
  - id: nightly
    description: as deployed, paused
    schedule: '30 2 * * *'
    timezone: Europe/Berlin
    target: { type: lambda, arn: 'arn:aws:lambda:us-east-1:123456789012:function:nightly' }
  - id: hourly
    description: its schedule was edited by hand
    schedule: '0 * * * *'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:hourly' }
  - id: weekly
    description: its schedule was disabled by hand
    schedule: '0 6 * * MON'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:weekly' }
  - id: monthly
    description: its schedule is missing
    schedule: '0 6 1 * *'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:monthly' }
  - id: retired
    description: disabled in the file, yet deployed
    schedule: '0 7 * * *'
    timezone: UTC
    enabled: false
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:retired' }
`;
const NOW = new Date('2026-11-29T12:20:00.000Z');
const PAUSED_AT = new Date('2026-11-29T09:00:00.000Z');
const PAUSED_UNTIL = new Date('2026-11-29T18:00:00.000Z');
const deployed = (name: string, state: string, expression: string) => ({
  name,
  state,
  expression,
  timezone: 'UTC',
  input: tickInput(name),
});
const SCHEDULES = [
  deployed('nightly', 'ENABLED', 'cron(30 0,1 * * ? *)'),
  deployed('hourly', 'ENABLED', 'cron(30 * * * ? *)'),
  deployed('weekly', 'DISABLED', 'cron(0 6 ? * MON *)'),
  deployed('retired', 'ENABLED', 'cron(0 7 * * ? *)'),
  deployed('old-report', 'ENABLED', 'cron(0 8 * * ? *)'),
  deployed('zonecron.sweep', 'ENABLED', 'cron(* * * * ? *)'),
];

describe('zonecron list --stack, the ledger on DynamoDB Local, Scheduler and CloudFormation stubbed', () => {
  let stack: FakeStack;
  const { jobs } = parseJobsConfig(JOBS, 'jobs.yaml');

  beforeAll(async () => {
    stack = await startFakeStack(inject('dynamoEndpoint'), JOBS, SCHEDULES);
    await stack.ledger.pause('nightly', {
      at: PAUSED_AT,
      by: 'arn:aws:iam::123456789012:user/alice',
      reason: 'db migration',
      until: PAUSED_UNTIL,
    });
    const hourly = jobs.find((job) => job.id === 'hourly');
    if (!hourly) throw new Error('no job hourly');
    const [noon] = nextOccurrences(scheduleSpecOf(hourly), new Date('2026-11-29T11:59:00Z'), 1);
    if (!noon) throw new Error('no run of hourly');
    await putRun(stack.ledger, hourly, noon, 'dispatched');
  });
  afterAll(() => stack.stop());

  const list = () =>
    buildJobList({ ...stack.options, config: stack.config }, { env: {}, now: NOW });

  it('flags each kind of drift: missing, disabled, another expression, a disabled job deployed, a schedule no job owns', async () => {
    const doc = listJson(await list());
    expect(doc.jobs.map((j) => [j.id, j.deployedSchedule, j.drift?.map((d) => d.kind)])).toEqual([
      ['nightly', 'ENABLED', []],
      ['hourly', 'ENABLED', ['expression']],
      ['weekly', 'DISABLED', ['disabled']],
      ['monthly', 'missing', ['missing']],
      ['retired', 'ENABLED', ['unexpected']],
    ]);
    expect(doc.group).toMatchObject({
      extra: [{ name: 'old-report', state: 'ENABLED' }],
      sweep: 'ENABLED',
    });
    expect(doc.jobs[1]?.drift?.[0]?.text).toMatch(
      /^schedule fires on cron\(30 \* \* \* \? \*\) in UTC, but the jobs file's covering is cron\(0 \* \* \* \? \*\) in UTC/,
    );
    expect(doc.deployment).toEqual({
      stack: STACK_NAME,
      table: stack.tableName,
      scheduleGroup: SCHEDULE_GROUP,
      notes: [],
    });
  });

  it('shows the paused job with who, why and until, and the last run the ledger has', async () => {
    const result = await list();
    const doc = listJson(result);
    expect(doc.jobs[0]).toMatchObject({
      id: 'nightly',
      state: 'paused',
      pause: {
        pausedAt: PAUSED_AT.toISOString(),
        pausedBy: 'arn:aws:iam::123456789012:user/alice',
        reason: 'db migration',
        until: PAUSED_UNTIL.toISOString(),
        ending: false,
      },
    });
    expect(doc.jobs[1]?.last).toMatchObject({
      at: '2026-11-29T12:00:00.000Z',
      status: 'dispatched',
    });
    expect(doc.jobs[2]?.last).toMatchObject({
      at: '2026-11-23T06:00:00.000Z',
      status: 'not-recorded',
    });
    const text = listText(result, plain);
    expect(text.replace(/\s+/g, ' ')).toContain(
      '↳ paused since 2026-11-29T09:00:00.000Z until 2026-11-29T18:00:00.000Z by arn:aws:iam::123456789012:user/alice: db migration',
    );
    for (const kind of ['expression', 'disabled', 'missing', 'unexpected', 'extra']) {
      expect(text).toContain(`✗ drift (${kind}): `);
    }
    expect(overlongLines(text)).toEqual([]);
  });

  it('finds the stack through ZONECRON_STACK, and reads each enabled deployed schedule once with GetSchedule', async () => {
    stack.scheduler.resetHistory();
    stack.cloudFormation.resetHistory();
    const { stack: _named, ...endpoints } = stack.options;
    await buildJobList(
      { ...endpoints, config: stack.config },
      { env: { ZONECRON_STACK: STACK_NAME }, now: NOW },
    );
    expect(stack.cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({
      StackName: STACK_NAME,
    });
    expect(stack.scheduler.commandCalls(ListSchedulesCommand)[0]?.args[0].input).toEqual({
      GroupName: SCHEDULE_GROUP,
      MaxResults: 100,
    });
    const got = stack.scheduler.commandCalls(GetScheduleCommand).map((c) => c.args[0].input.Name);
    expect(got.sort()).toEqual(['hourly', 'nightly', 'weekly']);
  });

  it('with --no-expressions, calls no GetSchedule, flags no expression drift and says so', async () => {
    stack.scheduler.resetHistory();
    const doc = listJson(
      await buildJobList(
        { ...stack.options, config: stack.config, expressions: false },
        { env: {}, now: NOW },
      ),
    );
    expect(stack.scheduler.commandCalls(GetScheduleCommand)).toEqual([]);
    expect(doc.jobs[1]).toMatchObject({ id: 'hourly', drift: [] });
    expect(doc.deployment.notes).toEqual([
      'expressions not compared (--no-expressions): zonecron describe <job> compares one',
    ]);
  });
});
