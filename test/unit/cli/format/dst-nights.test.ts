import { describe, expect, it } from 'vitest';
import { dstNights, policySummary } from '../../../../cli/format/dst-nights.ts';

const YEAR_2027 = [new Date('2027-01-01T00:00Z'), new Date('2028-01-01T00:00Z')] as const;

describe('dstNights', () => {
  it('names both Berlin nights of 2027 and what they do to a 02:30 job', () => {
    expect(dstNights({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, ...YEAR_2027)).toEqual([
      {
        at: new Date('2027-03-28T01:00:00.000Z'),
        kind: 'gap',
        title: '2027-03-28, the last Sunday of March: clocks go forward 1 hour at 02:00 CET',
        lines: ['02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST'],
      },
      {
        at: new Date('2027-10-31T01:00:00.000Z'),
        kind: 'overlap',
        title: '2027-10-31, the last Sunday of October: clocks go back 1 hour at 03:00 CEST',
        lines: [
          '02:30 happens twice on 2027-10-31 in Europe/Berlin — runs once, at the first (CEST)',
        ],
      },
    ]);
  });

  it('says that nothing changes on a night none of the local times falls into', () => {
    const nights = dstNights({ cron: '0 9 * * *', timezone: 'America/New_York' }, ...YEAR_2027);
    expect(nights.map((night) => [night.title, night.lines])).toEqual([
      [
        '2027-03-14, the second Sunday of March: clocks go forward 1 hour at 02:00 EST',
        ['02:00 to 02:59 do not exist, and this schedule has no run then: nothing changes for it'],
      ],
      [
        '2027-11-07, the first Sunday of November: clocks go back 1 hour at 02:00 EDT',
        ['01:00 to 01:59 happen twice, and this schedule has no run then: nothing changes for it'],
      ],
    ]);
  });

  it('measures a half-hour change in minutes', () => {
    const nights = dstNights({ cron: '0 9 * * *', timezone: 'Australia/Lord_Howe' }, ...YEAR_2027);
    expect(nights.map((night) => night.lines)).toEqual([
      ['01:30 to 01:59 happen twice, and this schedule has no run then: nothing changes for it'],
      ['02:00 to 02:29 do not exist, and this schedule has no run then: nothing changes for it'],
    ]);
    expect(nights.map((night) => night.title)).toEqual([
      expect.stringMatching(
        /^2027-04-04, the first Sunday of April: clocks go back 30 minutes at 02:00 /,
      ),
      expect.stringMatching(
        /^2027-10-03, the first Sunday of October: clocks go forward 30 minutes at 02:00 /,
      ),
    ]);
  });

  it('has no nights in a zone without clock changes', () => {
    expect(dstNights({ cron: '30 2 * * *', timezone: 'Asia/Tokyo' }, ...YEAR_2027)).toEqual([]);
  });
});

describe('policySummary', () => {
  it.each([
    {
      name: "a wall-clock schedule's defaults",
      spec: { cron: '30 2 * * *', timezone: 'Europe/Berlin' },
      summary:
        'in Europe/Berlin, a wall-clock schedule (gap shift, overlap first): a local time that does not exist runs later by the length of the jump; a local time that happens twice runs once, at the first',
    },
    {
      name: "a cadence's defaults",
      spec: { cron: '*/15 * * * *', timezone: 'Europe/London' },
      summary:
        'in Europe/London, a cadence, which follows elapsed time (gap skip, overlap both): a local time that does not exist is skipped; a local time that happens twice runs at both',
    },
    {
      name: 'overridden policies',
      spec: {
        cron: '30 2 * * *',
        timezone: 'Europe/Berlin',
        dst: { gap: 'transition', overlap: 'last' },
      } as const,
      summary:
        'in Europe/Berlin, a wall-clock schedule (gap transition, overlap last): a local time that does not exist runs at the moment the clocks jump; a local time that happens twice runs once, at the second',
    },
  ])('says $name in words', ({ spec, summary }) => {
    expect(policySummary(spec)).toBe(summary);
  });
});
