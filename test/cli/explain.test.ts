import { describe, expect, it } from 'vitest';
import { hasAnsi, overlongLines, runCli } from './run-cli.ts';

const AFTER = '2026-11-29T00:00Z';

describe('zonecron explain', () => {
  it('prints a plain expression as one sentence', async () => {
    const result = await runCli(['explain', '0 0 13 * FRI']);
    expect(result).toEqual({
      code: 0,
      stdout: 'at 00:00 on the 13th of the month or on Friday (either matches)\n',
      stderr: '',
    });
  });

  it('names the DST nights of the zone and what each does to the schedule, in 80 columns', async () => {
    const result = await runCli([
      'explain',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--after',
      AFTER,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(hasAnsi(result.stdout)).toBe(false);
    expect(overlongLines(result.stdout)).toEqual([]);
    expect(result.stdout).toBe(
      [
        'at 02:30 every day',
        '',
        'in Europe/Berlin, a wall-clock schedule (gap shift, overlap first): a local time',
        'that does not exist runs later by the length of the jump; a local time that',
        'happens twice runs once, at the first',
        '',
        'DST nights in the 12 months after 2026-11-29T00:00:00Z:',
        '  2027-03-28, the last Sunday of March: clocks go forward 1 hour at 02:00 CET',
        '    02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST',
        '  2027-10-31, the last Sunday of October: clocks go back 1 hour at 03:00 CEST',
        '    02:30 happens twice on 2027-10-31 in Europe/Berlin — runs once, at the first',
        '    (CEST)',
        '',
      ].join('\n'),
    );
  });

  it('says a cadence skips the missing hour and runs the repeated one twice', async () => {
    const result = await runCli([
      'explain',
      '*/30 * * * *',
      '--tz',
      'Europe/London',
      '--after',
      AFTER,
    ]);
    expect(result.code).toBe(0);
    const text = result.stdout.replace(/\s*\n\s*/g, ' ');
    expect(text).toContain('a cadence, which follows elapsed time (gap skip, overlap both)');
    expect(text).toContain(
      '01:00, 01:30 do not exist on 2027-03-28 in Europe/London — skipped (gap policy skip)',
    );
    expect(text).toContain(
      '01:00, 01:30 happen twice on 2027-10-31 in Europe/London — runs at both (BST and GMT)',
    );
  });

  it('prints one JSON document with the sentence, the zone and its DST nights', async () => {
    const result = await runCli([
      'explain',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--after',
      AFTER,
      '--overlap',
      'last',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      expression: '30 2 * * *',
      sentence: 'at 02:30 every day',
      timezone: 'Europe/Berlin',
      dst: [
        {
          at: '2027-03-28T01:00:00.000Z',
          kind: 'gap',
          title: '2027-03-28, the last Sunday of March: clocks go forward 1 hour at 02:00 CET',
          lines: ['02:30 does not exist on 2027-03-28 in Europe/Berlin — runs at 03:30 CEST'],
        },
        {
          at: '2027-10-31T01:00:00.000Z',
          kind: 'overlap',
          title: '2027-10-31, the last Sunday of October: clocks go back 1 hour at 03:00 CEST',
          lines: [
            '02:30 happens twice on 2027-10-31 in Europe/Berlin — runs once, at the second (CET)',
          ],
        },
      ],
    });
  });

  it('names what H picks for --job-id', async () => {
    const result = await runCli(['explain', 'H(0-29) 1 * * *', '--job-id', 'kathmandu-etl']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^at 01:\d\d every day \(H: minute \d+, picked by the hash of job id 'kathmandu-etl'\)\n$/,
    );
  });

  it("refuses a bad expression with the engine's message and exit code 2", async () => {
    const result = await runCli(['explain', '61 2 * * *']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "zonecron: error: invalid value '61' for field 'minute' at position 0 (allowed 0-59)\n",
    });
  });

  it('tells how to write an AWS EventBridge expression in five fields', async () => {
    const result = await runCli(['explain', 'cron(0 9 ? * 2-6 *)']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'zonecron: error: expected 5 fields but got 6 at position 17: zonecron expressions have 5 fields (minute hour day-of-month month day-of-week), without seconds or year fields; it looks like an AWS EventBridge expression (year last, weekdays 1=SUN-7=SAT): write it as `0 9 * * 1-5`\n',
    );
  });

  it('adds a hint to a valid expression whose ? and weekday numbers suggest AWS habits', async () => {
    const result = await runCli(['explain', '0 9 ? * 2-6', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      expression: '0 9 ? * 2-6',
      sentence: 'at 09:00 on Tuesday through Saturday',
      hint: "day-of-week '2-6' counts weekdays from 0=SUN here, not from 1=SUN as in AWS and Quartz; names (SUN-SAT) avoid the doubt",
    });
  });

  it.each([
    {
      name: 'an unknown zone',
      args: ['0 9 * * *', '--tz', 'Europe/Atlantis'],
      stderr:
        "zonecron: error: unknown time zone 'Europe/Atlantis' (allowed an IANA zone name such as Europe/Berlin)\n",
    },
    {
      name: 'a DST policy without a zone',
      args: ['0 9 * * *', '--gap', 'skip'],
      stderr: 'zonecron: error: --after, --gap and --overlap need --tz <zone>\n',
    },
  ])('refuses $name with exit code 2', async ({ args, stderr }) => {
    const result = await runCli(['explain', ...args]);
    expect(result).toEqual({ code: 2, stdout: '', stderr });
  });
});
