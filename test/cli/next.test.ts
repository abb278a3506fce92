import { describe, expect, it } from 'vitest';
import { hasAnsi, overlongLines, runCli, runCliOnTerminal, stripAnsi } from './run-cli.ts';

interface NextJson {
  runs: { at: string; nominal: string; dst: string; note: string | null; local: string }[];
  skipped: {
    at: string | null;
    local: string | null;
    nominal: string;
    reason: string;
    detail: string;
    note: string;
  }[];
  policies: { gap: string; overlap: string };
}

async function nextJson(args: string[]): Promise<NextJson> {
  const result = await runCli(['next', ...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as NextJson;
}

describe('zonecron next', () => {
  it.each([
    {
      name: 'runs a 02:30 job at 03:30 CEST when 02:30 does not exist (gap shift)',
      args: ['30 2 * * *', '--tz', 'Europe/Berlin', '--after', '2023-03-26T00:00Z', '-n', '1'],
      at: '2023-03-26T01:30:00.000Z',
      local: 'Sun 2023-03-26 03:30 +02:00 CEST',
      dst: 'gap',
      note: '02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:30 CEST',
    },
    {
      name: 'runs at the moment clocks jump with gap transition',
      args: ['30 2 * * *', '--tz', 'Europe/Berlin', '--after', '2023-03-26T00:00Z', '-n', '1'],
      extra: ['--gap', 'transition'],
      at: '2023-03-26T01:00:00.000Z',
      local: 'Sun 2023-03-26 03:00 +02:00 CEST',
      dst: 'gap',
      note: '02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:00 CEST, the moment clocks jump',
    },
    {
      name: 'runs once, at the first 02:30, when 02:30 happens twice (overlap first)',
      args: ['30 2 * * *', '--tz', 'Europe/Berlin', '--after', '2023-10-29T00:00Z', '-n', '1'],
      at: '2023-10-29T00:30:00.000Z',
      local: 'Sun 2023-10-29 02:30 +02:00 CEST',
      dst: 'overlap',
      note: '02:30 happens twice on 2023-10-29 in Europe/Berlin — runs at the first (CEST)',
    },
    {
      name: 'runs at the second 02:30 with overlap last',
      args: ['30 2 * * *', '--tz', 'Europe/Berlin', '--after', '2023-10-29T00:00Z', '-n', '1'],
      extra: ['--overlap', 'last'],
      at: '2023-10-29T01:30:00.000Z',
      local: 'Sun 2023-10-29 02:30 +01:00 CET',
      dst: 'overlap',
      note: '02:30 happens twice on 2023-10-29 in Europe/Berlin — runs at the second (CET)',
    },
  ])('$name', async ({ args, extra, at, local, dst, note }) => {
    const doc = await nextJson([...args, ...(extra ?? [])]);
    expect(doc.runs).toEqual([{ at, local, nominal: `${at.slice(0, 10)}T02:30`, dst, note }]);
  });

  it('lists each slot a cadence skips in the gap as an object with reason gap, and runs both instants of the overlap', async () => {
    const spring = await nextJson([
      '*/30 * * * *',
      '--tz',
      'Europe/London',
      '--after',
      '2023-03-26T00:00Z',
      '-n',
      '3',
    ]);
    expect(spring.policies).toEqual({ gap: 'skip', overlap: 'both' });
    expect(spring.runs.map((r) => r.at)).toEqual([
      '2023-03-26T00:30:00.000Z',
      '2023-03-26T01:00:00.000Z',
      '2023-03-26T01:30:00.000Z',
    ]);
    expect(spring.skipped).toEqual(
      ['01:00', '01:30'].map((time) => ({
        at: null,
        local: null,
        nominal: `2023-03-26T${time}`,
        reason: 'gap',
        detail: `${time} does not exist on 2023-03-26 in Europe/London`,
        note: `${time} does not exist on 2023-03-26 in Europe/London — skipped (gap policy skip)`,
      })),
    );
    const autumn = await nextJson([
      '30 1 * * *',
      '--tz',
      'Europe/London',
      '--after',
      '2023-10-29T00:00Z',
      '-n',
      '2',
      '--overlap',
      'both',
    ]);
    expect(autumn.runs.map((r) => [r.at, r.note])).toEqual([
      [
        '2023-10-29T00:30:00.000Z',
        '01:30 happens twice on 2023-10-29 in Europe/London — runs at both; this is the first (BST)',
      ],
      [
        '2023-10-29T01:30:00.000Z',
        '01:30 happens twice on 2023-10-29 in Europe/London — runs at both; this is the second (GMT)',
      ],
    ]);
  });

  it('prints a table with the DST note under the run, in 80 columns, without colour on a pipe', async () => {
    const result = await runCli([
      'next',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--after',
      '2023-03-25T00:00Z',
      '-n',
      '3',
      '--gap',
      'transition',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(hasAnsi(result.stdout)).toBe(false);
    expect(overlongLines(result.stdout)).toEqual([]);
    const lines = result.stdout.split('\n');
    const row = lines.findIndex((l) => l.includes('2023-03-26T01:00:00Z'));
    expect(lines[row]).toContain('Sun 2023-03-26 03:00 +02:00 CEST');
    expect(lines[row]).toContain('2023-03-26T02:30');
    expect(`${lines[row + 1]} ${lines[row + 2]?.trim()}`).toBe(
      '  ↳ 02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:00 CEST, the moment clocks jump',
    );
    expect(lines.filter((l) => l.includes('↳'))).toHaveLength(1);
  });

  it('shows the expression in words above the table and in --json', async () => {
    const args = [
      'next',
      '0 9 * * 1-5',
      '--tz',
      'America/New_York',
      '--after',
      '2027-03-12T00:00Z',
    ];
    const text = await runCli([...args, '-n', '1']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').slice(0, 3)).toEqual([
      '0 9 * * 1-5 in America/New_York — wall-clock schedule: gap shift, overlap first',
      'at 09:00 on Monday through Friday',
      'next 1 run after 2027-03-12T00:00:00Z',
    ]);
    const doc = JSON.parse((await runCli([...args, '-n', '1', '--json'])).stdout) as {
      sentence: string;
    };
    expect(doc.sentence).toBe('at 09:00 on Monday through Friday');
  });

  it('tells how to write an AWS EventBridge expression in five fields', async () => {
    const result = await runCli(['next', '30 2 * * ? *', '--tz', 'Europe/Berlin']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'zonecron: error: expected 5 fields but got 6 at position 11: zonecron expressions have 5 fields (minute hour day-of-month month day-of-week), without seconds or year fields; it looks like an AWS EventBridge expression (year last, weekdays 1=SUN-7=SAT): write it as `30 2 * * *`\n',
    );
  });

  it.each([
    [
      'a date as midnight in --tz',
      ['--tz', 'Asia/Tokyo', '--after', '2027-03-27'],
      '2027-03-26T15:00:00.000Z',
    ],
    [
      'a local time in --tz',
      ['--tz', 'Asia/Tokyo', '--after', '2027-03-27T08:00'],
      '2027-03-26T23:00:00.000Z',
    ],
    [
      'an instant with an offset as written',
      ['--tz', 'Asia/Tokyo', '--after', '2027-03-27T08:00Z'],
      '2027-03-27T08:00:00.000Z',
    ],
  ])('reads --after given as %s', async (_what, args, after) => {
    const doc = (await nextJson(['0 9 * * *', ...args, '-n', '1'])) as NextJson & { after: string };
    expect(doc.after).toBe(after);
  });

  it('previews every job of a jobs file', async () => {
    const result = await runCli([
      'next',
      '--config',
      'test/cli/fixtures/berlin.yaml',
      '--after',
      '2023-10-28T23:00Z',
      '-n',
      '2',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { jobs: (NextJson & { jobId: string })[] };
    expect(doc.jobs.map((j) => [j.jobId, j.runs.map((r) => r.at)])).toEqual([
      ['berlin-nightly', ['2023-10-29T00:30:00.000Z', '2023-10-30T01:30:00.000Z']],
      ['london-half-hourly', ['2023-10-28T23:30:00.000Z', '2023-10-29T00:00:00.000Z']],
      ['switched-off', ['2023-10-29T00:00:00.000Z', '2023-10-29T01:00:00.000Z']],
    ]);
  });

  it('previews only the job --job-id names, with the policies its file gives it', async () => {
    const result = await runCli([
      'next',
      '--config',
      'test/cli/fixtures/berlin.yaml',
      '--job-id',
      'london-half-hourly',
      '--after',
      '2023-03-26T00:00Z',
      '-n',
      '2',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { jobs: (NextJson & { jobId: string })[] };
    expect(doc.jobs.map((j) => [j.jobId, j.policies, j.runs.map((r) => r.at)])).toEqual([
      [
        'london-half-hourly',
        { gap: 'skip', overlap: 'both' },
        ['2023-03-26T00:30:00.000Z', '2023-03-26T01:00:00.000Z'],
      ],
    ]);
  });

  it('wraps a coloured heading on a terminal where it wraps it without colour', async () => {
    const args = [
      'next',
      '0 9 * * MON-FRI',
      '--tz',
      'America/Argentina/Buenos_Aires',
      '--after',
      '2027-01-01T00:00Z',
      '-n',
      '1',
    ];
    const [terminal, piped] = await Promise.all([runCliOnTerminal(args), runCli(args)]);
    expect(terminal.code).toBe(0);
    expect(hasAnsi(terminal.stdout)).toBe(true);
    expect(stripAnsi(terminal.stdout)).toBe(piped.stdout);
    expect(piped.stdout.split('\n').slice(0, 2)).toEqual([
      '0 9 * * MON-FRI in America/Argentina/Buenos_Aires — wall-clock schedule: gap',
      'shift, overlap first',
    ]);
  });
});
