// The zone-data report validate prints (and describe will): the zone data in use, and a warning
// per recent tz change that touches an enabled job's zone within its next year of runs. The zone
// data is passed in, so the answers do not depend on this machine's copy.
//
// Facts from the table (cli/zone-data/recent-changes.ts): tz 2026b (2026-04-22) keeps British
// Columbia (America/Vancouver, alias Canada/Pacific) on -07 from 2026-11-01T09:00Z; tz 2024a
// (2024-02-01) moved Asia/Almaty to +05 from 2024-02-29T18:00Z.
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { zoneDataLines, zoneDataReport } from '../../../../cli/zone-data/report.ts';
import { makeJob } from '../../../support/jobs.ts';

const JOBS = [
  makeJob({ id: 'payroll', schedule: '0 9 * * 1-5', timezone: 'America/Vancouver' }),
  makeJob({ id: 'backup', schedule: '30 2 * * *', timezone: 'Canada/Pacific' }),
  makeJob({ id: 'almaty', schedule: '0 3 * * *', timezone: 'Asia/Almaty' }),
  makeJob({ id: 'berlin', schedule: '0 3 * * *', timezone: 'Europe/Berlin' }),
  makeJob({
    id: 'alberta-off',
    schedule: '0 3 * * *',
    timezone: 'America/Edmonton',
    enabled: false,
  }),
];
const OLD = { tz: '2025c', icu: '78.2', node: 'v20.20.2' };
const NEW = { tz: '2026d', icu: '79.1', node: 'v24.11.0' };
const NOW = new Date('2026-11-30T00:00:00Z');

describe('zoneDataReport', () => {
  it('warns about each enabled job zone a change released in the last two years touches, alias included, saying this machine lacks it', () => {
    const report = zoneDataReport(JOBS, NOW, { zoneData: OLD });
    expect(report.zoneData).toEqual(OLD);
    expect(report.changesKnownThrough).toBe('2026d');
    expect(report.warnings.map((w) => [w.timezone, w.jobIds, w.release, w.knownHere])).toEqual([
      ['America/Vancouver', ['payroll'], '2026b', false],
      ['Canada/Pacific', ['backup'], '2026b', false],
    ]);
    expect(report.warnings[0]).toEqual({
      timezone: 'America/Vancouver',
      jobIds: ['payroll'],
      release: '2026b',
      releasedOn: '2026-04-22',
      summary: 'British Columbia stays on -07 all year: no fall back on 2026-11-01 or after.',
      differsFrom: '2026-11-01T09:00:00.000Z',
      knownHere: false,
      source: 'https://github.com/eggert/tz/blob/2026b/NEWS',
      text: "America/Vancouver changed in tz 2026b (2026-04-22): British Columbia stays on -07 all year: no fall back on 2026-11-01 or after. This machine's zone data (2025c) predates it, so synth here computes the coverings with the old rules from 2026-11-01T09:00Z: deploy from a Node.js with tz 2026b or newer.",
    });
  });

  it('says this machine has the change when its data is that release or newer, and what an older runtime does', () => {
    const [warning] = zoneDataReport(JOBS, NOW, { zoneData: NEW }).warnings;
    expect(warning?.knownHere).toBe(true);
    expect(warning?.text).toContain(
      "This machine's zone data (2026d) has it; a Node.js with data older than 2026b, such as a Lambda runtime AWS has not updated yet, computes these runs differently from 2026-11-01T09:00Z, and the dispatcher reports that as ZoneDataDrift.",
    );
  });

  it('leaves out a change released more than two years before, and one that starts after the next year of runs', () => {
    const zones = (job: (typeof JOBS)[0], from: string) =>
      zoneDataReport([job], new Date(from), { zoneData: OLD }).warnings.map((w) => w.timezone);
    const [vancouver, , almaty] = JOBS as [(typeof JOBS)[0], unknown, (typeof JOBS)[0]];
    expect(zones(almaty, '2024-06-01T00:00:00Z')).toEqual(['Asia/Almaty']);
    expect(zones(almaty, '2026-03-01T00:00:00Z')).toEqual([]);
    expect(zones(vancouver, '2026-01-01T00:00:00Z')).toEqual(['America/Vancouver']);
    expect(zones(vancouver, '2025-06-01T00:00:00Z')).toEqual([]);
  });

  it('warns about nothing when no job zone changed', () => {
    expect(zoneDataReport([JOBS[3] as (typeof JOBS)[0]], NOW, { zoneData: OLD }).warnings).toEqual(
      [],
    );
  });
});

describe('zoneDataLines', () => {
  it('prints the zone data in use, the newest release known when this one is older, and each warning, within 80 columns', () => {
    const many = Array.from({ length: 5 }, (_, i) =>
      makeJob({ id: `van-${i}`, schedule: '0 9 * * *', timezone: 'America/Vancouver' }),
    );
    const lines = zoneDataLines(
      zoneDataReport(many, NOW, { zoneData: OLD }),
      pc.createColors(false),
    );
    const text = lines.join('\n');
    expect(text.split('\n').filter((line) => line.length > 80)).toEqual([]);
    expect(text.replace(/\n\s*/g, ' ')).toBe(
      "zone data: tz 2025c (ICU 78.2, Node v20.20.2), which synth computes every covering with; zonecron knows of releases through 2026d ZONE America/Vancouver changed in tz 2026b (2026-04-22): British Columbia stays on -07 all year: no fall back on 2026-11-01 or after. This machine's zone data (2025c) predates it, so synth here computes the coverings with the old rules from 2026-11-01T09:00Z: deploy from a Node.js with tz 2026b or newer. Jobs: van-0, van-1, van-2 and 2 more.",
    );
  });

  it('does not name newer releases when the zone data in use is the newest known', () => {
    const [first] = zoneDataLines(
      zoneDataReport([], NOW, { zoneData: NEW }),
      pc.createColors(false),
    );
    expect(first).toBe(
      'zone data: tz 2026d (ICU 79.1, Node v24.11.0), which synth computes every\ncovering with',
    );
  });
});
