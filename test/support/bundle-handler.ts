import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JobDefinition } from '#jobs/job.ts';
import { bundleFunction, FUNCTION_HANDLER_FILE } from '../../infra/packaging/bundling.ts';
import {
  createJobsBundle,
  type JobsBundleOptions,
  writeJobsBundle,
} from '../../infra/packaging/jobs-bundle-file.ts';

/** A Lambda handler as the stack ships it. */
export type BundledHandler = (event: unknown) => Promise<unknown>;

/**
 * Bundles a Lambda entry with the stack's esbuild options, writes `jobs.json` beside it (synth
 * now, on this machine's zone rules, unless `bundleOptions` says otherwise), and imports it:
 * the handler exactly as Lambda loads it, environment and all.
 *
 * @example
 * const handler = await bundleHandler('functions/recorder/handler.ts', [job], 'recorder');
 */
export async function bundleHandler(
  entry: string,
  jobs: readonly JobDefinition[],
  name: string,
  bundleOptions: Partial<JobsBundleOptions> = {},
): Promise<BundledHandler> {
  const outDir = join(
    process.cwd(),
    'node_modules',
    '.cache',
    'zonecron-test',
    `${name}-${process.pid}`,
  );
  writeJobsBundle(outDir, createJobsBundle(jobs, { synthTime: new Date(), ...bundleOptions }));
  bundleFunction({ entry, outDir });
  const outfile = join(outDir, FUNCTION_HANDLER_FILE);
  const module = (await import(`${pathToFileURL(outfile).href}?${Date.now()}`)) as {
    handler: BundledHandler;
  };
  return module.handler;
}
