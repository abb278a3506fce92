import { readFileSync } from 'node:fs';
import type { JobDefinition } from './job.ts';

/** The file the stack writes next to each Lambda's bundled handler. */
export const JOBS_BUNDLE_FILE = 'jobs.json';

/**
 * What the stack ships to the dispatcher and the recorder: every configured job, and what the
 * synthesizing machine knew when it computed the covering schedules.
 *
 * A file beside the handler rather than a constant compiled into it: esbuild's `define` passes
 * its value as one command-line argument, which Linux caps at 128 KiB (about 290 jobs).
 */
export interface JobsBundle {
  readonly version: 1;
  /** Every configured job, enabled or not, in file order. */
  readonly jobs: readonly JobDefinition[];
  /** The IANA time-zone data version synth ran with (`process.versions.tz`), or `unknown`. */
  readonly zoneDataVersion: string;
  /**
   * Per enabled job, a fingerprint of what its covering schedule was computed for (its runs
   * and its zone's transitions over the following year, hashed). Absent for a job synthesized
   * before fingerprints existed.
   */
  readonly fingerprints: Readonly<Record<string, string>>;
  /** UTC ISO instant of the synth. */
  readonly synthesizedAt: string;
}

/** The bundle file is present but not a jobs bundle this code understands. */
export class InvalidJobsBundleError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${path} is not a zonecron jobs bundle (${reason})`);
    this.name = new.target.name;
    this.path = path;
  }
}

/**
 * Reads the jobs bundle next to a handler; an empty bundle when there is no such file (the
 * handler loaded from source, in tests).
 *
 * @example
 * const bundle = loadJobsBundle(new URL(JOBS_BUNDLE_FILE, import.meta.url));
 * bundle.jobs.length //=> 6
 */
export function loadJobsBundle(url: URL): JobsBundle {
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return emptyJobsBundle();
  }
  const parsed = JSON.parse(text) as Partial<JobsBundle>;
  if (parsed.version !== 1) {
    throw new InvalidJobsBundleError(url.pathname, `version ${String(parsed.version)}`);
  }
  if (!Array.isArray(parsed.jobs)) {
    throw new InvalidJobsBundleError(url.pathname, 'jobs is not a list');
  }
  return {
    version: 1,
    jobs: parsed.jobs,
    zoneDataVersion: parsed.zoneDataVersion ?? 'unknown',
    fingerprints: parsed.fingerprints ?? {},
    synthesizedAt: parsed.synthesizedAt ?? '',
  };
}

/** A bundle with no jobs. */
export function emptyJobsBundle(): JobsBundle {
  return { version: 1, jobs: [], zoneDataVersion: 'unknown', fingerprints: {}, synthesizedAt: '' };
}
