// Zone drift, pure: what synth records of its schedules, and which jobs the runtime's rules
// no longer agree with, with the first instant of disagreement named from the record alone.
//
// Hand-checked facts. Europe/Berlin 2027: CET (+60) until 2027-03-28 01:00Z, CEST (+120)
// after. With that spring change moved a week later (2027-04-04 01:00Z), 02:30 every day is
// 01:30Z on 2027-03-28 under both (a gap under the real rules, shifted to 03:30 CEST), and
// differs first on 2027-03-29: 00:30Z (CEST) against 01:30Z (CET). Every 15 minutes runs at
// the same UTC instants under both. Asia/Tokyo and Europe/London do not move.
import { describe, expect, it } from 'vitest';
import { scheduleSpecOf } from '#jobs/job.ts';
import { recordZone } from '#zone-drift/recorded-zones.ts';
import { findZoneDrift, recordSchedules } from '#zone-drift/zone-drift.ts';
import { disagreementsOf, scheduleFingerprint } from '#zone-drift/zone-fingerprint.ts';
import { intlZoneRules } from '../../../functions/schedule/index.ts';
import { makeJob } from '../../support/jobs.ts';
import { DRIFT_JOBS, DRIFT_SYNTH_TIME, springMovedAWeek } from '../../support/zone-drift.ts';

const FROM = DRIFT_SYNTH_TIME;
const JOBS = [
  ...DRIFT_JOBS,
  makeJob({ id: 'paris-off', schedule: '0 3 * * *', timezone: 'Europe/Paris', enabled: false }),
];

describe('recordSchedules', () => {
  it("fingerprints each enabled job and records each enabled job's zone, nothing of disabled ones", () => {
    const record = recordSchedules(JOBS, FROM);
    const enabled = JOBS.filter((job) => job.enabled);
    expect(record.synthesizedAt).toBe('2027-01-01T00:00:00.000Z');
    expect(record.fingerprints).toEqual(
      Object.fromEntries(
        enabled.map((job) => [job.id, scheduleFingerprint(scheduleSpecOf(job), FROM).hash]),
      ),
    );
    expect(record.zones).toEqual({
      'Europe/Berlin': recordZone('Europe/Berlin', FROM),
      'Asia/Tokyo': recordZone('Asia/Tokyo', FROM),
      'Europe/London': recordZone('Europe/London', FROM),
    });
  });

  it('computes under the rules it is given', () => {
    const record = recordSchedules(JOBS, FROM, { rules: springMovedAWeek });
    const nightly = scheduleSpecOf(JOBS[0] as (typeof JOBS)[0]);
    expect(record.fingerprints['berlin-nightly']).toBe(
      scheduleFingerprint(nightly, FROM, { rules: springMovedAWeek }).hash,
    );
    expect(record.zones['Europe/Berlin']).toEqual(
      recordZone('Europe/Berlin', FROM, { rules: springMovedAWeek }),
    );
  });
});

describe('findZoneDrift', () => {
  it('finds nothing when the runtime has the rules synth had', () => {
    expect(findZoneDrift(JOBS, recordSchedules(JOBS, FROM))).toEqual([]);
    const moved = recordSchedules(JOBS, FROM, { rules: springMovedAWeek });
    expect(findZoneDrift(JOBS, moved, { rules: springMovedAWeek })).toEqual([]);
  });

  it('names the Berlin jobs only, each with the moved transition first and its first differing run', () => {
    const record = recordSchedules(JOBS, FROM, { rules: springMovedAWeek });
    expect(findZoneDrift(JOBS, record)).toEqual([
      {
        jobId: 'berlin-nightly',
        timezone: 'Europe/Berlin',
        expression: '30 2 * * *',
        kind: 'transition',
        firstDisagreementAt: '2027-03-28T01:00:00.000Z',
        synth: 'transition 2027-04-04T01:00Z +01:00→+02:00',
        runtime: 'transition 2027-03-28T01:00Z +01:00→+02:00',
        firstRunDifferenceAt: '2027-03-29T00:30:00.000Z',
        runsCompared: true,
      },
      {
        jobId: 'berlin-quarterly',
        timezone: 'Europe/Berlin',
        expression: '*/15 * * * *',
        kind: 'transition',
        firstDisagreementAt: '2027-03-28T01:00:00.000Z',
        synth: 'transition 2027-04-04T01:00Z +01:00→+02:00',
        runtime: 'transition 2027-03-28T01:00Z +01:00→+02:00',
        firstRunDifferenceAt: undefined,
        runsCompared: true,
      },
    ]);
  });

  it('names from the record alone what the altered rules themselves disagree about', () => {
    const record = recordSchedules(JOBS, FROM, { rules: springMovedAWeek });
    for (const finding of findZoneDrift(JOBS, record)) {
      const job = JOBS.find((j) => j.id === finding.jobId) as (typeof JOBS)[0];
      const { first, firstRun } = disagreementsOf(
        scheduleSpecOf(job),
        FROM,
        springMovedAWeek,
        intlZoneRules,
      );
      expect([finding.kind, finding.firstDisagreementAt, finding.firstRunDifferenceAt]).toEqual([
        first?.kind,
        first?.at.toISOString(),
        firstRun?.at.toISOString(),
      ]);
    }
  });

  it('names the offset at synth time when the runtime disagrees there, with both offsets', () => {
    const record = recordSchedules(JOBS, FROM);
    const berlinAhead = {
      ...record,
      zones: { ...record.zones, 'Europe/Berlin': { offsetMinutes: 120, transitions: [] } },
      fingerprints: { ...record.fingerprints, 'berlin-nightly': 'recorded-elsewhere' },
    };
    const [finding, ...rest] = findZoneDrift(JOBS, berlinAhead);
    expect(rest.map((f) => f.jobId)).toEqual([]);
    expect(finding).toMatchObject({
      jobId: 'berlin-nightly',
      kind: 'offset',
      firstDisagreementAt: '2027-01-01T00:00:00.000Z',
      synth: 'offset +02:00',
      runtime: 'offset +01:00',
      firstRunDifferenceAt: '2027-01-01T00:30:00.000Z',
    });
  });

  it('names every job of a zone the runtime does not know, from synth time', () => {
    const job = makeJob({ id: 'mars', schedule: '0 9 * * *', timezone: 'Mars/Olympus_Mons' });
    const record = {
      synthesizedAt: FROM.toISOString(),
      fingerprints: { mars: '0123456789abcdef' },
      zones: { 'Mars/Olympus_Mons': { offsetMinutes: 0, transitions: [] } },
    };
    expect(findZoneDrift([job], record)).toEqual([
      {
        jobId: 'mars',
        timezone: 'Mars/Olympus_Mons',
        expression: '0 9 * * *',
        kind: 'zone-unknown',
        firstDisagreementAt: '2027-01-01T00:00:00.000Z',
        synth: 'zone Mars/Olympus_Mons',
        runtime: expect.stringContaining('Mars/Olympus_Mons'),
        firstRunDifferenceAt: '2027-01-01T00:00:00.000Z',
        runsCompared: true,
      },
    ]);
  });

  it('stops comparing runs when the run budget is spent, and says so', () => {
    // Every minute, the moved spring: 13 days (the week and three days on either side) of
    // 1,440 runs where the offsets differ, none of them at another UTC instant.
    const minutely = [
      makeJob({ id: 'minutely-a', schedule: '* * * * *', timezone: 'Europe/Berlin' }),
      makeJob({ id: 'minutely-b', schedule: '* * * * *', timezone: 'Europe/Berlin' }),
    ];
    const record = recordSchedules(minutely, FROM, { rules: springMovedAWeek });
    const compared = (runBudget: number) =>
      findZoneDrift(minutely, record, { runBudget }).map((f) => f.runsCompared);
    expect(compared(2 * 13 * 1440)).toEqual([true, true]);
    expect(compared(13 * 1440)).toEqual([true, false]);
    expect(compared(100)).toEqual([false, false]);
  });

  it('checks no job a bundle holds no fingerprint or zone for, and none without a synth time', () => {
    const record = recordSchedules(JOBS, FROM, { rules: springMovedAWeek });
    const { 'berlin-nightly': _left, ...fingerprints } = record.fingerprints;
    expect(findZoneDrift(JOBS, { ...record, fingerprints }).map((f) => f.jobId)).toEqual([
      'berlin-quarterly',
    ]);
    expect(findZoneDrift(JOBS, { ...record, zones: {} })).toEqual([]);
    expect(findZoneDrift(JOBS, { ...record, synthesizedAt: '' })).toEqual([]);
  });
});
