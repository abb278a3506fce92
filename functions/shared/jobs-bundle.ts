import { readFileSync } from 'node:fs';
import type { JobDefinition } from './job.ts';
import type { RecordedZone } from './recorded-zones.ts';

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
  /** The Node.js and ICU synth ran on (`process.version`, `process.versions.icu`), for logs. */
  readonly platform: ZoneDataPlatform;
  /**
   * Per enabled job, a fingerprint of what its covering schedule was computed for: the hash of
   * `scheduleFingerprint(job, synthesizedAt)` (its runs and its zone's transitions over the
   * following 366 days). Absent for a job synthesized before fingerprints existed.
   */
  readonly fingerprints: Readonly<Record<string, string>>;
  /**
   * Per zone of an enabled job, its offsets as synth read them over the fingerprints' span
   * (`recordZone`): what the dispatcher compares its own with, and rebuilds synth's rules from.
   */
  readonly zones: Readonly<Record<string, RecordedZone>>;
  /** UTC ISO instant of the synth; the start of every fingerprint's window. */
  readonly synthesizedAt: string;
}

/** Where a copy of the tz database came from. */
export interface ZoneDataPlatform {
  /** `process.version`, e.g. `v20.20.2`. */
  readonly node: string;
  /** `process.versions.icu`, e.g. `78.2`, or `unknown`. */
  readonly icu: string;
}

/**
 * The running Node.js and its ICU.
 *
 * @example
 * currentPlatform() //=> { node: 'v20.20.2', icu: '78.2' }
 */
export function currentPlatform(): ZoneDataPlatform {
  return { node: process.version, icu: process.versions.icu ?? 'unknown' };
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
    platform: parsed.platform ?? UNKNOWN_PLATFORM,
    fingerprints: parsed.fingerprints ?? {},
    zones: parsed.zones ?? {},
    synthesizedAt: parsed.synthesizedAt ?? '',
  };
}

const UNKNOWN_PLATFORM: ZoneDataPlatform = { node: 'unknown', icu: 'unknown' };

/** A bundle with no jobs. */
export function emptyJobsBundle(): JobsBundle {
  return {
    version: 1,
    jobs: [],
    zoneDataVersion: 'unknown',
    platform: UNKNOWN_PLATFORM,
    fingerprints: {},
    zones: {},
    synthesizedAt: '',
  };
}
