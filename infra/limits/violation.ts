/**
 * What the limit checks report, and the helpers they share.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AWS_LIMITS, type LimitName } from './aws-limits.ts';

/** One thing a deploy would refuse. */
export interface LimitViolation {
  /** The template file (`Zonecron-jobs-07.template.json`). */
  readonly template: string;
  /** The resource or part concerned, or '' for the template as a whole. */
  readonly where: string;
  /** The limit's name in `AWS_LIMITS`, or `syntax`/`duplicate` for what is not a number. */
  readonly limit: LimitName | 'syntax' | 'duplicate';
  /** The whole sentence: what, how much, what is allowed, and the AWS document. */
  readonly message: string;
}

/** How the Lambda deployment packages are judged. */
export type LambdaCodeCheck =
  /** Bundled: measure each package's files. */
  | { readonly kind: 'staged' }
  /** Bundling skipped (`zonecron validate`): jobs.json's size plus the handler's allowance. */
  | { readonly kind: 'estimated'; readonly jobsJsonBytes: number };

/**
 * The most the bundled handler (`index.mjs` and its source map, without jobs.json) may take of
 * Lambda's 250 MB: what `zonecron validate`, which skips bundling, assumes; a synth whose handler
 * outgrows it fails, so the assumption is checked every time.
 */
export const LAMBDA_HANDLER_ALLOWANCE_BYTES = 20 * 1024 * 1024;

/** The file the jobs travel in, beside each handler. */
const JOBS_FILE = 'jobs.json';

/** A violation of a numeric limit. */
export function over(
  template: string,
  where: string,
  limit: LimitName,
  actual: number,
): LimitViolation {
  const { max, what, doc } = AWS_LIMITS[limit];
  const subject = where === '' ? template : `${template}: ${where}`;
  return {
    template,
    where,
    limit,
    message: `${subject}: ${actual.toLocaleString('en-US')} ${what}, at most ${max.toLocaleString('en-US')} allowed (${doc})`,
  };
}

/** The bytes of the files under a directory (a Lambda package before it is zipped). */
export function directoryBytes(path: string): { total: number; jobsJson: number } {
  let total = 0;
  let jobsJson = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) {
      const inner = directoryBytes(full);
      total += inner.total;
      jobsJson += inner.jobsJson;
    } else {
      const size = statSync(full).size;
      total += size;
      if (entry.name === JOBS_FILE) jobsJson += size;
    }
  }
  return { total, jobsJson };
}
