import { describe, expect, it } from 'vitest';
import {
  runLocalScheduler,
  type SandboxTimers,
  sandboxCoverings,
} from '../../../../cli/sandbox/local-scheduler.ts';
import { parseJobsConfig } from '../../../../infra/config/load-jobs.ts';

/**
 * Timers on a clock the test owns: each wait ends at once at its instant plus `lateByMs` (a
 * machine that slept), until the instant passes `end`; then the loop is stopped.
 */
function testTimers(start: string, end: string, lateByMs = 0) {
  let nowMs = Date.parse(start);
  const abort = new AbortController();
  const timers: SandboxTimers = {
    now: () => new Date(nowMs),
    async sleepUntil(at) {
      if (at.getTime() > Date.parse(end)) abort.abort();
      else nowMs = at.getTime() + lateByMs;
    },
  };
  return { timers, signal: abort.signal };
}

async function firedEvents(
  coverings: { jobId: string; cron: string }[],
  timers: ReturnType<typeof testTimers>,
) {
  const events: object[] = [];
  await runLocalScheduler({
    coverings,
    timers: timers.timers,
    signal: timers.signal,
    fire: async (_fire, event) => {
      events.push(event);
    },
  });
  return events;
}

describe('runLocalScheduler', () => {
  it('sends at each whole minute the ticks of the coverings that fire then, then the sweep', async () => {
    const timers = testTimers('2026-12-02T10:00:30Z', '2026-12-02T10:02:00Z');
    const events = await firedEvents([{ jobId: 'every-other', cron: '*/2 * * * *' }], timers);
    expect(events).toEqual([
      { sweep: true, scheduledTime: '2026-12-02T10:01:00Z' },
      {
        jobId: 'every-other',
        scheduledTime: '2026-12-02T10:02:00Z',
        executionId: 'sandbox000000002',
        attempt: '1',
      },
      { sweep: true, scheduledTime: '2026-12-02T10:02:00Z' },
    ]);
  });

  it('catches up at most five minutes when the clock jumped, as Scheduler replays no night', async () => {
    const timers = testTimers('2026-12-02T10:00:00Z', '2026-12-02T10:01:00Z', 10 * 60_000);
    const events = await firedEvents([], timers);
    expect(events.map((e) => (e as { scheduledTime: string }).scheduledTime)).toEqual([
      '2026-12-02T10:07:00Z',
      '2026-12-02T10:08:00Z',
      '2026-12-02T10:09:00Z',
      '2026-12-02T10:10:00Z',
      '2026-12-02T10:11:00Z',
    ]);
  });
});

describe('sandboxCoverings', () => {
  it("is synth's UTC covering of every enabled job", () => {
    const { jobs } = parseJobsConfig(
      `jobs:
  - id: berlin
    description: nightly in Berlin
    schedule: '30 2 * * *'
    timezone: Europe/Berlin
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
    expect(sandboxCoverings(jobs, new Date('2026-01-01T00:00:00Z'))).toEqual([
      { jobId: 'berlin', cron: '30 0,1 * * *' },
    ]);
  });
});
