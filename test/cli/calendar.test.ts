import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { overlongLines, runCli } from './run-cli.ts';

const CONFIG = 'test/cli/fixtures/calendar-jobs.yaml';
const require = createRequire(import.meta.url);

interface CalendarJson {
  calendar: string;
  timezone: string;
  timezoneOf: string;
  year: number;
  holidays: { code: string; types: string[] } | null;
  holidayData: { package: string; version: string; dataVersion: string };
  weekend: { days: number[]; dates: number };
  closedDays: { date: string; reason: string; weekend: boolean }[];
  closedRanges: { from: string; to: string; reason: string; closedDates: number }[];
  months: { month: number; first: string | null; last: string | null; count: number }[];
}

async function calendarJson(args: string[]): Promise<CalendarJson> {
  const result = await runCli(['calendar', ...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as CalendarJson;
}

/** date-holidays' own public holidays of DE-BE in a year, by local date. */
function publicHolidays(year: number): Map<string, string> {
  const Holidays = require('date-holidays') as new (
    country: string,
    state: string,
  ) => { getHolidays(year: number, lang: string): { date: string; name: string; type: string }[] };
  const days = new Map<string, string>();
  for (const h of new Holidays('DE', 'BE').getHolidays(year, 'en')) {
    if (h.type === 'public') days.set(h.date.slice(0, 10), h.name);
  }
  return days;
}

/** The business days of a month by a plain walk over its dates: weekday, holiday, freeze. */
function businessDaysByWalk(year: number, month: number, closed: Set<string>): string[] {
  const days: string[] = [];
  for (let d = new Date(Date.UTC(year, month - 1, 1)); d.getUTCMonth() === month - 1; ) {
    const date = d.toISOString().slice(0, 10);
    const weekday = d.getUTCDay();
    const frozen = date >= '2026-12-31' && date < '2027-01-05';
    if (weekday !== 0 && weekday !== 6 && !closed.has(date) && !frozen) days.push(date);
    d = new Date(d.getTime() + 86_400_000);
  }
  return days;
}

describe('zonecron calendar', () => {
  it.each([2026, 2027, 2028])(
    'lists the closed days of %i as date-holidays gives DE-BE public holidays, plus the closed date, and counts business days as a plain walk does',
    async (year) => {
      const doc = await calendarJson(['berlin', '--config', CONFIG, '--year', String(year)]);
      const holidays = publicHolidays(year);
      const expected = new Map([...holidays].map(([d, name]) => [d, `${name} (DE-BE)`]));
      if (year === 2026) expected.set('2026-12-24', 'Christmas Eve');
      expect(doc.closedDays.map((c) => [c.date, c.reason])).toEqual(
        [...expected].sort(([a], [b]) => a.localeCompare(b)),
      );
      const closed = new Set(expected.keys());
      expect(doc.months).toEqual(
        Array.from({ length: 12 }, (_, i) => {
          const days = businessDaysByWalk(year, i + 1, closed);
          return {
            month: i + 1,
            first: days[0] ?? null,
            last: days.at(-1) ?? null,
            count: days.length,
          };
        }),
      );
    },
  );

  it('reports the zone, the holiday source with the date-holidays version, the weekend and the closed ranges', async () => {
    const doc = await calendarJson(['berlin', '--config', CONFIG, '--year', '2026']);
    const { version } = require('date-holidays/package.json') as { version: string };
    expect(doc).toMatchObject({
      calendar: 'berlin',
      timezone: 'Europe/Berlin',
      timezoneOf: 'calendar',
      year: 2026,
      holidays: { code: 'DE-BE', types: ['public'] },
      holidayData: { package: 'date-holidays', version },
      weekend: { days: [6, 0], dates: 104 },
    });
    expect(doc.closedRanges).toEqual([
      {
        from: '2026-12-30T12:00',
        to: '2027-01-05T00:00',
        reason: 'year-end freeze',
        closedDates: 1,
      },
    ]);
    const next = await calendarJson(['berlin', '--config', CONFIG, '--year', '2027']);
    expect(next.closedRanges.map((r) => r.closedDates)).toEqual([4]);
  });

  it('prints the year in 80 columns: the holiday data version, weekends summarised, closed days, ranges, months', async () => {
    const result = await runCli(['calendar', 'berlin', '--config', CONFIG, '--year', '2026']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(overlongLines(result.stdout)).toEqual([]);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('calendar berlin, 2026: days in Europe/Berlin');
    expect(lines[1]).toMatch(
      /^holidays DE-BE \(public\) from date-holidays \d+\.\d+\.\d+ \(data \S+\)$/,
    );
    expect(lines[2]).toBe('weekends: Sat, Sun — 104 dates of 2026, not listed');
    expect(lines).toContain('  Fri 2026-12-25 Christmas Day (DE-BE)');
    expect(lines).toContain('  Sat 2026-12-26 Boxing Day (DE-BE) (a weekend day too)');
    expect(lines).toContain('  Thu 2026-12-24 Christmas Eve');
    expect(lines.some((l) => l.startsWith('  Sat 2026-') && !l.includes('weekend day too'))).toBe(
      false,
    );
    expect(lines).toContain('  December   Tue 2026-12-01  Wed 2026-12-30  20');
  });

  it('says whose zone a calendar without one reads its days in', async () => {
    const doc = await calendarJson(['unused', '--config', CONFIG, '--year', '2027']);
    expect([doc.timezone, doc.timezoneOf, doc.holidays, doc.weekend]).toEqual([
      'UTC',
      'none',
      null,
      { days: [5, 6], dates: 105 },
    ]);
  });

  it('refuses an unknown calendar with exit 2, a did-you-mean and one --json error document', async () => {
    const text = await runCli(['calendar', 'berlim', '--config', CONFIG]);
    expect(text.code).toBe(2);
    expect(text.stderr).toBe(
      `zonecron: error: unknown calendar 'berlim' in ${CONFIG}; did you mean 'berlin'? (calendars: berlin, unused)\n`,
    );
    const json = await runCli(['calendar', 'berlim', '--config', CONFIG, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'usage', exitCode: 2 } });
  });

  it('exits 2 for a year outside 1-9999 and 1 for a missing jobs file', async () => {
    const year = await runCli(['calendar', 'berlin', '--config', CONFIG, '--year', '0']);
    expect(year.code).toBe(2);
    const missing = await runCli(['calendar', 'berlin', '--config', 'test/cli/fixtures/none.yaml']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file');
  });
});
