/**
 * `npx cdk synth` end to end, as an infra engineer runs it: offline, from the project's own
 * cdk.json. Each case is one child process (slow: esbuild bundling and template validation).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function cdkSynth(args: string[]) {
  const outdir = mkdtempSync(join(tmpdir(), 'zonecron-cdk-'));
  const result = spawnSync('npx', ['cdk', 'synth', '--quiet', '-o', outdir, ...args], {
    encoding: 'utf8',
    // The suite skips aws-cdk-lib's CloudFormation validation (vitest.config.mts); `cdk synth`
    // runs it, as a deploy does.
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', CDK_VALIDATION: 'true' },
    timeout: 280_000,
  });
  return { ...result, outdir };
}

describe('cdk synth', () => {
  it('fails on a bad jobs file, naming the job and the engine message, and writes no template', () => {
    const result = cdkSynth(['-c', 'jobs=test/fixtures/stack/bad.yaml']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("job 'broken-hour'");
    expect(result.stderr).toContain("invalid value '25' for field 'hour'");
    expect(result.stderr).toContain('test/fixtures/stack/bad.yaml:13:15');
    expect(existsSync(join(result.outdir, 'Zonecron.template.json'))).toBe(false);
  }, 300_000);

  it('synthesizes jobs.yaml offline into a main stack and its shards, and prints the per-job covering table', () => {
    const result = cdkSynth([]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /berlin-nightly-report\s+30 2 \* \* \*\s+Europe\/Berlin\s+lambda\s+cron\(30 0,1 \* \* \? \*\)\s+2\.00/,
    );
    expect(result.stderr).toContain('deploy them together: npx cdk deploy --all');
    const templates = readdirSync(result.outdir).filter((f) => f.endsWith('.template.json'));
    expect(templates).toContain('Zonecron.template.json');
    const names = templates.flatMap((file) => {
      const template = JSON.parse(readFileSync(join(result.outdir, file), 'utf8')) as {
        Resources: Record<string, { Type: string; Properties?: { Name?: string } }>;
      };
      return Object.values(template.Resources)
        .filter((r) => r.Type === 'AWS::Scheduler::Schedule')
        .map((r) => r.Properties?.Name);
    });
    // Eight enabled jobs in jobs.yaml, plus the sweep.
    expect(names).toHaveLength(9);
  }, 300_000);

  it('keeps telemetry and notices off in the project config', () => {
    const cdkJson = JSON.parse(readFileSync('cdk.json', 'utf8')) as {
      notices: boolean;
      context: Record<string, unknown>;
    };
    expect(cdkJson.notices).toBe(false);
    expect(cdkJson.context['cli-telemetry']).toBe(false);
  });
});
