import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JobDefinition, scheduleSpecOf } from '#jobs/job.ts';
import {
  type GapPolicy,
  nextOccurrences,
  type OverlapPolicy,
  occurrencesBetween,
} from '../../../../functions/schedule/index.ts';
import { loadJobsFile } from '../../../../infra/config/load-jobs.ts';
import {
  type CoveringSchedule,
  coveringSchedule,
} from '../../../../infra/covering/covering-cron.ts';
import { makeJob } from '../../../support/jobs.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const FROM = new Date('2026-01-01T00:00:00.000Z');
const TWO_YEARS_LATER = new Date('2028-01-01T00:00:00.000Z');
const GAPS: readonly GapPolicy[] = ['shift', 'transition', 'skip'];
const OVERLAPS: readonly OverlapPolicy[] = ['first', 'last', 'both'];

function job(
  id: string,
  schedule: string,
  timezone: string,
  dst?: { gap?: GapPolicy; overlap?: OverlapPolicy },
): JobDefinition {
  return makeJob({
    id,
    schedule,
    timezone,
    ...(dst ? { dst } : {}),
    target: { type: 'lambda', arn: 'arn:aws:lambda:eu-west-1:123456789012:function:f' },
  });
}

/** The UTC instants (ms) at which `cron` fires in (from, to], according to the engine. */
function utcTicks(cron: string, from: Date, to: Date): Set<number> {
  return new Set(
    occurrencesBetween({ cron, timezone: 'UTC' }, from, to).map((o) => o.at.getTime()),
  );
}

/** The job's runs in (from, to], under its own policies or the given ones. */
function runs(
  definition: JobDefinition,
  from: Date,
  to: Date,
  dst?: { gap: GapPolicy; overlap: OverlapPolicy },
): Date[] {
  const spec = { ...scheduleSpecOf(definition), ...(dst ? { dst } : {}) };
  return occurrencesBetween(spec, from, to).map((o) => o.at);
}

function missed(instants: readonly Date[], ticks: ReadonlySet<number>): string[] {
  return instants.filter((at) => !ticks.has(at.getTime())).map((at) => at.toISOString());
}

/**
 * EventBridge Scheduler's `cron(min hour dom month dow year)` as an engine expression: `?`
 * means any, days of the week are SUN-SAT or 1-7 from Sunday (the engine counts 0-6).
 */
function awsToEngineCron(aws: string): string {
  const match = /^cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)$/.exec(aws);
  if (!match) throw new Error(`not an EventBridge cron expression: ${aws}`);
  const [, minute, hour, dayOfMonth, month, dayOfWeek, year] = match;
  if (year !== '*') throw new Error(`unexpected year field: ${year}`);
  if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
    throw new Error(`exactly one of day-of-month and day-of-week must be '?': ${aws}`);
  }
  const engineDayOfWeek = (dayOfWeek ?? '')
    .split(',')
    .map((item) => {
      const nth = /^(\d)#(\d)$/.exec(item);
      if (nth) return `${Number(nth[1]) - 1}#${nth[2]}`;
      return item.replace(/\d+/g, (n) => String(Number(n) - 1));
    })
    .join(',');
  const any = (field: string | undefined) => (field === '?' ? '*' : (field ?? ''));
  return [minute, hour, any(dayOfMonth), month, any(engineDayOfWeek)].join(' ');
}

/** What EventBridge Scheduler accepts, field by field (no `*`/n: AWS wants an explicit start). */
const AWS_CRON = new RegExp(
  [
    String.raw`^cron\(`,
    String.raw`(\*|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\?|L|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\d+/\d+|[\d,-]+) `,
    String.raw`(\*|\?|[1-7]#[1-5]|(?:SUN|MON|TUE|WED|THU|FRI|SAT)(?:[-,](?:SUN|MON|TUE|WED|THU|FRI|SAT))*) `,
    String.raw`\*\)$`,
  ].join(''),
);

/** Asserts everything a covering schedule promises, over the two years from FROM. */
function assertCovers(definition: JobDefinition, covering: CoveringSchedule): void {
  const ticks = utcTicks(covering.cron, FROM, TWO_YEARS_LATER);
  const ownRuns = runs(definition, FROM, TWO_YEARS_LATER);
  expect(missed(ownRuns, ticks)).toEqual([]);
  if (covering.covers === 'every-dst-policy') {
    for (const gap of GAPS) {
      for (const overlap of OVERLAPS) {
        expect(missed(runs(definition, FROM, TWO_YEARS_LATER, { gap, overlap }), ticks)).toEqual(
          [],
        );
      }
    }
  }
  expect(covering.awsExpression).toMatch(AWS_CRON);
  const awsTicks = utcTicks(awsToEngineCron(covering.awsExpression), FROM, TWO_YEARS_LATER);
  expect(awsTicks).toEqual(ticks);
  if (ownRuns.length > 0) expect(covering.ticksPerRun).toBeCloseTo(ticks.size / ownRuns.length, 9);
}

const exampleJobs = loadJobsFile(`${root}jobs.yaml`).jobs;

const trickyJobs: [string, JobDefinition][] = [
  ...GAPS.flatMap((gap) =>
    OVERLAPS.map((overlap): [string, JobDefinition] => [
      `Berlin 02:30 daily, gap ${gap}, overlap ${overlap}`,
      job('berlin', '30 2 * * *', 'Europe/Berlin', { gap, overlap }),
    ]),
  ),
  ['every 15 minutes in Kathmandu (+05:45)', job('ktm', '*/15 * * * *', 'Asia/Kathmandu')],
  ['02:00 daily on Lord Howe (30-minute DST)', job('lhi', '0 2 * * *', 'Australia/Lord_Howe')],
  ['02:30 daily on Lord Howe', job('lhi2', '30 2 * * *', 'Australia/Lord_Howe')],
  ['every 20 minutes on Lord Howe', job('lhi3', '*/20 * * * *', 'Australia/Lord_Howe')],
  [
    '09:00 on weekdays in Auckland (UTC day differs)',
    job('akl', '0 9 * * 1-5', 'Pacific/Auckland'),
  ],
  ['10:15 on the last day of the month in New York', job('nyc', '15 10 L * *', 'America/New_York')],
  ['02:30 daily at Troll (2-hour DST)', job('troll', '30 2 * * *', 'Antarctica/Troll')],
  [
    '01:30 on Mondays in Berlin (UTC day differs by season)',
    job('mon', '30 1 * * 1', 'Europe/Berlin'),
  ],
  ['first Monday 08:00 in Sao Paulo', job('sao', '0 8 * * MON#1', 'America/Sao_Paulo')],
  ['last weekday 23:45 in Los Angeles', job('lax', '45 23 LW * *', 'America/Los_Angeles')],
  ['H minute and hour in Chicago', job('spread-job', 'H H(1-3) * * *', 'America/Chicago')],
  ['02:30 daily in St Johns (-03:30)', job('yyt', '30 2 * * *', 'America/St_Johns')],
  ['hourly in Adelaide (+09:30/+10:30)', job('adl', '0 * * * *', 'Australia/Adelaide')],
];

describe('coveringSchedule', () => {
  it.each(exampleJobs.map((definition): [string, JobDefinition] => [definition.id, definition]))(
    'fires at every run of the example job %s over two years',
    (_, definition) => {
      assertCovers(definition, coveringSchedule(definition, FROM));
    },
  );

  it.each(trickyJobs)('fires at every run of %s over two years', (_, definition) => {
    assertCovers(definition, coveringSchedule(definition, FROM));
  });

  it('has a property check that notices a covering which misses the summer runs', () => {
    const definition = job('berlin', '30 2 * * *', 'Europe/Berlin');
    const winterOnly: CoveringSchedule = {
      cron: '30 1 * * *',
      awsExpression: 'cron(30 1 * * ? *)',
      ticksPerRun: 1,
      covers: 'job-dst-policy',
    };
    expect(() => assertCovers(definition, winterOnly)).toThrow(/2026-03-30T00:30:00.000Z/);
  });

  it('covers the Berlin 02:30 job with minute 30 of hours 0 and 1 UTC: 2 ticks per run', () => {
    const covering = coveringSchedule(job('berlin', '30 2 * * *', 'Europe/Berlin'), FROM);
    expect(covering).toEqual({
      cron: '30 0,1 * * *',
      awsExpression: 'cron(30 0,1 * * ? *)',
      ticksPerRun: 2,
      covers: 'job-dst-policy',
    });
  });

  it('covers every DST policy when that costs no extra tick', () => {
    const covering = coveringSchedule(job('ny', '0 9 * * MON-FRI', 'America/New_York'), FROM);
    expect(covering).toMatchObject({
      cron: '0 13,14 * * 1-5',
      awsExpression: 'cron(0 13,14 ? * MON-FRI *)',
      covers: 'every-dst-policy',
    });
  });

  it('costs 4 ticks per run for a :30 job whose gap policy is transition (minute 0 too)', () => {
    // gap: transition runs at 03:00 CEST (01:00Z), so minute 0 joins minute 30 in both hours;
    // one product expression cannot avoid 00:00Z and 01:00Z on every other day.
    const covering = coveringSchedule(
      job('berlin', '30 2 * * *', 'Europe/Berlin', { gap: 'transition' }),
      FROM,
    );
    expect(covering.cron).toBe('0,30 0,1 * * *');
    expect(covering.covers).toBe('every-dst-policy');
    expect(covering.ticksPerRun).toBe(4);
  });

  it('costs 2 ticks per day for a skipping job: a little over 2 per run, as skipped days have none', () => {
    const definition = job('berlin', '30 2 * * *', 'Europe/Berlin', { gap: 'skip' });
    const covering = coveringSchedule(definition, FROM);
    expect(covering.cron).toBe('30 0,1 * * *');
    // 730 days, two of them (2026-03-29, 2027-03-28) without a run
    expect(runs(definition, FROM, TWO_YEARS_LATER)).toHaveLength(728);
    expect(covering.ticksPerRun).toBeCloseTo(1460 / 728, 9);
  });

  it.each([
    ...OVERLAPS.map((overlap) =>
      job('berlin', '30 2 * * *', 'Europe/Berlin', { gap: 'shift', overlap }),
    ),
    job('berlin-default', '30 2 * * *', 'Europe/Berlin'),
    job('sydney', '15 2 * * *', 'Australia/Sydney'),
    job('troll', '30 2 * * *', 'Antarctica/Troll'),
    job('ktm', '45 1 * * *', 'Asia/Kathmandu'),
    job('nyc', '0 2 * * *', 'America/New_York'),
    job('akl', '0 9 * * 1-5', 'Pacific/Auckland'),
    job('lhi', '0 2 * * *', 'Australia/Lord_Howe'),
  ])('costs at most 2 ticks per run for the wall-clock job %#', (definition) => {
    const covering = coveringSchedule(definition, FROM);
    expect(covering.ticksPerRun).toBeLessThanOrEqual(2);
    expect(covering.ticksPerRun).toBeGreaterThanOrEqual(1);
  });

  it('costs exactly 1 tick per run where the zone has no DST', () => {
    expect(coveringSchedule(job('tokyo', '0 22 L * *', 'Asia/Tokyo'), FROM)).toEqual({
      cron: '0 13 L * *',
      awsExpression: 'cron(0 13 L * ? *)',
      ticksPerRun: 1,
      covers: 'every-dst-policy',
    });
  });

  it('covers a first-Monday job with 1#1 (AWS 2#1) instead of every Monday', () => {
    expect(coveringSchedule(job('sao', '0 8 * * MON#1', 'America/Sao_Paulo'), FROM)).toEqual({
      cron: '0 11 * * 1#1',
      awsExpression: 'cron(0 11 ? * 2#1 *)',
      ticksPerRun: 1,
      covers: 'every-dst-policy',
    });
  });

  it('follows days beyond the window: a February 29 job is covered although none falls in it', () => {
    const definition = job('leap', '0 12 29 2 *', 'Europe/Berlin');
    const covering = coveringSchedule(definition, FROM);
    const next = nextOccurrences(scheduleSpecOf(definition), FROM, 3).map((o) => o.at);
    expect(next.map((at) => at.toISOString())).toEqual([
      '2028-02-29T11:00:00.000Z',
      '2032-02-29T11:00:00.000Z',
      '2036-02-29T11:00:00.000Z',
    ]);
    const until = new Date('2036-03-01T00:00:00.000Z');
    expect(missed(next, utcTicks(covering.cron, FROM, until))).toEqual([]);
    expect(covering.cron).toBe('0 11 29 2 *');
  });

  it.each([
    job('lw', '0 0 LW * *', 'Europe/London'),
    job('w', '30 6 1W * *', 'America/Denver'),
    job('l', '0 23 L * *', 'Pacific/Auckland'),
  ])('covers $schedule in $timezone for 28 years, not only 2', (definition) => {
    const covering = coveringSchedule(definition, FROM);
    const until = new Date('2054-01-01T00:00:00.000Z');
    expect(missed(runs(definition, FROM, until), utcTicks(covering.cron, FROM, until))).toEqual([]);
  });

  it('depends only on its arguments', () => {
    const definition = job('berlin', '30 2 * * *', 'Europe/Berlin');
    expect(coveringSchedule(definition, FROM)).toEqual(coveringSchedule(definition, FROM));
    const later = new Date('2031-06-15T12:34:00.000Z');
    const covering = coveringSchedule(definition, later);
    const end = new Date('2033-06-15T12:34:00.000Z');
    expect(
      missed(
        occurrencesBetween(scheduleSpecOf(definition), later, end).map((o) => o.at),
        utcTicks(covering.cron, later, end),
      ),
    ).toEqual([]);
  });

  it('fires at every run of random jobs in DST-heavy zones under random policies', () => {
    const zones = [
      'Europe/Berlin',
      'America/New_York',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'America/St_Johns',
      'Asia/Kathmandu',
      'Antarctica/Troll',
      'America/Santiago',
    ];
    const minute = fc.oneof(
      fc.integer({ min: 0, max: 59 }).map(String),
      fc.constantFrom('*/20', '15,45', '0-2'),
    );
    const hour = fc.oneof(
      fc.integer({ min: 0, max: 23 }).map(String),
      fc
        .uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 2, maxLength: 3 })
        .map((hours) => hours.sort((a, b) => a - b).join(',')),
    );
    const days = fc.constantFrom('* *', '* 1-5', '1,15 *', 'L *', '* 0', '* SUN#2');
    fc.assert(
      fc.property(
        minute,
        hour,
        days,
        fc.constantFrom(...zones),
        fc.option(fc.constantFrom(...GAPS), { nil: undefined }),
        fc.option(fc.constantFrom(...OVERLAPS), { nil: undefined }),
        (m, h, d, zone, gap, overlap) => {
          const [dayOfMonth, dayOfWeek] = d.split(' ');
          const dst = {
            ...(gap ? { gap } : {}),
            ...(overlap ? { overlap } : {}),
          };
          const definition = job(
            'random',
            `${m} ${h} ${dayOfMonth} * ${dayOfWeek}`,
            zone,
            gap || overlap ? dst : undefined,
          );
          assertCovers(definition, coveringSchedule(definition, FROM));
        },
      ),
      { numRuns: 12, seed: 20261129 },
    );
  });
});

describe('awsToEngineCron (the test converter)', () => {
  it.each([
    ['cron(0/15 * * * ? *)', '0/15 * * * *'],
    ['cron(0 13,14 ? * MON-FRI *)', '0 13,14 * * MON-FRI'],
    ['cron(0 13,14 ? * 2-6 *)', '0 13,14 * * 1-5'],
    ['cron(0 13 L * ? *)', '0 13 L * *'],
    ['cron(0 11 ? * 2#1 *)', '0 11 * * 1#1'],
  ])('reads %s as %s', (aws, engine) => {
    expect(awsToEngineCron(aws)).toBe(engine);
  });

  it('refuses an expression with both day fields set', () => {
    expect(() => awsToEngineCron('cron(0 0 1 * MON *)')).toThrow("must be '?'");
  });
});
