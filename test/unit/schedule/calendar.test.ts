// Business calendars and bounds, by example: conventions, businessDay, closed days and closed
// ranges across DST nights, month ends, a leap day, a calendar in another zone, "never", the
// preview and the errors. Instants are exact; the holiday data is date-holidays' (DE-BE, US-NY).
import { describe, expect, it } from 'vitest';
import {
  type BusinessCalendar,
  businessDaysOfMonth,
  type ClosedDayConvention,
  closedDayOf,
  createEngine,
  InvalidArgumentError,
  iterateOccurrences,
  keyInstantOf,
  nextOccurrences,
  nextRun,
  type Occurrence,
  occurrencesBetween,
  type ScheduleSpec,
  scheduleBetween,
} from '../../../functions/schedule/index.ts';
import { type CalendarFixture, engineCalendar } from './calendar-fixtures.ts';

const berlin: CalendarFixture = {
  name: 'berlin-business',
  timezone: 'Europe/Berlin',
  region: 'DE-BE',
};
const yearEnd: CalendarFixture = {
  ...berlin,
  closedDays: { '2026-12-24': 'Christmas Eve' },
  closedRanges: [{ from: '2026-12-28T00:00', to: '2027-01-04T00:00', reason: 'year-end freeze' }],
};
/** Friday and Saturday off, so that runs move onto Sundays, the nights clocks change in Europe. */
const friSat: CalendarFixture = { name: 'fri-sat', timezone: 'Europe/Berlin', weekendDays: [5, 6] };

function spec(
  cron: string,
  fixture: CalendarFixture,
  rule: Partial<ScheduleSpec['calendar']> = {},
  extra: Partial<ScheduleSpec> = {},
): ScheduleSpec {
  return {
    cron,
    timezone: 'Europe/Berlin',
    calendar: { calendar: engineCalendar(fixture), ...rule },
    ...extra,
  };
}

function show(o: Occurrence): string {
  const moved = o.moved
    ? ` <- ${o.moved.nominalAt.toISOString()} (${o.moved.reason}, ${o.moved.convention})`
    : '';
  return `${o.at.toISOString()} ${o.nominal} ${o.dst}${moved}`;
}

describe('conventions', () => {
  it.each<[string, ClosedDayConvention, string[]]>([
    [
      'skips Christmas Day, Boxing Day and the weekend under skip',
      'skip',
      [
        '2026-12-24T08:00:00.000Z 2026-12-24T09:00 none',
        '2026-12-28T08:00:00.000Z 2026-12-28T09:00 none',
      ],
    ],
    [
      'moves Friday Christmas Day and Saturday Boxing Day to Monday under following, keeping both',
      'following',
      [
        '2026-12-24T08:00:00.000Z 2026-12-24T09:00 none',
        '2026-12-28T08:00:00.000Z 2026-12-28T09:00 none <- 2026-12-25T08:00:00.000Z (Christmas Day, following)',
        '2026-12-28T08:00:00.000Z 2026-12-28T09:00 none <- 2026-12-26T08:00:00.000Z (Boxing Day, following)',
        '2026-12-28T08:00:00.000Z 2026-12-28T09:00 none <- 2026-12-27T08:00:00.000Z (Sunday, following)',
        '2026-12-28T08:00:00.000Z 2026-12-28T09:00 none',
      ],
    ],
    [
      'moves them back to Thursday under preceding',
      'preceding',
      [
        '2026-12-24T08:00:00.000Z 2026-12-24T09:00 none',
        '2026-12-24T08:00:00.000Z 2026-12-24T09:00 none <- 2026-12-25T08:00:00.000Z (Christmas Day, preceding)',
        '2026-12-24T08:00:00.000Z 2026-12-24T09:00 none <- 2026-12-26T08:00:00.000Z (Boxing Day, preceding)',
        '2026-12-24T08:00:00.000Z 2026-12-24T09:00 none <- 2026-12-27T08:00:00.000Z (Sunday, preceding)',
        '2026-12-28T08:00:00.000Z 2026-12-28T09:00 none',
      ],
    ],
  ])('%s', (_name, onClosed, expected) => {
    const runs = occurrencesBetween(
      spec('0 9 * * *', berlin, { onClosed }),
      new Date('2026-12-24T00:00Z'),
      new Date('2026-12-28T12:00Z'),
    );
    expect(runs.map(show)).toEqual(expected);
  });

  it('keeps a modified-following run of Sunday 31 January in January: Friday the 29th', () => {
    const [run] = nextOccurrences(
      spec('0 9 L * *', berlin, { onClosed: 'modified-following' }),
      new Date('2027-01-15T00:00Z'),
      1,
    );
    expect(show(run as Occurrence)).toBe(
      '2027-01-29T08:00:00.000Z 2027-01-29T09:00 none <- 2027-01-31T08:00:00.000Z (Sunday, modified-following)',
    );
  });

  it('moves a following run of Sunday 31 January into February, Monday the 1st', () => {
    const [run] = nextOccurrences(
      spec('0 9 L * *', berlin, { onClosed: 'following' }),
      new Date('2027-01-15T00:00Z'),
      1,
    );
    expect(show(run as Occurrence)).toBe(
      '2027-02-01T08:00:00.000Z 2027-02-01T09:00 none <- 2027-01-31T08:00:00.000Z (Sunday, modified-following)'.replace(
        'modified-following',
        'following',
      ),
    );
  });

  it('keeps a modified-preceding run of Saturday 1 August in August: Monday the 3rd, in summer time', () => {
    const [run] = nextOccurrences(
      spec('0 9 1 * *', berlin, { onClosed: 'modified-preceding' }),
      new Date('2026-07-15T00:00Z'),
      1,
    );
    expect(show(run as Occurrence)).toBe(
      '2026-08-03T07:00:00.000Z 2026-08-03T09:00 none <- 2026-08-01T07:00:00.000Z (Saturday, modified-preceding)',
    );
  });

  it('moves a preceding run of Sunday 29 March back across the spring-forward night to Friday the 27th, in winter time', () => {
    const [run] = nextOccurrences(
      spec('0 9 29 3 *', berlin, { onClosed: 'preceding' }),
      new Date('2026-03-15T00:00Z'),
      1,
    );
    expect(show(run as Occurrence)).toBe(
      '2026-03-27T08:00:00.000Z 2026-03-27T09:00 none <- 2026-03-29T07:00:00.000Z (Sunday, preceding)',
    );
  });
});

describe('moved runs on DST nights', () => {
  it('runs 02:30 moved onto the spring-forward Sunday at 03:30 CEST (gap shift), three runs with three keys', () => {
    const runs = occurrencesBetween(
      spec('30 2 * * *', friSat, { onClosed: 'following' }),
      new Date('2027-03-25T00:00Z'),
      new Date('2027-03-28T12:00Z'),
    );
    expect(runs.map(show)).toEqual([
      '2027-03-25T01:30:00.000Z 2027-03-25T02:30 none',
      '2027-03-28T01:30:00.000Z 2027-03-28T02:30 gap <- 2027-03-26T01:30:00.000Z (Friday, following)',
      '2027-03-28T01:30:00.000Z 2027-03-28T02:30 gap <- 2027-03-27T01:30:00.000Z (Saturday, following)',
      '2027-03-28T01:30:00.000Z 2027-03-28T02:30 gap',
    ]);
    expect(new Set(runs.map((r) => keyInstantOf(r).toISOString())).size).toBe(runs.length);
  });

  it('drops runs moved into the spring-forward gap when the gap policy is skip', () => {
    const preview = scheduleBetween(
      spec('30 2 * * *', friSat, { onClosed: 'following' }, { dst: { gap: 'skip' } }),
      new Date('2027-03-25T12:00Z'),
      new Date('2027-03-28T12:00Z'),
    );
    expect(preview.runs).toEqual([]);
    expect(preview.skipped.map((s) => `${s.at.toISOString()} ${s.reason} ${s.detail}`)).toEqual([
      '2027-03-26T01:30:00.000Z calendar Friday; moved to 2027-03-28T02:30, in the spring-forward gap of Europe/Berlin (gap policy skip)',
      '2027-03-27T01:30:00.000Z calendar Saturday; moved to 2027-03-28T02:30, in the spring-forward gap of Europe/Berlin (gap policy skip)',
    ]);
  });

  it.each([
    ['first', '2026-10-25T00:30:00.000Z'],
    ['last', '2026-10-25T01:30:00.000Z'],
    ['both', '2026-10-25T00:30:00.000Z'],
  ] as const)('runs 02:30 moved onto the fall-back Sunday once, at %s pass (%s)', (overlap, at) => {
    const runs = occurrencesBetween(
      spec('30 2 * * *', friSat, { onClosed: 'following' }, { dst: { overlap } }),
      new Date('2026-10-23T12:00Z'),
      new Date('2026-10-25T00:29Z'),
    );
    expect(runs).toEqual([]);
    const moved = occurrencesBetween(
      spec('30 2 * * *', friSat, { onClosed: 'following' }, { dst: { overlap } }),
      new Date('2026-10-23T12:00Z'),
      new Date('2026-10-25T12:00Z'),
    ).filter((r) => r.moved !== undefined);
    expect(moved.map((r) => `${r.at.toISOString()} ${r.dst}`)).toEqual([
      `${at} overlap`,
      `${at} overlap`,
    ]);
  });
});

describe('businessDay', () => {
  it('runs payroll on the last business day: Wednesday 23 December before Christmas Eve and the freeze, then Friday 29 January', () => {
    const runs = nextOccurrences(
      spec('0 18 * * *', yearEnd, { businessDay: -1 }),
      new Date('2026-12-01T00:00Z'),
      2,
    );
    expect(runs.map(show)).toEqual([
      '2026-12-23T17:00:00.000Z 2026-12-23T18:00 none',
      '2027-01-29T17:00:00.000Z 2027-01-29T18:00 none',
    ]);
  });

  it('runs on the first business day of January after New Year and the freeze: Monday the 4th', () => {
    const [run] = nextOccurrences(
      spec('0 18 * * *', yearEnd, { businessDay: 1 }),
      new Date('2026-12-15T00:00Z'),
      1,
    );
    expect(run?.at.toISOString()).toBe('2027-01-04T17:00:00.000Z');
  });

  it.each([
    ['Tuesday 29 February 2028 when it is open', {}, '2028-02-29T11:00:00.000Z'],
    [
      'Monday the 28th when the leap day is closed',
      { '2028-02-29': 'leap day' },
      '2028-02-28T11:00:00.000Z',
    ],
  ])('runs the last business day of February on %s', (_name, closedDays, at) => {
    const fixture = { name: 'plain', timezone: 'Europe/Berlin', closedDays };
    const [run] = nextOccurrences(
      spec('0 12 * * *', fixture, { businessDay: -1 }),
      new Date('2028-02-01T00:00Z'),
      1,
    );
    expect(run?.at.toISOString()).toBe(at);
  });

  it('runs the second-to-last business day with -2: Thursday 28 January 2027', () => {
    const [run] = nextOccurrences(
      spec('0 7 * * *', berlin, { businessDay: -2 }),
      new Date('2027-01-01T00:00Z'),
      1,
    );
    expect(run?.at.toISOString()).toBe('2027-01-28T06:00:00.000Z');
  });
});

describe('closed ranges', () => {
  const maintenance: CalendarFixture = {
    name: 'ops',
    timezone: 'Europe/Berlin',
    weekendDays: [],
    closedRanges: [
      { from: '2026-03-29T01:00', to: '2026-03-29T04:00', reason: 'maintenance' },
      { from: '2026-10-25T02:00', to: '2026-10-25T02:30', reason: 'failover test' },
    ],
  };

  it('skips every run of a range across the spring-forward night and resumes at its end, 04:00 CEST', () => {
    const preview = scheduleBetween(
      spec('*/30 * * * *', maintenance),
      new Date('2026-03-28T22:45Z'),
      new Date('2026-03-29T02:30Z'),
    );
    expect(preview.runs.map((r) => r.at.toISOString())).toEqual([
      '2026-03-28T23:00:00.000Z',
      '2026-03-28T23:30:00.000Z',
      '2026-03-29T02:00:00.000Z',
      '2026-03-29T02:30:00.000Z',
    ]);
    expect(preview.skipped.map((s) => `${s.nominal} ${s.detail}`)).toEqual([
      '2026-03-29T01:00 maintenance',
      '2026-03-29T01:30 maintenance',
      '2026-03-29T03:00 maintenance',
      '2026-03-29T03:30 maintenance',
    ]);
  });

  it('ends a range whose end is in the repeated hour at its first pass', () => {
    const runs = occurrencesBetween(
      spec('*/15 * * * *', maintenance),
      new Date('2026-10-24T23:50Z'),
      new Date('2026-10-25T01:20Z'),
    );
    expect(runs.map((r) => `${r.at.toISOString().slice(11, 16)} ${r.nominal.slice(11)}`)).toEqual([
      '00:30 02:30',
      '00:45 02:45',
      '01:00 02:00',
      '01:15 02:15',
    ]);
  });

  it('skips a run inside a range on an open day instead of moving it', () => {
    const fixture = {
      ...berlin,
      closedRanges: [{ from: '2026-12-30T08:00', to: '2026-12-30T10:00', reason: 'deploy' }],
    };
    const runs = nextOccurrences(
      spec('0 9 * * *', fixture, { onClosed: 'following' }),
      new Date('2026-12-29T12:00Z'),
      1,
    );
    expect(runs.map(show)).toEqual(['2026-12-31T08:00:00.000Z 2026-12-31T09:00 none']);
  });

  it('skips a run moved into a range, saying so', () => {
    const fixture = {
      ...berlin,
      closedRanges: [{ from: '2027-01-11T08:30', to: '2027-01-11T09:30', reason: 'deploy' }],
    };
    const preview = scheduleBetween(
      spec('0 9 * * *', fixture, { onClosed: 'following' }),
      new Date('2027-01-08T12:00Z'),
      new Date('2027-01-12T12:00Z'),
    );
    expect(preview.runs.map(show)).toEqual(['2027-01-12T08:00:00.000Z 2027-01-12T09:00 none']);
    expect(preview.skipped.map((s) => `${s.nominal} ${s.detail}`)).toEqual([
      '2027-01-09T09:00 Saturday; moved to 2027-01-11T09:00, inside the closed range: deploy',
      '2027-01-10T09:00 Sunday; moved to 2027-01-11T09:00, inside the closed range: deploy',
      '2027-01-11T09:00 deploy',
    ]);
  });

  it('jumps a minutely job over a seven-day freeze: runs stop at its start and resume at its end', () => {
    const runs = occurrencesBetween(
      spec('* * * * *', { ...yearEnd, weekendDays: [] }),
      new Date('2026-12-27T22:58Z'),
      new Date('2027-01-03T23:01Z'),
    );
    expect(runs.map((r) => r.nominal)).toEqual([
      '2026-12-27T23:59',
      '2027-01-04T00:00',
      '2027-01-04T00:01',
    ]);
  });
});

describe('closed days', () => {
  const calendar = engineCalendar(yearEnd);
  it.each([
    ['2026-12-25', 'Christmas Day'],
    ['2026-12-24', 'Christmas Eve'],
    ['2026-12-31', 'year-end freeze'],
    ['2027-01-01', "New Year's Day"],
    ['2027-01-03', 'year-end freeze'],
    ['2027-01-04', undefined],
    ['2027-01-09', 'Saturday'],
  ])('says %s is closed because of %s', (date, reason) => {
    expect(closedDayOf(calendar, date)).toBe(reason);
  });

  it('lists the business days of December 2026 and of the leap February 2028', () => {
    expect(businessDaysOfMonth(calendar, 2026, 12)).toEqual([
      '2026-12-01',
      '2026-12-02',
      '2026-12-03',
      '2026-12-04',
      '2026-12-07',
      '2026-12-08',
      '2026-12-09',
      '2026-12-10',
      '2026-12-11',
      '2026-12-14',
      '2026-12-15',
      '2026-12-16',
      '2026-12-17',
      '2026-12-18',
      '2026-12-21',
      '2026-12-22',
      '2026-12-23',
    ]);
    expect(businessDaysOfMonth(calendar, 2028, 2).slice(-2)).toEqual(['2028-02-28', '2028-02-29']);
    expect(createEngine().businessDaysOfMonth(calendar, 2028, 2)).toHaveLength(21);
  });

  it('reads a run of a New York job on a Berlin calendar by its Berlin date: Friday 20:00 EDT is Saturday in Berlin', () => {
    const job: ScheduleSpec = {
      cron: '0 20 * * *',
      timezone: 'America/New_York',
      calendar: { calendar: engineCalendar(berlin) },
    };
    const runs = nextOccurrences(job, new Date('2026-06-05T12:00Z'), 2);
    expect(runs.map((r) => `${r.at.toISOString()} ${r.nominal}`)).toEqual([
      '2026-06-08T00:00:00.000Z 2026-06-07T20:00',
      '2026-06-09T00:00:00.000Z 2026-06-08T20:00',
    ]);
  });
});

describe('bounds', () => {
  const daily: ScheduleSpec = {
    cron: '0 9 * * *',
    timezone: 'Europe/Berlin',
    from: new Date('2026-06-10T07:00Z'),
    until: new Date('2026-06-12T07:00Z'),
  };

  it('runs from `from` inclusive to `until` exclusive', () => {
    expect(
      occurrencesBetween(daily, new Date('2026-06-01T00:00Z'), new Date('2026-06-30T00:00Z')).map(
        (r) => r.at.toISOString(),
      ),
    ).toEqual(['2026-06-10T07:00:00.000Z', '2026-06-11T07:00:00.000Z']);
    expect(
      [...iterateOccurrences(daily, new Date('2026-06-01T00:00Z'))].map((r) => r.at.toISOString()),
    ).toEqual(['2026-06-10T07:00:00.000Z', '2026-06-11T07:00:00.000Z']);
  });

  it('lists the runs outside the bounds in the preview, with the bound', () => {
    const preview = scheduleBetween(
      daily,
      new Date('2026-06-09T00:00Z'),
      new Date('2026-06-13T00:00Z'),
    );
    expect(preview.skipped.map((s) => `${s.at.toISOString()} ${s.reason}`)).toEqual([
      '2026-06-09T07:00:00.000Z from',
      '2026-06-12T07:00:00.000Z until',
    ]);
    expect(preview.runs).toHaveLength(2);
  });

  it('says never, because of until, once until is reached', () => {
    const answer = nextRun(daily, new Date('2026-06-11T07:00Z'));
    expect(answer.kind === 'never' && [answer.reason.cause, answer.reason.message]).toEqual([
      'until',
      'no run before its until (2026-06-12T07:00:00.000Z)',
    ]);
  });
});

describe('never', () => {
  const everyChristmas: BusinessCalendar = {
    name: 'christmas',
    timezone: 'Europe/Berlin',
    weekendDays: [0, 6],
    closedRanges: [],
    closedDayReason: (date) => (date.endsWith('-12-25') ? 'Christmas Day' : undefined),
  };
  it.each<[string, ScheduleSpec, string]>([
    [
      'every weekday is closed',
      spec('0 9 * * *', {
        name: 'shut',
        timezone: 'Europe/Berlin',
        weekendDays: [0, 1, 2, 3, 4, 5, 6],
      }),
      "calendar 'shut' closes every weekday (weekendDays 0, 1, 2, 3, 4, 5, 6)",
    ],
    [
      'it only matches Saturdays and skips weekends',
      spec('0 9 * * 6', berlin),
      "every day it matches is a weekend day of calendar 'berlin-business' and onClosed is skip",
    ],
    [
      'every match is Christmas Day, for 28 years',
      { cron: '0 9 25 12 *', timezone: 'Europe/Berlin', calendar: { calendar: everyChristmas } },
      'no run in the 28 years searched (to 2054-',
    ],
    [
      'no month has 25 business days',
      spec('0 9 * * *', berlin, { businessDay: 25 }),
      'no run in the 28 years searched',
    ],
  ])('says never because %s', (_name, schedule, message) => {
    const answer = nextRun(schedule, new Date('2026-12-02T00:00Z'));
    expect(answer.kind).toBe('never');
    expect(answer.kind === 'never' && answer.reason.cause).toBe('calendar');
    expect(answer.kind === 'never' && answer.reason.message).toContain(message);
  });

  it('still runs a Saturday schedule that moves to the following business day', () => {
    const answer = nextRun(
      spec('0 9 * * 6', berlin, { onClosed: 'following' }),
      new Date('2026-12-02T00:00Z'),
    );
    expect(answer.kind === 'runs' && show(answer.next)).toBe(
      '2026-12-07T08:00:00.000Z 2026-12-07T09:00 none <- 2026-12-05T08:00:00.000Z (Saturday, following)',
    );
  });
});

describe('errors', () => {
  const bad: [string, ScheduleSpec, string][] = [
    [
      'businessDay with a day-of-month',
      spec('0 9 1 * *', berlin, { businessDay: 1 }),
      'spec.calendar.businessDay',
    ],
    ['businessDay 0', spec('0 9 * * *', berlin, { businessDay: 0 }), 'spec.calendar.businessDay'],
    [
      'an unknown convention',
      spec('0 9 * * *', berlin, { onClosed: 'nearest' as ClosedDayConvention }),
      'spec.calendar.onClosed',
    ],
    [
      'a weekend day 7',
      spec('0 9 * * *', { ...berlin, weekendDays: [7] }),
      'spec.calendar.calendar.weekendDays',
    ],
    [
      'a range ending before it starts',
      spec('0 9 * * *', {
        ...berlin,
        closedRanges: [{ from: '2026-01-02T00:00', to: '2026-01-01T00:00', reason: 'x' }],
      }),
      'spec.calendar.calendar.closedRanges[0]',
    ],
    [
      'a range bound that is no local time',
      spec('0 9 * * *', {
        ...berlin,
        closedRanges: [{ from: '2026-01-02 00:00', to: '2026-01-03T00:00', reason: 'x' }],
      }),
      'spec.calendar.calendar.closedRanges[0]',
    ],
    [
      'an invalid until',
      { cron: '0 9 * * *', timezone: 'Europe/Berlin', until: new Date('x') },
      'spec.until',
    ],
  ];
  it.each(bad)('refuses %s with an InvalidArgumentError naming it', (_name, schedule, argument) => {
    expect(() => nextOccurrences(schedule, new Date('2026-01-01T00:00Z'), 1)).toThrow(
      InvalidArgumentError,
    );
    try {
      nextOccurrences(schedule, new Date('2026-01-01T00:00Z'), 1);
    } catch (error) {
      expect((error as InvalidArgumentError).argument).toBe(argument);
    }
  });

  it('names the day-of-month field a businessDay rule needs to be *', () => {
    expect(() =>
      nextOccurrences(
        spec('0 9 1 * *', berlin, { businessDay: 1 }),
        new Date('2026-01-01T00:00Z'),
        1,
      ),
    ).toThrow(
      "businessDay needs '*' in the day-of-month field of '0 9 1 * *', not '1' (the calendar picks the day)",
    );
  });
});

describe('keyInstantOf', () => {
  it('is the nominal instant of a moved run and the instant of any other', () => {
    const runs = nextOccurrences(
      spec('0 9 * * *', berlin, { onClosed: 'following' }),
      new Date('2026-12-24T12:00Z'),
      2,
    );
    expect(runs.map((r) => keyInstantOf(r).toISOString())).toEqual([
      '2026-12-25T08:00:00.000Z',
      '2026-12-26T08:00:00.000Z',
    ]);
    const plain = nextOccurrences(
      { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      new Date('2026-12-24T12:00Z'),
      1,
    );
    expect(keyInstantOf(plain[0] as Occurrence)).toBe(plain[0]?.at);
  });
});
