import { describe, expect, it } from 'vitest';
import { overlongLines, runCli } from './run-cli.ts';

/** One line on stderr, `zonecron: error: …`, no stack trace, nothing on stdout. */
function expectOneLineError(result: { code: number; stdout: string; stderr: string }) {
  expect(result.stdout).toBe('');
  expect(result.stderr.endsWith('\n')).toBe(true);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^zonecron: error: \S/);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return lines[0] ?? '';
}

describe('zonecron on bad input', () => {
  it.each([
    {
      name: 'an unknown flag',
      args: ['next', '0 9 * * *', '--tz', 'UTC', '--frobnicate'],
      code: 2,
      message: "zonecron: error: unknown option '--frobnicate'",
    },
    {
      name: 'an unknown zone',
      args: ['next', '0 9 * * *', '--tz', 'Europe/Atlantis'],
      code: 1,
      message:
        "zonecron: error: unknown time zone 'Europe/Atlantis' (allowed an IANA zone name such as Europe/Berlin)",
    },
    {
      name: 'a bad expression',
      args: ['next', '61 9 * * *', '--tz', 'UTC'],
      code: 1,
      message:
        "zonecron: error: invalid value '61' for field 'minute' at position 0 (allowed 0-59)",
    },
    {
      name: 'a bad date',
      args: ['simulate', '--from', '2023-02-30T25:00'],
      code: 2,
      message:
        "zonecron: error: option '--from <instant>' argument '2023-02-30T25:00' is invalid. '2023-02-30T25:00' is not an ISO 8601 date-time (e.g. 2023-03-26T01:30:00Z)",
    },
    {
      name: 'a missing jobs file',
      args: ['validate', 'no/such/jobs.yaml'],
      code: 1,
      message: 'zonecron: error: no/such/jobs.yaml: jobs file: no such file',
    },
    {
      name: 'a missing ledger table name',
      args: ['history', 'nightly'],
      code: 2,
      message:
        'zonecron: error: no ledger table: pass --stack <name> (or set ZONECRON_STACK), or --table <name> (or set ZONECRON_TABLE)',
    },
    {
      name: 'a --since that is neither a duration nor an instant',
      args: ['history', 'nightly', '--since', 'bogus', '--table', 'ledger'],
      code: 2,
      message:
        "zonecron: error: option '--since <when>' argument 'bogus' is invalid. 'bogus' is neither a duration (e.g. 24h, 7d, PT30M) nor an ISO 8601 date-time",
    },
    {
      name: 'an unknown command',
      args: ['deploy'],
      code: 2,
      message: "zonecron: error: unknown command 'deploy'",
    },
  ])('reports $name in one line', async ({ args, code, message }) => {
    const result = await runCli(args);
    expect(expectOneLineError(result)).toBe(message);
    expect(result.code).toBe(code);
  });

  it('gives up quickly on an unreachable endpoint, in one line', async () => {
    const result = await runCli(
      ['history', 'nightly', '--table', 'ledger', '--endpoint-url', 'http://127.0.0.1:9'],
      { env: { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'us-east-1' } },
    );
    expect(expectOneLineError(result)).toBe(
      "zonecron: error: cannot read the ledger table 'ledger': cannot reach http://127.0.0.1:9 (ECONNREFUSED)",
    );
    expect(result.code).toBe(1);
  });
});

describe('zonecron --help', () => {
  it.each(
    [
      ['next'],
      ['explain'],
      ['validate'],
      ['simulate'],
      ['history'],
      ['run'],
      ['dlq'],
      ['dlq', 'list'],
      ['dlq', 'redrive'],
      ['dlq', 'discard'],
      ['pause'],
      ['resume'],
      ['backfill'],
      ['sandbox'],
      ['completion'],
    ].map((command) => [command.join(' '), command] as const),
  )('shows an example for %s, within 80 columns', async (_name, command) => {
    const result = await runCli([...command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nExamples?:\n {2}\$ zonecron /);
    expect(overlongLines(result.stdout)).toEqual([]);
  });
});
