import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobDefinition } from '../functions/shared/job.ts';
import {
  JOBS_BUNDLE_FILE,
  type JobsBundle,
  serializeJobsBundle,
} from '../functions/shared/jobs-bundle.ts';

/** What a jobs bundle records besides the jobs. */
export interface JobsBundleOptions {
  /** When synth ran. */
  readonly synthTime: Date;
  /** Per enabled job, the fingerprint of its covering's inputs. @default {} */
  readonly fingerprints?: Readonly<Record<string, string>>;
}

/**
 * The jobs bundle the stack ships to both Lambdas (`functions/shared/jobs-bundle.ts`).
 *
 * @example
 * createJobsBundle(config.jobs, { synthTime: new Date() }).zoneDataVersion //=> '2025c'
 */
export function createJobsBundle(
  jobs: readonly JobDefinition[],
  options: JobsBundleOptions,
): JobsBundle {
  return {
    version: 2,
    jobs,
    zoneDataVersion: process.versions.tz ?? 'unknown',
    fingerprints: options.fingerprints ?? {},
    synthesizedAt: options.synthTime.toISOString(),
  };
}

/** Writes `jobs.json` into `dir` (created if missing); returns the file's path. */
export function writeJobsBundle(dir: string, bundle: JobsBundle): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, JOBS_BUNDLE_FILE);
  writeFileSync(path, serializeJobsBundle(bundle));
  return path;
}
