/**
 * The app synthesized the way `cdk synth` does it, minus the Lambda bundling, into a temporary
 * folder, and checked against the AWS limits: what `zonecron validate` and the cost estimate
 * run. Everything synth can refuse is refused here too (the loader, the coverings, cdk-nag, the
 * limits); the Lambda packages are judged by the size of jobs.json, which bundling only copies.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { serializeJobsBundle } from '#jobs/jobs-bundle.ts';
import type { JobsConfig } from '../config/load-jobs.ts';
import { InfraError } from '../errors/infra-error.ts';
import { type AssemblyCheck, checkCloudAssembly } from '../limits/check-assembly.ts';
import { createJobsBundle } from '../packaging/jobs-bundle-file.ts';
import { createZonecronApp, type ZonecronInstallation } from './zonecron-app.ts';

/**
 * The context the CDK CLI gives an app on `cdk synth` (its defaults: path, asset and version
 * metadata on), so the templates checked here are byte for byte the ones synth checks, but for
 * the bundling: `aws:cdk:bundling-stacks` names the stacks whose assets are bundled, none.
 */
const CLI_CONTEXT = {
  'aws:cdk:enable-path-metadata': true,
  'aws:cdk:enable-asset-metadata': true,
  'aws:cdk:version-reporting': true,
  'aws:cdk:bundling-stacks': [],
} as const;

/** cdk-nag findings left unacknowledged: synth would fail on them. */
export class NagFindingsError extends InfraError {
  readonly findings: readonly string[];
  constructor(findings: readonly string[]) {
    super(
      `cdk-nag found ${findings.length} unacknowledged finding(s):\n${findings.map((f) => `  ${f}`).join('\n')}`,
    );
    this.findings = findings;
  }
}

/** What {@link synthesizeOffline} found. */
export interface OfflineSynth {
  readonly installations: readonly ZonecronInstallation[];
  readonly check: AssemblyCheck;
  /** The size of the jobs.json both Lambdas would carry, in bytes. */
  readonly jobsJsonBytes: number;
}

/**
 * Synthesizes one installation without bundling, checks it, and removes the assembly.
 *
 * Throws what synth throws (`ConfigError` is the loader's, before this), `NagFindingsError`
 * for unacknowledged cdk-nag findings; limit violations are returned in `check`.
 *
 * @example
 * synthesizeOffline(loadJobsFile('jobs.yaml'), { stackName: 'Zonecron', synthTime: new Date() })
 *   .check.violations //=> []
 */
export function synthesizeOffline(
  config: JobsConfig,
  options: { readonly stackName: string; readonly synthTime: Date },
): OfflineSynth {
  const outdir = mkdtempSync(join(tmpdir(), 'zonecron-validate-'));
  try {
    const app = new App({ outdir, context: { ...CLI_CONTEXT } });
    const built = createZonecronApp({
      app,
      synthTime: options.synthTime,
      installations: [{ config, stackName: options.stackName }],
    });
    let directory: string;
    try {
      directory = app.synth().directory;
    } catch (error) {
      const findings = built
        .nagViolations()
        .flatMap((violation) =>
          violation.violatingResources.map(
            (resource) => `${violation.ruleName} at ${resource.constructPath}`,
          ),
        );
      if (findings.length > 0) throw new NagFindingsError(findings);
      throw error;
    }
    const jobsJsonBytes = Buffer.byteLength(
      serializeJobsBundle(createJobsBundle(config.jobs, { synthTime: options.synthTime })),
      'utf8',
    );
    const check = checkCloudAssembly(directory, { kind: 'estimated', jobsJsonBytes });
    return { installations: built.installations, check, jobsJsonBytes };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
