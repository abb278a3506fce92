// Recorded zones: what synth ships of each job zone's offsets, and the rules the dispatcher
// rebuilds from it. The rebuilt rules must give every fingerprint the hash the recorded rules
// gave, which is what lets the dispatcher name the first disagreement without synth's machine.
//
// Hand-checked facts. Europe/Berlin 2027: CET (+60) until 2027-03-28 01:00Z, CEST (+120) until
// 2027-10-31 01:00Z; 2028 starts the same way and springs forward 2028-03-26 01:00Z.
// Asia/Tokyo is +540 all year. A fingerprint from 2027-01-01T00:00Z spans 366 days, and its
// record three days more on either side: 2026-12-29T00:00Z to 2028-01-05T00:00Z.
import { describe, expect, it } from 'vitest';
import {
  recordedZoneRules,
  recordZone,
  sameRecordedZone,
  UnrecordedZoneError,
} from '#zone-drift/recorded-zones.ts';
import { scheduleFingerprint } from '#zone-drift/zone-fingerprint.ts';
import {
  InvalidTimeZoneError,
  intlZoneRules,
  type ScheduleSpec,
  shiftedTransitionRules,
} from '../../../functions/schedule/index.ts';
import { GENERATED_ZONES } from '../../../scripts/generate-jobs.ts';

const FROM = new Date('2027-01-01T00:00:00Z');
const minute = (iso: string) => Date.parse(iso) / 60_000;
const springMovedAWeek = shiftedTransitionRules(
  'Europe/Berlin',
  new Date('2027-03-28T01:00:00Z'),
  7 * 24 * 60,
);
const CRONS = ['30 2 * * *', '*/15 * * * *', '0 9 * * 1-5', '45 23 L * *', 'H H(0-5) * * *'];

describe('recordZone', () => {
  it("records Berlin's offset at the span's start and each change in it, to the minute", () => {
    expect(recordZone('Europe/Berlin', FROM)).toEqual({
      offsetMinutes: 60,
      transitions: [
        [minute('2027-03-28T01:00:00Z'), 120],
        [minute('2027-10-31T01:00:00Z'), 60],
      ],
    });
  });

  it('records the span three days past the horizon: a one-day horizon from 2028-03-24 sees the change on the 26th', () => {
    expect(
      recordZone('Europe/Berlin', new Date('2028-03-24T00:00:00Z'), { horizonDays: 1 }),
    ).toEqual({ offsetMinutes: 60, transitions: [[minute('2028-03-26T01:00:00Z'), 120]] });
  });

  it('records a zone without changes as its one offset', () => {
    expect(recordZone('Asia/Tokyo', FROM)).toEqual({ offsetMinutes: 540, transitions: [] });
  });

  it('records the moved transition under rules that move it', () => {
    expect(recordZone('Europe/Berlin', FROM, { rules: springMovedAWeek }).transitions).toEqual([
      [minute('2027-04-04T01:00:00Z'), 120],
      [minute('2027-10-31T01:00:00Z'), 60],
    ]);
  });

  it('refuses a zone the platform does not know', () => {
    expect(() => recordZone('Mars/Olympus_Mons', FROM)).toThrow(InvalidTimeZoneError);
  });
});

describe('sameRecordedZone', () => {
  it('holds for two records of the same rules and fails when one transition moved', () => {
    const platform = recordZone('Europe/Berlin', FROM);
    expect(sameRecordedZone(platform, recordZone('Europe/Berlin', FROM))).toBe(true);
    expect(
      sameRecordedZone(platform, recordZone('Europe/Berlin', FROM, { rules: springMovedAWeek })),
    ).toBe(false);
    expect(sameRecordedZone(platform, { ...platform, offsetMinutes: 120 })).toBe(false);
    expect(sameRecordedZone(platform, { ...platform, transitions: [] })).toBe(false);
  });
});

describe('recordedZoneRules', () => {
  it('reproduces the fingerprint of five cron forms in each of the 40 generated zones', () => {
    const zones = Object.fromEntries(GENERATED_ZONES.map((zone) => [zone, recordZone(zone, FROM)]));
    const rebuilt = recordedZoneRules(zones);
    const mismatches = GENERATED_ZONES.flatMap((timezone) =>
      CRONS.map((cron): ScheduleSpec => ({ cron, timezone, jobId: 'job' })).filter(
        (spec) =>
          scheduleFingerprint(spec, FROM, { rules: rebuilt }).hash !==
          scheduleFingerprint(spec, FROM).hash,
      ),
    );
    expect(mismatches).toEqual([]);
  });

  it('reproduces fingerprints made under altered rules, which the platform does not give', () => {
    const rebuilt = recordedZoneRules({
      'Europe/Berlin': recordZone('Europe/Berlin', FROM, { rules: springMovedAWeek }),
    });
    for (const cron of CRONS) {
      const spec = { cron, timezone: 'Europe/Berlin', jobId: 'job' };
      const altered = scheduleFingerprint(spec, FROM, { rules: springMovedAWeek }).hash;
      expect(scheduleFingerprint(spec, FROM, { rules: rebuilt }).hash).toBe(altered);
      expect(scheduleFingerprint(spec, FROM, { rules: intlZoneRules }).hash).not.toBe(altered);
    }
  });

  it('answers the recorded offsets inside the span, the first before it and the last after it', () => {
    const rules = recordedZoneRules({ 'Europe/Berlin': recordZone('Europe/Berlin', FROM) });
    expect(rules.offsetMinutesAt('Europe/Berlin', minute('2027-03-28T00:59:00Z'))).toBe(60);
    expect(rules.offsetMinutesAt('Europe/Berlin', minute('2027-03-28T01:00:00Z'))).toBe(120);
    expect(rules.offsetMinutesAt('Europe/Berlin', minute('2027-10-31T01:00:00Z'))).toBe(60);
    // Outside the span the platform changes (2026-10-25, 2028-03-26); the record does not.
    expect(rules.offsetMinutesAt('Europe/Berlin', minute('2026-07-01T00:00:00Z'))).toBe(60);
    expect(rules.offsetMinutesAt('Europe/Berlin', minute('2028-07-01T00:00:00Z'))).toBe(60);
  });

  it('refuses a zone it holds no record of, naming it', () => {
    const rules = recordedZoneRules({ 'Asia/Tokyo': recordZone('Asia/Tokyo', FROM) });
    expect(() => rules.offsetMinutesAt('Europe/Berlin', 0)).toThrow(UnrecordedZoneError);
    expect(() => rules.offsetMinutesAt('toString', 0)).toThrow(
      "no recorded offsets for zone 'toString'",
    );
  });
});
