import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { overlongLines, REPO_ROOT, runCli } from './run-cli.ts';

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
      code: 2,
      message:
        "zonecron: error: unknown time zone 'Europe/Atlantis' (allowed an IANA zone name such as Europe/Berlin)",
    },
    {
      name: 'a bad expression',
      args: ['next', '61 9 * * *', '--tz', 'UTC'],
      code: 2,
      message:
        "zonecron: error: invalid value '61' for field 'minute' at position 0 (allowed 0-59)",
    },
    {
      name: 'a zone in the wrong case',
      args: ['explain', '0 9 * * *', '--tz', 'europe/berlin'],
      code: 2,
      message:
        "zonecron: error: invalid time zone 'europe/berlin': wrong case; did you mean 'Europe/Berlin'? (allowed an IANA zone name such as Europe/Berlin)",
    },
    {
      name: 'more runs than next lists',
      args: ['next', '0 9 * * *', '--tz', 'UTC', '-n', '5000'],
      code: 2,
      message:
        "zonecron: error: option '-n, --count <n>' argument '5000' is invalid. '5000' is out of range (allowed 1 to 1000)",
    },
    {
      name: 'DST policies with a jobs file',
      args: ['next', '--config', 'jobs.yaml', '--gap', 'skip'],
      code: 2,
      message:
        'zonecron: error: --gap and --overlap do not go with --config: each job has the DST policies its file gives it; to try another, preview its expression: zonecron next "<expr>" --tz <zone> --gap …',
    },
    {
      name: 'an unknown job id',
      args: ['next', '--config', 'test/cli/fixtures/berlin.yaml', '--job-id', 'berlin-nightyl'],
      code: 2,
      message:
        "zonecron: error: unknown job 'berlin-nightyl' in test/cli/fixtures/berlin.yaml; did you mean 'berlin-nightly'? (3 jobs: berlin-nightly, london-half-hourly, switched-off)",
    },
    {
      name: 'a value the command checks itself',
      args: ['history', 'nightly', '--table', 'ledger', '--since', 'soon'],
      code: 2,
      message:
        "zonecron: error: option '--since <when>' argument 'soon' is invalid. 'soon' is neither a duration (e.g. 24h, 7d, PT30M) nor an instant (allowed 2026-12-02T09:00Z or …+01:00; in the zone 2026-12-02T09:00, 2026-12-02, today, tomorrow or yesterday, with a time or not (tomorrow 09:00); now)",
    },
    {
      name: 'a bad date',
      args: ['simulate', '--from', '2023-02-30T25:00'],
      code: 2,
      message:
        "zonecron: error: option '--from <instant>' argument '2023-02-30T25:00' is invalid. '2023-02-30T25:00' is not an instant (allowed 2026-12-02T09:00Z or …+01:00; in the zone 2026-12-02T09:00, 2026-12-02, today, tomorrow or yesterday, with a time or not (tomorrow 09:00); now)",
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
        "zonecron: error: option '--since <when>' argument 'bogus' is invalid. 'bogus' is neither a duration (e.g. 24h, 7d, PT30M) nor an instant (allowed 2026-12-02T09:00Z or …+01:00; in the zone 2026-12-02T09:00, 2026-12-02, today, tomorrow or yesterday, with a time or not (tomorrow 09:00); now)",
    },
    {
      name: 'a port no server can listen on',
      args: ['sandbox', '--sqs-port', '99999'],
      code: 2,
      message:
        "zonecron: error: option '--sqs-port <n>' argument '99999' is invalid. '99999' is out of range (allowed 1 to 65535)",
    },
    {
      name: 'a prefix of job ids',
      args: ['describe', 'london', '--config', 'test/cli/fixtures/berlin.yaml'],
      code: 2,
      message:
        "zonecron: error: unknown job 'london' in test/cli/fixtures/berlin.yaml; did you mean 'london-half-hourly'? (3 jobs: berlin-nightly, london-half-hourly, switched-off)",
    },
    {
      name: 'an EventBridge rate expression',
      args: ['explain', 'rate(15 minutes)'],
      code: 2,
      message:
        "zonecron: error: expected 5 fields but got 2 at position 16: zonecron expressions have 5 fields (minute hour day-of-month month day-of-week); rate(…) is AWS EventBridge Scheduler's rate expression, not cron: write it as `*/15 * * * *`",
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

  it('shows the help on stderr with exit code 2 when a subcommand is missing', async () => {
    const result = await runCli(['dlq']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: zonecron dlq /);
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
      ['calendar'],
      ['validate'],
      ['simulate'],
      ['list'],
      ['describe'],
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
      ['sandbox', 'fail'],
      ['sandbox', 'hang'],
      ['sandbox', 'heal'],
      ['completion'],
    ].map((command) => [command.join(' '), command] as const),
  )('shows an example for %s, within 80 columns', async (_name, command) => {
    const result = await runCli([...command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nExamples?:\n {2}\$ zonecron /);
    expect(overlongLines(result.stdout)).toEqual([]);
  });
});

/** The commands of docs/cli.md's exit-code table (`dlq list`, `next`, …). */
function documentedExitCodes(): string[] {
  const docs = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8');
  const section = docs.slice(
    docs.indexOf('### Exit codes'),
    docs.indexOf('\n## ', docs.indexOf('### Exit codes')),
  );
  return [...section.matchAll(/^\| `([a-z ]+)` \|/gm)].map((match) => match[1] ?? '');
}

describe('exit codes', () => {
  it('are listed by --help, and docs/cli.md says what every command means by them', async () => {
    const result = await runCli(['--help']);
    expect(result.stdout).toContain(
      'Exit codes: 0 success, 1 the command ran and something failed',
    );
    const listed = result.stdout
      .slice(result.stdout.indexOf('Commands:\n'))
      .split('\n')
      .flatMap((line) => /^ {2}([a-z]+)/.exec(line)?.[1] ?? [])
      .filter((command) => command !== 'help');
    const documented = documentedExitCodes();
    expect(listed.length).toBeGreaterThan(5);
    for (const command of listed) {
      expect(documented.filter((row) => row.split(' ')[0] === command)).not.toEqual([]);
    }
  });
});
