// A schedule that never runs, as each command says it: `next` and `explain` answer "never
// runs" with the reason and exit 0 (an answer, not a refusal), `validate` refuses the job at
// its file:line:column with the reason (exit 1), `describe` says the same of the file. How
// fast is `npm run bench:cli`'s business, not a test's.
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const NEVER = ['30 2 * 3 0L', '--tz', 'Europe/Berlin', '--gap', 'skip'];
const AFTER = ['--after', '2026-12-02T00:00Z'];
const FIXTURE = 'test/cli/fixtures/never.yaml';
const REASON =
  "every local time it matches falls in Europe/Berlin's spring-forward gap (the first, 2027-03-28T02:30: clocks jump from 02:00 to 03:00), and the gap policy is skip";
/** The words as the terminal shows them: wrapped at 80 columns. */
const oneLine = (text: string) => text.replace(/\n\s*/g, ' ');

describe('a schedule that never runs', () => {
  it('next says "never runs" with the reason instead of an empty table, and exits 0', async () => {
    const result = await runCli(['next', ...NEVER, ...AFTER, '-n', '2']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const text = oneLine(result.stdout);
    expect(text).toContain(`never runs: ${REASON}`);
    expect(text).toContain('searched up to 2600-01-04T00:00:00Z');
    expect(result.stdout).not.toContain('nominal');
  });

  it('next --json has the reason in "never", and no runs', async () => {
    const result = await runCli(['next', ...NEVER, ...AFTER, '--json']);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as { runs: unknown[]; never: unknown };
    expect(doc.runs).toEqual([]);
    expect(doc.never).toEqual({
      cause: 'gap-skip',
      message: REASON,
      searchedUntil: '2600-01-04T00:00:00.000Z',
      firstSkipped: '2027-03-28T02:30',
    });
  });

  it('next has no "never" for a schedule that runs, however far away', async () => {
    const result = await runCli([
      'next',
      '0 0 * 2 1#5',
      '--tz',
      'UTC',
      ...AFTER,
      '-n',
      '1',
      '--json',
    ]);
    const doc = JSON.parse(result.stdout) as { runs: { at: string }[]; never?: unknown };
    expect(doc.runs.map((run) => run.at)).toEqual(['2044-02-29T00:00:00.000Z']);
    expect(doc).not.toHaveProperty('never');
  });

  it('explain --tz says it never runs, in text and in --json', async () => {
    const text = await runCli(['explain', ...NEVER, ...AFTER]);
    expect(text.code).toBe(0);
    expect(oneLine(text.stdout)).toContain(`never runs: ${REASON}`);
    const json = await runCli(['explain', ...NEVER, ...AFTER, '--json']);
    expect((JSON.parse(json.stdout) as { never: { message: string } }).never.message).toBe(REASON);
  });

  it('validate refuses the job at its file:line:column with the reason', async () => {
    const result = await runCli(['validate', FIXTURE]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${FIXTURE}:13:15: job 'berlin-spring-gap': field 'schedule': '30 2 * 3 0L' never runs: every local time it matches falls in Europe/Berlin's spring-forward gap (the first, 2000-03-26T02:30: clocks jump from 02:00 to 03:00), and the gap policy is skip`,
    );
    const json = await runCli(['validate', FIXTURE, '--json']);
    const doc = JSON.parse(json.stdout) as { problems: { code: string; line: number }[] };
    expect(doc.problems.map((p) => [p.code, p.line])).toEqual([['never-runs', 13]]);
  });

  it('describe says the same of the file', async () => {
    const result = await runCli(['describe', 'berlin-spring-gap', '--config', FIXTURE]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("'30 2 * 3 0L' never runs: every local time it matches");
  });
});
