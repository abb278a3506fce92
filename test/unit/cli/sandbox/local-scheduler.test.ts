import { describe, expect, it } from 'vitest';
import { runLocalScheduler, type SandboxTimers } from '../../../../cli/sandbox/local-scheduler.ts';

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
  coverings: { jobId: string; cron: string; maxEventAgeSeconds?: number }[],
  timers: ReturnType<typeof testTimers>,
) {
  const events: object[] = [];
  await runLocalScheduler({
    coverings: coverings.map((c) => ({ maxEventAgeSeconds: 86_400, ...c })),
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

  it('after a jump, replays only the sweep of the last minute, as its one-minute event age allows', async () => {
    const timers = testTimers('2026-12-02T10:00:00Z', '2026-12-02T10:01:00Z', 10 * 60_000 + 30_000);
    const events = await firedEvents([], timers);
    expect(events).toEqual([{ sweep: true, scheduledTime: '2026-12-02T10:11:00Z' }]);
  });

  it("after a jump, replays a job's ticks late within its maximum event age, then the sweep", async () => {
    const timers = testTimers('2026-12-02T10:00:00Z', '2026-12-02T10:01:00Z', 20 * 60_000 + 30_000);
    const events = await firedEvents(
      [
        { jobId: 'quarterly', cron: '*/15 * * * *', maxEventAgeSeconds: 86_400 },
        { jobId: 'short-window', cron: '*/5 * * * *', maxEventAgeSeconds: 10 * 60 },
      ],
      timers,
    );
    // The clock is at 10:21:30: short-window's ticks of 10:05 and 10:10 are older than 10 minutes.
    expect(events.map((e) => Object.values(e).slice(0, 2).join(' '))).toEqual([
      'quarterly 2026-12-02T10:15:00Z',
      'short-window 2026-12-02T10:15:00Z',
      'short-window 2026-12-02T10:20:00Z',
      'true 2026-12-02T10:21:00Z',
    ]);
  });

  it('replays at most the last hour of ticks after a longer jump', async () => {
    const timers = testTimers(
      '2026-12-02T10:00:00Z',
      '2026-12-02T10:01:00Z',
      3 * 3_600_000 + 30_000,
    );
    const events = await firedEvents(
      [{ jobId: 'hourly', cron: '0 * * * *', maxEventAgeSeconds: 86_400 }],
      timers,
    );
    // 13:01:30: the ticks of 11:00 and 12:00 are more than an hour old; the sweep decides their runs.
    expect(events.map((e) => (e as { scheduledTime: string }).scheduledTime)).toEqual([
      '2026-12-02T13:00:00Z',
      '2026-12-02T13:01:00Z',
    ]);
  });
});
