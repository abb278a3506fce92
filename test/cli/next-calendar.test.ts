import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { overlongLines, runCli } from './run-cli.ts';

const CONFIG = 'test/cli/fixtures/calendar-jobs.yaml';

interface CalendarNextJson {
  jobs: {
    jobId: string;
    runs: {
      at: string;
      nominal: string;
      moved?: { nominalAt: string; reason: string; convention: string; note: string };
    }[];
    skipped: {
      at: string | null;
      local: string | null;
      nominal: string;
      reason: string;
      detail: string;
      note: string;
    }[];
  }[];
}

async function nextOf(
  jobId: string,
  after: string,
  count: number,
  config = CONFIG,
): Promise<CalendarNextJson['jobs'][0]> {
  const result = await runCli([
    'next',
    '--config',
    config,
    '--job-id',
    jobId,
    '--after',
    after,
    '-n',
    String(count),
    '--json',
  ]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const doc = JSON.parse(result.stdout) as CalendarNextJson;
  expect(doc.jobs).toHaveLength(1);
  return doc.jobs[0] as CalendarNextJson['jobs'][0];
}

describe('zonecron next with calendars, bounds and one-shot jobs', () => {
  it('lists a run moved off Christmas Day at its new instant, with its nominal instant, reason and convention', async () => {
    const job = await nextOf('invoices', '2026-12-20T00:00Z', 1);
    expect(job.runs).toEqual([
      expect.objectContaining({
        at: '2026-12-28T08:00:00.000Z',
        nominal: '2026-12-28T09:00',
        moved: {
          nominalAt: '2026-12-25T08:00:00.000Z',
          reason: 'Christmas Day (DE-BE)',
          convention: 'following',
          note: 'Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — runs Mon 2026-12-28 09:00 (following business day)',
        },
      }),
    ]);
    expect(job.skipped).toEqual([]);
  });

  it('lists the runs a calendar skips with reason and detail: a closed date, holidays, a weekend day', async () => {
    const job = await nextOf('exports', '2026-12-23T12:00Z', 1);
    expect(job.runs.map((r) => r.at)).toEqual(['2026-12-28T08:00:00.000Z']);
    expect(job.skipped).toEqual(
      [
        ['2026-12-24T08:00:00.000Z', 'Christmas Eve', 'Thu 2026-12-24'],
        ['2026-12-25T08:00:00.000Z', 'Christmas Day (DE-BE)', 'Fri 2026-12-25'],
        ['2026-12-26T08:00:00.000Z', 'Boxing Day (DE-BE)', 'Sat 2026-12-26'],
        ['2026-12-27T08:00:00.000Z', 'Sunday', 'Sun 2026-12-27'],
      ].map(([at, detail, day]) => ({
        at,
        local: `${day} 09:00 +01:00 CET`,
        nominal: `${at?.slice(0, 10)}T09:00`,
        reason: 'calendar',
        detail,
        note: `${day} 09:00 CET — closed: ${detail} — skipped`,
      })),
    );
  });

  it('lists the runs before from under skipped with reason from, and the runs inside the bounds', async () => {
    const job = await nextOf('campaign', '2026-12-20T12:00Z', 5);
    expect(job.runs.map((r) => r.at)).toEqual([
      '2026-12-22T09:00:00.000Z',
      '2026-12-23T09:00:00.000Z',
    ]);
    expect(job.skipped).toEqual([
      expect.objectContaining({
        at: '2026-12-21T09:00:00.000Z',
        reason: 'from',
        detail: 'before from (2026-12-21T23:00:00.000Z)',
      }),
    ]);
  });

  it('lists a slot the DST gap skips and a run the calendar skips in one shape, in order of their slots', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonecron-next-'));
    try {
      const file = join(dir, 'jobs.yaml');
      writeFileSync(
        file,
        [
          'calendars:',
          '  office: { timezone: Europe/Berlin }',
          'jobs:',
          '  - id: nightly',
          '    description: Nightly, skipped on weekends and in the spring-forward gap',
          '    schedule: "30 2 * * *"',
          '    timezone: Europe/Berlin',
          '    dst: { gap: skip }',
          '    calendar: office',
          '    target: { type: lambda, arn: "arn:aws:lambda:eu-west-1:123456789012:function:f" }',
          '',
        ].join('\n'),
      );
      const job = await nextOf('nightly', '2027-03-26T12:00Z', 1, file);
      expect(job.runs.map((r) => r.at)).toEqual(['2027-03-29T00:30:00.000Z']);
      expect(job.skipped).toEqual([
        {
          at: '2027-03-27T01:30:00.000Z',
          local: 'Sat 2027-03-27 02:30 +01:00 CET',
          nominal: '2027-03-27T02:30',
          reason: 'calendar',
          detail: 'Saturday',
          note: 'Sat 2027-03-27 02:30 CET — closed: Saturday — skipped',
        },
        {
          at: null,
          local: null,
          nominal: '2027-03-28T02:30',
          reason: 'gap',
          detail: '02:30 does not exist on 2027-03-28 in Europe/Berlin',
          note: '02:30 does not exist on 2027-03-28 in Europe/Berlin — skipped (gap policy skip)',
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the one run of a one-shot at job, and none after it', async () => {
    const before = await nextOf('greeting', '2026-12-01T00:00Z', 3);
    expect(before.runs.map((r) => [r.at, r.nominal])).toEqual([
      ['2026-12-24T17:00:00.000Z', '2026-12-24T18:00'],
    ]);
    const after = await nextOf('greeting', '2026-12-24T17:00Z', 3);
    expect(after.runs).toEqual([]);
  });

  it('says in the run table where a run moved from and which runs a calendar skipped, in 80 columns', async () => {
    const args = ['next', '--config', CONFIG, '--after', '2026-12-23T12:00Z', '-n', '1'];
    const result = await runCli([...args, '--job-id', 'invoices']);
    expect(result.code).toBe(0);
    expect(overlongLines(result.stdout)).toEqual([]);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(
      'invoices: 0 9 25 12 * in Europe/Berlin — wall-clock schedule: gap shift, overlap',
    );
    const row = lines.findIndex((l) => l.includes('2026-12-28T08:00:00Z'));
    expect(`${lines[row + 1]} ${lines[row + 2]?.trim()}`).toBe(
      '  ↳ Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — runs Mon 2026-12-28 09:00 (following business day)',
    );
    const exports = await runCli([...args, '--job-id', 'exports']);
    expect(exports.stdout.split('\n').filter((l) => l.includes('✗'))).toEqual([
      '  ✗ Thu 2026-12-24 09:00 CET — closed: Christmas Eve — skipped',
      '  ✗ Fri 2026-12-25 09:00 CET — closed: Christmas Day (DE-BE) — skipped',
      '  ✗ Sat 2026-12-26 09:00 CET — closed: Boxing Day (DE-BE) — skipped',
      '  ✗ Sun 2026-12-27 09:00 CET — closed: Sunday — skipped',
    ]);
  });

  it('runs before a closed range that starts at noon, and skips the runs inside it with the range as reason', async () => {
    const before = await nextOf('exports', '2026-12-29T12:00Z', 1);
    expect(before.runs.map((r) => r.at)).toEqual(['2026-12-30T08:00:00.000Z']);
    const job = await nextOf('exports', '2026-12-30T12:00Z', 1);
    expect(job.runs.map((r) => r.at)).toEqual(['2027-01-05T08:00:00.000Z']);
    expect(job.skipped.map((s) => [s.nominal, s.detail])).toEqual([
      ['2026-12-31T09:00', 'year-end freeze'],
      ['2027-01-01T09:00', 'year-end freeze'],
      ['2027-01-02T09:00', 'year-end freeze'],
      ['2027-01-03T09:00', 'year-end freeze'],
      ['2027-01-04T09:00', 'year-end freeze'],
    ]);
  });

  it('titles a one-shot job by its local date-time', async () => {
    const result = await runCli([
      'next',
      '--config',
      CONFIG,
      '--job-id',
      'greeting',
      '--after',
      '2026-12-01T00:00Z',
    ]);
    expect(result.stdout.split('\n')[0]).toBe(
      'greeting: once at 2026-12-24T18:00 in Europe/Berlin — wall-clock schedule: gap',
    );
  });
});
