import { describe, expect, it } from 'vitest';
import { compareZoneDataVersions } from '#zone-drift/zone-fingerprint.ts';
import { holidayDataVersion } from '../../functions/calendar/date-holidays-data.ts';
import { loadJobsFile } from '../../infra/config/load-jobs.ts';
import { coveringSchedule } from '../../infra/covering/covering-cron.ts';
import { type CliResult, hasAnsi, overlongLines, runCli } from './run-cli.ts';

const FIXTURE = 'test/cli/fixtures/berlin.yaml';
// The calendars fixture: every kind of calendar, moved runs included, deploys.
const CALENDARS = 'test/fixtures/jobs/calendars.yaml';
const AFTER = '2023-01-01T00:00:00Z';

describe('zonecron validate', () => {
  // One `validate --json` and one text `validate` of the fixture (each a synth of its stacks,
  // some 4 s of CPU) for the cases that read them. The JSON one runs aws-cdk-lib's
  // CloudFormation validation too, as a user's `validate` does (the suite skips it elsewhere).
  let fixtureJson: Promise<CliResult> | undefined;
  const validateFixtureJson = () => {
    fixtureJson ??= runCli(['validate', FIXTURE, '--after', AFTER, '--json'], {
      env: { CDK_VALIDATION: 'true' },
    });
    return fixtureJson;
  };
  let fixtureText: Promise<CliResult> | undefined;
  const validateFixtureText = () => {
    fixtureText ??= runCli(['validate', FIXTURE, '--after', AFTER]);
    return fixtureText;
  };

  it('lists each job with the covering expression the stack deploys, and warns about DST nights', async () => {
    const result = await validateFixtureJson();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      valid: boolean;
      jobs: { id: string; sentence: string; enabled: boolean; covering: unknown }[];
      warnings: { jobId: string; transitionAt: string; kind: string; text: string }[];
      deploy: { stacks: string[]; notes: string[]; violations: string[] };
    };
    const config = loadJobsFile(FIXTURE);
    expect(doc.valid).toBe(true);
    expect(doc.jobs.map((j) => [j.id, j.enabled, j.covering])).toEqual(
      config.jobs.map((job) => [
        job.id,
        job.enabled,
        job.enabled ? coveringSchedule(job, new Date(AFTER)) : null,
      ]),
    );
    expect(doc.jobs.map((j) => j.sentence)).toEqual([
      'at 02:30 every day',
      'every 30 minutes',
      'every hour at minute 0',
    ]);
    expect(doc.warnings).toEqual([
      {
        jobId: 'berlin-nightly',
        transitionAt: '2023-03-26T01:00:00.000Z',
        kind: 'gap',
        text: '02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:30 CEST',
      },
      {
        jobId: 'berlin-nightly',
        transitionAt: '2023-10-29T01:00:00.000Z',
        kind: 'overlap',
        text: '02:30 happens twice on 2023-10-29 in Europe/Berlin — runs once, at the first (CEST)',
      },
      {
        jobId: 'london-half-hourly',
        transitionAt: '2023-03-26T01:00:00.000Z',
        kind: 'gap',
        text: '01:00, 01:30 do not exist on 2023-03-26 in Europe/London — skipped (gap policy skip)',
      },
      {
        jobId: 'london-half-hourly',
        transitionAt: '2023-10-29T01:00:00.000Z',
        kind: 'overlap',
        text: '01:00, 01:30 happen twice on 2023-10-29 in Europe/London — runs at both (BST and GMT)',
      },
    ]);
  });

  it('synthesizes the stacks synth would write and checks them against the AWS limits', async () => {
    const result = await validateFixtureJson();
    const { deploy } = JSON.parse(result.stdout) as {
      deploy: { stacks: string[]; notes: string[]; violations: string[] };
    };
    expect(deploy.stacks[0]).toBe('Zonecron');
    // Two enabled jobs and one lambda target hash to at most three shards.
    expect(deploy.stacks.slice(1).every((name) => /^Zonecron-jobs-\d\d$/.test(name))).toBe(true);
    expect(deploy.stacks.length).toBeGreaterThanOrEqual(2);
    expect(deploy.stacks.length).toBeLessThanOrEqual(4);
    expect(deploy.violations).toEqual([]);
    expect(deploy.notes[0]).toContain('deploy them together: npx cdk deploy --all');
  });

  it('refuses what synth refuses beyond the file: a stack name CloudFormation would not take', async () => {
    const result = await runCli(['validate', FIXTURE, '--stack-name', '9lives']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "invalid stack name '9lives': allowed: a letter, then letters, digits and hyphens",
    );
  });

  it('prints the summary table and warnings within 80 columns', async () => {
    const result = await validateFixtureText();
    expect(result.code).toBe(0);
    expect(hasAnsi(result.stdout)).toBe(false);
    expect(overlongLines(result.stdout)).toEqual([]);
    expect(result.stdout).toContain('3 jobs valid (2 enabled)');
    expect(result.stdout).toContain('✓ every AWS limit a deploy meets is met');
    expect(result.stdout).toMatch(
      /\nswitched-off +0 \* \* \* \* +disabled +-\nsns +UTC\n +↳ every hour at minute 0\n/,
    );
    expect(result.stdout.replace(/\n\s+/g, ' ')).toContain(
      'WARNING berlin-nightly: 02:30 does not exist on 2023-03-26 in Europe/Berlin — runs at 03:30 CEST',
    );
  });

  it('prints the zone data in use, as text and in --json, and warns about a job zone a recent tz release changed', async () => {
    const args = [
      'validate',
      'test/cli/fixtures/changed-zones.yaml',
      '--after',
      '2026-11-30T00:00:00Z',
    ];
    const json = await runCli([...args, '--json']);
    const { zoneData } = JSON.parse(json.stdout) as {
      zoneData: {
        zoneData: { tz: string; icu: string; node: string };
        warnings: { timezone: string; jobIds: string[]; release: string; knownHere: boolean }[];
      };
    };
    const inUse = { tz: process.versions.tz, icu: process.versions.icu, node: process.version };
    expect(zoneData.zoneData).toEqual(inUse);
    const knownHere = (compareZoneDataVersions(inUse.tz ?? '', '2026b') ?? -1) >= 0;
    expect(zoneData.warnings.map((w) => [w.timezone, w.jobIds, w.release, w.knownHere])).toEqual([
      ['America/Vancouver', ['payroll'], '2026b', knownHere],
    ]);

    const text = await runCli(args);
    expect(text.code).toBe(0);
    expect(overlongLines(text.stdout)).toEqual([]);
    const flat = text.stdout.replace(/\n\s*/g, ' ');
    expect(flat).toContain(`zone data: tz ${inUse.tz} (ICU ${inUse.icu}, Node ${inUse.node})`);
    expect(flat).toContain('ZONE America/Vancouver changed in tz 2026b (2026-04-22)');
    expect(flat).toContain('Jobs: payroll.');
  });

  it('passes a job whose calendar moves runs with an every-day covering, warns at file:line:column about an until that has passed and an at in the past, and prints the holiday data version, as text and in --json', async () => {
    const args = ['validate', CALENDARS, '--after', '2027-01-01T00:00:00Z'];
    const json = await runCli([...args, '--json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as {
      valid: boolean;
      configWarnings: {
        line: number;
        column: number;
        jobId: string;
        field: string;
        code: string;
      }[];
      holidayData: unknown;
      zoneData: unknown;
      jobs: { id: string; covering: { awsExpression: string } | null }[];
    };
    expect(doc.valid).toBe(true);
    // A calendar that moves runs deploys: its covering fires every day, at the job's times.
    expect(doc.jobs.find((j) => j.id === 'invoices')?.covering?.awsExpression).toBe(
      'cron(0 7,8 * * ? *)',
    );
    expect(doc.configWarnings.map((w) => [w.line, w.column, w.jobId, w.field, w.code])).toEqual([
      [52, 9, 'christmas-greeting', 'at', 'past'],
      [59, 12, 'summer-campaign', 'until', 'past'],
    ]);
    expect(doc.holidayData).toEqual(holidayDataVersion());
    expect(doc.zoneData).not.toBeNull();

    const text = await runCli(args);
    expect(text.code).toBe(0);
    expect(overlongLines(text.stdout)).toEqual([]);
    const flat = text.stdout.replace(/\n\s*/g, ' ');
    expect(flat).toContain(
      `WARNING ${CALENDARS}:52:9: christmas-greeting: at '2026-12-24T18:00' (2026-12-24T17:00:00.000Z) is in the past: the job will not run`,
    );
    expect(flat).toContain(
      `WARNING ${CALENDARS}:59:12: summer-campaign: until (2026-08-31T22:00:00.000Z) has passed`,
    );
    const { version, dataVersion } = holidayDataVersion();
    expect(flat).toContain(`holiday data: date-holidays ${version} (data ${dataVersion})`);
  });

  it('gives no past warning for a bound still ahead of --after, and no holiday data line without holidays', async () => {
    const ahead = await runCli([
      'validate',
      CALENDARS,
      '--after',
      '2026-06-01T00:00:00Z',
      '--json',
    ]);
    const doc = JSON.parse(ahead.stdout) as { configWarnings: unknown[] };
    expect(doc.configWarnings).toEqual([]);
    const plain = await validateFixtureText();
    expect(plain.stdout).not.toContain('holiday data');
    expect(plain.stdout).not.toContain('WARNING test/cli');
  });

  it('fails like synth, with file:line:column messages', async () => {
    const result = await runCli(['validate', 'test/cli/fixtures/invalid.yaml']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "test/cli/fixtures/invalid.yaml:4:15: job 'broken': field 'schedule': invalid value '61' for field 'minute' at position 0 (allowed 0-59)\n" +
        'zonecron: error: 1 problem in test/cli/fixtures/invalid.yaml\n',
    );
  });

  it('prints one JSON document with the problems of an invalid file, and exit code 1', async () => {
    const result = await runCli(['validate', 'test/cli/fixtures/invalid.yaml', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      file: 'test/cli/fixtures/invalid.yaml',
      valid: false,
      problems: [
        {
          file: 'test/cli/fixtures/invalid.yaml',
          line: 4,
          column: 15,
          jobId: 'broken',
          field: 'schedule',
          message: "invalid value '61' for field 'minute' at position 0 (allowed 0-59)",
          code: 'invalid-schedule',
        },
      ],
      jobs: [],
      warnings: [],
      deploy: null,
      zoneData: null,
      configWarnings: [],
      holidayData: null,
    });
  });

  it('prints one JSON document for a command line it refuses, and exit code 2', async () => {
    const result = await runCli(['validate', '--json', '--after', 'soon']);
    expect(result.code).toBe(2);
    const doc = JSON.parse(result.stdout) as { valid: boolean; problems: { code: string }[] };
    expect(doc.valid).toBe(false);
    expect(doc.problems.map((p) => p.code)).toEqual(['usage']);
  });

  it('says a binary file is not a text file without repeating its bytes', async () => {
    // The node binary stands for any binary file (`zonecron validate /bin/ls`).
    const result = await runCli(['validate', process.execPath, '--json']);
    expect(result.code).toBe(1);
    const doc = JSON.parse(result.stdout) as { problems: { code: string; message: string }[] };
    expect(doc.problems).toEqual([
      {
        file: process.execPath,
        line: 0,
        column: 0,
        jobId: null,
        field: '',
        message: expect.stringMatching(/^jobs file: not a text file \(a NUL byte at offset \d+\)/),
        code: 'not-text',
      },
    ]);
    expect(result.stderr).toMatch(/^zonecron: error: .*: jobs file: not a text file .*\n$/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no raw control bytes echoed
    expect(result.stderr + result.stdout).not.toMatch(/[\u0000-\u0008\u000e-\u001f]/);
  });
});
