// Europe/Berlin with its 2027 spring transition moved one week later: the runs of that week
// differ, nothing else does, and no other zone notices.
//
// Hand-checked facts. Berlin 2027: CET (+60) until Sunday 2027-03-28 01:00Z, then CEST (+120)
// until Sunday 2027-10-31 01:00Z. Moved by 7 days, the spring change happens on Sunday
// 2027-04-04 at 01:00Z (02:00 CET becomes 03:00 CEST), so the local days 03-28 to 04-03 stay
// on CET. Europe/Paris follows the same rules but is another zone.
import { describe, expect, it } from 'vitest';
import {
  createEngine,
  InvalidArgumentError,
  type Occurrence,
  type ScheduleSpec,
  shiftedTransitionRules,
} from '../../../functions/schedule/index.ts';

const WEEK_MINUTES = 7 * 24 * 60;
const SPRING_2027 = new Date('2027-03-28T01:00:00Z');
const YEAR_START = new Date('2027-01-01T00:00:00Z');
const YEAR_END = new Date('2028-01-01T00:00:00Z');

const platform = createEngine();
const moved = createEngine({
  zoneRules: shiftedTransitionRules('Europe/Berlin', SPRING_2027, WEEK_MINUTES),
});

const row = (o: Occurrence) => `${o.at.toISOString()} ${o.nominal} ${o.dst}`;

/** The runs of 2027 on which the two engines differ, as [platform, moved] rows. */
function differences(spec: ScheduleSpec): [string | undefined, string | undefined][] {
  const a = platform.occurrencesBetween(spec, YEAR_START, YEAR_END).map(row);
  const b = moved.occurrencesBetween(spec, YEAR_START, YEAR_END).map(row);
  const onlyA = a.filter((x) => !b.includes(x));
  const onlyB = b.filter((x) => !a.includes(x));
  return Array.from({ length: Math.max(onlyA.length, onlyB.length) }, (_, i) => [
    onlyA[i],
    onlyB[i],
  ]);
}

describe('Europe/Berlin with its 2027 spring transition one week later', () => {
  it('has its spring transition on 2027-04-04 at 01:00Z and its autumn one unchanged', () => {
    const shape = moved
      .zoneTransitions('Europe/Berlin', YEAR_START, YEAR_END)
      .map((t) => [t.at.toISOString(), t.offsetBeforeMinutes, t.offsetAfterMinutes]);
    expect(shape).toEqual([
      ['2027-04-04T01:00:00.000Z', 60, 120],
      ['2027-10-31T01:00:00.000Z', 120, 60],
    ]);
  });

  it('runs a daily 09:00 job an hour later in UTC on the seven days still on CET, and only then', () => {
    expect(differences({ cron: '0 9 * * *', timezone: 'Europe/Berlin' })).toEqual([
      [
        '2027-03-28T07:00:00.000Z 2027-03-28T09:00 none',
        '2027-03-28T08:00:00.000Z 2027-03-28T09:00 none',
      ],
      [
        '2027-03-29T07:00:00.000Z 2027-03-29T09:00 none',
        '2027-03-29T08:00:00.000Z 2027-03-29T09:00 none',
      ],
      [
        '2027-03-30T07:00:00.000Z 2027-03-30T09:00 none',
        '2027-03-30T08:00:00.000Z 2027-03-30T09:00 none',
      ],
      [
        '2027-03-31T07:00:00.000Z 2027-03-31T09:00 none',
        '2027-03-31T08:00:00.000Z 2027-03-31T09:00 none',
      ],
      [
        '2027-04-01T07:00:00.000Z 2027-04-01T09:00 none',
        '2027-04-01T08:00:00.000Z 2027-04-01T09:00 none',
      ],
      [
        '2027-04-02T07:00:00.000Z 2027-04-02T09:00 none',
        '2027-04-02T08:00:00.000Z 2027-04-02T09:00 none',
      ],
      [
        '2027-04-03T07:00:00.000Z 2027-04-03T09:00 none',
        '2027-04-03T08:00:00.000Z 2027-04-03T09:00 none',
      ],
    ]);
  });

  it('moves the 02:30 gap of a wall-clock job from 03-28 to 04-04', () => {
    // Platform: 02:30 does not exist on 03-28 (shifted to 03:30 CEST = 01:30Z), exists in CEST
    // after. Moved: 02:30 CET = 01:30Z until 04-03, missing on 04-04 (shifted to 01:30Z).
    expect(differences({ cron: '30 2 * * *', timezone: 'Europe/Berlin' })).toEqual([
      [
        '2027-03-28T01:30:00.000Z 2027-03-28T02:30 gap',
        '2027-03-28T01:30:00.000Z 2027-03-28T02:30 none',
      ],
      [
        '2027-03-29T00:30:00.000Z 2027-03-29T02:30 none',
        '2027-03-29T01:30:00.000Z 2027-03-29T02:30 none',
      ],
      [
        '2027-03-30T00:30:00.000Z 2027-03-30T02:30 none',
        '2027-03-30T01:30:00.000Z 2027-03-30T02:30 none',
      ],
      [
        '2027-03-31T00:30:00.000Z 2027-03-31T02:30 none',
        '2027-03-31T01:30:00.000Z 2027-03-31T02:30 none',
      ],
      [
        '2027-04-01T00:30:00.000Z 2027-04-01T02:30 none',
        '2027-04-01T01:30:00.000Z 2027-04-01T02:30 none',
      ],
      [
        '2027-04-02T00:30:00.000Z 2027-04-02T02:30 none',
        '2027-04-02T01:30:00.000Z 2027-04-02T02:30 none',
      ],
      [
        '2027-04-03T00:30:00.000Z 2027-04-03T02:30 none',
        '2027-04-03T01:30:00.000Z 2027-04-03T02:30 none',
      ],
      [
        '2027-04-04T00:30:00.000Z 2027-04-04T02:30 none',
        '2027-04-04T01:30:00.000Z 2027-04-04T02:30 gap',
      ],
    ]);
  });

  it('keeps every UTC instant of a */15 cadence: 35,040 quarter hours in 2027 either way', () => {
    const spec: ScheduleSpec = { cron: '*/15 * * * *', timezone: 'Europe/Berlin' };
    const a = platform.occurrencesBetween(spec, YEAR_START, YEAR_END).map((o) => o.at.getTime());
    const b = moved.occurrencesBetween(spec, YEAR_START, YEAR_END).map((o) => o.at.getTime());
    expect(a).toHaveLength(365 * 96);
    expect(b).toEqual(a);
  });

  it('leaves Europe/Paris, on the same rules but another zone, as the platform has it', () => {
    const spec: ScheduleSpec = { cron: '0 9 * * *', timezone: 'Europe/Paris' };
    expect(
      moved
        .nextOccurrences(spec, new Date('2027-03-29T00:00:00Z'), 1)
        .map((o) => o.at.toISOString()),
    ).toEqual(['2027-03-29T07:00:00.000Z']);
    expect(differences(spec)).toEqual([]);
  });
});

describe('shiftedTransitionRules', () => {
  it('moves a transition earlier with a negative shift: Berlin on CEST from 2027-03-21 01:00Z', () => {
    const earlier = createEngine({
      zoneRules: shiftedTransitionRules('Europe/Berlin', SPRING_2027, -WEEK_MINUTES),
    });
    const shape = earlier
      .zoneTransitions('Europe/Berlin', YEAR_START, new Date('2027-06-01T00:00:00Z'))
      .map((t) => [t.at.toISOString(), t.offsetBeforeMinutes, t.offsetAfterMinutes]);
    expect(shape).toEqual([['2027-03-21T01:00:00.000Z', 60, 120]]);
  });

  it('refuses an instant that is not a transition of the zone', () => {
    expect(() =>
      shiftedTransitionRules('Europe/Berlin', new Date('2027-03-28T02:00:00Z'), WEEK_MINUTES),
    ).toThrow(expect.objectContaining({ name: 'InvalidArgumentError', argument: 'transitionAt' }));
    expect(() =>
      shiftedTransitionRules('Europe/Berlin', new Date('2027-03-28T01:00:30Z'), WEEK_MINUTES),
    ).toThrow(expect.objectContaining({ argument: 'transitionAt' }));
  });

  it('refuses a shift that reaches the next transition (spring moved past autumn)', () => {
    expect(() => shiftedTransitionRules('Europe/Berlin', SPRING_2027, 220 * 24 * 60)).toThrow(
      expect.objectContaining({ name: 'InvalidArgumentError', argument: 'shiftMinutes' }),
    );
    expect(() => shiftedTransitionRules('Europe/Berlin', SPRING_2027, -160 * 24 * 60)).toThrow(
      /reaches another transition/,
    );
  });

  it('refuses a shift that is not a whole number of minutes, and an unknown zone', () => {
    expect(() => shiftedTransitionRules('Europe/Berlin', SPRING_2027, 0.5)).toThrow(
      InvalidArgumentError,
    );
    expect(() => shiftedTransitionRules('Europe/Atlantis', SPRING_2027, 60)).toThrow(
      /unknown time zone 'Europe\/Atlantis'/,
    );
  });
});
