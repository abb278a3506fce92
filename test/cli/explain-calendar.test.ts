import { describe, expect, it } from 'vitest';
import { overlongLines, runCli } from './run-cli.ts';

const CONFIG = 'test/cli/fixtures/calendar-jobs.yaml';
const AFTER = '2026-11-29T00:00Z';

/** Saturdays and Sundays from 2026-11-29 to 2027-11-28, the window's local dates, by a plain walk. */
function weekendDatesOfWindow(): number {
  let count = 0;
  for (let t = Date.UTC(2026, 10, 29); t <= Date.UTC(2027, 10, 28); t += 86_400_000) {
    const weekday = new Date(t).getUTCDay();
    if (weekday === 0 || weekday === 6) count += 1;
  }
  return count;
}

describe('zonecron explain --config --job-id with calendars', () => {
  it('says in words where a calendar moves a run off a holiday, after the DST nights, in 80 columns', async () => {
    const args = ['explain', '--config', CONFIG, '--job-id', 'invoices', '--after', AFTER];
    const result = await runCli(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(overlongLines(result.stdout)).toEqual([]);
    const lines = result.stdout.split('\n');
    const heading = lines.indexOf(
      'what its calendar and bounds do in the 12 months after 2026-11-29T00:00:00Z:',
    );
    expect(heading).toBeGreaterThan(
      lines.indexOf('DST nights in the 12 months after 2026-11-29T00:00:00Z:'),
    );
    expect(lines.slice(heading + 1, heading + 3).join(' ')).toBe(
      '  Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — runs Mon 2026-12-28   09:00 (following business day)',
    );
  });

  it('lists the runs a calendar skips on closed dates and counts the weekend ones, in --json too', async () => {
    const args = ['explain', '--config', CONFIG, '--job-id', 'exports', '--after', AFTER, '--json'];
    const result = await runCli(args);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      jobId: string;
      timezone: string;
      calendar: { lines: string[]; weekendSkips: Record<string, number> };
    };
    expect([doc.jobId, doc.timezone]).toEqual(['exports', 'Europe/Berlin']);
    expect(doc.calendar.lines.slice(0, 4)).toEqual([
      'Thu 2026-12-24 09:00 CET — closed: Christmas Eve — skipped',
      'Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — skipped',
      'Sat 2026-12-26 09:00 CET — closed: Boxing Day (DE-BE) — skipped',
      'Thu 2026-12-31 09:00 CET — closed: year-end freeze — skipped',
    ]);
    expect(doc.calendar.lines.every((l) => !/closed: (Satur|Sun)day/.test(l))).toBe(true);
    const weekendSkips = doc.calendar.weekendSkips;
    expect(Object.keys(weekendSkips).sort()).toEqual(['Saturday', 'Sunday']);
    expect((weekendSkips.Saturday ?? 0) + (weekendSkips.Sunday ?? 0)).toBe(
      weekendDatesOfWindow() - doc.calendar.lines.filter((l) => /^(Sat|Sun) /.test(l)).length,
    );
  });

  it('says what a bound removes', async () => {
    const result = await runCli([
      'explain',
      '--config',
      CONFIG,
      '--job-id',
      'campaign',
      '--after',
      '2026-12-20T00:00Z',
      '--json',
    ]);
    const doc = JSON.parse(result.stdout) as { calendar: { lines: string[] } };
    expect(doc.calendar.lines.slice(0, 3)).toEqual([
      'Sun 2026-12-20 10:00 CET — before from (2026-12-21T23:00:00.000Z) — skipped',
      'Mon 2026-12-21 10:00 CET — before from (2026-12-21T23:00:00.000Z) — skipped',
      'Thu 2026-12-24 10:00 CET — at or after until (2026-12-23T23:00:00.000Z) — skipped',
    ]);
  });

  it.each([
    [['explain', '0 9 * * *', '--config', CONFIG, '--job-id', 'exports'], 'no expression, --tz'],
    [['explain', '--config', CONFIG], '--config needs --job-id <id>'],
    [['explain', '--config', CONFIG, '--job-id', 'export'], "unknown job 'export'"],
    [['explain'], 'missing expression'],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
