// Schedule fingerprints: the documented text hashed, the same hash from independent engines
// and another process, a different hash and the right first disagreement when one Berlin
// transition moves, and nothing for a zone the change does not touch.
//
// Hand-checked facts. Asia/Tokyo is UTC+9 all year, without transitions. Europe/Berlin 2027:
// CET (+60) until 2027-03-28 01:00Z, CEST (+120) until 2027-10-31 01:00Z.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  compareZoneDataVersions,
  disagreementsOf,
  firstDisagreement,
  scheduleFingerprint,
  zoneDataVersion,
} from '#zone-drift/zone-fingerprint.ts';
import {
  InvalidArgumentError,
  intlZoneRules,
  type ScheduleSpec,
  shiftedTransitionRules,
} from '../../../functions/schedule/index.ts';

const FROM = new Date('2027-01-01T00:00:00Z');
const WEEK_MINUTES = 7 * 24 * 60;
const minute = (iso: string) => Date.parse(iso) / 60_000;
const sha16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
/** `count` instants a day apart from `firstIso`, as `run <minute>` lines. */
const dailyRuns = (firstIso: string, count: number) =>
  Array.from({ length: count }, (_, i) => `run ${minute(firstIso) + i * 1440}`);

const springMovedAWeek = shiftedTransitionRules(
  'Europe/Berlin',
  new Date('2027-03-28T01:00:00Z'),
  WEEK_MINUTES,
);
const autumnMovedAWeek = shiftedTransitionRules(
  'Europe/Berlin',
  new Date('2027-10-31T01:00:00Z'),
  WEEK_MINUTES,
);

describe('scheduleFingerprint', () => {
  it('hashes the documented text: a daily 09:00 job in Tokyo, no transitions, 16 runs', () => {
    const text = [
      'zonecron-fingerprint 1',
      'spec Asia/Tokyo 0 9 * * * - shift first',
      `window ${minute('2027-01-01T00:00:00Z')} ${minute('2028-01-02T00:00:00Z')}`,
      'offset 540',
      ...dailyRuns('2027-01-02T00:00:00Z', 16), // 09:00 JST; 2027-01-01T00:00Z is not after from
    ].join('\n');
    const fingerprint = scheduleFingerprint({ cron: '0 9 * * *', timezone: 'Asia/Tokyo' }, FROM);
    expect(fingerprint).toEqual({
      hash: sha16(text),
      firstRuns: [
        '2027-01-02T00:00:00.000Z',
        '2027-01-03T00:00:00.000Z',
        '2027-01-04T00:00:00.000Z',
      ],
    });
  });

  it('hashes the documented text: 02:30 in Berlin, both transitions and the runs next to them', () => {
    const text = [
      'zonecron-fingerprint 1',
      'spec Europe/Berlin 30 2 * * * - shift first',
      `window ${minute('2027-01-01T00:00:00Z')} ${minute('2028-01-02T00:00:00Z')}`,
      'offset 60',
      `transition ${minute('2027-03-28T01:00:00Z')} 60 120`,
      `transition ${minute('2027-10-31T01:00:00Z')} 120 60`,
      ...dailyRuns('2027-01-01T01:30:00Z', 16), // 02:30 CET
      `near ${minute('2027-03-28T01:00:00Z')} run ${minute('2027-03-28T01:30:00Z')}`, // shifted
      `near ${minute('2027-10-31T01:00:00Z')} run ${minute('2027-10-31T00:30:00Z')}`, // first
    ].join('\n');
    const fingerprint = scheduleFingerprint(
      { cron: '30 2 * * *', timezone: 'Europe/Berlin' },
      FROM,
    );
    expect(fingerprint.hash).toBe(sha16(text));
  });

  it('gives the same hash from two fresh engines on the same rules, and from the default', () => {
    const spec: ScheduleSpec = { cron: '*/15 * * * *', timezone: 'Europe/Berlin' };
    const copy1 = { offsetMinutesAt: intlZoneRules.offsetMinutesAt };
    const copy2 = { offsetMinutesAt: intlZoneRules.offsetMinutesAt };
    const hash = scheduleFingerprint(spec, FROM).hash;
    expect(scheduleFingerprint(spec, FROM, { rules: copy1 }).hash).toBe(hash);
    expect(scheduleFingerprint(spec, FROM, { rules: copy2 }).hash).toBe(hash);
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gives the same hash in another process whose local zone is Asia/Kolkata', () => {
    const spec: ScheduleSpec = { cron: '0 9 * * 1-5', timezone: 'America/New_York' };
    const script = [
      "import { scheduleFingerprint } from './functions/zone-drift/zone-fingerprint.ts';",
      `const spec = ${JSON.stringify(spec)};`,
      `console.log(scheduleFingerprint(spec, new Date('${FROM.toISOString()}')).hash);`,
    ].join('\n');
    const output = execFileSync('npx', ['tsx', '--eval', script], {
      env: { ...process.env, TZ: 'Asia/Kolkata' },
      encoding: 'utf8',
    });
    expect(output.trim()).toBe(scheduleFingerprint(spec, FROM).hash);
  });

  it.each<[string, ScheduleSpec]>([
    ['daily', { cron: '0 9 * * *', timezone: 'Europe/Berlin' }],
    ['hourly', { cron: '0 * * * *', timezone: 'Europe/Berlin' }],
    ['*/15, whose UTC instants do not move', { cron: '*/15 * * * *', timezone: 'Europe/Berlin' }],
    ['*/1', { cron: '* * * * *', timezone: 'Europe/Berlin' }],
  ])('changes when the spring transition moves a week (%s)', (_kind, spec) => {
    expect(scheduleFingerprint(spec, FROM, { rules: springMovedAWeek }).hash).not.toBe(
      scheduleFingerprint(spec, FROM).hash,
    );
  });

  it('keeps a Tokyo job unchanged under rules where a Berlin transition moved', () => {
    const spec: ScheduleSpec = { cron: '*/15 * * * *', timezone: 'Asia/Tokyo' };
    expect(scheduleFingerprint(spec, FROM, { rules: springMovedAWeek })).toEqual(
      scheduleFingerprint(spec, FROM),
    );
    expect(firstDisagreement(spec, FROM, intlZoneRules, springMovedAWeek)).toBeUndefined();
  });

  it.each([
    ['zero days', 0],
    ['a fraction of a day', 1.5],
  ])('rejects a horizon of %s', (_what, horizonDays) => {
    expect(() =>
      scheduleFingerprint({ cron: '0 9 * * *', timezone: 'Asia/Tokyo' }, FROM, { horizonDays }),
    ).toThrow(InvalidArgumentError);
  });
});

describe('firstDisagreement', () => {
  it('finds the moved spring transition first: 2027-03-28T01:00Z against 2027-04-04T01:00Z', () => {
    const found = firstDisagreement(
      { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      FROM,
      intlZoneRules,
      springMovedAWeek,
    );
    expect(found).toEqual({
      kind: 'transition',
      at: new Date('2027-03-28T01:00:00Z'),
      a: {
        at: new Date('2027-03-28T01:00:00Z'),
        offsetBeforeMinutes: 60,
        offsetAfterMinutes: 120,
      },
      b: {
        at: new Date('2027-04-04T01:00:00Z'),
        offsetBeforeMinutes: 60,
        offsetAfterMinutes: 120,
      },
    });
  });

  it('finds a run that differs before the transition: 02:30 with overlap last, autumn moved', () => {
    // Platform: 02:30 happens twice on 10-31, `last` runs at 02:30 CET (01:30Z). Moved: 02:30
    // happens once, in CEST (00:30Z), half an hour before the platform's transition.
    const found = firstDisagreement(
      { cron: '30 2 * * *', timezone: 'Europe/Berlin', dst: { overlap: 'last' } },
      FROM,
      intlZoneRules,
      autumnMovedAWeek,
    );
    expect(found?.kind).toBe('run');
    expect(found?.at.toISOString()).toBe('2027-10-31T00:30:00.000Z');
    if (found?.kind !== 'run') return;
    expect([found.a?.at.toISOString(), found.a?.dst]).toEqual([
      '2027-10-31T01:30:00.000Z',
      'overlap',
    ]);
    expect([found.b?.at.toISOString(), found.b?.dst]).toEqual(['2027-10-31T00:30:00.000Z', 'none']);
  });

  it('reports the offset at from when the rules already differ there', () => {
    const from = new Date('2027-03-30T00:00:00Z');
    expect(
      firstDisagreement(
        { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
        from,
        intlZoneRules,
        springMovedAWeek,
      ),
    ).toEqual({ kind: 'offset', at: from, a: 120, b: 60 });
  });

  it('finds nothing when both sides read the same rules', () => {
    const copy = { offsetMinutesAt: intlZoneRules.offsetMinutesAt };
    expect(
      firstDisagreement(
        { cron: '* * * * *', timezone: 'Europe/Berlin' },
        FROM,
        intlZoneRules,
        copy,
      ),
    ).toBeUndefined();
  });

  it('finds nothing past the horizon: the spring change is outside a 60-day window', () => {
    expect(
      firstDisagreement(
        { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
        FROM,
        intlZoneRules,
        springMovedAWeek,
        { horizonDays: 60 },
      ),
    ).toBeUndefined();
  });
});

describe('disagreementsOf', () => {
  it('gives the first disagreement and, apart, the first run that differs: 02:30 differs the day after the moved spring', () => {
    // Platform: 2027-03-29 02:30 is CEST (00:30Z); moved: still CET (01:30Z).
    const spec = { cron: '30 2 * * *', timezone: 'Europe/Berlin' };
    const found = disagreementsOf(spec, FROM, intlZoneRules, springMovedAWeek);
    expect(found.first).toEqual(firstDisagreement(spec, FROM, intlZoneRules, springMovedAWeek));
    expect(found.first?.kind).toBe('transition');
    expect(found.firstRun?.at.toISOString()).toBe('2027-03-29T00:30:00.000Z');
    expect(found.firstRun?.a?.at.toISOString()).toBe('2027-03-29T00:30:00.000Z');
    expect(found.firstRun?.b?.at.toISOString()).toBe('2027-03-29T01:30:00.000Z');
  });

  it('finds no differing run every 15 minutes, whose UTC instants no whole-hour change moves', () => {
    const found = disagreementsOf(
      { cron: '*/15 * * * *', timezone: 'Europe/Berlin' },
      FROM,
      intlZoneRules,
      springMovedAWeek,
    );
    expect(found.first?.at.toISOString()).toBe('2027-03-28T01:00:00.000Z');
    expect(found.firstRun).toBeUndefined();
  });

  it('compares runs only within three days of where the offsets differ: 13 days of every minute', () => {
    const found = disagreementsOf(
      { cron: '* * * * *', timezone: 'Europe/Berlin' },
      FROM,
      intlZoneRules,
      springMovedAWeek,
    );
    expect([found.firstRun, found.runsCompared, found.runCount]).toEqual([
      undefined,
      true,
      13 * 1440,
    ]);
  });

  it('compares at most runLimit runs, and says the comparison stopped', () => {
    const found = disagreementsOf(
      { cron: '* * * * *', timezone: 'Europe/Berlin' },
      FROM,
      intlZoneRules,
      springMovedAWeek,
      { runLimit: 1000 },
    );
    expect([found.first?.kind, found.firstRun, found.runsCompared, found.runCount]).toEqual([
      'transition',
      undefined,
      false,
      1000,
    ]);
  });

  it('still compares runs when the offset at from differs', () => {
    // From 2027-03-30: platform CEST, moved CET; 09:00 is 07:00Z against 08:00Z.
    const found = disagreementsOf(
      { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      new Date('2027-03-30T00:00:00Z'),
      intlZoneRules,
      springMovedAWeek,
    );
    expect(found.first?.kind).toBe('offset');
    expect(found.firstRun?.at.toISOString()).toBe('2027-03-30T07:00:00.000Z');
  });
});

describe('compareZoneDataVersions', () => {
  it.each([
    ['2025c', '2026a', -1],
    ['2026b', '2026a', 1],
    ['2026z', '2027a', -1],
    ['2026z', '2026za', -1],
    ['2025c', '2025c', 0],
  ])('orders %s against %s as %i', (a, b, order) => {
    expect(compareZoneDataVersions(a, b)).toBe(order);
  });

  it('gives no order when either is not a release name', () => {
    expect(compareZoneDataVersions('unknown', '2025c')).toBeUndefined();
    expect(compareZoneDataVersions('2025c', '25c')).toBeUndefined();
  });
});

describe('zoneDataVersion', () => {
  it("is the running Node.js's tz release, as process.versions reports it", () => {
    expect(zoneDataVersion()).toBe(process.versions.tz);
    expect(zoneDataVersion()).toMatch(/^\d{4}[a-z]$/);
  });
});
