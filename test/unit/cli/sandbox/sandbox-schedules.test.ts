import { describe, expect, it } from 'vitest';
import { createSandboxSchedules } from '../../../../cli/sandbox/sandbox-schedules.ts';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';
import { tickInput } from '../../../../infra/constructs/schedule-inputs.ts';

const { jobs } = parseJobsConfig(
  `jobs:
  - id: berlin
    description: nightly in Berlin
    schedule: '30 2 * * *'
    timezone: Europe/Berlin
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:q' }
  - id: hourly
    description: every hour
    schedule: '0 * * * *'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:q' }
  - id: off
    description: disabled
    enabled: false
    schedule: '0 * * * *'
    timezone: UTC
    target: { type: sqs, arn: 'arn:aws:sqs:us-east-1:123456789012:q' }
`,
  'jobs.yaml',
);
const SYNTH = new Date('2026-01-01T00:00:00Z');
const EDITED = new Date('2026-01-02T00:00:00Z');

function group() {
  return createSandboxSchedules(jobs, SYNTH, () => EDITED);
}

describe('createSandboxSchedules', () => {
  it("holds synth's covering of every enabled job, named after it with its tick, and the sweep", () => {
    const schedules = group();
    expect(
      schedules.list().map(({ name, state, expression, timezone, input }) => ({
        name,
        state,
        expression,
        timezone,
        input,
      })),
    ).toEqual([
      {
        name: 'berlin',
        state: 'ENABLED',
        expression: 'cron(30 0,1 * * ? *)',
        timezone: 'UTC',
        input: tickInput('berlin'),
      },
      {
        name: 'hourly',
        state: 'ENABLED',
        expression: 'cron(0 * * * ? *)',
        timezone: 'UTC',
        input: tickInput('hourly'),
      },
      {
        name: 'zonecron.sweep',
        state: 'ENABLED',
        expression: 'cron(* * * * ? *)',
        timezone: 'UTC',
        input: '{"sweep":true,"scheduledTime":"<aws.scheduler.scheduled-time>"}',
      },
    ]);
    // Fired on synth's UTC covering, with the job's catch-up window (a day by default) as age.
    expect(schedules.coverings()).toEqual([
      { jobId: 'berlin', cron: '30 0,1 * * *', maxEventAgeSeconds: 86_400 },
      { jobId: 'hourly', cron: '0 * * * *', maxEventAgeSeconds: 86_400 },
    ]);
  });

  it('fires a schedule as updated: disabled ones not, another expression on its engine fields', () => {
    const schedules = group();
    schedules.update('berlin', { expression: 'cron(30 0,1 * * ? *)', state: 'DISABLED' });
    const hourly = schedules.update('hourly', { expression: 'cron(15 9 ? * 2-6 *)' });
    expect(hourly).toMatchObject({ state: 'ENABLED', lastModifiedAt: EDITED });
    // Still fired with the job's maximum event age: its catch-up window, a day by default.
    expect(schedules.coverings()).toEqual([
      { jobId: 'hourly', cron: '15 9 ? * 1-5', maxEventAgeSeconds: 86_400 },
    ]);
  });

  it('fires no deleted schedule, and fires one created again', () => {
    const schedules = group();
    schedules.delete('hourly');
    expect(schedules.coverings().map((c) => c.jobId)).toEqual(['berlin']);
    schedules.create('hourly', { expression: 'cron(0 * * * ? *)', input: tickInput('hourly') });
    expect(schedules.coverings().map((c) => c.jobId)).toEqual(['berlin', 'hourly']);
  });

  it.each([
    [
      'a zone other than UTC',
      () =>
        group().update('berlin', { expression: 'cron(30 2 * * ? *)', timezone: 'Europe/Berlin' }),
      "the sandbox fires schedules in UTC only, not in 'Europe/Berlin'",
    ],
    [
      'another input',
      () => group().update('berlin', { expression: 'cron(30 2 * * ? *)', input: '{}' }),
      "the sandbox sends a job's own tick only: the Target Input must be",
    ],
    [
      'no input on create',
      () => group().create('old-job', { expression: 'cron(0 6 * * ? *)' }),
      "the sandbox sends a job's own tick only",
    ],
    [
      'an unknown state',
      () => group().update('berlin', { expression: 'cron(30 2 * * ? *)', state: 'PAUSED' }),
      "invalid State 'PAUSED' (allowed ENABLED, DISABLED)",
    ],
    [
      'a rate expression',
      () => group().update('berlin', { expression: 'rate(5 minutes)' }),
      "the sandbox cannot fire 'rate(5 minutes)'",
    ],
    [
      'a change to the sweep',
      () => group().delete('zonecron.sweep'),
      "the sandbox's sweep always runs: it cannot be deleted",
    ],
  ])('refuses %s, saying why', (_what, change, message) => {
    expect(change).toThrow(message);
  });

  it.each([
    [
      'a schedule it does not hold',
      () => group().get('off'),
      'ResourceNotFoundException',
      'Schedule off does not exist.',
    ],
    [
      'a second schedule of one name',
      () =>
        group().create('berlin', { expression: 'cron(0 6 * * ? *)', input: tickInput('berlin') }),
      'ConflictException',
      'Schedule berlin already exists.',
    ],
  ])('answers %s as Scheduler does', (_what, call, kind, message) => {
    expect(call).toThrow(expect.objectContaining({ kind, message }));
  });
});
