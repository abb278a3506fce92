import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import type { RunItem } from '#ledger/index.ts';
import { offlineInput } from '../../../../cli/commands/describe.ts';
import type { DeployedSchedule } from '../../../../cli/deployed/deployed-schedule.ts';
import type { PauseState } from '../../../../cli/deployed/pause-state.ts';
import {
  type DescribeInput,
  describeJob,
  describeJson,
  describeText,
} from '../../../../cli/format/job-description.ts';
import { tickInput } from '../../../../infra/constructs/schedule-inputs.ts';
import { makeJob } from '../../../support/jobs.ts';

const plain = pc.createColors(false);

/** The text with every run of spaces and line breaks as one space: wrapping aside. */
const squashed = (text: string) => text.replace(/\s+/g, ' ');
const NOW = new Date('2027-03-27T12:00:00.000Z');
const job = makeJob({
  id: 'berlin-nightly',
  description: 'the nightly report',
  schedule: '30 2 * * *',
  timezone: 'Europe/Berlin',
  maxRuntimeSeconds: 1800,
  target: { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:nightly' },
});
const DEPLOYED = {
  stack: 'Prod-Zonecron',
  table: 'Prod-Zonecron-Ledger',
  scheduleGroup: 'Prod-Zonecron',
  notes: [],
};
const NOT_PAUSED: PauseState = { jobId: 'berlin-nightly', paused: false, ending: false };
const AS_DEPLOYED: DeployedSchedule = {
  name: 'berlin-nightly',
  state: 'ENABLED',
  expression: 'cron(30 0,1 * * ? *)',
  timezone: 'UTC',
  input: tickInput('berlin-nightly'),
};

/** The jobs file's view of `job`, 3 runs from NOW: across the night 02:30 does not exist. */
async function offline(of = job): Promise<DescribeInput> {
  return offlineInput('jobs.yaml', of, { now: NOW, after: NOW, count: 3, lastCount: 10 });
}

/** The same with the deployment read: not paused, no runs, the schedule as deployed. */
async function deployed(fields: Partial<DescribeInput> = {}): Promise<DescribeInput> {
  return {
    ...(await offline()),
    pause: NOT_PAUSED,
    runs: [],
    schedule: AS_DEPLOYED,
    deployment: DEPLOYED,
    ...fields,
  };
}

describe('describeJob offline', () => {
  it('gives the covering, its ticks per run, and the next runs with the DST note of the gap night', async () => {
    const input = await offline();
    const text = describeText(describeJob(input), plain);
    expect(text).toContain('  UTC covering cron(30 0,1 * * ? *), 2 ticks per run');
    expect(text).toContain('               at 02:30 every day');
    expect(text).toContain(
      'Sun 2027-03-28 03:30 +02:00 CEST  2027-03-28T01:30:00Z  2027-03-28T02:30\n' +
        '  ↳ 02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST',
    );
    expect(text).toContain('  state        enabled (pause not read)');
  });

  it('leaves pause, last runs, signals, deployed schedule and drift null in --json', async () => {
    const doc = describeJson(describeJob(await offline()));
    expect(doc).toMatchObject({
      state: 'enabled',
      pause: null,
      last: null,
      signals: null,
      deployedSchedule: null,
      drift: null,
    });
    expect(doc.next.map((run) => [run.at, run.dst])).toEqual([
      ['2027-03-28T01:30:00.000Z', 'gap'],
      ['2027-03-29T00:30:00.000Z', 'none'],
      ['2027-03-30T00:30:00.000Z', 'none'],
    ]);
  });

  it('says a job the file disables is disabled, and that its covering is not deployed', async () => {
    const input = await offline(makeJob({ ...job, enabled: false }));
    const description = describeJob(input);
    expect(description.state).toBe('disabled');
    const text = describeText(description, plain);
    expect(text).toContain('  state        disabled in jobs.yaml (enabled: false)');
    expect(squashed(text)).toContain('(not deployed: the job is disabled)');
    expect(text).toContain('next 3 runs after 2027-03-27T12:00:00Z, were it enabled');
  });

  it("prints the zone data's warnings for the job's zone", async () => {
    const input = await offline();
    const warning = {
      timezone: 'Europe/Berlin',
      jobIds: ['berlin-nightly'],
      release: '2099a',
      releasedOn: '2027-01-01',
      summary: 'Germany stays on summer time.',
      differsFrom: '2027-10-31T01:00:00.000Z',
      knownHere: false,
      source: 'https://example.org/tz-announce',
      text: 'Europe/Berlin changed in tz 2099a (2027-01-01): Germany stays on summer time.',
    };
    const text = describeText(
      describeJob({ ...input, zoneData: { ...input.zoneData, warnings: [warning] } }),
      plain,
    );
    expect(squashed(text)).toContain(
      'ZONE Europe/Berlin changed in tz 2099a (2027-01-01): Germany stays on summer time. Jobs: berlin-nightly.',
    );
  });
});

describe('describeJob against a deployment', () => {
  it.each([
    ['no schedule in the group', null, ['missing']],
    ['a schedule disabled by hand', { ...AS_DEPLOYED, state: 'DISABLED' }, ['disabled']],
    [
      'a schedule on another expression',
      { ...AS_DEPLOYED, expression: 'cron(30 1 * * ? *)' },
      ['expression'],
    ],
    ['a schedule in another zone', { ...AS_DEPLOYED, timezone: 'Europe/Berlin' }, ['expression']],
    ['a schedule sending another tick', { ...AS_DEPLOYED, input: '{"jobId":"x"}' }, ['input']],
    ['the schedule as the jobs file says', AS_DEPLOYED, []],
  ])('flags %s as drift %j', async (_what, schedule, kinds) => {
    const description = describeJob(await deployed({ schedule }));
    expect(description.drift?.map((d) => d.kind)).toEqual(kinds);
  });

  it('shows the drift under the deployed schedule, or says it is as the file says', async () => {
    const drifted = describeText(describeJob(await deployed({ schedule: null })), plain);
    expect(drifted).toContain(
      'deployed schedule: none named berlin-nightly in group Prod-Zonecron\n✗ drift (missing): ',
    );
    const same = describeText(describeJob(await deployed()), plain);
    expect(same).toContain(
      'deployed schedule berlin-nightly in group Prod-Zonecron\n' +
        '  state        ENABLED\n' +
        '  expression   cron(30 0,1 * * ? *) in UTC\n' +
        '✓ as the jobs file says',
    );
  });

  it('shows a paused job as PAUSED with since, until, by whom and why', async () => {
    const pause: PauseState = {
      jobId: 'berlin-nightly',
      paused: true,
      pausedAt: '2027-03-27T09:00:00.000Z',
      pausedBy: 'arn:aws:iam::123456789012:user/alice',
      reason: 'db migration',
      until: '2027-03-27T18:00:00.000Z',
      ending: false,
    };
    const description = describeJob(await deployed({ pause }));
    expect(description.state).toBe('paused');
    expect(squashed(describeText(description, plain))).toContain(
      ' state PAUSED since 2027-03-27T09:00:00.000Z until 2027-03-27T18:00:00.000Z by arn:aws:iam::123456789012:user/alice: db migration target ',
    );
    expect(describeJson(description).pause).toEqual(pause);
  });

  it('lists the last runs and marks open signals with ! and closed ones with ✗', async () => {
    const base = {
      jobId: 'berlin-nightly',
      dst: 'none',
      roundAttempts: 1,
      generation: 0,
      manual: false,
      signals: [],
      outbox: [],
    } as const;
    const runs: RunItem[] = [
      {
        ...base,
        key: '1111111aaa',
        at: '2027-03-27T01:30:00.000Z',
        nominal: '2027-03-27T02:30',
        status: 'delivery-failed',
        attempts: 1,
        lastError: 'Throttled',
      },
      {
        ...base,
        key: '2222222bbb',
        at: '2027-03-26T01:30:00.000Z',
        nominal: '2027-03-26T02:30',
        status: 'failed',
        failure: 'delivery',
        attempts: 3,
      },
    ];
    const description = describeJob(await deployed({ runs, lastCount: 1 }));
    const text = describeText(description, plain);
    expect(text).toContain('last 1 run (newest first)');
    expect(text).toContain(
      'signals among the last 2 runs in the ledger\n! delivery-failed 1111111 2027-03-27T01:30Z',
    );
    expect(text).toContain(
      '✗ dead-lettered 2222222 2027-03-26T01:30Z: dead-lettered after 3 attempts',
    );
    const doc = describeJson(description);
    expect(doc.last?.map((run) => run.key)).toEqual(['1111111aaa']);
    expect(doc.signals?.map((s) => [s.kind, s.open])).toEqual([
      ['delivery-failed', true],
      ['dead-lettered', false],
    ]);
  });

  it('fits 80 columns', async () => {
    const text = describeText(describeJob(await deployed({ schedule: null })), plain);
    expect(text.split('\n').filter((line) => [...line].length > 80)).toEqual([]);
  });
});

describe('describeJson', () => {
  it('has the documented keys, in order', async () => {
    expect(Object.keys(describeJson(describeJob(await deployed())))).toEqual([
      'file',
      'after',
      'job',
      'state',
      'sentence',
      'hint',
      'kind',
      'policies',
      'covering',
      'coveringCron',
      'ticksPerRun',
      'covers',
      'next',
      'skipped',
      'zoneData',
      'deployment',
      'pause',
      'last',
      'ranges',
      'calendarSkipped',
      'signals',
      'deployedSchedule',
      'drift',
      'ended',
      'holidayData',
    ]);
  });

  it("gives a missing schedule as {name, state: 'missing'}", async () => {
    const doc = describeJson(describeJob(await deployed({ schedule: null })));
    expect(doc.deployedSchedule).toEqual({ name: 'berlin-nightly', state: 'missing' });
  });
});
