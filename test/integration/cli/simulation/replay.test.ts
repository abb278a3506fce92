import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFaultPlan } from '../../../../cli/simulation/faults.ts';
import { runSimulation, type SimulationResult } from '../../../../cli/simulation/run-simulation.ts';
import { periodBucket } from '../../../../functions/schedule/index.ts';
import { loadJobsFile } from '../../../../infra/config/load-jobs.ts';

// The replay fixture (test/fixtures/simulation/replay-faults.yaml on replay-jobs.yaml): a
// deploy at 10:20, two pauses, an operator's backfill, manual run, redrive, discard, pause and
// resume, and a hostile event of every kind, through the real dispatcher, recorder and ledger
// (dynalite, in this process). All jobs are in UTC.

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../../fixtures/simulation/${name}`, import.meta.url));
const config = loadJobsFile(fixture('replay-jobs.yaml'));
const plan = loadFaultPlan(fixture('replay-faults.yaml'), config);
const window = {
  from: new Date('2027-03-28T00:00:00Z'),
  to: new Date('2027-03-28T12:00:00Z'),
  reasons: [],
};

let result: SimulationResult;
beforeAll(async () => {
  result = await runSimulation({
    jobs: config.jobs,
    windows: [window],
    duplicateTicks: 2,
    faults: plan,
  });
}, 300_000);

const hhmm = (iso: string) => iso.slice(11, 16);
const outcomesOf = (jobId: string, from = '00:00', to = '23:59') =>
  result.outcomes.filter((o) => o.jobId === jobId && hhmm(o.at) >= from && hhmm(o.at) <= to);
const deliveredOf = (jobId: string) => result.runs.filter((r) => r.jobId === jobId);
const key = (jobId: string, iso: string) => periodBucket(jobId, new Date(iso));

describe('replaying a history', () => {
  it('ticks a job by its new covering from the deploy on: hourly until 10:00, every five minutes from 10:20', () => {
    const hourly = outcomesOf('hourly', '08:00');
    expect(hourly.map((o) => hhmm(o.at))).toEqual([
      '08:00',
      '09:00',
      '10:00',
      ...Array.from({ length: 21 }, (_, i) => {
        const minutes = 10 * 60 + 20 + 5 * i;
        return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
      }),
    ]);
    // Each run from 10:20 on was delivered by its own tick, the covering's event 200 ms after it.
    for (const o of hourly.slice(3)) {
      expect(o).toMatchObject({ status: 'delivered', deliveries: 1 });
      expect(Date.parse(o.deliveredAt ?? '') - Date.parse(o.at)).toBeLessThan(1000);
    }
  });

  it('stops the job the deploy removes and starts the one it adds', () => {
    expect(outcomesOf('feed').at(-1)?.at).toBe('2027-03-28T10:00:00.000Z');
    expect(deliveredOf('feed').some((r) => r.at > new Date('2027-03-28T10:00:00Z'))).toBe(false);
    expect(outcomesOf('fresh').map((o) => `${hhmm(o.at)} ${o.status}`)).toEqual([
      '10:30 delivered',
      '11:00 delivered',
      '11:30 delivered',
      '12:00 delivered',
    ]);
  });

  it('skips the runs due inside a pause, [from, to), and delivers the run due at its end', () => {
    expect(
      outcomesOf('hourly', '04:00', '07:00').map((o) => `${hhmm(o.at)} ${o.reason ?? o.status}`),
    ).toEqual(['04:00 delivered', '05:00 paused', '06:00 paused', '07:00 delivered']);
    // The operator's own pause of backup: 08:00 to its resume at 08:30.
    expect(
      outcomesOf('backup', '07:45', '08:30').map((o) => `${hhmm(o.at)} ${o.reason ?? o.status}`),
    ).toEqual(['07:45 delivered', '08:00 paused', '08:15 paused', '08:30 delivered']);
  });

  it('delivers the paused runs at a resume with --catch-up, through the backfill route', () => {
    const resume = result.operator.find((o) => o.action === 'resume' && o.jobId === 'sync');
    expect(resume?.ok).toBe(true);
    const caughtUp = ['02:00', '02:10', '02:20', '02:30'].map((t) =>
      key('sync', `2027-03-28T${t}:00Z`),
    );
    expect(resume?.delivered).toEqual(expect.arrayContaining(caughtUp));
    expect(outcomesOf('sync', '02:00', '02:30').every((o) => o.status === 'delivered')).toBe(true);
  });

  it("delivers an operator's backfill of runs the window's ledger never decided", () => {
    const backfill = result.operator.find((o) => o.action === 'backfill');
    const runs = ['20:00', '20:15', '20:30', '20:45', '21:00'].map((t) =>
      key('backup', `2027-03-27T${t}:00Z`),
    );
    expect(backfill).toMatchObject({ ok: true, delivered: runs });
    expect(
      deliveredOf('backup')
        .filter((r) => r.at < window.from)
        .map((r) => r.key),
    ).toEqual(runs);
  });

  it('redrives one dead-lettered run and discards the dead letter of another, through the dlq commands', () => {
    expect(result.operator.find((o) => o.action === 'redrive')).toMatchObject({
      ok: true,
      delivered: [key('sync', '2027-03-28T03:00:00Z')],
    });
    expect(result.operator.find((o) => o.action === 'discard')).toMatchObject({
      ok: true,
      detail: 'discarded the dead letter; run left failed',
    });
    expect(outcomesOf('sync', '03:00', '03:20').map((o) => `${hhmm(o.at)} ${o.status}`)).toEqual([
      '03:00 delivered',
      '03:10 dead-lettered',
      '03:20 dead-lettered',
    ]);
    // Three runs went to the queue: the redriven one's message was deleted.
    expect(result.deadLettered).toHaveLength(3);
  });

  it('delivers a manual run under its manual key', () => {
    const run = result.operator.find((o) => o.action === 'run');
    expect(run).toMatchObject({ ok: true, jobId: 'nightly' });
    expect(run?.delivered).toEqual([
      periodBucket('manual:nightly', new Date('2027-03-28T06:05:00Z')),
    ]);
  });

  it('sends each hostile event to its function, and records what it answered and counted', () => {
    expect(result.hostile.map((h) => [h.kind, h.to, h.attempts, h.deliveries, h.threw])).toEqual([
      ['ancient-tick', 'dispatcher', 1, 0, null],
      ['future-tick', 'dispatcher', 1, 0, null],
      ['forged-completion', 'recorder', 1, 0, null],
      ['deep-event', 'dispatcher', 1, 0, null],
      ['huge-event', 'recorder', 1, 0, null],
    ]);
    expect(result.hostile[1]).toMatchObject({
      result: 'ignored (future)',
      counted: ['RejectedTicks'],
    });
    expect(result.hostile[2]).toMatchObject({ recorded: false });
    expect(result.hostile[3]?.counted).toEqual(['MalformedEvents']);
    expect(result.hostile[4]?.counted).toEqual(['MalformedEvents']);
  });

  it('lists every notification sent, with its kind, job, runs, first, last and when', () => {
    expect(result.notifications.length).toBeGreaterThan(0);
    const deadLettered = result.notifications.filter((n) => n.kind === 'dead-lettered');
    expect(deadLettered.map((n) => [n.jobId, n.runs, n.first, n.last])).toEqual(
      ['03:00', '03:10', '03:20'].map((t) => [
        'sync',
        1,
        `2027-03-28T${t}:00.000Z`,
        `2027-03-28T${t}:00.000Z`,
      ]),
    );
    for (const n of result.notifications)
      expect(Date.parse(n.sentAt)).toBeGreaterThan(Date.parse(n.first));
  });

  it("keeps every invariant; a deploy that catches up the new schedule's runs before it breaks the one of runs", () => {
    const broken = result.invariants.filter((i) => !i.ok).map((i) => i.name);
    expect(broken.filter((name) => name !== 'nothing delivered that is not a run')).toEqual([]);
    // The new schedule's runs at or before the deploy are no runs: a dispatcher that catches
    // up 10:05, 10:10 and 10:15 at the first */5 tick delivers three things that are not runs.
    const beforeDeploy = deliveredOf('hourly').filter(
      (r) => r.at > new Date('2027-03-28T10:00:00Z') && r.at < new Date('2027-03-28T10:20:00Z'),
    );
    expect(broken.includes('nothing delivered that is not a run')).toBe(beforeDeploy.length > 0);
  });
});
