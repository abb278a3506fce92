import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import type { DeployedSchedule } from '../../../../cli/deployed/deployed-schedule.ts';
import type { PauseState } from '../../../../cli/deployed/pause-state.ts';
import type { LastRun } from '../../../../cli/deployed/run-reads.ts';
import { type JobListInput, jobList, listJson, listText } from '../../../../cli/format/job-list.ts';
import { tickInput } from '../../../../infra/constructs/schedule-inputs.ts';
import { makeJob } from '../../../support/jobs.ts';

const plain = pc.createColors(false);
const AFTER = new Date('2027-03-27T12:00:00.000Z');
const OFFLINE = { stack: null, table: null, scheduleGroup: null, notes: ['offline: …'] };
const DEPLOYED = {
  stack: 'Prod-Zonecron',
  table: 'Prod-Zonecron-Ledger',
  scheduleGroup: 'Prod-Zonecron',
  notes: [],
};

const berlin = makeJob({
  id: 'berlin-nightly',
  schedule: '30 2 * * *',
  timezone: 'Europe/Berlin',
  target: { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:nightly' },
});
const hourly = makeJob({ id: 'hourly', schedule: '0 * * * *', timezone: 'UTC' });
const weekly = makeJob({ id: 'weekly', schedule: '0 6 * * MON', timezone: 'UTC' });
const monthly = makeJob({ id: 'monthly', schedule: '0 6 1 * *', timezone: 'UTC' });
const off = makeJob({ id: 'switched-off', schedule: '0 * * * *', timezone: 'UTC', enabled: false });
const JOBS = [berlin, hourly, weekly, monthly, off];

const PAUSE: PauseState = {
  jobId: 'hourly',
  paused: true,
  pausedAt: '2027-03-27T09:00:00.000Z',
  pausedBy: 'alice@laptop',
  reason: 'db migration',
  until: '2027-03-27T18:00:00.000Z',
  ending: false,
};

const schedule = (name: string, fields: Partial<DeployedSchedule> = {}): DeployedSchedule => ({
  name,
  state: 'ENABLED',
  timezone: 'UTC',
  input: tickInput(name),
  ...fields,
});

/** A deployment where each kind of drift shows once, with the coverings compared. */
function deployedInput(): JobListInput {
  const schedules = new Map(
    [
      schedule('berlin-nightly', { expression: 'cron(30 0,1 * * ? *)' }),
      schedule('hourly', { expression: 'cron(0 * * * ? *)' }),
      schedule('weekly', { state: 'DISABLED', expression: 'cron(0 6 ? * MON *)' }),
      schedule('switched-off', { expression: 'cron(0 * * * ? *)' }),
      schedule('old-job'),
      schedule('zonecron.sweep'),
    ].map((s) => [s.name, s]),
  );
  const coverings = new Map([
    ['berlin-nightly', 'cron(30 0,1 * * ? *)'],
    ['hourly', 'cron(15 * * * ? *)'],
    ['weekly', 'cron(0 6 ? * MON *)'],
  ]);
  const last: LastRun = {
    at: '2027-03-27T01:30:00.000Z',
    nominal: '2027-03-27T02:30',
    key: 'abcdef0123',
    run: undefined,
  };
  return {
    file: 'jobs.yaml',
    jobs: JOBS,
    after: AFTER,
    pauses: new Map([['hourly', PAUSE]]),
    lastRuns: new Map([['berlin-nightly', last]]),
    schedules,
    coverings,
    deployment: DEPLOYED,
  };
}

const byId = (list: ReturnType<typeof jobList>, id: string) =>
  list.jobs.find((job) => job.id === id);

describe('jobList offline', () => {
  const list = jobList({ file: 'jobs.yaml', jobs: JOBS, after: AFTER, deployment: OFFLINE });

  it('gives the next run in the zone and in UTC, at 03:30 CEST on the night 02:30 does not exist', () => {
    expect(byId(list, 'berlin-nightly')).toMatchObject({
      state: 'enabled',
      next: '2027-03-28T01:30:00.000Z',
      nextLocal: '2027-03-28 03:30 CEST',
    });
  });

  it('marks a job the file disables as disabled, without a next run', () => {
    expect(byId(list, 'switched-off')).toMatchObject({ state: 'disabled', next: null });
  });

  it('leaves pause, last run, deployed schedule, drift and group null: nothing was read', () => {
    for (const job of list.jobs) {
      expect([job.pause, job.last, job.deployedSchedule, job.drift]).toEqual([
        null,
        null,
        null,
        null,
      ]);
    }
    expect(list.group).toBeNull();
  });
});

describe('jobList against a deployment', () => {
  const list = jobList(deployedInput());
  const kinds = (id: string) => byId(list, id)?.drift?.map((d) => d.kind);

  it.each([
    ['a schedule as the jobs file says', 'berlin-nightly', []],
    ['a schedule firing on another expression than the covering', 'hourly', ['expression']],
    ['a schedule disabled by hand', 'weekly', ['disabled']],
    ['no schedule for an enabled job', 'monthly', ['missing']],
    ['a schedule for a job the file disables', 'switched-off', ['unexpected']],
  ])('flags %s on job %s as %j', (_what, id, expected) => {
    expect(kinds(id)).toEqual(expected);
  });

  it('lists a schedule that no job of the file owns as extra, and the sweep as enabled', () => {
    expect(list.group).toEqual({ extra: [schedule('old-job')], sweep: 'ENABLED' });
  });

  it('shows a paused job with who paused it, when, until when and why', () => {
    expect(byId(list, 'hourly')).toMatchObject({ state: 'paused', pause: PAUSE });
    const text = listText(list, plain);
    expect(text).toContain(
      '  ↳ paused since 2027-03-27T09:00:00.000Z until 2027-03-27T18:00:00.000Z by\n    alice@laptop: db migration',
    );
  });

  it('says a last run the ledger has no item for is not recorded', () => {
    expect(byId(list, 'berlin-nightly')?.last).toEqual({
      at: '2027-03-27T01:30:00.000Z',
      nominal: '2027-03-27T02:30',
      key: 'abcdef0123',
      status: 'not-recorded',
      skipReason: null,
      failure: null,
      signals: [],
    });
  });
});

describe('listText', () => {
  it('counts the states in its headline and puts each drift under its job, within 80 columns', () => {
    const text = listText(jobList(deployedInput()), plain);
    const lines = text.split('\n');
    expect(lines[0]).toBe('jobs.yaml: 5 jobs (4 enabled, 1 paused, 1 disabled, 4 drifted) · stack');
    for (const kind of ['expression', 'disabled', 'missing', 'unexpected', 'extra']) {
      expect(text).toContain(`✗ drift (${kind}): `);
    }
    expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  });

  it('has no last-run column offline', () => {
    const text = listText(
      jobList({ file: 'jobs.yaml', jobs: JOBS, after: AFTER, deployment: OFFLINE }),
      plain,
    );
    expect(text).toContain('next run');
    expect(text).not.toContain('last run');
  });
});

describe('listText layout', () => {
  const long = makeJob({
    id: 'finance-berlin-nightly-report',
    schedule: '0 9 * * MON-FRI',
    timezone: 'America/Argentina/ComodRivadavia',
  });
  const input = () => ({ ...deployedInput(), jobs: [...JOBS, long] });
  const jobLines = (text: string, id: string) =>
    text.split('\n').filter((l) => l.startsWith(`${id} `));

  it('puts each job on one line with its id whole, and fits 80 columns by cutting with …', () => {
    const text = listText(jobList(input()), plain);
    for (const job of [...JOBS, long]) {
      expect(jobLines(text, job.id)).toHaveLength(1);
    }
    expect(text.split('\n').filter((line) => [...line].length > 80)).toEqual([]);
    expect(jobLines(text, long.id)[0]).toMatch(/ Ameri\S*… /);
  });

  it('keeps an id whole even when the line then passes 80 columns', () => {
    const id = 'an-id-so-long-that-nothing-else-could-fit-beside-it-in-eighty-columns';
    const text = listText(jobList({ ...input(), jobs: [makeJob({ id })] }), plain);
    expect(jobLines(text, id)).toHaveLength(1);
  });

  it('with wide, cuts nothing and shows target, state and the UTC times', () => {
    const text = listText(jobList(input()), plain, 'wide');
    const line = jobLines(text, long.id)[0] ?? '';
    expect(line).toContain('America/Argentina/ComodRivadavia');
    expect(line).toContain('0 9 * * MON-FRI');
    expect(text).not.toContain('…');
    expect(jobLines(text, 'hourly')[0]).toMatch(/^hourly +sqs +paused /);
  });
});

describe('listJson', () => {
  it('is {file, after, deployment, jobs, group}, each job with the documented fields', () => {
    const doc = JSON.parse(JSON.stringify(listJson(jobList(deployedInput()))));
    expect(Object.keys(doc)).toEqual(['file', 'after', 'deployment', 'jobs', 'group']);
    expect(Object.keys(doc.jobs[0])).toEqual([
      'id',
      'schedule',
      'timezone',
      'target',
      'enabled',
      'state',
      'pause',
      'next',
      'nextLocal',
      'last',
      'deployedSchedule',
      'drift',
      'ended',
    ]);
    expect(doc.jobs.map((j: { deployedSchedule: string }) => j.deployedSchedule)).toEqual([
      'ENABLED',
      'ENABLED',
      'DISABLED',
      'missing',
      'ENABLED',
    ]);
  });
});
