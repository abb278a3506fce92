import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const JOBS = 'test/cli/fixtures/berlin.yaml';
const INVALID = 'test/cli/fixtures/invalid.yaml';
/** Credentials an SDK call needs before it finds the endpoint unreachable. */
const UNREACHABLE = {
  args: ['--table', 'ledger', '--endpoint-url', 'http://127.0.0.1:9'],
  env: { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'us-east-1' },
};

/** A failing command line of every command with `--json`, and the error it must report. */
const FAILURES = [
  { command: 'next', args: ['next', '61 9 * * *', '--tz', 'UTC'], code: 'usage' },
  { command: 'explain', args: ['explain', 'rate(5 minutes)'], code: 'usage' },
  {
    command: 'calendar',
    args: ['calendar', 'berlim', '--config', 'test/cli/fixtures/calendar-jobs.yaml'],
    code: 'usage',
  },
  {
    command: 'calendar (invalid file)',
    args: ['calendar', 'x', '--config', INVALID],
    code: 'invalid-config',
  },
  { command: 'simulate', args: ['simulate', '--config', INVALID], code: 'invalid-config' },
  { command: 'list', args: ['list', '--config', INVALID], code: 'invalid-config' },
  { command: 'describe', args: ['describe', 'berlin', '--config', JOBS], code: 'usage' },
  { command: 'history', args: ['history', 'nightly', ...UNREACHABLE.args], code: 'failure' },
  { command: 'run', args: ['run', 'nope', '--config', JOBS, '--table', 'ledger'], code: 'usage' },
  { command: 'dlq list', args: ['dlq', 'list'], code: 'usage' },
  { command: 'dlq redrive', args: ['dlq', 'redrive', '--dlq-url', 'http://q'], code: 'usage' },
  { command: 'dlq discard', args: ['dlq', 'discard', '--key', 'k'], code: 'usage' },
  {
    command: 'pause',
    args: ['pause', 'berlin-nightly', '--config', JOBS, '--until', 'soon'],
    code: 'usage',
  },
  { command: 'resume', args: ['resume', 'nope', '--config', JOBS, '--table', 'l'], code: 'usage' },
  {
    command: 'backfill',
    args: ['backfill', 'berlin-nightly', '--from', '2026-02-30', '--to', 'today'],
    code: 'usage',
  },
  { command: 'sandbox', args: ['sandbox', '--sqs-port', '99999'], code: 'usage' },
  { command: 'sandbox fail', args: ['sandbox', 'fail', 'nightly'], code: 'failure' },
  { command: 'an unknown option', args: ['next', '--frobnicate'], code: 'usage' },
] as const;

describe('--json when a command fails', () => {
  it.each(FAILURES)(
    '$command prints one error document on stdout, and the message on stderr',
    async ({ args, code }) => {
      const result = await runCli([...args, '--json'], { env: UNREACHABLE.env });
      expect(result.code).toBe(code === 'usage' ? 2 : 1);
      const doc = JSON.parse(result.stdout);
      expect(Object.keys(doc)).toEqual(['error']);
      expect(doc.error).toMatchObject({ code, exitCode: result.code });
      expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
        `zonecron: error: ${doc.error.message}`,
      );
      expect(doc.error.problems.length > 0).toBe(code === 'invalid-config');
    },
  );

  it("validate's failure stays its own one document, the validation report", async () => {
    const result = await runCli(['validate', 'no/such/jobs.yaml', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: false, file: 'no/such/jobs.yaml' });
  });

  it('prints nothing on stdout for a failure without --json', async () => {
    const result = await runCli(['describe', 'berlin', '--config', JOBS]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});
